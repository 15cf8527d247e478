import CGLib
import Foundation
import GLibKit

/// A photo on a network share or device (see `RemoteLocation`), read through GIO as a web photo
/// is: a JPEG's first 64 KB first, where a camera's EXIF thumbnail lies, and the rest of the same
/// stream only when that thumbnail cannot serve the row. Reads are cancelled with the row's
/// download, so a photo scrolled past stops crossing the network at once.
///
/// A WebDAV share is a web server: a photo's head is asked of it straight over HTTP with a
/// `Range` request, as a web photo's is, since GVfs reads a whole photo ahead of what is asked
/// (the kernel's buffers filling with megabytes the row never needs). A share that wants a
/// password, or whose certificate only GVfs was told to trust, is read through GIO.
///
/// Thumbnails are kept in the app's own cache of remote thumbnails, by the photo's address,
/// modification time and size as the share reports them: a folder seen before shows without
/// reading its photos again, and a photo changed since is read anew.
public struct RemotePhotoSource: PhotoDownloadSource {
    /// The app's cache of remote thumbnails (nil: not used).
    public let thumbnails: ThumbnailCache?

    public init(thumbnails: ThumbnailCache?) { self.thumbnails = thumbnails }

    public func download(_ attempt: DownloadAttempt) throws(PhotoFailure) -> DownloadResult? {
        guard RemoteLocation.isRemote(attempt.url) else { return nil }
        let file = ObjectRef<GObject>(takingOpaque: g_file_new_for_uri(attempt.url.absoluteString)!)
        let frame = attempt.frame
        let key = thumbnails == nil ? nil : try Self.key(of: file, attempt)
        if let key, let cached = thumbnails?.thumbnail(of: key, serving: frame) {
            return .picture(cached)
        }
        if attempt.isCancelled { return nil }
        let headFirst = WebHeadSource.readsHeadFirst(attempt.url)
        if headFirst, let web = DirectWebDAV.webAddress(of: attempt.url), let head = DirectWebDAV.head(web, attempt) {
            switch head {
            case .partial(let bytes, _, _):
                if attempt.isCancelled { return nil }
                if let preview = attempt.preview(in: bytes), preview.covers(frame) {
                    if let key { thumbnails?.keep(preview, of: key) }
                    return .picture(preview.image)
                }
                // The head cannot serve the row: the whole photo, through GIO.
                return try finish(try readWhole(file, attempt), key: key, attempt)
            case .whole(let response):
                return try finish(response.data, key: key, attempt)
            }
        }
        var data = Data()
        let stream = try open(file, attempt)
        defer { g_input_stream_close(stream.pointer, nil, nil) }
        if headFirst {
            try read(stream, into: &data, upTo: WebHeadSource.headBytes, attempt)
            if attempt.isCancelled { return nil }
            if data.count == WebHeadSource.headBytes, let preview = attempt.preview(in: data),
                preview.covers(frame)
            {
                if let key { thumbnails?.keep(preview, of: key) }
                return .picture(preview.image)
            }
        }
        try read(stream, into: &data, upTo: nil, attempt)
        return try finish(data, key: key, attempt)
    }

    /// The download of a whole photo read: its EXIF thumbnail if that serves the row, else its
    /// bytes for the filtration to decode (and keep the thumbnail of under `key`).
    private func finish(
        _ data: Data, key: ThumbnailCache.Key?, _ attempt: DownloadAttempt
    ) throws(PhotoFailure)
        -> DownloadResult?
    {
        if attempt.isCancelled { return nil }
        guard !data.isEmpty else { throw PhotoFailure(.empty, detail: "The file or response holds no data") }
        attempt.fetched(body: data)
        if PictureSignature.isJPEG(data), let preview = attempt.preview(in: data.prefix(128 << 10)),
            preview.covers(attempt.frame)
        {
            if let key { thumbnails?.keep(preview, of: key) }
            return .picture(preview.image)
        }
        return .bytes(data, thumbnailKey: key)
    }

    private func open(
        _ file: ObjectRef<GObject>, _ attempt: DownloadAttempt
    ) throws(PhotoFailure)
        -> ObjectRef<GInputStream>
    {
        do throws(GLibError) {
            let opened = try withGError { g_file_read(file.opaque, attempt.cancellable.pointer, $0) }
            return ObjectRef(taking: GObjectCast.upcast(opened!, to: GInputStream.self))
        } catch {
            throw Self.failure(error)
        }
    }

    /// The whole of `file`.
    private func readWhole(_ file: ObjectRef<GObject>, _ attempt: DownloadAttempt) throws(PhotoFailure) -> Data {
        let stream = try open(file, attempt)
        defer { g_input_stream_close(stream.pointer, nil, nil) }
        var data = Data()
        try read(stream, into: &data, upTo: nil, attempt)
        return data
    }

    /// What identifies this version of the photo in the cache: its address, and its
    /// modification time and size as the share reports them (one query, no bytes read).
    private static func key(
        of file: ObjectRef<GObject>, _ attempt: DownloadAttempt
    ) throws(PhotoFailure)
        -> ThumbnailCache.Key?
    {
        let attributes = "\(G_FILE_ATTRIBUTE_STANDARD_SIZE),\(G_FILE_ATTRIBUTE_TIME_MODIFIED)"
        let info: OpaquePointer?
        do throws(GLibError) {
            info = try withGError {
                g_file_query_info(file.opaque, attributes, G_FILE_QUERY_INFO_NONE, attempt.cancellable.pointer, $0)
            }
        } catch {
            throw failure(error)
        }
        guard let info else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(info)) }
        let modified = g_file_info_get_attribute_uint64(info, G_FILE_ATTRIBUTE_TIME_MODIFIED)
        guard modified > 0 else { return nil }
        return ThumbnailCache.Key(
            uri: attempt.url.absoluteString, modified: Int64(clamping: modified),
            bytes: Int64(g_file_info_get_size(info)))
    }

    /// Reads `stream` into `data` until it holds `bytes` (nil: to the end), failing past the
    /// most a photo may have.
    private func read(
        _ stream: ObjectRef<GInputStream>, into data: inout Data, upTo bytes: Int?, _ attempt: DownloadAttempt
    ) throws(PhotoFailure) {
        let limit = attempt.fetcher.limits.maxPhotoBytes
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while bytes.map({ data.count < $0 }) ?? true {
            if attempt.isCancelled { return }
            let wanted = min(chunk.count, bytes.map { $0 - data.count } ?? chunk.count)
            var failure: UnsafeMutablePointer<GError>?
            let count = chunk.withUnsafeMutableBytes {
                g_input_stream_read(
                    stream.pointer, $0.baseAddress, gsize(wanted), attempt.cancellable.pointer, &failure)
            }
            if let failure { throw Self.failure(GLibError(consuming: failure)) }
            if count <= 0 { return }
            data.append(contentsOf: chunk[..<count])
            if data.count > limit {
                throw PhotoFailure(
                    .tooLarge, detail: "More than \(PhotoLimits.megabytes(limit)), the most a photo may have")
            }
        }
    }

    /// A failure of GIO reading a remote photo: the file's own (missing, unreadable), or the
    /// connection's ("Connection lost").
    static func failure(_ error: GLibError) -> PhotoFailure {
        if error.isCancellation { return .cancelled }
        if error.isIOError(G_IO_ERROR_TIMED_OUT) { return PhotoFailure(.timeout, detail: error.message) }
        if error.isIOError(G_IO_ERROR_NOT_FOUND) { return PhotoFailure(.missing, detail: error.message) }
        if error.isIOError(G_IO_ERROR_IS_DIRECTORY) { return PhotoFailure(.folder, detail: error.message) }
        if error.isIOError(G_IO_ERROR_PERMISSION_DENIED) { return PhotoFailure(.unreadable, detail: error.message) }
        return PhotoFailure(.transport, detail: error.message)
    }
}

/// Reading a WebDAV share's photos straight over HTTP (see `RemotePhotoSource`).
enum DirectWebDAV {
    /// Hosts (with their ports) whose share answered a direct request with an HTTP error (a
    /// password wanted): read through GIO from then on.
    private static let refused = Locked<Set<String>>([])

    /// The `http:` or `https:` address of a `dav:` or `davs:` one.
    static func webAddress(of url: URL) -> URL? {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        switch parts.scheme?.lowercased() {
        case "dav": parts.scheme = "http"
        case "davs": parts.scheme = "https"
        default: return nil
        }
        return parts.url
    }

    /// The photo's first 64 KB (or all of it, if no longer), asked for directly; nil when the
    /// share does not give it so (an HTTP error is remembered for its host).
    static func head(_ web: URL, _ attempt: DownloadAttempt) -> HTTPHead? {
        let host = "\(web.host ?? ""):\(web.port ?? 0)"
        guard !refused.withLock({ $0.contains(host) }) else { return nil }
        do throws(PhotoFailure) {
            return try attempt.fetcher.fetchHead(
                web, bytes: WebHeadSource.headBytes, cancellable: attempt.cancellable,
                byteLimit: attempt.fetcher.limits.maxPhotoBytes)
        } catch {
            if case .http = error.kind { refused.withLock { _ = $0.insert(host) } }
            return nil
        }
    }
}
