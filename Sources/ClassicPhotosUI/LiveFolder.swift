import CGLib
import Foundation
import GLibKit
import PhotoPipeline

/// A folder shown on its own: watched while it is shown (files added, removed, renamed and
/// rewritten by other programs), and sorted as the user chose (name, date taken, date
/// modified, size).
///
/// A burst of changes becomes one plan, worked out off the main thread from a snapshot of the
/// list (`FolderChanges.plan`: a sorted merge), then applied as the list's edits, new photos in
/// slices of `sliceRows`, one slice per main-loop iteration, so that no burst holds the window
/// up however large it is. Changes that arrive meanwhile wait for the next plan.
@MainActor
final class LiveFolder {
    let url: URL
    private let photos: PhotoList
    private let pane: PhotoListPane
    private let watch: FolderWatch?
    /// The order the rows are in now.
    private(set) var order: PhotoOrder
    /// Sort facts read so far, by photo.
    private var facts: [PhotoID: SortFacts] = [:]
    /// A sort or a plan being worked out off the main thread.
    private var sorting: Cancellable?
    private var planning: Cancellable?
    /// Changes waiting for the plan in the works, or the edits being applied, to finish.
    private var waiting: [FolderChange] = []
    /// What is left to apply of the current plan, and what the trace says once it is.
    private var applying: (edits: ArraySlice<PhotoListEdit>, plan: FolderChangePlan, version: Int)?
    private var slices: MainLoopSource?
    /// Whether the app itself just changed the file at a path (its own trash, undo, rotate).
    var isOwnChange: ((String) -> Bool)?

    /// New photos applied per main-loop iteration.
    static let sliceRows = 2_000

    init(url: URL, order: PhotoOrder, photos: PhotoList, pane: PhotoListPane) {
        self.url = url
        self.order = order
        self.photos = photos
        self.pane = pane
        watch = FolderWatch(folder: url)
        watch?.onChanges = { [unowned self] changes in changed(changes) }
    }

    func close() {
        watch?.cancel()
        sorting?.cancel()
        planning?.cancel()
        slices = nil
        applying = nil
        waiting = []
    }

    // MARK: Changes

    private func changed(_ changes: [FolderChange]) {
        // What the app itself just did (trash, undo, rotate) is already in the list.
        waiting += changes.filter { change in
            switch change {
            case .created(let path), .deleted(let path), .changed(let path): !(isOwnChange?(path) ?? false)
            case .renamed(_, let to): !(isOwnChange?(to) ?? false)
            }
        }
        planIfIdle()
    }

    /// Works out what the waiting changes do, off the main thread, unless a plan is in the works.
    private func planIfIdle() {
        guard planning == nil, applying == nil, !waiting.isEmpty else { return }
        let changes = waiting
        waiting = []
        let snapshot = photos.snapshot()
        let version = photos.version
        let (order, known) = (order, facts)
        let cancellable = Cancellable()
        planning = cancellable
        DispatchQueue.global(qos: .userInitiated).async {
            let entry = FolderSource.newFileEntries()
            let plan = FolderChanges.plan(
                changes, list: snapshot, order: order, known: known, link: Self.link, entry: entry,
                facts: { SortFacts.read(link: $0.link, taken: order.key == .dateTaken) })
            PhotoIndex.shared?.flush() // the dates read, remembered for the next time
            MainLoop.onMainActor { [weak self] in
                guard let self, !cancellable.isCancelled else { return }
                planning = nil
                guard photos.version == version, order == self.order else {
                    // The list changed meanwhile (an action, a sort): worked out again.
                    waiting = changes + waiting
                    planIfIdle()
                    return
                }
                start(plan)
            }
        }
    }

    private func start(_ plan: FolderChangePlan) {
        for id in plan.rewritten { facts.removeValue(forKey: id) }
        for id in plan.removed { facts.removeValue(forKey: id) }
        facts.merge(plan.factsRead) { $1 }
        guard !plan.isEmpty else { return planIfIdle() }
        applying = (plan.edits(slice: Self.sliceRows)[...], plan, photos.version)
        // The first slice at once; the rest on the next iterations, input and drawing between.
        guard applyNextSlice() == .continue else { return }
        slices = MainLoopSource.onMainActor(.idle, priority: G_PRIORITY_DEFAULT_IDLE) { [weak self] in
            self?.applyNextSlice() ?? .remove
        }
    }

    private func applyNextSlice() -> MainLoopSource.Action {
        guard var current = applying else { return .remove }
        if photos.version != current.version {
            // Someone else changed the list between slices: the photos not yet in are placed
            // again by a new plan.
            let left = current.edits.flatMap { edit -> [FolderChange] in
                guard case .insert(let entries, _) = edit else { return [] }
                return entries.compactMap { Self.path(ofLink: $0.link).map(FolderChange.created) }
            }
            finish(current.plan)
            waiting = left + waiting
            planIfIdle()
            return .remove
        }
        if let edit = current.edits.popFirst() {
            if case .move(let id, _, _) = edit { facts.removeValue(forKey: id) }
            photos.apply(edit)
        }
        current.version = photos.version
        applying = current
        guard current.edits.isEmpty else { return .continue }
        finish(current.plan)
        planIfIdle()
        return .remove
    }

    private func finish(_ plan: FolderChangePlan) {
        applying = nil
        slices = nil
        Trace.shared.emit(
            .sourceChanged(
                url: url.absoluteString, added: plan.added, removed: plan.removedCount, changed: plan.changed,
                rows: photos.count))
    }

    private nonisolated static func link(_ path: String) -> String {
        guard let uri = g_filename_to_uri(path, nil, nil) else { return "" }
        defer { g_free(uri) }
        return String(cString: uri)
    }

    private static func path(ofLink link: String) -> String? {
        guard let path = g_filename_from_uri(link, nil, nil) else { return nil }
        defer { g_free(path) }
        return String(cString: path)
    }

    /// Where a photo named `entry` goes in the folder's order now (a photo put back from the
    /// trash).
    func position(for entry: PhotoEntry) -> Int {
        FolderChanges.position(of: entry, in: photos.snapshot(), order: order, known: facts) { [order] in
            SortFacts.read(link: $0.link, taken: order.key == .dateTaken)
        }
    }

    // MARK: Sorting

    /// The folder is to be shown in `order`: worked out off the main thread (reading what it
    /// needs from each file), then shown without moving the photo in view.
    func sort(by order: PhotoOrder, generation: Int) {
        sorting?.cancel()
        let snapshot = photos.snapshot()
        let ids = (0..<snapshot.count).map { snapshot.id(at: $0) }
        let known = order.key == .name ? [:] : facts
        let cancellable = Cancellable()
        sorting = cancellable
        DispatchQueue.global(qos: .userInitiated).async {
            let entries = (0..<snapshot.count).map { snapshot.entry(at: $0) }
            var facts: [SortFacts?] = []
            if order.needsFacts {
                facts.reserveCapacity(entries.count)
                for (index, entry) in entries.enumerated() {
                    if index % 1024 == 0, cancellable.isCancelled { return }
                    let had = known[ids[index]]
                    facts.append(
                        had.flatMap { order.key != .dateTaken || $0.taken != nil ? $0 : nil }
                            ?? SortFacts.read(link: entry.link, taken: order.key == .dateTaken))
                }
            }
            if order.key == .dateTaken { PhotoIndex.shared?.flush() }
            if cancellable.isCancelled { return }
            let sorted = order.order(names: entries.map(\.name), links: entries.map(\.link), facts: facts)
            let newIDs = sorted.map { ids[$0] }
            let found = Dictionary(
                uniqueKeysWithValues: zip(ids, facts).compactMap { id, facts in facts.map { (id, $0) } })
            MainLoop.onMainActor { [weak self] in
                guard let self, !cancellable.isCancelled, generation == photos.generation, sorting === cancellable
                else { return }
                sorting = nil
                self.facts.merge(found) { $1 }
                show(newIDs, in: order)
            }
        }
    }

    /// Shows the photos in the order `ids` (the same photos as now, unless the folder changed
    /// meanwhile: then it is worked out again). The photo at the top of the view (or the one
    /// selected, if on screen) keeps its place on screen.
    private func show(_ ids: [PhotoID], in order: PhotoOrder) {
        guard ids.count == photos.count, ids.allSatisfy(photos.contains) else {
            sort(by: order, generation: photos.generation)
            return
        }
        self.order = order
        pane.keepingPlace { photos.apply(.reorder(ids)) }
        Trace.shared.emit(.listSorted(key: order.key.rawValue, descending: order.descending, rows: ids.count))
    }
}
