import CGdkPixbuf
import CGLib
import Foundation
import GLibKit

/// The desktop's shared thumbnail cache (the freedesktop.org Thumbnail Managing Standard), as
/// file managers and other viewers read and write it: `$XDG_CACHE_HOME/thumbnails/SIZE/`,
/// one PNG per picture named by the MD5 of the picture's URI, valid while its `Thumb::URI` and
/// `Thumb::MTime` text chunks match the picture.
///
/// Thumbnails there are the whole picture scaled to fit a box (128 pixels for `normal`, 256
/// for `large`, 512 and 1024 for `x-large` and `xx-large`); a row's square is cut from one
/// whose shorter side is large enough. Reads and writes are blocking: worker threads only.
public struct ThumbnailCache: Sendable {
    /// The folder holding the size folders (`…/thumbnails`).
    public let directory: URL

    public init(directory: URL) { self.directory = directory }

    /// The user's cache: `$XDG_CACHE_HOME/thumbnails` (`~/.cache/thumbnails`).
    public static var standard: ThumbnailCache {
        ThumbnailCache(
            directory: URL(fileURLWithPath: String(cString: g_get_user_cache_dir())).appendingPathComponent(
                "thumbnails"))
    }

    /// The app's own cache of thumbnails of photos on the web, in the same format
    /// (`$XDG_CACHE_HOME/classic-photos/thumbnails`). Not the shared one: other programs would
    /// judge those thumbnails by a modification time that web photos do not have. Each is kept
    /// for as long as the server allowed the photo to be kept (`remoteKey`).
    public static var remote: ThumbnailCache {
        ThumbnailCache(
            directory: URL(fileURLWithPath: String(cString: g_get_user_cache_dir()))
                .appendingPathComponent("classic-photos/thumbnails"))
    }

    /// The standard's sizes: the box a thumbnail fits, and its folder.
    public enum Size: Int, CaseIterable, Sendable {
        case normal = 128
        case large = 256
        case xLarge = 512
        case xxLarge = 1024

        public var folder: String {
            switch self {
            case .normal: "normal"
            case .large: "large"
            case .xLarge: "x-large"
            case .xxLarge: "xx-large"
            }
        }

        /// The smallest size whose thumbnails of pictures up to 4:3 have a shorter side of at
        /// least `side` pixels (a row's square is cut from the middle): where to look first.
        public static func serving(squareSide side: Int) -> Size {
            allCases.first { $0.rawValue * 3 / 4 >= side } ?? .xxLarge
        }

        /// The smallest size whose thumbnail of a `width`×`height` picture has a shorter side of
        /// at least `square` pixels (a wide panorama needs a larger one than a 4:3 photo).
        public static func fitting(square: Int, width: Int, height: Int) -> Size {
            let (long, short) = (max(width, height), max(1, min(width, height)))
            return allCases.first { $0.rawValue * short >= square * long } ?? .xxLarge
        }
    }

    /// What identifies a version of a local picture, a photo on a network share, or a photo on
    /// the web while the server lets it be kept.
    public struct Key: Sendable, Equatable {
        /// The picture's URI, as GIO writes it (the name of the thumbnail is its MD5).
        public let uri: String
        /// Its modification time, in whole seconds since 1970 (0 for a photo on the web).
        public let modified: Int64
        /// Its size in bytes.
        public let bytes: Int64
        /// For a photo on the web: until when, in whole seconds since 1970, its thumbnail may be
        /// used (the photo's HTTP freshness when it was fetched).
        public var expires: Int64? = nil
        /// Whether the thumbnail is kept in the app's own cache (a photo on the web or on a
        /// network share), not the desktop's shared one.
        public var isPrivate: Bool { expires != nil || !uri.hasPrefix("file:") }
    }

    /// The key of a photo on the web that the server lets clients keep until `expires`.
    public static func remoteKey(for url: URL, bytes: Int, expires: Date) -> Key {
        Key(uri: url.absoluteString, modified: 0, bytes: Int64(bytes), expires: Int64(expires.timeIntervalSince1970))
    }

    /// A thumbnail of the web photo at `url` that has not expired yet (see `thumbnail(of:…)`).
    public func thumbnail(
        ofRemote url: URL, atLeast size: Size, shorterSide side: Int, now: Date = Date()
    ) -> PhotoImage? {
        thumbnail(ofRemote: url, atLeast: size, serving: .square(side), now: now)
    }

    /// A thumbnail of the web photo at `url` that has not expired yet and serves `frame`.
    public func thumbnail(ofRemote url: URL, serving frame: ThumbnailFrame, now: Date = Date()) -> PhotoImage? {
        thumbnail(ofRemote: url, atLeast: frame.servingCacheSize, serving: frame, now: now)
    }

    private func thumbnail(
        ofRemote url: URL, atLeast size: Size, serving frame: ThumbnailFrame, now: Date
    ) -> PhotoImage? {
        let uri = url.absoluteString
        let seconds = Int64(now.timeIntervalSince1970)
        return thumbnail(named: uri, atLeast: size, serving: frame) { image in
            option(image, "tEXt::Thumb::URI") == uri
                && option(image, Self.expiresOption).flatMap({ Int64($0) }).map { $0 > seconds } == true
        }
    }

    private static let expiresOption = "tEXt::X-ClassicPhotos-Expires"

    /// The key of a local picture, or nil when there is none to be had: not a `file:` URL, not
    /// a regular file, or a file inside the thumbnail cache itself (the standard forbids
    /// thumbnailing those).
    public func key(for url: URL) -> Key? {
        guard url.isFileURL else { return nil }
        let path = url.standardizedFileURL.path
        guard !path.hasPrefix(directory.standardizedFileURL.path + "/") else { return nil }
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let file = g_file_new_for_path(path)!
        defer { g_object_unref(UnsafeMutableRawPointer(file)) }
        let uri = g_file_get_uri(file)!
        defer { g_free(uri) }
        return Key(uri: String(cString: uri), modified: Int64(info.st_mtim.tv_sec), bytes: Int64(info.st_size))
    }

    /// Deletes every thumbnail of the local picture at `url` (it was rewritten: a thumbnail
    /// made in the same second would still pass the modification-time check).
    public func forget(_ url: URL) {
        guard url.isFileURL else { return }
        let file = g_file_new_for_path(url.standardizedFileURL.path)!
        defer { g_object_unref(UnsafeMutableRawPointer(file)) }
        let uri = g_file_get_uri(file)!
        defer { g_free(uri) }
        for size in Size.allCases { unlink(location(of: String(cString: uri), size: size).path) }
    }

    /// Where the thumbnail of `key` at `size` lives.
    public func location(of key: Key, size: Size) -> URL { location(of: key.uri, size: size) }

    private func location(of uri: String, size: Size) -> URL {
        let digest = g_compute_checksum_for_string(G_CHECKSUM_MD5, uri, -1)!
        defer { g_free(digest) }
        return directory.appendingPathComponent(size.folder).appendingPathComponent(String(cString: digest) + ".png")
    }

    /// A valid thumbnail of `key` at `size` or larger whose shorter side is at least `side`
    /// pixels (or the whole picture, when the picture itself is smaller), or nil.
    public func thumbnail(of key: Key, atLeast size: Size, shorterSide side: Int) -> PhotoImage? {
        thumbnail(of: key, atLeast: size, serving: .square(side))
    }

    /// A valid thumbnail of `key` that serves `frame` (see `ThumbnailFrame.isCovered`), from
    /// the smallest size that may, or nil.
    public func thumbnail(of key: Key, serving frame: ThumbnailFrame) -> PhotoImage? {
        thumbnail(of: key, atLeast: frame.servingCacheSize, serving: frame)
    }

    private func thumbnail(of key: Key, atLeast size: Size, serving frame: ThumbnailFrame) -> PhotoImage? {
        thumbnail(named: key.uri, atLeast: size, serving: frame) { image in
            option(image, "tEXt::Thumb::URI") == key.uri
                && option(image, "tEXt::Thumb::MTime").flatMap({ Int64($0) }) == key.modified
        }
    }

    private func thumbnail(
        named uri: String, atLeast size: Size, serving frame: ThumbnailFrame,
        isValid: (PhotoImage) -> Bool
    ) -> PhotoImage? {
        for candidate in Size.allCases where candidate.rawValue >= size.rawValue {
            let path = location(of: uri, size: candidate).path
            guard let image = Decoding.cachedThumbnail(atPath: path) else { continue }
            guard isValid(image) else { continue }
            // A thumbnail smaller than its box holds a picture smaller than the box: all there is.
            let whole = max(image.width, image.height) < candidate.rawValue
            if frame.isCovered(width: image.width, height: image.height) || whole { return image }
        }
        return nil
    }

    /// Stores `image`, the whole picture scaled to fit `size`'s box (or smaller, for a smaller
    /// picture), as the thumbnail of `key`. Written to a temporary file and renamed, so readers
    /// never see half a file; folders are private to the user (0700) and files too (0600).
    /// False if it could not be written (a read-only cache is not an error worth more).
    @discardableResult
    public func store(_ image: PhotoImage, of key: Key, size: Size, mimeType: String? = nil) -> Bool {
        guard max(image.width, image.height) <= size.rawValue else { return false }
        let target = location(of: key, size: size)
        let folder = target.deletingLastPathComponent().path
        guard g_mkdir_with_parents(folder, 0o700) == 0 else { return false }
        let temporary = folder + "/.\(target.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        var options: [(String, String)] = [
            ("tEXt::Thumb::URI", key.uri),
            ("tEXt::Thumb::MTime", String(key.modified)),
            ("tEXt::Thumb::Size", String(key.bytes)),
            ("tEXt::Software", AppInfo.displayName),
        ]
        if let mimeType { options.append(("tEXt::Thumb::Mimetype", mimeType)) }
        if let seconds = image.videoSeconds { options.append((VideoFile.lengthOption, String(seconds))) }
        if let motion = image.motion { options.append((VideoFile.motionOption, motion.option)) }
        if let expires = key.expires { options.append((Self.expiresOption, String(expires))) }
        let saved = withCStrings(options.map(\.0)) { keys in
            withCStrings(options.map(\.1)) { values in
                gdk_pixbuf_savev(image.pixbuf, temporary, "png", keys, values, nil)
            }
        }
        guard saved != 0 else {
            unlink(temporary)
            return false
        }
        chmod(temporary, 0o600)
        guard rename(temporary, target.path) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }

    private func option(_ image: PhotoImage, _ name: String) -> String? {
        gdk_pixbuf_get_option(image.pixbuf, name).map { String(cString: $0) }
    }
}

/// Calls `body` with a NULL-terminated array of C strings.
func withCStrings<R>(
    _ strings: [String], _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> R
) -> R {
    var pointers = strings.map { strdup($0) } + [nil]
    defer { pointers.forEach { free($0) } }
    return pointers.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
}
