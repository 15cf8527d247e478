import CGdkPixbuf
import Foundation

/// A web photo's thumbnail in the app's own cache of web thumbnails, made on an earlier visit,
/// while the server's permission to keep the photo still holds: no request, no decode.
public struct WebThumbnailSource: PhotoDownloadSource {
    public let cache: ThumbnailCache

    public init(cache: ThumbnailCache) { self.cache = cache }

    public func download(_ attempt: DownloadAttempt) throws(PhotoFailure) -> DownloadResult? {
        guard attempt.isWeb, let cached = cache.thumbnail(ofRemote: attempt.url, serving: attempt.frame)
        else { return nil }
        return .picture(cached)
    }
}

extension ThumbnailCache {
    /// Keeps a web photo's EXIF thumbnail, for as long as the server lets the photo be kept,
    /// as the `normal` size (128 pixels), scaled down to it: never enlarged to pose as a
    /// larger size.
    func keep(_ preview: EmbeddedPreview, ofRemote url: URL, totalBytes: Int?, freshUntil: Date?) {
        guard let freshUntil, let totalBytes else { return }
        keep(preview, of: ThumbnailCache.remoteKey(for: url, bytes: totalBytes, expires: freshUntil))
    }

    /// Keeps a photo's EXIF thumbnail under `key`, as the `normal` size (see above).
    func keep(_ preview: EmbeddedPreview, of key: Key) {
        let box = ThumbnailCache.Size.normal
        let (width, height) = ImageDecoder.scaledSize(
            width: preview.image.width, height: preview.image.height, for: .fit(box.rawValue))
        guard max(preview.image.width, preview.image.height) >= box.rawValue,
            let scaled = gdk_pixbuf_scale_simple(preview.image.pixbuf, Int32(width), Int32(height), GDK_INTERP_BILINEAR)
        else { return }
        store(PhotoImage(taking: scaled), of: key, size: box)
    }
}
