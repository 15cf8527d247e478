import Foundation
import GLibKit

/// One place a photo's download may come from (a cache, the thumbnail the photo holds, the
/// file, the web). The download stage tries its sources in order (see `DownloadChain`); the
/// first result wins.
public protocol PhotoDownloadSource: Sendable {
    /// The download, if this source has it; nil hands the photo to the next source. A failure
    /// ends the download (a missing file, an HTTP error).
    func download(_ attempt: DownloadAttempt) throws(PhotoFailure) -> DownloadResult?
}

/// One photo's download as its sources see it: the photo, the row's size, the fetcher, and
/// what the sources tried before found on the way. Used on the download's thread only.
public final class DownloadAttempt {
    public let record: PhotoRecord
    /// Where the photo is (its entry's address, resolved).
    public let url: URL
    /// The box the row's or cell's picture is made for, in pixels.
    public let frame: ThumbnailFrame
    public let fetcher: PhotoFetcher
    /// Cancelled with the download, and by the photo's deadline: for every blocking call.
    public let cancellable: Cancellable
    private let cancelled: () -> Bool
    private let onBody: (Data) -> Void
    /// A thumbnail the photo holds that is too small to serve the row: shown while the photo
    /// is decoded.
    var smallPreview: EmbeddedPreview?
    /// Whether a source has opened the local file already, which checks it (see
    /// `PhotoFetcher.openFile`).
    var fileChecked = false
    /// The whole photo, from a server that answered a request for its head with all of it.
    var wholeResponse: HTTPResponse?

    /// - Parameters:
    ///   - isCancelled: whether the download was cancelled (nil: `cancellable` says); not the
    ///     deadline, whose cancellation ends the transfer and is reported as a timeout.
    ///   - onBody: given a web photo's whole body as soon as it is in (the viewer shares it).
    public init(
        record: PhotoRecord, url: URL, frame: ThumbnailFrame, fetcher: PhotoFetcher,
        cancellable: Cancellable = Cancellable(),
        isCancelled: (() -> Bool)? = nil, onBody: @escaping (Data) -> Void = { _ in }
    ) {
        self.record = record
        self.url = url
        self.frame = frame
        self.fetcher = fetcher
        self.cancellable = cancellable
        self.cancelled = isCancelled ?? { [cancellable] in cancellable.isCancelled }
        self.onBody = onBody
    }

    /// An attempt for a row's square of `squareSide` pixels.
    public convenience init(
        record: PhotoRecord, url: URL, squareSide: Int, fetcher: PhotoFetcher, cancellable: Cancellable = Cancellable(),
        onBody: @escaping (Data) -> Void = { _ in }
    ) {
        self.init(
            record: record, url: url, frame: .square(squareSide), fetcher: fetcher, cancellable: cancellable,
            onBody: onBody)
    }

    public var isCancelled: Bool { cancelled() }

    /// Whether the photo is on the web (`http` or `https`).
    var isWeb: Bool { url.isWebAddress }

    /// The thumbnail `head` (a photo's first bytes, or all of them) holds, if any can be
    /// trusted; traced as `row.preview`.
    func preview(in head: Data) -> EmbeddedPreview? {
        guard let preview = Decoding.preview(head, squareSide: frame.side, cancellable: cancellable) else { return nil }
        Trace.shared.emit(
            .rowPreview(
                row: record.position, id: record.id, source: preview.origin.rawValue,
                w: preview.image.width, h: preview.image.height, covers: preview.covers(frame)))
        return preview
    }

    /// Hands the web photo's whole body on, as soon as it is in.
    func fetched(body: Data) { onBody(body) }
}
