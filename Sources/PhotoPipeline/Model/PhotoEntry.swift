import Foundation

/// One photo named by a source: what the list shows and where its bytes are.
///
/// The address is kept as the source wrote it, with the source's base shared by reference, and
/// is resolved only when the photo is first loaded: a Foundation `URL` costs about 320 bytes,
/// which a list of a million rows cannot afford for rows that are never shown. An address that
/// cannot be resolved fails that one row (`invalid-address`), not the whole list.
public struct PhotoEntry: Sendable, Equatable {
    public let name: String
    /// The address as written in the source (absolute, or relative to `base`).
    public let link: String
    /// The location relative addresses resolve against (shared by every entry of one source).
    public let base: PhotoEntryBase?

    public init(name: String, link: String, base: PhotoEntryBase?) {
        self.name = name
        self.link = link
        self.base = base
    }

    /// An entry with an absolute address.
    public init(name: String, url: URL) {
        self.init(name: name, link: url.absoluteString, base: nil)
    }

    /// The absolute address of the photo.
    public func resolvedURL() throws(PhotoFailure) -> URL {
        let trimmed = link.trimmingCharacters(in: .whitespacesAndNewlines)
        let relativeTo = base?.url
        guard !trimmed.isEmpty,
              let url = URL(string: trimmed, relativeTo: relativeTo)?.absoluteURL
                ?? trimmed.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)
                    .flatMap({ URL(string: $0, relativeTo: relativeTo)?.absoluteURL }),
              url.scheme != nil
        else {
            throw PhotoFailure(.invalidAddress, detail: "“\(link)” is not a valid address")
        }
        return url
    }

    public static func == (a: PhotoEntry, b: PhotoEntry) -> Bool {
        a.name == b.name && a.link == b.link && a.base?.url == b.base?.url
    }
}

/// The base address shared by the entries of one source (one object, not one `URL` per row).
public final class PhotoEntryBase: Sendable {
    public let url: URL
    public init(_ url: URL) { self.url = url }
}
