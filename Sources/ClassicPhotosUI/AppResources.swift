import CGtk
import Foundation
import GLibKit
import PhotoPipeline

/// Finds the app's data folder: the bundled photo list and its photos.
enum AppResources {
    /// The folder holding `ClassicPhotos.plist` and its photos: `given` (the configuration's,
    /// `$CLASSIC_PHOTOS_DATADIR`) if it holds them, the installed share folder beside the
    /// binary, or the source tree's `data/` above it.
    static func dataDirectory(_ given: String?) -> URL? {
        let fm = FileManager.default
        func holdsData(_ url: URL) -> Bool {
            fm.fileExists(atPath: url.appendingPathComponent("ClassicPhotos.plist").path)
        }
        if let given, holdsData(URL(fileURLWithPath: given)) { return URL(fileURLWithPath: given) }
        var folder = executable.deletingLastPathComponent()
        let installed = folder.deletingLastPathComponent().appendingPathComponent("share/classic-photos")
        if holdsData(installed) { return installed }
        while folder.pathComponents.count > 1 {
            let candidate = folder.appendingPathComponent("data")
            if holdsData(candidate) { return candidate }
            folder.deleteLastPathComponent()
        }
        return nil
    }

    /// The running binary, symbolic links resolved. The kernel's record of it, not `argv[0]`:
    /// started by name from `PATH` (from a terminal), `argv[0]` is only "classic-photos".
    static var executable: URL {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return URL(fileURLWithPath: path)
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    }

    /// The photo list shown when none is given.
    static func bundledList(_ configuration: AppConfiguration) -> URL? {
        dataDirectory(configuration.dataDirectory)?.appendingPathComponent("ClassicPhotos.plist")
    }
}
