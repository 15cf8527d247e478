/// Parses a photo list: the tutorial's property list of photo name → image URL.
///
/// Two shapes are accepted: a dictionary of name → URL (shown sorted by name, so the order is
/// stable), and an array of `{name, url}` dictionaries (order kept). Relative URLs resolve
/// against the list's own location.
import Foundation

/// Why a list could not be read, in words for the “Oops!” alert.
public struct PhotoListError: Error, CustomStringConvertible, Sendable, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

public enum PhotoList {
    /// Parses list bytes fetched from `base` (the list's own URL).
    public static func parse(_ data: Data, base: URL) throws(PhotoListError) -> [PhotoEntry] {
        let root: Any
        do {
            root = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw PhotoListError("“\(base.lastPathComponent)” is not a property list")
        }
        if let dictionary = root as? [String: Any] {
            let entries = try dictionary.map { (name, value) throws(PhotoListError) -> PhotoEntry in
                guard let link = value as? String else {
                    throw PhotoListError("The entry “\(name)” has no address (expected a string)")
                }
                return try entry(name: name, link: link, base: base)
            }
            return entries.sorted {
                let order = $0.name.localizedStandardCompare($1.name)
                return order == .orderedSame ? $0.link < $1.link : order == .orderedAscending
            }
        }
        if let array = root as? [Any] {
            return try array.enumerated().map { (index, item) throws(PhotoListError) -> PhotoEntry in
                guard let item = item as? [String: Any], let name = item["name"] as? String,
                      let link = item["url"] as? String
                else {
                    throw PhotoListError("Item \(index + 1) of the list needs a “name” and a “url” string")
                }
                return try entry(name: name, link: link, base: base)
            }
        }
        throw PhotoListError("The list must be a dictionary of names to addresses, or an array of {name, url}")
    }

    private static func entry(name: String, link: String, base: URL) throws(PhotoListError) -> PhotoEntry {
        let trimmed = link.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty,
              let url = URL(string: trimmed, relativeTo: base)?.absoluteURL
                ?? trimmed.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed).flatMap({ URL(string: $0, relativeTo: base)?.absoluteURL })
        else {
            throw PhotoListError("The entry “\(name)” has an invalid address “\(link)”")
        }
        return PhotoEntry(name: name, url: url)
    }

    /// Turns a command-line argument (URL or path) into the list's URL.
    public static func location(of argument: String, relativeTo directory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)) -> URL {
        if let url = URL(string: argument), let scheme = url.scheme, ["http", "https", "file"].contains(scheme.lowercased()) {
            return url
        }
        let path = argument.hasPrefix("/") ? argument : directory.appendingPathComponent(argument).path
        return URL(fileURLWithPath: path).standardizedFileURL
    }
}
