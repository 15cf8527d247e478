import Foundation

/// Turns what the user named (a command-line argument, a dropped file, an address typed in)
/// into a photo source.
public enum PhotoSources {
    /// The most entries a source's first `PhotoSourceBatch` holds (and each batch of a list,
    /// read a little at a time).
    public static let batchSize = 10_000
    /// The most entries a batch after the first holds where a source has them all at once (a
    /// folder, read whole before it is ordered).
    public static let bulkBatchSize = 100_000

    /// The source `argument` names: an `http(s)` address is a property list on the web; a
    /// path or `file:` URL is decided when read (folder, picture, or list file). Relative
    /// paths are taken relative to `directory`.
    public static func source(
        for argument: String,
        relativeTo directory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    ) -> any PhotoSource {
        source(for: location(of: argument, relativeTo: directory))
    }

    /// The source at an absolute `location`: a local path, a place on a network share or
    /// device (read through GIO), or a photo list on the web.
    public static func source(for location: URL) -> any PhotoSource {
        if location.isFileURL { return LocalSource(location: location) }
        if RemoteLocation.isRemote(location) { return RemoteSource(location: location) }
        return PropertyListSource(location: location)
    }

    /// Turns a command-line argument (URL or path) into the source's URL.
    public static func location(
        of argument: String,
        relativeTo directory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    ) -> URL {
        if let url = URL(string: argument), let scheme = url.scheme,
            URL.isWebScheme(scheme) || scheme.lowercased() == "file" || RemoteLocation.isRemoteScheme(scheme)
        {
            return url
        }
        let path = argument.hasPrefix("/") ? argument : directory.appendingPathComponent(argument).path
        return URL(fileURLWithPath: path).standardizedFileURL
    }
}
