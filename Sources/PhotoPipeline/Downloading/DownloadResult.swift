import Foundation

/// What a photo's download got, for its filtration to turn into the picture shown.
public enum DownloadResult: Sendable {
    /// A web photo's whole body, still to be decoded; its thumbnail, once decoded, is kept in
    /// the app's cache of web thumbnails under `thumbnailKey`.
    case bytes(Data, thumbnailKey: ThumbnailCache.Key?)
    /// A local picture, found to be a readable regular file within the size limit: its decode
    /// reads it (a disk is fast enough that holding its bytes meanwhile would only cost
    /// memory), and its thumbnail goes into the desktop's cache under `thumbnailKey`.
    /// `preview` is a smaller picture the photo holds, shown until then.
    case file(URL, thumbnailKey: ThumbnailCache.Key?, preview: PhotoImage?)
    /// A picture that serves the row as it is (a cached thumbnail, or one the photo holds):
    /// the filtration only applies the sepia.
    case picture(PhotoImage)

    /// The picture the row shows from the download on, if any.
    public var shown: PhotoImage? {
        switch self {
        case .bytes: nil
        case .file(_, _, let preview): preview
        case .picture(let image): image
        }
    }

    /// The same download with its pictures made for `frame` (cut to the row's square, or the
    /// whole photo scaled down to the cell).
    func shaped(for frame: ThumbnailFrame) -> DownloadResult {
        switch self {
        case .bytes: self
        case .file(let url, let key, let preview): .file(url, thumbnailKey: key, preview: preview.map(frame.shape))
        case .picture(let image): .picture(frame.shape(image))
        }
    }
}
