import CGLib
import Foundation
import GLibKit

/// The thumbnail a local photo holds (a camera JPEG's EXIF thumbnail, a HEIF file's thumbnail
/// item), decoded in about a millisecond where the photo takes a hundred or more. One that
/// covers the row's square is the download; a smaller one is left for `LocalFileSource` to
/// show while the photo is decoded. RAW files are left alone: their camera's preview is what
/// their decode reads.
public struct EmbeddedPreviewSource: PhotoDownloadSource {
    public init() {}

    public func download(_ attempt: DownloadAttempt) throws(PhotoFailure) -> DownloadResult? {
        guard attempt.url.isFileURL, !RawPhoto.isRaw(attempt.url) else { return nil }
        let limit = attempt.fetcher.limits.maxPhotoBytes
        // Opening the file checks it (this host, a regular file, not too large).
        let stream = try PhotoFetcher.openFile(attempt.url, cancellable: attempt.cancellable, byteLimit: limit)
        attempt.fileChecked = true
        defer { g_input_stream_close(stream.pointer, nil, nil) }
        guard let preview = try read(stream, byteLimit: limit, attempt: attempt) else { return nil }
        if preview.covers(attempt.frame) { return .picture(preview.image) }
        attempt.smallPreview = preview
        return nil
    }

    /// The thumbnail the photo at the start of `stream` holds, if any can be trusted: a JPEG's
    /// EXIF thumbnail lies in its first segments, so 128 KB are read; a HEIF file is read whole
    /// (its thumbnail item may lie anywhere).
    private func read(
        _ stream: ObjectRef<GInputStream>, byteLimit: Int, attempt: DownloadAttempt
    ) throws(PhotoFailure) -> EmbeddedPreview? {
        let buffer = ChunkBuffer()
        guard let first = try buffer.read(stream, cancellable: attempt.cancellable) else { return nil }
        var head = Data(first)
        let isHEIF = PictureSignature.isHEIF(head.prefix(12))
        guard isHEIF || PictureSignature.isJPEG(head) else { return nil }
        let wanted = isHEIF ? byteLimit : 128 << 10
        while head.count < wanted, !attempt.isCancelled,
            let chunk = try buffer.read(stream, cancellable: attempt.cancellable)
        {
            head.append(contentsOf: chunk)
        }
        guard !attempt.isCancelled else { return nil }
        return attempt.preview(in: head)
    }
}
