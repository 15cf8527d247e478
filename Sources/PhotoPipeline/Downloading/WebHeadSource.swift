import Foundation

/// A web JPEG's first 64 KB (`Range: bytes=0-65535`), where a camera JPEG's EXIF block,
/// thumbnail and all, lies: if that thumbnail serves the row, the rest of the photo is never
/// fetched. A server that ignores `Range` sends the whole photo, which is left for
/// `WholeWebPhotoSource` to read without a second request.
public struct WebHeadSource: PhotoDownloadSource {
    /// The app's cache of web thumbnails, which keeps a head-served thumbnail (nil: not used).
    public let remoteThumbnails: ThumbnailCache?

    public init(remoteThumbnails: ThumbnailCache?) { self.remoteThumbnails = remoteThumbnails }

    /// How much of a web photo is asked for first: a camera JPEG's EXIF block, thumbnail and
    /// all, lies within its first 64 KB (a JPEG segment holds at most that much).
    static let headBytes = 64 << 10

    /// Whether a web photo's head is asked for first: JPEGs by their address (and addresses
    /// that do not say), whose EXIF block may hold a thumbnail. Other formats carry none
    /// that the head would hold, and a second request would only cost them a round trip.
    static func readsHeadFirst(_ url: URL) -> Bool {
        ["", "jpg", "jpeg", "jpe", "jfif"].contains(url.pathExtension.lowercased())
    }

    public func download(_ attempt: DownloadAttempt) throws(PhotoFailure) -> DownloadResult? {
        guard attempt.isWeb, Self.readsHeadFirst(attempt.url) else { return nil }
        switch try attempt.fetcher.fetchHead(
            attempt.url, bytes: Self.headBytes, cancellable: attempt.cancellable,
            byteLimit: attempt.fetcher.limits.maxPhotoBytes, policy: attempt.record.entry.addressPolicy)
        {
        case .whole(let whole):
            attempt.wholeResponse = whole
            return nil
        case .partial(let head, let total, let freshUntil):
            if attempt.isCancelled { return nil }
            guard let preview = attempt.preview(in: head), preview.covers(attempt.frame) else {
                // The head cannot serve the row: the whole photo comes in a request of its own
                // (one the disk cache may keep, which a part never is).
                return nil
            }
            remoteThumbnails?.keep(preview, ofRemote: attempt.url, totalBytes: total, freshUntil: freshUntil)
            return .picture(preview.image)
        }
    }
}
