import CGLib
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

    /// The absolute address of the photo, if the entry may name it.
    ///
    /// The scheme policy: a list read over the network may name only `http` and `https`
    /// photos (`file:` is `blocked-scheme`); a local list or folder may also name local files
    /// (`file:` without a host, or `localhost`; another host is `blocked-scheme`). Any other
    /// scheme is `unsupported`. Text that starts like an absolute address must be one: a
    /// scheme followed by `//` that does not parse (`ht!tp://x`, `http://`, `http://[::1`) is
    /// `invalid-address`, never a path relative to the list. Whether a local file is a regular
    /// file is checked when it is opened (`PhotoFetcher`).
    ///
    /// The address policy: an entry whose `addressPolicy` is `.publicOnly` (its list came from
    /// the web) may not name a host on this computer or its network as written
    /// (`blocked-address`); where a name leads is checked when connecting (`HTTPClient`).
    public func resolvedURL() throws(PhotoFailure) -> URL {
        let trimmed = link.trimmingCharacters(in: .whitespacesAndNewlines)
        let invalid = PhotoFailure(.invalidAddress, detail: "“\(link)” is not a valid address")
        guard !trimmed.isEmpty, !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw invalid
        }
        let url: URL
        switch Self.schemeOf(trimmed) {
        case .some(let scheme):
            // Parsed by GLib's RFC 3986 parser first: Foundation accepts addresses GLib and
            // libsoup do not.
            var error: UnsafeMutablePointer<GError>?
            guard
                let parsed = g_uri_parse(
                    trimmed, GUriFlags(rawValue: G_URI_FLAGS_PARSE_RELAXED.rawValue | G_URI_FLAGS_ENCODED.rawValue),
                    &error)
            else {
                if let error { g_error_free(error) }
                throw invalid
            }
            let host = g_uri_get_host(parsed).map { String(cString: $0) } ?? ""
            g_uri_unref(parsed)
            if URL.isWebScheme(scheme) {
                guard !host.isEmpty, !host.contains(where: { $0.isWhitespace }) else { throw invalid }
            }
            guard
                let absolute = URL(string: trimmed)
                    ?? trimmed.addingPercentEncoding(withAllowedCharacters: Self.allowedInAbsolute).flatMap({
                        URL(string: $0)
                    })
            else { throw invalid }
            url = absolute
        case nil:
            if Self.looksAbsolute(trimmed) { throw invalid }
            let relativeTo = base?.url
            guard
                let resolved = URL(string: trimmed, relativeTo: relativeTo)?.absoluteURL
                    ?? trimmed.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)
                    .flatMap({ URL(string: $0, relativeTo: relativeTo)?.absoluteURL }),
                resolved.scheme != nil
            else { throw invalid }
            url = resolved
        }
        try checkPolicy(url)
        return url
    }

    /// Whether the entry is a folder (a sub-folder of the folder shown) rather than a photo: a
    /// `file:` address, or one on a network share, ending in "/". A folder has no picture;
    /// opening it shows its photos.
    public var isFolder: Bool {
        link.hasSuffix("/")
            && (link.hasPrefix("file:") || Self.schemeOf(link).map(RemoteLocation.isRemoteScheme) == true)
    }

    /// Whether the entry is a video (by its name's extension, as a folder lists it).
    public var isVideo: Bool { Self.isVideo(link: link) }

    /// Whether the address `link` names a video (by the extension of its path, a query or
    /// fragment aside), read as bytes.
    static func isVideo(link: String) -> Bool {
        let bytes = link.utf8
        let end = bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex
        let path = bytes[..<end]
        guard let dot = path.lastIndex(of: UInt8(ascii: ".")) else { return false }
        let name = path[path.index(after: dot)...]
        return !name.contains(UInt8(ascii: "/")) && VideoFile.isVideo(extensionBytes: name)
    }

    /// For a photo of a folder shown with every picture beneath it, the sub-folder it is in,
    /// as a path below the folder shown ("2023/07 July"); nil for a photo of the folder itself
    /// or of a list. Such a photo is named by its path below the folder (see `FolderTree`).
    public var subfolder: Substring? {
        guard base == nil, !isFolder, let slash = name.lastIndex(of: "/"),
            link.hasPrefix("file:") || Self.schemeOf(link).map(RemoteLocation.isRemoteScheme) == true
        else { return nil }
        return name[..<slash]
    }

    /// The photo's own name, without `subfolder`.
    public var leafName: Substring {
        guard subfolder != nil, let slash = name.lastIndex(of: "/") else { return name[...] }
        return name[name.index(after: slash)...]
    }

    /// Whether the list this entry comes from was read over the network.
    public var isFromNetwork: Bool {
        base?.url.isWebAddress ?? false
    }

    /// What the photo may reach: its list's policy (`.any` for an entry without a list).
    public var addressPolicy: AddressPolicy { base?.addressPolicy ?? .any }

    private func checkPolicy(_ url: URL) throws(PhotoFailure) {
        switch url.scheme?.lowercased() {
        case let scheme? where URL.isWebScheme(scheme):
            try addressPolicy.check(url)
        case "file":
            if isFromNetwork {
                throw PhotoFailure(
                    .blockedScheme, detail: "“\(link)”: a list from the web may not name files on this computer")
            }
            if let host = url.host, !host.isEmpty, host.lowercased() != "localhost" {
                throw PhotoFailure(.blockedScheme, detail: "“\(link)” names a file on another computer (\(host))")
            }
        case let scheme? where RemoteLocation.isRemoteScheme(scheme):
            // A share this computer mounts is as private as its own files.
            if isFromNetwork {
                throw PhotoFailure(
                    .blockedScheme, detail: "“\(link)”: a list from the web may not name places on this network")
            }
        default:
            throw PhotoFailure(
                .unsupportedAddress,
                detail: "“\(link)”: only http, https, file and network share addresses can be opened")
        }
    }

    /// The lowercased scheme if `text` starts with one (`letter *(letter / digit / + - .) :`).
    static func schemeOf(_ text: String) -> String? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = text[..<colon]
        guard let first = scheme.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic,
            scheme.unicodeScalars.allSatisfy({
                $0.isASCII
                    && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0))
            })
        else { return nil }
        return scheme.lowercased()
    }

    /// Text that is meant as an absolute address but has no valid scheme (`ht!tp://x`,
    /// `://x`): `://` before any `/`, `?` or `#` of a path.
    static func looksAbsolute(_ text: String) -> Bool {
        guard let range = text.range(of: "://") else { return false }
        return !text[..<range.lowerBound].contains(where: { "/?#".contains($0) })
    }

    /// Characters left as they are when an absolute address with spaces or other stray
    /// characters is percent-encoded (the URL's own delimiters stay).
    private static let allowedInAbsolute = CharacterSet.urlPathAllowed.union(.urlQueryAllowed).union(
        CharacterSet(charactersIn: "#[]@"))

    public static func == (a: PhotoEntry, b: PhotoEntry) -> Bool {
        a.name == b.name && a.link == b.link && a.base?.url == b.base?.url
    }
}

/// The base address shared by the entries of one source (one object, not one `URL` per row),
/// and what its photos may reach.
public final class PhotoEntryBase: Sendable {
    public let url: URL
    public let addressPolicy: AddressPolicy

    /// - Parameter addressPolicy: what the source's photos may reach; by default as its
    ///   address is written (`AddressPolicy.forList(at:)`).
    public init(_ url: URL, addressPolicy: AddressPolicy? = nil) {
        self.url = url
        self.addressPolicy = addressPolicy ?? .forList(at: url)
    }
}
