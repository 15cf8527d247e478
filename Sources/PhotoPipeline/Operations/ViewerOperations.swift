import CGLib
import Foundation
import GLibKit

/// A photo as the viewer has it: the file's bytes (kept so that zooming in can decode again
/// without reading the photo again), what its header and EXIF say, and the decoded picture.
public struct ViewerPicture: Sendable {
    public let bytes: Data
    public let info: ImageInfo
    /// Decoded at the size asked for (at most the whole image), EXIF rotation applied; for an
    /// animation, its first frame.
    public let original: PhotoImage
    /// An animated GIF's or WebP's frames (the first is `original`); nil for a still photo.
    public let animation: ViewerAnimation?

    public init(bytes: Data, info: ImageInfo, original: PhotoImage, animation: ViewerAnimation? = nil) {
        self.bytes = bytes
        self.info = info
        self.original = original
        self.animation = animation
    }
}

/// The small picture a photo carries of itself (a camera's EXIF thumbnail, a HEIF thumbnail
/// item), shown enlarged while the photo is decoded: paging fast through camera photos shows
/// every one at once, where decoding each takes a tenth of a second or more.
public struct ViewerPreview: Sendable {
    /// What the photo's header and EXIF say (its size, upright, for the picture's frame).
    public let info: ImageInfo
    public let original: PhotoImage
    public let sepia: PhotoImage
}

/// The sepia version of a `ViewerPicture`: the picture, and every frame of an animation.
public struct ViewerSepia: Sendable {
    public let image: PhotoImage
    public let animation: ViewerAnimation?
}

/// A photo's bytes and what its header and EXIF say, as the viewer's loader gets them.
public struct ViewerBytes: Sendable {
    public let bytes: Data
    public let info: ImageInfo

    public init(bytes: Data, info: ImageInfo) {
        self.bytes = bytes
        self.info = info
    }
}

/// Gets a photo's bytes for the viewer: those of the row's download if that was in flight
/// (this operation then depends on it), or else the bytes the viewer had already, or else it
/// reads the photo itself; then reads its header. Decoding is the CPU's work and happens in
/// the viewer's filtration, one per core with the rows' (see `ViewerImageFiltration`). Like a
/// row's download it runs on a thread of its own, and cancelling it aborts a transfer in
/// progress. It never changes the row's record: a photo the viewer cannot show is the
/// viewer's failure only.
public final class ViewerImageLoader: ThreadedPhotoOperation, @unchecked Sendable {
    private let fetcher: PhotoFetcher
    private let known: ViewerBytes?
    private let previewFilter: SepiaFilter?
    private let sharing: WorkSharing<PhotoRequest, Operation, Data?>.Ticket?
    private let outcome = Locked<Result<ViewerBytes, PhotoFailure>?>(nil)

    /// - Parameters:
    ///   - known: the photo's bytes and what they say, if the viewer has them already
    ///     (decoding again when zoomed).
    ///   - sharing: the row's download in flight, joined (`PhotoFetcher.rowDownloads`), whose
    ///     bytes this one takes when it ends (its operation is added as a dependency here).
    ///   - previewFilter: reads the photo's embedded preview, if it is large enough to need one
    ///     (`ViewerLimits.previewMinPixels`), and hands it over (`onPreview`) with its sepia
    ///     made by this filter, before the photo is decoded; nil: no preview.
    public init(
        record: PhotoRecord, fetcher: PhotoFetcher, known: ViewerBytes? = nil,
        sharing: WorkSharing<PhotoRequest, Operation, Data?>.Ticket? = nil, previewFilter: SepiaFilter? = nil
    ) {
        self.fetcher = fetcher
        self.known = known
        self.previewFilter = previewFilter
        self.sharing = sharing
        super.init(record: record, kind: .view, gate: nil)
        if let sharing { addDependency(sharing.job) }
    }

    /// Cancelling stops waiting for the row's download, which goes on for its row.
    public override func cancel() {
        super.cancel()
        if let sharing { fetcher.rowDownloads.leave(sharing) }
    }

    /// The bytes or the failure, once the operation has finished (nil if cancelled).
    public var result: Result<ViewerBytes, PhotoFailure>? { outcome.withLock { $0 } }

    /// Called on the operation's thread with the photo's embedded preview, when it has one
    /// and a preview was asked for.
    var onPreview: (@Sendable (ViewerPreview) -> Void)?
    /// Called on the operation's thread with what the photo's header and metadata say, as soon
    /// as they are read (before the photo is decoded; not for bytes known already).
    var onFacts: (@Sendable (ImageInfo) -> Void)?
    /// Called on the operation's thread with a motion photo's clip, as soon as it is found
    /// (before the photo is decoded).
    var onMotionClip: (@Sendable (MotionClip) -> Void)?

    public override func main() {
        guard beginWork() else { return }
        do throws(PhotoFailure) {
            if let known {
                outcome.withLock { $0 = .success(known) }
                return traceWorkFinished()
            }
            let url = try record.entry.resolvedURL()
            // The row's download has ended (a dependency); what it shares is waiting.
            let bytes: Data, info: ImageInfo
            if let shared = sharing.flatMap({ try? $0.wait().get() }) ?? nil {
                (bytes, info) = try PhotoFacts.read(shared, at: url, cancellable: cancellable)
            } else if let local = try PhotoFacts.read(localRaw: url, cancellable: cancellable) {
                // A RAW file here: its preview and facts, the file (its sensor data) not read.
                (bytes, info) = local
            } else {
                let file = try fetcher.readAll(
                    url, cancellable: cancellable, limit: ViewerLimits.maxFileBytes,
                    policy: record.entry.addressPolicy)
                (bytes, info) = try PhotoFacts.read(file, at: url, cancellable: cancellable)
            }
            if isCancelled { return }
            onFacts?(info)
            if let onMotionClip, let clip = MotionClip.of(bytes, info: info, at: url) { onMotionClip(clip) }
            if let preview = preview(of: bytes, info: info) { onPreview?(preview) }
            outcome.withLock { $0 = .success(ViewerBytes(bytes: bytes, info: info)) }
            traceWorkFinished()
        } catch {
            if isCancelled || error.isCancellation { return }
            report(error)
        }
    }

    /// The embedded preview of a photo large enough to take a while to decode, with its sepia.
    private func preview(of bytes: Data, info: ImageInfo) -> ViewerPreview? {
        guard let previewFilter, onPreview != nil, info.width * info.height >= ViewerLimits.previewMinPixels
        else { return nil }
        // A JPEG's EXIF block lies in its first segments; a HEIF file's thumbnail item anywhere.
        let head = PictureSignature.isHEIF(bytes.prefix(12)) ? bytes : bytes.prefix(128 << 10)
        guard let preview = Decoding.preview(head, squareSide: 480, cancellable: cancellable),
            let sepia = previewFilter.apply(to: preview.image, isCancelled: { [unowned self] in isCancelled })
        else { return nil }
        return ViewerPreview(info: info, original: preview.image, sepia: sepia)
    }

    fileprivate func report(_ failure: PhotoFailure) {
        outcome.withLock { $0 = .failure(failure) }
        Trace.shared.emit(
            .opFail(kind: kind, row: record.position, id: record.id, error: failure.detail, reason: failure.reason))
    }
}

/// Decodes the viewer's photo at the size it is shown, hands the picture over at once, then
/// applies the sepia filter to it. An animated GIF or WebP is decoded frame by frame here,
/// each frame at that size and then sepia (see `AnimationDecoder` for its bounds), so the
/// main thread only has frames to show.
public final class ViewerImageFiltration: PhotoOperation, @unchecked Sendable {
    private let filter: SepiaFilter
    private let loader: ViewerImageLoader
    private let fetcher: PhotoFetcher
    /// The longest side wanted, in pixels (0: the whole image).
    public let wantedSide: Int
    private let cancellable = Cancellable()
    private let outcome = Locked<ViewerSepia?>(nil)
    /// Called on the operation's thread with the decoded picture (or the failure), before the
    /// sepia is applied.
    var onDecoded: (@Sendable (Result<ViewerPicture, PhotoFailure>) -> Void)?

    /// Depends on `loader` (added here).
    public init(loader: ViewerImageLoader, fetcher: PhotoFetcher, wantedSide: Int, filter: SepiaFilter) {
        self.filter = filter
        self.loader = loader
        self.fetcher = fetcher
        self.wantedSide = wantedSide
        super.init(record: loader.record, kind: .viewFilter, gate: nil)
        addDependency(loader)
    }

    public override func cancel() {
        super.cancel()
        cancellable.cancel()
    }

    /// The sepia picture, once finished (nil if cancelled or there was nothing to filter).
    public var result: ViewerSepia? { outcome.withLock { $0 } }

    public override func main() {
        guard !loader.isCancelled, case .success(let loaded)? = loader.result, beginWork() else { return }
        let picture: ViewerPicture
        do throws(PhotoFailure) {
            let side = ViewerLimits.decodeSide(width: loaded.info.width, height: loaded.info.height, wanted: wantedSide)
            if let animation = try decodeAnimation(loaded, side: side) {
                picture = ViewerPicture(
                    bytes: loaded.bytes, info: loaded.info, original: animation.frames[0], animation: animation)
            } else {
                let image = try Decoding.picture(
                    .bytes(loaded.bytes), size: .fit(side), limits: fetcher.limits.decode,
                    budget: fetcher.budget, cancellable: cancellable)
                picture = ViewerPicture(bytes: loaded.bytes, info: loaded.info, original: image)
            }
        } catch {
            if isCancelled || error.isCancellation { return }
            Trace.shared.emit(
                .opFail(kind: kind, row: record.position, id: record.id, error: error.detail, reason: error.reason))
            onDecoded?(.failure(error))
            return
        }
        if isCancelled { return }
        onDecoded?(.success(picture))
        let cancelled: @Sendable () -> Bool = { [unowned self] in isCancelled }
        let sepia: ViewerSepia
        if let animation = picture.animation {
            guard let frames = animation.filtered(by: filter, isCancelled: cancelled), !isCancelled else { return }
            sepia = ViewerSepia(image: frames.frames[0], animation: frames)
        } else {
            guard let image = filter.apply(to: picture.original, isCancelled: cancelled), !isCancelled else { return }
            sepia = ViewerSepia(image: image, animation: nil)
        }
        outcome.withLock { $0 = sepia }
        traceWorkFinished()
    }

    /// The frames of an animated GIF or WebP at `side`; nil for a still photo, or an
    /// animation that plays as one (beyond `AnimationDecoder`'s bounds), which is then decoded
    /// as any photo. Only GIF and WebP are looked at: no other format gdk-pixbuf reads here
    /// animates.
    private func decodeAnimation(_ loaded: ViewerBytes, side: Int) throws(PhotoFailure) -> ViewerAnimation? {
        guard loaded.info.format == "gif" || loaded.info.format == "webp",
            let header = AnimationHeader.read(loaded.bytes, maxFrames: AnimationDecoder.maxFrames),
            header.isAnimated || header.truncated
        else { return nil }
        let outcome = try Decoding.animation(
            loaded.bytes, header: header, side: side, limits: fetcher.limits.decode,
            budget: fetcher.budget, cancellable: cancellable)
        guard case .animation(let animation) = outcome else { return nil }
        return animation
    }
}
