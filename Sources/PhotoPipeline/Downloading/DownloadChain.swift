import Foundation

/// The download stage: its sources, tried in order until one has the photo.
public struct DownloadChain: Sendable {
    public let sources: [any PhotoDownloadSource]

    public init(_ sources: [any PhotoDownloadSource]) { self.sources = sources }

    /// The app's order: what costs least first. The caches (a local picture's in the desktop's
    /// shared one), the thumbnail a local photo holds, the local file itself; a photo on a
    /// network share, head first; then, for a web photo, the app's cache of web thumbnails, the photo's head, the whole photo.
    public static func standard(thumbnails: ThumbnailCache?, remoteThumbnails: ThumbnailCache?) -> DownloadChain {
        var sources: [any PhotoDownloadSource] = []
        if let thumbnails { sources.append(LocalThumbnailSource(cache: thumbnails)) }
        sources += [
            EmbeddedPreviewSource(), LocalFileSource(thumbnails: thumbnails),
            RemotePhotoSource(thumbnails: remoteThumbnails),
        ]
        if let remoteThumbnails { sources.append(WebThumbnailSource(cache: remoteThumbnails)) }
        sources += [
            WebHeadSource(remoteThumbnails: remoteThumbnails), WholeWebPhotoSource(remoteThumbnails: remoteThumbnails),
        ]
        return DownloadChain(sources)
    }

    /// The first source's result, checking for cancellation between sources; nil once
    /// cancelled. An address no source takes fails as `unsupported`.
    public func download(_ attempt: DownloadAttempt) throws(PhotoFailure) -> DownloadResult? {
        for source in sources {
            if attempt.isCancelled { return nil }
            if let result = try source.download(attempt) { return result }
        }
        if attempt.isCancelled { return nil }
        throw PhotoFetcher.unsupported(attempt.url)
    }
}
