import CGLib
import Foundation

/// A local picture, checked (this host, a regular file, within the size limit) but not read:
/// reading it is its decode's business, and holding ten camera photos' bytes would only cost
/// memory.
public struct LocalFileSource: PhotoDownloadSource {
    /// The desktop's thumbnail cache, where the decode stores the picture's thumbnail (nil: not used).
    public let thumbnails: ThumbnailCache?

    public init(thumbnails: ThumbnailCache?) { self.thumbnails = thumbnails }

    public func download(_ attempt: DownloadAttempt) throws(PhotoFailure) -> DownloadResult? {
        guard attempt.url.isFileURL else { return nil }
        if !attempt.fileChecked {
            // A video is not read whole, whatever its size.
            let limit = VideoFile.isVideo(attempt.url) ? .max : attempt.fetcher.limits.maxPhotoBytes
            let stream = try PhotoFetcher.openFile(attempt.url, cancellable: attempt.cancellable, byteLimit: limit)
            g_input_stream_close(stream.pointer, nil, nil)
        }
        return .file(attempt.url, thumbnailKey: thumbnails?.key(for: attempt.url), preview: attempt.smallPreview?.image)
    }
}
