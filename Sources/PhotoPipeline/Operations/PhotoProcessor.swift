/// Runs the photo work the scheduler asks for: creates downloads and filtrations, cancels them,
/// suspends and resumes the queues, and reports each finished row on the main actor.
import Foundation

@MainActor
public final class PhotoProcessor {
    public private(set) var records: [PhotoRecord] = []
    public let pendingOperations: PendingOperations
    public private(set) var scheduler: ScrollScheduler
    /// Called on the main actor whenever a row's record changed (reload that row).
    public var onRecordChanged: ((Int) -> Void)?
    /// The longest side, in pixels, that downloads decode to (the row's size × scale factor).
    public var maxPixelSize: Int
    private let fetcher: PhotoFetcher
    private let filter: SepiaFilter
    /// Rows with an operation that began during a scroll and did nothing.
    private var deferredRows: Set<Int> = []
    private var isShutDown = false

    public init(fetcher: PhotoFetcher, pendingOperations: PendingOperations = PendingOperations(),
                prefetchMargin: Int = 2, maxPixelSize: Int = 160, filter: SepiaFilter = SepiaFilter()) {
        self.fetcher = fetcher
        self.pendingOperations = pendingOperations
        self.scheduler = ScrollScheduler(prefetchMargin: prefetchMargin)
        self.maxPixelSize = maxPixelSize
        self.filter = filter
    }

    // MARK: Events from the UI

    /// Replaces the list; all earlier work is cancelled.
    public func setEntries(_ entries: [PhotoEntry]) {
        apply(scheduler.listChanged(rowCount: entries.count))
        deferredRows.removeAll()
        records = entries.enumerated().map { PhotoRecord(row: $0.offset, name: $0.element.name, url: (try? $0.element.resolvedURL()) ?? URL(fileURLWithPath: "/nonexistent")) }
    }

    public func scrollBegan() { apply(scheduler.scrollBegan()) }

    public func scrollEnded(visible: Range<Int>) {
        apply(scheduler.scrollEnded(visible: visible, needsWork: needsWork))
    }

    public func visibleRowsChanged(_ visible: Range<Int>) {
        apply(scheduler.visibleRowsChanged(visible, needsWork: needsWork))
    }

    public func rowBound(_ row: Int) { apply(scheduler.rowBound(row, needsWork: needsWork)) }

    public func windowHidden(_ hidden: Bool) {
        apply(scheduler.windowHidden(hidden, needsWork: needsWork))
    }

    /// Cancels all work and forgets images of rows that are not on screen.
    public func memoryWarning() {
        apply(scheduler.memoryWarning())
        let visible = scheduler.visible
        for record in records where !visible.contains(record.row) && record.dropImage() {
            Trace.shared.emit("row.state", ["row": .int(record.row), "state": "new"])
            onRecordChanged?(record.row)
        }
    }

    // MARK: Carrying out the scheduler's decisions

    private func needsWork(_ row: Int) -> Bool { records.indices.contains(row) && records[row].needsWork }

    private func apply(_ actions: [ScrollScheduler.Action]) {
        guard !isShutDown else { return }
        for action in actions {
            switch action {
            case .suspendQueues:
                pendingOperations.isSuspended = true
                Trace.shared.emit("queues.suspended")
            case .resumeQueues:
                pendingOperations.isSuspended = false
                Trace.shared.emit("queues.resumed")
            case .start(let row, let priority):
                startOperations(for: records[row], priority: priority)
            case .cancel(let row):
                cancelOperations(for: row)
            case .setPriority(let row, let priority):
                raise(row, to: priority)
            }
        }
    }

    /// A queued row's priority changes by replacing its waiting operations with new ones at the
    /// new priority, so queues only ever see additions and cancellations. Running operations
    /// are left alone: they are past the point where priority matters.
    private func raise(_ row: Int, to priority: ScrollScheduler.Priority) {
        let download = pendingOperations.downloadsInProgress[row]
        let filtration = pendingOperations.filtrationsInProgress[row]
        guard download.map({ !$0.isExecuting && !$0.isFinished }) ?? true,
              filtration.map({ !$0.isExecuting && !$0.isFinished }) ?? true,
              download != nil || filtration != nil
        else { return }
        download?.cancel()
        filtration?.cancel()
        pendingOperations.downloadsInProgress[row] = nil
        pendingOperations.filtrationsInProgress[row] = nil
        startOperations(for: records[row], priority: priority)
    }

    /// The tutorial's startOperationsForPhotoRecord: a new photo gets a download and a
    /// filtration that depends on it (in the other queue); a downloaded one is only filtered.
    private func startOperations(for record: PhotoRecord, priority: ScrollScheduler.Priority) {
        let row = record.row
        guard !hasWork(for: row) else { return }
        switch record.state {
        case .new:
            let download = ImageDownloader(record: record, fetcher: fetcher, maxPixelSize: maxPixelSize,
                                           gate: pendingOperations.gate)
            prepare(download, priority: priority) { $0.downloadFinished($1) }
            let filtration = makeFiltration(for: record, priority: priority)
            filtration.addDependency(download)
            pendingOperations.downloadsInProgress[row] = download
            pendingOperations.filtrationsInProgress[row] = filtration
            // The filtration is queued first: Foundation on Linux notes whether an operation is
            // ready as it is queued, and a download failing at once could otherwise finish
            // between that reading and its recording, leaving the filtration unscheduled.
            pendingOperations.filtrationQueue.addOperation(filtration)
            pendingOperations.downloadQueue.addOperation(download)
        case .downloaded:
            let filtration = makeFiltration(for: record, priority: priority)
            pendingOperations.filtrationsInProgress[row] = filtration
            pendingOperations.filtrationQueue.addOperation(filtration)
        case .filtered, .failed:
            apply(scheduler.workFinished(row: row))
            return
        }
        onRecordChanged?(row) // the row shows it is busy
    }

    private func makeFiltration(for record: PhotoRecord, priority: ScrollScheduler.Priority) -> ImageFiltration {
        let op = ImageFiltration(record: record, filter: filter, gate: pendingOperations.gate)
        prepare(op, priority: priority) { $0.filtrationFinished($1) }
        return op
    }

    /// Sets the queue priority, and reports completion (unless cancelled) on the main actor:
    /// the `performSelectorOnMainThread` step of the tutorial.
    private func prepare<Op: PhotoOperation>(_ op: Op, priority: ScrollScheduler.Priority,
                                             finished: @escaping @MainActor (PhotoProcessor, Op) -> Void) {
        op.queuePriority = priority == .visible ? .high : .low
        op.completionBlock = { [weak op, weak self] in
            guard let op, !op.isCancelled else { return }
            Task { @MainActor in
                if let self { finished(self, op) }
            }
        }
    }

    private func cancelOperations(for row: Int) {
        deferredRows.remove(row)
        if let op = pendingOperations.downloadsInProgress.removeValue(forKey: row) {
            Trace.shared.emit("op.cancel", ["kind": "download", "row": .int(row), "running": .bool(op.isExecuting)])
            op.cancel()
        }
        if let op = pendingOperations.filtrationsInProgress.removeValue(forKey: row) {
            Trace.shared.emit("op.cancel", ["kind": "filter", "row": .int(row), "running": .bool(op.isExecuting)])
            op.cancel()
        }
        onRecordChanged?(row)
    }

    /// The download's result is shown at once; its filtration, already queued, follows.
    private func downloadFinished(_ op: ImageDownloader) {
        let row = op.record.row
        guard pendingOperations.downloadsInProgress[row] === op, !op.isCancelled else { return }
        pendingOperations.downloadsInProgress.removeValue(forKey: row)
        operationEnded(op)
    }

    private func filtrationFinished(_ op: ImageFiltration) {
        let row = op.record.row
        guard pendingOperations.filtrationsInProgress[row] === op, !op.isCancelled else { return }
        pendingOperations.filtrationsInProgress.removeValue(forKey: row)
        operationEnded(op)
    }

    /// Reloads the row, and once its last operation has reported, tells the scheduler: the
    /// row is done, or, if an operation began during a scroll and so did nothing, deferred
    /// (the scroll's end, or now if it has already ended, starts it again when still wanted).
    private func operationEnded(_ op: PhotoOperation) {
        let row = op.record.row
        if op.wasDeferred { deferredRows.insert(row) }
        onRecordChanged?(row)
        guard !hasWork(for: row), scheduler.pending[row] != nil else { return }
        if deferredRows.remove(row) != nil {
            apply(scheduler.workDeferred(row: row, needsWork: needsWork))
        } else {
            apply(scheduler.workFinished(row: row))
        }
    }

    /// Stops for good: every queued or running operation is cancelled (running downloads
    /// abort their transfers), nothing new starts, and no result is delivered any more. The
    /// queues run again (if a scroll had suspended them) so the cancelled operations end.
    public func shutDown() {
        onRecordChanged = nil
        isShutDown = true
        for row in pendingOperations.rowsInProgress.sorted() { cancelOperations(for: row) }
        pendingOperations.isSuspended = false
    }

    /// Whether `row` shows as busy: work is queued or running for it and its photo is not yet
    /// final. (A filtration can report before the download it followed: the row is done then.)
    public func isBusy(_ row: Int) -> Bool {
        hasWork(for: row) && needsWork(row)
    }

    /// Whether any row is busy (see `isBusy`).
    public var hasBusyRows: Bool {
        pendingOperations.downloadsInProgress.keys.contains(where: needsWork)
            || pendingOperations.filtrationsInProgress.keys.contains(where: needsWork)
    }

    /// Whether any download or filtration is queued or running for `row`.
    public func hasWork(for row: Int) -> Bool {
        pendingOperations.downloadsInProgress[row] != nil || pendingOperations.filtrationsInProgress[row] != nil
    }
}
