import Foundation

/// The two operation queues and the work in flight, keyed by photo for fast lookups.
@MainActor
public final class PendingOperations {
    let downloadQueue: OperationQueue
    let filtrationQueue: OperationQueue
    var downloadsInProgress: [PhotoID: ImageDownloader] = [:]
    var filtrationsInProgress: [PhotoID: ImageFiltration] = [:]
    /// Closed while the queues are suspended; operations that begin then do no work.
    nonisolated let gate = SuspensionGate()

    /// - Parameters:
    ///   - downloads: concurrent downloads; network-bound, so more than the cores.
    ///   - filtrations: concurrent filters; CPU-bound, so one per core.
    public init(
        downloads: Int = PendingOperations.defaultDownloadConcurrency,
        filtrations: Int = PendingOperations.defaultFiltrationConcurrency
    ) {
        downloadQueue = OperationQueue()
        downloadQueue.name = "Download queue"
        downloadQueue.maxConcurrentOperationCount = downloads
        filtrationQueue = OperationQueue()
        filtrationQueue.name = "Image Filtration queue"
        filtrationQueue.maxConcurrentOperationCount = filtrations
    }

    /// Downloads wait on the network, not the CPU: enough of them to fetch a screenful of
    /// rows (up to nine intersect the default window's viewport) in one round trip, and two
    /// per core on bigger machines. Measured with 400 ms per response: visible rows settled
    /// 836 ms after the list loaded with 4 at once, 435 ms with 8; with 1.5 s per response,
    /// a scrollbar drag that stopped with nine rows in view took two rounds (3.0 s) at 8.
    public nonisolated static var defaultDownloadConcurrency: Int {
        max(10, 2 * ProcessInfo.processInfo.activeProcessorCount)
    }
    /// Filtering is pure CPU work: one per core.
    public nonisolated static var defaultFiltrationConcurrency: Int {
        max(1, ProcessInfo.processInfo.activeProcessorCount)
    }

    /// Photos that have a download or a filtration queued or running.
    var photosInProgress: Set<PhotoID> { Set(downloadsInProgress.keys).union(filtrationsInProgress.keys) }

    /// Whether any download or filtration is queued or running for `id`.
    func hasWork(for id: PhotoID) -> Bool {
        downloadsInProgress[id] != nil || filtrationsInProgress[id] != nil
    }

    var isSuspended: Bool {
        get { downloadQueue.isSuspended }
        set {
            // Closed before the queues are suspended and opened before they resume: an operation
            // that begins while they are suspended always finds the gate closed, and none that
            // begins after they resumed is turned away.
            gate.isOpen = !newValue
            downloadQueue.isSuspended = newValue
            filtrationQueue.isSuspended = newValue
        }
    }
}
