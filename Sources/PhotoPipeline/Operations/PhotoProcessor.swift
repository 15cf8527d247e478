import Foundation
import GLibKit

/// Runs the photo work the scheduler asks for: creates downloads and filtrations, cancels them,
/// suspends and resumes the queues, and pushes a snapshot of each photo that changed to the
/// main actor. Everything is keyed by the photo's identity; positions only say what is on
/// screen.
@MainActor
public final class PhotoProcessor {
    /// The list shown, whose changes the work follows.
    public let list: PhotoList
    /// Every photo of the list, shown or not, and their records (positions on screen: `list`'s).
    var photos: PhotoCollection { list.photos }
    let pendingOperations: PendingOperations
    var scheduler: ScrollScheduler<PhotoID>
    /// What receives a fresh snapshot, on the main actor, whenever a photo's state, image or
    /// busy-ness changed: the `performSelectorOnMainThread` step of the tutorial.
    private var photoObservers: [(PhotoSnapshot) -> Void] = []
    /// Receives the number of busy photos whenever it may have changed.
    public var onActivityChanged: ((Int) -> Void)?
    /// The box pictures are made for, in device pixels (the row's or cell's size × scale factor).
    public var thumbnailFrame: ThumbnailFrame
    private let fetcher: PhotoFetcher
    private let filter: SepiaFilter
    /// The desktop's thumbnail cache, for local pictures (nil: not used).
    private let thumbnails: ThumbnailCache?
    /// The app's cache of thumbnails of web photos (nil: not used).
    private let remoteThumbnails: ThumbnailCache?
    /// Pictures shared by rows that show the same photo (a list naming an address twice).
    private let pictures = SharedPictures()
    /// Photos with an operation that began during a scroll and did nothing.
    private var deferred: Set<PhotoID> = []
    /// What the photos hold (pictures, bytes still to decode), least recently shown first.
    var memory = MemoryLRU<PhotoID>(cap: PhotoProcessor.defaultMemoryCap)
    /// About 1,200 thumbnails of 160 pixels, or a screenful of camera photos' bytes waiting
    /// to be decoded and many thumbnails beside them.
    public nonisolated static let defaultMemoryCap = 96 << 20
    /// The most the photos' pictures and bytes may hold, in bytes, beyond those on screen or
    /// with work in flight: the least recently shown are let go (and loaded again if shown).
    public var memoryCap: Int {
        get { memory.cap }
        set {
            memory.cap = max(1, newValue)
            trimMemory()
        }
    }
    /// How much the photos' pictures and bytes hold now, in bytes.
    public var memoryHeld: Int { memory.total }
    private var isShutDown = false
    private var observation = 0
    /// Reads the marks of the photos bound (see `PhotoProcessor+Marks`).
    let marksReader = MarksReader()

    public init(
        list: PhotoList = PhotoList(), fetcher: PhotoFetcher,
        pendingOperations: PendingOperations = PendingOperations(),
        prefetchMargin: Int = 2, maxPixelSize: Int = 160, fill: ThumbnailFrame.Fill = .crop,
        filter: SepiaFilter = SepiaFilter(),
        thumbnails: ThumbnailCache? = nil, remoteThumbnails: ThumbnailCache? = nil
    ) {
        self.fetcher = fetcher
        self.thumbnails = thumbnails
        self.remoteThumbnails = remoteThumbnails
        self.pendingOperations = pendingOperations
        self.scheduler = ScrollScheduler(prefetchMargin: prefetchMargin)
        self.thumbnailFrame = ThumbnailFrame(side: maxPixelSize, fill: fill)
        self.filter = filter
        self.list = list
        observation = list.observe(
            willApply: { [weak self] edit in self?.listWillChange(edit) },
            didApply: { [weak self] change in self?.listChanged(change) })
        marksReader.onRead = { [weak self] read in self?.marksRead(read) }
    }

    // MARK: The list

    /// Cancels the work of photos about to leave the list (while their records still say
    /// where they were, for the trace).
    private func listWillChange(_ edit: PhotoListEdit) {
        switch edit {
        case .replaceAll:
            // All earlier work is cancelled and its results are dropped.
            apply(scheduler.listChanged(rowCount: 0))
            deferred.removeAll()
            memory.removeAll()
            marksReader.forgetWanted()
        case .remove(let ids):
            for id in ids {
                cancelOperations(for: id)
                apply(scheduler.workFinished(id))
                memory.remove(id)
            }
        case .append, .insert, .move, .reorder, .replace, .refilter:
            break
        }
    }

    /// Work follows its photos wherever the change put them.
    private func listChanged(_ change: PhotoListChange) {
        switch change.edit {
        case .replaceAll, .append:
            if list.count > 0 { scheduler.rowsAppended(rowCount: list.count) }
        case .insert, .remove, .refilter:
            scheduler.rowCountChanged(list.count)
            apply(scheduler.orderChanged(layout: list))
        case .move:
            for id in change.renamed { renamed(id) }
            apply(scheduler.orderChanged(layout: list))
        case .reorder:
            apply(scheduler.orderChanged(layout: list))
        case .replace:
            for id in change.replaced { rewritten(id) }
            apply(scheduler.orderChanged(layout: list))
        }
        activityChanged()
    }

    /// The photo's file was renamed: it keeps its picture, under its new name; work in flight
    /// reads the old path, so it starts again from the new one.
    private func renamed(_ id: PhotoID) {
        guard let record = photos.existingRecord(for: id) else { return }
        if pendingOperations.hasWork(for: id) {
            cancelOperations(for: id)
            apply(scheduler.workFinished(id))
            record.reset()
        }
        // Its sidecar is found by its name: looked for again.
        marksChanged(id)
        changed(record)
    }

    /// The photo's file was rewritten: whatever was made from it (its picture, the thumbnails
    /// cached for it) is dropped and it is loaded again, at once if it is on screen.
    private func rewritten(_ id: PhotoID) {
        guard let record = photos.existingRecord(for: id) else { return }
        if let url = try? record.entry.resolvedURL() {
            thumbnails?.forget(url)
            pictures.forget(url)
        }
        cancelOperations(for: id)
        apply(scheduler.workFinished(id))
        memory.remove(id)
        if record.reset() {
            Trace.shared.emit(.rowState(row: record.position, id: id, state: .new))
            changed(record)
        }
    }

    /// A snapshot of the photo at `position`, for a widget being bound to it.
    public func snapshot(at position: Int) -> PhotoSnapshot {
        let id = list.id(at: position)
        return snapshot(of: photos.makeRecord(for: id)!)
    }

    /// A snapshot of the photo `id` as it is now (a new photo if nothing was done for it yet);
    /// nil once it has left the list.
    public func snapshot(of id: PhotoID) -> PhotoSnapshot? {
        if let record = photos.existingRecord(for: id) { return snapshot(of: record) }
        guard let position = photos.position(of: id) else { return nil }
        return PhotoSnapshot(
            id: id, entry: photos.entry(at: position), state: .new, image: nil, failure: nil, isBusy: false)
    }

    /// Has `handler` receive a fresh snapshot of every photo that changed (state, image or
    /// busy-ness), on the main actor, after those that began observing before it.
    public func observePhotos(_ handler: @escaping (PhotoSnapshot) -> Void) {
        photoObservers.append(handler)
    }

    /// Whether any download or filtration is queued or running.
    public var hasWorkInFlight: Bool { !pendingOperations.photosInProgress.isEmpty }

    /// The viewer's loads of this processor's photos, on its operation queues.
    public func makeViewerPipeline() -> ViewerPipeline {
        ViewerPipeline(fetcher: fetcher, pendingOperations: pendingOperations, filter: filter) { [weak self] id in
            self?.photos.makeRecord(for: id)
        }
    }

    // MARK: Events from the UI

    public func scrollBegan() { apply(scheduler.scrollBegan()) }

    public func scrollEnded(visible: Range<Int>) {
        apply(scheduler.scrollEnded(visible: visible, layout: list))
    }

    public func visibleRowsChanged(_ visible: Range<Int>) {
        apply(scheduler.visibleRowsChanged(visible, layout: list))
    }

    /// The view shows `columns` cells to a row (1: the list) with `visible` positions on
    /// screen: the margin and the order work starts in follow (see `ScrollScheduler`).
    public func columnsChanged(_ columns: Int, visible: Range<Int>) {
        apply(scheduler.columnsChanged(max(1, columns), visible: visible, layout: list))
    }

    public func rowBound(_ position: Int) {
        let id = list.id(at: position)
        memory.touch(id)
        wantMarks(of: id)
        apply(scheduler.rowBound(position, layout: list))
    }

    public func windowHidden(_ hidden: Bool) {
        apply(scheduler.windowHidden(hidden, layout: list))
    }

    /// Cancels all work and forgets the images of photos that are not on screen.
    public func memoryWarning() {
        apply(scheduler.memoryWarning())
        let visible = scheduler.visible
        for record in photos.existingRecords where !visible.contains(record.position) && record.dropImage() {
            memory.remove(record.id)
            Trace.shared.emit(.rowState(row: record.position, id: record.id, state: .new))
            changed(record)
        }
        activityChanged()
    }

    /// The size thumbnails are decoded at changed (the window moved to a display with another
    /// scale factor, the grid's cells were made larger or smaller, the view changed): work in
    /// flight is cancelled, and every photo whose picture does not serve the new frame is
    /// decoded again when shown, those on screen first. A picture less than twice as large is
    /// kept and drawn smaller: one step down needs no new decode (see `PhotoRecord.fits`).
    public func setThumbnailFrame(_ frame: ThumbnailFrame) {
        guard frame != thumbnailFrame else { return }
        thumbnailFrame = frame
        apply(scheduler.memoryWarning()) // cancels everything
        let stale = photos.existingRecords.filter { $0.state != .failed && !$0.fits(frame) }
        for record in stale where record.reset() {
            memory.remove(record.id)
            Trace.shared.emit(.rowState(row: record.position, id: record.id, state: .new))
            changed(record)
        }
        apply(scheduler.visibleRowsChanged(scheduler.visible, layout: list))
        activityChanged()
    }

    /// The frame's side changed, its kind kept (see `setThumbnailFrame`).
    public func setThumbnailSize(_ pixels: Int) {
        setThumbnailFrame(ThumbnailFrame(side: pixels, fill: thumbnailFrame.fill))
    }

    // MARK: Carrying out the scheduler's decisions

    func apply(_ actions: [ScrollScheduler<PhotoID>.Action]) {
        guard !isShutDown else { return }
        for action in actions {
            switch action {
            case .suspendQueues:
                pendingOperations.isSuspended = true
                Trace.shared.emit(.queuesSuspended)
            case .resumeQueues:
                pendingOperations.isSuspended = false
                Trace.shared.emit(.queuesResumed)
            case .start(let id, let priority):
                if let record = photos.makeRecord(for: id) { startOperations(for: record, priority: priority) }
            case .cancel(let id):
                cancelOperations(for: id)
            case .setPriority(let id, let priority):
                raise(id, to: priority)
            }
        }
        if !actions.isEmpty { activityChanged() }
    }

    /// A queued photo's priority changes by replacing its waiting operations with new ones at
    /// the new priority, so queues only ever see additions and cancellations. Running
    /// operations are left alone: they are past the point where priority matters.
    private func raise(_ id: PhotoID, to priority: ScrollScheduler<PhotoID>.Priority) {
        let download = pendingOperations.downloadsInProgress[id]
        let filtration = pendingOperations.filtrationsInProgress[id]
        guard download.map({ !$0.isExecuting && !$0.isFinished }) ?? true,
            filtration.map({ !$0.isExecuting && !$0.isFinished }) ?? true,
            download != nil || filtration != nil,
            let record = photos.existingRecord(for: id)
        else { return }
        download?.cancel()
        filtration?.cancel()
        pendingOperations.downloadsInProgress[id] = nil
        pendingOperations.filtrationsInProgress[id] = nil
        startOperations(for: record, priority: priority)
    }

    /// The tutorial's startOperationsForPhotoRecord: a new photo gets a download and a
    /// filtration that depends on it (in the other queue); a downloaded one is only filtered.
    private func startOperations(for record: PhotoRecord, priority: ScrollScheduler<PhotoID>.Priority) {
        let id = record.id
        guard !pendingOperations.hasWork(for: id) else { return }
        switch record.state {
        case .new:
            if let key = SharedPictures.key(record.entry, frame: thumbnailFrame),
                let picture = pictures.picture(for: key)
            {
                // Another row shows this photo at this size already: no download, no decode.
                record.markFiltered(picture, frame: thumbnailFrame)
                Trace.shared.emit(.rowState(row: record.position, id: id, state: .filtered))
                changed(record)
                memory.set(id, cost: record.memoryCost)
                apply(scheduler.workFinished(id))
                return
            }
            let download = ImageDownloader(
                record: record, fetcher: fetcher, frame: thumbnailFrame,
                thumbnails: thumbnails, remoteThumbnails: remoteThumbnails, gate: pendingOperations.gate)
            prepare(download, priority: priority) { $0.downloadFinished($1) }
            let filtration = makeFiltration(for: record, priority: priority)
            filtration.addDependency(download)
            pendingOperations.downloadsInProgress[id] = download
            pendingOperations.filtrationsInProgress[id] = filtration
            // The filtration is queued first: Foundation on Linux notes whether an operation is
            // ready as it is queued, and a download failing at once could otherwise finish
            // between that reading and its recording, leaving the filtration unscheduled.
            pendingOperations.filtrationQueue.addOperation(filtration)
            pendingOperations.downloadQueue.addOperation(download)
        case .downloaded:
            let filtration = makeFiltration(for: record, priority: priority)
            pendingOperations.filtrationsInProgress[id] = filtration
            pendingOperations.filtrationQueue.addOperation(filtration)
        case .filtered, .failed:
            apply(scheduler.workFinished(id))
            return
        }
        changed(record) // the row shows it is busy
    }

    private func makeFiltration(for record: PhotoRecord, priority: ScrollScheduler<PhotoID>.Priority) -> ImageFiltration
    {
        let decoding = RowDecoding(
            frame: thumbnailFrame, limits: fetcher.limits.decode, budget: fetcher.budget,
            thumbnails: thumbnails, remoteThumbnails: remoteThumbnails, shared: pictures)
        let op = ImageFiltration(record: record, filter: filter, decoding: decoding, gate: pendingOperations.gate)
        prepare(op, priority: priority) { $0.filtrationFinished($1) }
        return op
    }

    /// Sets the queue priority, and reports completion (unless cancelled) on the main actor.
    private func prepare<Op: PhotoOperation>(
        _ op: Op, priority: ScrollScheduler<PhotoID>.Priority,
        finished: @escaping @MainActor (PhotoProcessor, Op) -> Void
    ) {
        op.queuePriority = priority == .visible ? .high : .low
        op.completionBlock = { [weak op, weak self] in
            guard let op, !op.isCancelled else { return }
            MainLoop.onMainActor {
                if let self { finished(self, op) }
            }
        }
    }

    private func cancelOperations(for id: PhotoID) {
        deferred.remove(id)
        if let op = pendingOperations.downloadsInProgress.removeValue(forKey: id) {
            traceCancel(op)
            op.cancel()
        }
        if let op = pendingOperations.filtrationsInProgress.removeValue(forKey: id) {
            traceCancel(op)
            op.cancel()
        }
        if let record = photos.existingRecord(for: id) { changed(record) }
    }

    private func traceCancel(_ op: PhotoOperation) {
        Trace.shared.emit(.opCancel(kind: op.kind, row: op.record.position, id: op.record.id, running: op.isExecuting))
    }

    /// The download's result is shown at once; its filtration, already queued, follows.
    private func downloadFinished(_ op: ImageDownloader) {
        let id = op.record.id
        guard pendingOperations.downloadsInProgress[id] === op, !op.isCancelled else { return }
        pendingOperations.downloadsInProgress.removeValue(forKey: id)
        operationEnded(op)
    }

    private func filtrationFinished(_ op: ImageFiltration) {
        let id = op.record.id
        guard pendingOperations.filtrationsInProgress[id] === op, !op.isCancelled else { return }
        pendingOperations.filtrationsInProgress.removeValue(forKey: id)
        operationEnded(op)
    }

    /// Pushes the photo's new snapshot, and once its last operation has reported, tells the
    /// scheduler: the photo is done, or, if an operation began during a scroll and so did
    /// nothing, deferred (the scroll's end, or now if it has already ended, starts it again
    /// when still wanted).
    private func operationEnded(_ op: PhotoOperation) {
        let id = op.record.id
        if op.wasDeferred { deferred.insert(id) }
        changed(op.record)
        memory.set(id, cost: op.record.memoryCost)
        trimMemory()
        if !pendingOperations.hasWork(for: id), scheduler.pending[id] != nil {
            if deferred.remove(id) != nil {
                apply(scheduler.workDeferred(id, at: list.position(of: id), layout: list))
            } else {
                apply(scheduler.workFinished(id))
            }
        }
        activityChanged()
    }

    /// Lets go of the least recently shown photos' pictures and bytes while they hold more
    /// than the cap; photos on screen (or in the prefetch margin) and photos with work in
    /// flight stay.
    private func trimMemory() {
        guard memory.total > memory.cap else { return }
        let wanted = scheduler.wanted
        let evicted = memory.evictions { [list, pendingOperations] id in
            pendingOperations.hasWork(for: id) || list.position(of: id).map { wanted.contains($0) } ?? false
        }
        for id in evicted {
            guard let record = photos.existingRecord(for: id), record.dropImage() else { continue }
            Trace.shared.emit(.rowState(row: record.position, id: id, state: .new))
            changed(record)
        }
    }

    /// Stops for good: every queued or running operation is cancelled (running downloads
    /// abort their transfers), nothing new starts, and no result is delivered any more. The
    /// queues run again (if a scroll had suspended them) so the cancelled operations end.
    public func shutDown() {
        photoObservers = []
        marksReader.close()
        onActivityChanged = nil
        isShutDown = true
        list.stopObserving(observation)
        for id in pendingOperations.photosInProgress.sorted() { cancelOperations(for: id) }
        pendingOperations.isSuspended = false
    }

    // MARK: Telling the UI

    private func snapshot(of record: PhotoRecord) -> PhotoSnapshot {
        record.snapshot(isBusy: pendingOperations.hasWork(for: record.id))
    }

    func changed(_ record: PhotoRecord) {
        guard !photoObservers.isEmpty else { return }
        let snapshot = snapshot(of: record)
        for observer in photoObservers { observer(snapshot) }
    }

    /// How many photos have work queued or running and are not yet final.
    public var busyCount: Int {
        pendingOperations.photosInProgress.count { photos.existingRecord(for: $0)?.needsWork ?? false }
    }

    func activityChanged() {
        onActivityChanged?(busyCount)
    }
}
