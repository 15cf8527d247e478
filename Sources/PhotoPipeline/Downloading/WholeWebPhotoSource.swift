import Foundation

/// A web photo's whole body (or the one a server sent for its head), kept for the
/// filtration's decode. A whole JPEG's EXIF thumbnail still spares the decode if it is large
/// enough.
public struct WholeWebPhotoSource: PhotoDownloadSource {
    /// The app's cache of web thumbnails, written for photos the server lets clients keep
    /// (nil: not used).
    public let remoteThumbnails: ThumbnailCache?

    public init(remoteThumbnails: ThumbnailCache?) { self.remoteThumbnails = remoteThumbnails }

    public func download(_ attempt: DownloadAttempt) throws(PhotoFailure) -> DownloadResult? {
        guard attempt.isWeb else { return nil }
        let url = attempt.url
        let response: HTTPResponse
        if let whole = attempt.wholeResponse {
            response = whole
        } else {
            response = try attempt.fetcher.fetchHTTP(
                url, cancellable: attempt.cancellable, byteLimit: attempt.fetcher.limits.maxPhotoBytes,
                policy: attempt.record.entry.addressPolicy)
        }
        if attempt.isCancelled { return nil }
        let data = response.data
        guard !data.isEmpty else { throw PhotoFailure(.empty, detail: "The file or response holds no data") }
        attempt.fetched(body: data)
        if PictureSignature.isJPEG(data), let preview = attempt.preview(in: data.prefix(128 << 10)),
            preview.covers(attempt.frame)
        {
            remoteThumbnails?.keep(preview, ofRemote: url, totalBytes: data.count, freshUntil: response.freshUntil)
            return .picture(preview.image)
        }
        let key =
            remoteThumbnails == nil
            ? nil : response.freshUntil.map { ThumbnailCache.remoteKey(for: url, bytes: data.count, expires: $0) }
        return .bytes(data, thumbnailKey: key)
    }
}
