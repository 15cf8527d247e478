import Foundation

/// A local picture's thumbnail in the desktop's shared cache (made by a file manager, or by
/// this app before), valid while the picture is unchanged: the picture is not read at all.
public struct LocalThumbnailSource: PhotoDownloadSource {
    public let cache: ThumbnailCache

    public init(cache: ThumbnailCache) { self.cache = cache }

    public func download(_ attempt: DownloadAttempt) throws(PhotoFailure) -> DownloadResult? {
        let side = attempt.squareSide
        guard let key = cache.key(for: attempt.url),
            let cached = cache.thumbnail(of: key, atLeast: .serving(squareSide: side), shorterSide: side)
        else { return nil }
        return .picture(cached)
    }
}
