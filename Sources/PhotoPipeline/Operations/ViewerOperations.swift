import CGLib
import Foundation
import GLibKit
import Synchronization

/// A photo as the viewer has it: the file's bytes (kept so that zooming in can decode again
/// without reading the photo again), what its header and EXIF say, and the decoded picture.
public struct ViewerPicture: Sendable {
    public let bytes: Data
    public let info: ImageInfo
    /// Decoded at the size asked for (at most the whole image), EXIF rotation applied.
    public let original: PhotoImage
}

/// Loads a photo for the viewer: takes the bytes of the row's download if that was in flight
/// and shared them, or else the bytes the viewer had already, or else reads the photo itself;
/// then decodes them at the viewer's size. Like a row's download it runs on a thread of its
/// own (see `ImageDownloader`), and cancelling it aborts a transfer in progress. It never
/// changes the row's record: a photo the viewer cannot show is the viewer's failure only.
public final class ViewerImageLoader: ThreadedPhotoOperation, @unchecked Sendable {
    private let fetcher: PhotoFetcher
    /// The longest side wanted, in pixels (0: the whole image).
    public let wantedSide: Int
    private let knownBytes: Data?
    private let sharing: ImageDownloader?
    private let outcome = Mutex<Result<ViewerPicture, PhotoFailure>?>(nil)

    /// - Parameters:
    ///   - bytes: the photo's bytes, if the viewer has them already (decoding again when zoomed).
    ///   - sharing: the row's download in flight, whose bytes this one takes when it ends
    ///     (make this operation depend on it).
    public init(record: PhotoRecord, fetcher: PhotoFetcher, wantedSide: Int, bytes: Data? = nil,
                sharing: ImageDownloader? = nil) {
        self.fetcher = fetcher
        self.wantedSide = wantedSide
        self.knownBytes = bytes
        self.sharing = sharing
        super.init(record: record, kind: .view, gate: nil)
    }

    /// The picture or the failure, once the operation has finished (nil if cancelled).
    public var result: Result<ViewerPicture, PhotoFailure>? { outcome.withLock { $0 } }

    public override func main() {
        guard beginWork() else { return }
        do throws(PhotoFailure) {
            let bytes: Data
            if let known = knownBytes ?? sharing?.takeSharedBytes() {
                bytes = known
            } else {
                bytes = try fetcher.readAll(record.entry.resolvedURL(), cancellable: cancellable, limit: ViewerLimits.maxFileBytes)
            }
            if isCancelled { return }
            let info = try ImageInfo.read(bytes)
            let side = ViewerLimits.decodeSide(width: info.width, height: info.height, wanted: wantedSide)
            let copy = bytes.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count))! }
            defer { g_bytes_unref(copy) }
            let stream = ObjectRef(taking: g_memory_input_stream_new_from_bytes(copy)!)
            let image = try ImageDecoder.decode(stream, size: .fit(side), limits: fetcher.limits.decode, budget: fetcher.budget,
                                                cancellable: cancellable)
            if isCancelled { return }
            outcome.withLock { $0 = .success(ViewerPicture(bytes: bytes, info: info, original: image)) }
            traceWorkFinished()
        } catch {
            if isCancelled || error.isCancellation { return }
            outcome.withLock { $0 = .failure(error) }
            Trace.shared.emit(.opFail(kind: kind, row: record.position, id: record.id, error: error.detail, reason: error.reason))
        }
    }
}

/// Applies the sepia filter to the viewer's picture once its loader has decoded it.
public final class ViewerImageFiltration: PhotoOperation, @unchecked Sendable {
    private let filter: SepiaFilter
    private let loader: ViewerImageLoader
    private let filtered = Mutex<PhotoImage?>(nil)

    /// Depends on `loader` (added here).
    public init(loader: ViewerImageLoader, filter: SepiaFilter) {
        self.filter = filter
        self.loader = loader
        super.init(record: loader.record, kind: .viewFilter, gate: nil)
        addDependency(loader)
    }

    /// The sepia picture, once finished (nil if cancelled or there was nothing to filter).
    public var result: PhotoImage? { filtered.withLock { $0 } }

    public override func main() {
        guard !loader.isCancelled, case .success(let picture)? = loader.result, beginWork() else { return }
        guard let image = filter.apply(to: picture.original, isCancelled: { [unowned self] in isCancelled }),
              !isCancelled
        else { return }
        filtered.withLock { $0 = image }
        traceWorkFinished()
    }
}
