import Foundation

/// A local picture's thumbnail in the desktop's shared cache (made by a file manager, or by
/// this app before), valid while the picture is unchanged: the picture is not read at all.
public struct LocalThumbnailSource: PhotoDownloadSource {
    public let cache: ThumbnailCache

    public init(cache: ThumbnailCache) { self.cache = cache }

    public func download(_ attempt: DownloadAttempt) throws(PhotoFailure) -> DownloadResult? {
        guard let key = cache.key(for: attempt.url), let cached = cache.thumbnail(of: key, serving: attempt.frame)
        else { return nil }
        return .picture(cached)
    }
}
