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

    /// What a request reports, in order: the decoded picture (or the failure), then its sepia
    /// version (with the sepia frames of an animation).
    public enum Event {
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
        let filtration: ViewerImageFiltration
        /// Whether the bytes come from the row's download that was in flight.
        public let sharesRowDownload: Bool
        public private(set) var isCancelled = false
        fileprivate var onEvent: ((Event) -> Void)?

        init(
            id: PhotoID, wantedSide: Int, isUrgent: Bool, loader: ViewerImageLoader,
            filtration: ViewerImageFiltration, sharesRowDownload: Bool
        ) {
            self.id = id
            self.wantedSide = wantedSide
            self.isUrgent = isUrgent
            self.loader = loader
            self.filtration = filtration
            self.sharesRowDownload = sharesRowDownload
        }

        /// Whether the request still has work queued or running.
        public var isBusy: Bool { !isCancelled && !filtration.isFinished }

        /// Cancels both operations (traced as `op.cancel`); nothing more is reported.
        public func cancel() {
            guard !isCancelled else { return }
            isCancelled = true
            onEvent = nil
            for op in [loader, filtration] as [PhotoOperation] where !op.isFinished {
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

        /// Reports `event` unless cancelled. The decoded picture is handed over (on the
        /// filtration's thread) before its sepia is made, and `MainLoop.onMainActor` keeps that
        /// order on the main actor.
        fileprivate func report(_ event: Event) {
            guard !isCancelled else { return }
            onEvent?(event)
        }
    }

    /// Loads the photo `id` decoded with its longest side at most `wantedSide` pixels (0:
    /// whole); nil if it is no longer in the list.
    ///
    /// - Parameters:
    ///   - bytes: the photo's bytes if the viewer has them (decoding again at another size).
    ///   - urgent: the photo shown (very high priority), or a neighbour (very low).
    ///   - onEvent: called on the main actor with the decoded picture or failure, then the
    ///     sepia version; never after `cancel()`.
    public func load(
        _ id: PhotoID, wantedSide: Int, bytes: Data?, urgent: Bool,
        onEvent: @escaping (Event) -> Void
    ) -> Request? {
        guard let record = record(id) else { return nil }
        // A download of this photo for its row that is already running is shared: the viewer
        // waits for its bytes rather than downloading them a second time. One still waiting in
        // its queue is not waited for (it may wait for a long time, or be cancelled).
        let sharing =
            bytes == nil
            ? (try? record.entry.resolvedURL()).flatMap { url in
                fetcher.rowDownloads.joinRunning(PhotoRequest(address: url, size: nil, kind: .rowDownload(record.id))) {
                    !$0.isCancelled
                }
            } : nil
        let loader = ViewerImageLoader(record: record, fetcher: fetcher, bytes: bytes, sharing: sharing)
        let filtration = ViewerImageFiltration(loader: loader, fetcher: fetcher, wantedSide: wantedSide, filter: filter)
        let priority: Operation.QueuePriority = urgent ? .veryHigh : .veryLow
        loader.queuePriority = priority
        filtration.queuePriority = priority
        let request = Request(
            id: record.id, wantedSide: wantedSide, isUrgent: urgent, loader: loader,
            filtration: filtration, sharesRowDownload: sharing != nil)
        request.onEvent = onEvent
        // A failure to get the bytes comes from the loader; the picture, or a failure to
        // decode it, from the filtration, before its sepia.
        loader.completionBlock = { [weak loader, weak request] in
            guard let loader, !loader.isCancelled, case .failure(let failure)? = loader.result else { return }
            MainLoop.onMainActor { request?.report(.failed(failure)) }
        }
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
        // The filtration first, as PhotoProcessor does (see there).
        pendingOperations.filtrationQueue.addOperation(filtration)
        pendingOperations.downloadQueue.addOperation(loader)
        return request
    }
}
