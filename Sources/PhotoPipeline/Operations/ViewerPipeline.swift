import Foundation
import GLibKit

/// The photo viewer's work on the app's operation queues: a load (read or share the bytes) in
/// the download queue, and a decode at the viewer's size and its sepia in the filtration
/// queue, like a row's download and filtration. The photo shown goes before every row's work
/// (very high priority); its neighbours, loaded ahead of paging, after it (very low).
/// Results arrive on the main actor; a cancelled request reports nothing.
///
/// Photos are named by identity; the record a load works on stays inside the pipeline (made by
/// `PhotoProcessor.makeViewerPipeline()`, which owns the list and the queues).
@MainActor
public final class ViewerPipeline {
    private let fetcher: PhotoFetcher
    private let pendingOperations: PendingOperations
    private let filter: SepiaFilter
    /// The record of a photo of the list shown (made if need be), nil if it left the list.
    private let record: @MainActor (PhotoID) -> PhotoRecord?

    init(
        fetcher: PhotoFetcher, pendingOperations: PendingOperations, filter: SepiaFilter = SepiaFilter(),
        record: @escaping @MainActor (PhotoID) -> PhotoRecord?
    ) {
        self.fetcher = fetcher
        self.pendingOperations = pendingOperations
        self.filter = filter
        self.record = record
    }

    /// What a request reports, in order: the photo's embedded preview (for a large photo that
    /// has one, on a first load), the decoded picture (or the failure), then its sepia version
    /// (with the sepia frames of an animation).
    public enum Event {
        case preview(ViewerPreview)
        /// A motion photo's clip, found before the photo is decoded.
        case motionClip(MotionClip)
        /// What the photo's header and metadata say, read before it is decoded.
        case facts(ImageInfo)
        case decoded(ViewerPicture)
        case filtered(ViewerSepia)
        case failed(PhotoFailure)
    }

    /// One photo being loaded for the viewer.
    @MainActor
    public final class Request {
        public let id: PhotoID
        public let wantedSide: Int
        public private(set) var isUrgent: Bool
        let loader: ViewerImageLoader
        /// The decode, made again when one that had not started is held back (`holdDecode`).
        private(set) var filtration: ViewerImageFiltration!
        private let makeFiltration: (Request) -> ViewerImageFiltration
        private let queue: OperationQueue
        /// Whether the decode waits for `decode()`.
        public private(set) var isDecodeHeld: Bool
        /// Whether the photo's embedded preview was reported.
        public private(set) var hadPreview = false
        /// Whether the bytes come from the row's download that was in flight.
        public let sharesRowDownload: Bool
        public private(set) var isCancelled = false
        fileprivate var onEvent: ((Event) -> Void)?

        fileprivate init(
            id: PhotoID, wantedSide: Int, isUrgent: Bool, loader: ViewerImageLoader, queue: OperationQueue,
            holdsDecode: Bool, sharesRowDownload: Bool, makeFiltration: @escaping (Request) -> ViewerImageFiltration
        ) {
            self.id = id
            self.wantedSide = wantedSide
            self.isUrgent = isUrgent
            self.loader = loader
            self.queue = queue
            self.makeFiltration = makeFiltration
            self.sharesRowDownload = sharesRowDownload
            isDecodeHeld = holdsDecode
            filtration = makeFiltration(self)
            if !holdsDecode { queue.addOperation(filtration) }
        }

        /// Whether the request still has work queued or running.
        public var isBusy: Bool { !isCancelled && !filtration.isFinished }

        /// Cancels both operations (traced as `op.cancel`); nothing more is reported.
        public func cancel() {
            guard !isCancelled else { return }
            isCancelled = true
            onEvent = nil
            let queued = isDecodeHeld ? [loader] : [loader, filtration] as [PhotoOperation]
            for op in queued where !op.isFinished {
                Trace.shared.emit(
                    .opCancel(kind: op.kind, row: op.record.position, id: op.record.id, running: op.isExecuting))
                op.cancel()
            }
        }

        /// Moves work that has not started yet up to the photo shown's priority.
        public func makeUrgent() {
            guard !isUrgent else { return }
            isUrgent = true
            if !loader.isExecuting, !loader.isFinished { loader.queuePriority = .veryHigh }
            if !filtration.isExecuting, !filtration.isFinished { filtration.queuePriority = .veryHigh }
        }

        /// Keeps the decode from starting until `decode()`, if it has not started: paging
        /// faster than decodes take, the photos passed are shown by their previews and only the
        /// one where paging stops is decoded. The bytes and the preview still load.
        public func holdDecode() {
            guard !isCancelled, !isDecodeHeld, !filtration.isExecuting, !filtration.isFinished else { return }
            isDecodeHeld = true
            // An operation cancelled before it starts only leaves the queue; a new one is made.
            filtration.cancel()
            filtration = makeFiltration(self)
        }

        /// Lets a held decode start.
        public func decode() {
            guard !isCancelled, isDecodeHeld else { return }
            isDecodeHeld = false
            filtration.queuePriority = isUrgent ? .veryHigh : .veryLow
            queue.addOperation(filtration)
        }

        /// Reports `event` unless cancelled. The decoded picture is handed over (on the
        /// filtration's thread) before its sepia is made, and `MainLoop.onMainActor` keeps that
        /// order on the main actor.
        fileprivate func report(_ event: Event) {
            guard !isCancelled else { return }
            if case .preview = event { hadPreview = true }
            onEvent?(event)
        }

        /// The bytes are read: a decode held back for a photo with no preview to show starts.
        fileprivate func loaded() {
            if isDecodeHeld, !hadPreview { decode() }
        }
    }

    /// Loads the photo `id` decoded with its longest side at most `wantedSide` pixels (0:
    /// whole); nil if it is no longer in the list.
    ///
    /// - Parameters:
    ///   - known: the photo's bytes and what they say, if the viewer has them (decoding
    ///     again at another size).
    ///   - urgent: the photo shown (very high priority), or a neighbour (very low).
    ///   - holdingDecode: the decode waits for `Request.decode()` (paging fast), unless the
    ///     photo turns out to have no preview to show meanwhile.
    ///   - onEvent: called on the main actor with the preview, the decoded picture or failure,
    ///     then the sepia version; never after `cancel()`.
    public func load(
        _ id: PhotoID, wantedSide: Int, known: ViewerBytes?, urgent: Bool, holdingDecode: Bool = false,
        onEvent: @escaping (Event) -> Void
    ) -> Request? {
        guard let record = record(id) else { return nil }
        // A download of this photo for its row that is already running is shared: the viewer
        // waits for its bytes rather than downloading them a second time. One still waiting in
        // its queue is not waited for (it may wait for a long time, or be cancelled).
        let sharing =
            known == nil
            ? (try? record.entry.resolvedURL()).flatMap { url in
                fetcher.rowDownloads.joinRunning(PhotoRequest(address: url, size: nil, kind: .rowDownload(record.id))) {
                    !$0.isCancelled
                }
            } : nil
        let loader = ViewerImageLoader(
            record: record, fetcher: fetcher, known: known, sharing: sharing, previewFilter: known == nil ? filter : nil
        )
        let priority: Operation.QueuePriority = urgent ? .veryHigh : .veryLow
        loader.queuePriority = priority
        let (decodeFetcher, decodeFilter) = (fetcher, filter)
        // The picture, or a failure to decode it, comes from the filtration, before its sepia.
        let request = Request(
            id: record.id, wantedSide: wantedSide, isUrgent: urgent, loader: loader,
            queue: pendingOperations.filtrationQueue, holdsDecode: holdingDecode, sharesRowDownload: sharing != nil
        ) { request in
            let filtration = ViewerImageFiltration(
                loader: request.loader, fetcher: decodeFetcher, wantedSide: wantedSide, filter: decodeFilter)
            filtration.queuePriority = request.isUrgent ? .veryHigh : .veryLow
            filtration.onDecoded = { [weak request] decoded in
                MainLoop.onMainActor {
                    switch decoded {
                    case .success(let picture): request?.report(.decoded(picture))
                    case .failure(let failure): request?.report(.failed(failure))
                    }
                }
            }
            filtration.completionBlock = { [weak filtration, weak request] in
                guard let filtration, !filtration.isCancelled, let sepia = filtration.result else { return }
                MainLoop.onMainActor { request?.report(.filtered(sepia)) }
            }
            return filtration
        }
        request.onEvent = onEvent
        loader.onPreview = { [weak request] preview in
            MainLoop.onMainActor { request?.report(.preview(preview)) }
        }
        loader.onFacts = { [weak request] info in
            MainLoop.onMainActor { request?.report(.facts(info)) }
        }
        loader.onMotionClip = { [weak request] clip in
            MainLoop.onMainActor { request?.report(.motionClip(clip)) }
        }
        // A failure to get the bytes comes from the loader.
        loader.completionBlock = { [weak loader, weak request] in
            guard let loader, !loader.isCancelled else { return }
            MainLoop.onMainActor {
                if case .failure(let failure)? = loader.result { request?.report(.failed(failure)) }
                request?.loaded()
            }
        }
        // The filtration (queued by the request) first, as PhotoProcessor does (see there).
        pendingOperations.downloadQueue.addOperation(loader)
        return request
    }
}
