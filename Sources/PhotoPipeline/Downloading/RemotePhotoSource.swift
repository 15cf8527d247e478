import CGLib
import Foundation
import GLibKit

/// A photo on a network share or device (see `RemoteLocation`), read through GIO as a web photo
/// is: a JPEG's first 64 KB first, where a camera's EXIF thumbnail lies, and the rest of the same
/// stream only when that thumbnail cannot serve the row. Reads are cancelled with the row's
/// download, so a photo scrolled past stops crossing the network at once.
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
        let side = attempt.squareSide
        let key = thumbnails == nil ? nil : try Self.key(of: file, attempt)
        if let key, let cached = thumbnails?.thumbnail(of: key, atLeast: .serving(squareSide: side), shorterSide: side)
        {
            return .picture(cached)
        }
        if attempt.isCancelled { return nil }
        let stream: ObjectRef<GInputStream>
        do throws(GLibError) {
            let opened = try withGError { g_file_read(file.opaque, attempt.cancellable.pointer, $0) }
            stream = ObjectRef(taking: GObjectCast.upcast(opened!, to: GInputStream.self))
        } catch {
            throw Self.failure(error)
        }
        defer { g_input_stream_close(stream.pointer, nil, nil) }
        let limit = attempt.fetcher.limits.maxPhotoBytes
        var data = Data()
        if WebHeadSource.readsHeadFirst(attempt.url) {
            try read(stream, into: &data, upTo: WebHeadSource.headBytes, limit: limit, attempt)
            if attempt.isCancelled { return nil }
            if data.count == WebHeadSource.headBytes, let preview = attempt.preview(in: data),
                preview.covers(squareSide: attempt.squareSide)
            {
                if let key { thumbnails?.keep(preview, of: key) }
                return .picture(preview.image)
            }
        }
        try read(stream, into: &data, upTo: nil, limit: limit, attempt)
        if attempt.isCancelled { return nil }
        guard !data.isEmpty else { throw PhotoFailure(.empty, detail: "The file or response holds no data") }
        attempt.fetched(body: data)
        if PictureSignature.isJPEG(data), let preview = attempt.preview(in: data.prefix(128 << 10)),
            preview.covers(squareSide: attempt.squareSide)
        {
            if let key { thumbnails?.keep(preview, of: key) }
            return .picture(preview.image)
        }
        return .bytes(data, thumbnailKey: key)
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

    /// Reads `stream` into `data` until it holds `bytes` (nil: to the end), failing past `limit`.
    private func read(
        _ stream: ObjectRef<GInputStream>, into data: inout Data, upTo bytes: Int?, limit: Int,
        _ attempt: DownloadAttempt
    ) throws(PhotoFailure) {
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
