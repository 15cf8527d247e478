import CGLib
import Foundation
import GLibKit

/// A folder shown on its own: watched while it is shown (files added, removed, renamed and
/// rewritten by other programs), and sorted as the user chose (name, date taken, date
/// modified, size).
///
/// A folder shown with every picture beneath it (`tree`) is watched folder by folder, as far
/// as the system allows watches: a folder made in it is read and watched too, and the photos
/// of a folder that goes away leave with it.
///
/// A burst of changes becomes one plan, worked out off the main thread from a snapshot of the
/// list (`FolderChanges.plan`: a sorted merge), then applied as the list's edits, new photos
/// `editRows` to an edit, in idle slices (`IdleSlices`: an edit that costs more than a slice's
/// budget goes alone), so that no burst holds the window up however large it is. Changes that
/// arrive meanwhile wait for the next plan.
@MainActor
final class LiveFolder {
    let url: URL
    /// The model whose list shows the folder: the folder's edits are asked of it.
    unowned let feed: PhotoListFeed
    var photos: PhotoList { feed.list }
    /// Every photo of the list, shown or not (a filter hides some): what the folder changes.
    var whole: PhotoCollection { feed.list.photos }
    /// Whether the folder is shown with every picture beneath it.
    let isTree: Bool
    /// The folders watched, by path.
    private var watches: [String: FolderWatch] = [:]
    /// The most folders watched; past it, said once (`onWatchLimit`).
    private let watchLimit: Int
    private var watchLimitSaid = false
    /// Told, once, when a tree has more folders than may be watched: how many are, of how many.
    var onWatchLimit: ((Int, Int) -> Void)? {
        didSet { sayWatchLimitIfReached() }
    }
    private var unwatched = 0
    /// Folders still to be watched, each with when it was read (seconds since 1970) if known.
    private var toWatch: ArraySlice<(folder: URL, readSince: Double?)> = []
    /// Folders changed between their reading and their watch's beginning (with when they were
    /// read): read again once the list holds all the source gave, and what they hold set
    /// against what it shows of them, in the next plan.
    private var toReread: [(path: String, readSince: Double)] = []
    /// Whether the source has given all its rows (a folder read again is set against them all).
    private var sourceFinished = false
    /// Asks for the folders' watches in idle slices. Watches are made on the watching thread (a
    /// watch costs about 15 µs there: the kernel marks each of the folder's entries); asking for
    /// them a slice at a time lets the first screen's work go first.
    private lazy var watching = IdleSlices { [weak self] in self?.watchNext() ?? .done }
    /// The order the rows are in now.
    var order: PhotoOrder
    /// Whether that order is known to be right: false while it comes from the dates the index
    /// held for the photos' paths, not yet checked against the files (`sort(by:generation:checking:)`).
    var orderChecked: Bool
    /// Sort facts read so far, by photo.
    var facts: [PhotoID: SortFacts] = [:] {
        didSet { factsVersion += 1 }
    }
    /// Counts the changes to `facts`, so that facts merged off the main thread from a copy can
    /// replace them whole when nothing changed them meanwhile.
    private(set) var factsVersion = 0
    /// A sort or a plan being worked out off the main thread.
    var sorting: Cancellable?
    private var planning: Cancellable?
    /// Changes waiting for the plan in the works, or the edits being applied, to finish.
    private var waiting: [FolderChange] = []
    /// What is left to apply of the current plan, and what the trace says once it is.
    private var applying: (edits: ArraySlice<PhotoListEdit>, plan: FolderChangePlan, version: Int)?
    /// The facts the plan being applied read of its new photos, by address.
    private var arrivingFacts: [String: SortFacts] = [:]
    /// Applies them, an edit a step.
    private lazy var slices = IdleSlices { [weak self] in self?.applyNextEdit() ?? .done }
    /// What the index holds for the photos shown, read off the main thread when a tooltip or
    /// the place label first asks.
    private let indexed = IndexedFacts()
    /// The photo whose tooltip was last asked for before its facts had come: asked again when
    /// they come. (Only that one: a tooltip asked for again where the pointer is not, for the
    /// place label's facts coming in while the view scrolls, left GTK asking for no tooltip
    /// until the pointer had left the window.)
    private var tooltipWaiting: PhotoID?
    /// Photos whose dates were asked for (see `dateTaken(of:link:ask:)`), until they come.
    private var datesWaiting: Set<PhotoID> = []

    /// New photos put into the list per edit.
    static let editRows = 2_000

    init(
        url: URL, order: PhotoOrder, orderChecked: Bool = true, tree: [URL]? = nil, readBegan: Double? = nil,
        feed: PhotoListFeed
    ) {
        self.url = url
        self.order = order
        self.orderChecked = orderChecked
        self.feed = feed
        isTree = tree != nil
        watchLimit = AppConfiguration.current.testSwitches.watchLimit ?? Self.systemWatchLimit
        watch(tree ?? [url], readSince: readBegan)
        indexed.onArrived = { [unowned self] id in
            if datesWaiting.remove(id) != nil { feed.onEvent?(.dateArrived(id)) }
            guard id == tooltipWaiting else { return }
            tooltipWaiting = nil
            feed.onEvent?(.factsArrived(id))
        }
    }

    /// Watches each of `folders` (not yet watched) while there is room: a first slice of them
    /// at once, the rest a slice at a time between the window's other work.
    ///
    /// The first slice is asked for before the source says it is loaded (that is in the same
    /// turn as its last rows, or later): left to an idle turn, it waited behind the first
    /// screen's thumbnails, and a picture saved meanwhile two folders down was never shown.
    private func watch(_ folders: [URL], readSince: Double?) {
        toWatch += folders.map { ($0, readSince) }
        guard !watching.isRunning, !toWatch.isEmpty else { return sayWatchLimitIfReached() }
        watching.start(now: watches.isEmpty)
    }

    /// Watches the next folder waiting for its watch.
    private func watchNext() -> IdleSlices.Step {
        if let (folder, since) = toWatch.popFirst() { add(folder, readSince: since) }
        guard toWatch.isEmpty else { return .more }
        sayWatchLimitIfReached()
        return .done
    }

    private func add(_ folder: URL, readSince: Double?) {
        guard watches[folder.path] == nil else { return }
        guard watches.count < watchLimit else {
            unwatched += 1
            return
        }
        let watch = FolderWatch(folder: folder, changedSince: readSince)
        watch.onChanges = { [unowned self] changes in changed(changes) }
        let path = folder.path
        if let readSince {
            watch.onChangedBefore = { [unowned self] in
                toReread.append((path, readSince))
                planIfIdle()
            }
        }
        watches[folder.path] = watch
    }

    private func sayWatchLimitIfReached() {
        guard unwatched > 0, !watchLimitSaid, let onWatchLimit else { return }
        watchLimitSaid = true
        onWatchLimit(watches.count, watches.count + unwatched)
    }

    /// Folders one window may watch: most of what the system lets each user watch
    /// (`fs.inotify.max_user_watches`), leaving a quarter to other programs.
    private static var systemWatchLimit: Int {
        let text = (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_user_watches", encoding: .utf8)) ?? ""
        return max(64, (Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 8_192) * 3 / 4)
    }

    /// The source has given all its rows: the folders changed before they were watched can be
    /// set against the list now.
    func sourceDidFinish() {
        sourceFinished = true
        planIfIdle()
    }

    func close() {
        for watch in watches.values { watch.cancel() }
        watches = [:]
        watching.cancel()
        toWatch = []
        toReread = []
        sorting?.cancel()
        planning?.cancel()
        slices.cancel()
        applying = nil
        waiting = []
    }

    // MARK: Changes

    private func changed(_ changes: [FolderChange]) {
        sidecarsChanged(changes)
        // What the app itself just did (trash, undo, rotate) is already in the list.
        waiting += changes.filter { change in
            switch change {
            case .created(let path), .deleted(let path), .changed(let path): !feed.isOwnChange(path)
            case .renamed(_, let to): !feed.isOwnChange(to)
            }
        }
        planIfIdle()
    }

    /// Sidecars that came, changed or went (another app rated a photo, say: darktable writes
    /// `IMG_1.CR2.xmp`, Lightroom `IMG_1.xmp`): the photos they belong to have their marks read
    /// again. A sidecar named as Lightroom names it is matched to the photos of its name with
    /// the extensions cameras and phones give (one of another is read when next shown).
    private func sidecarsChanged(_ changes: [FolderChange]) {
        let sidecars = changes.flatMap { change -> [String] in
            switch change {
            case .created(let path), .deleted(let path), .changed(let path): [path]
            case .renamed(let from, let to): [from, to]
            }
        }.filter { $0.lowercased().hasSuffix(".xmp") && !feed.isOwnChange($0) }
        guard !sidecars.isEmpty else { return }
        var ids = Set<PhotoID>()
        for sidecar in sidecars {
            let photo = String(sidecar.dropLast(".xmp".count))
            if let id = whole.id(forLink: Self.link(photo)) {
                ids.insert(id)
                continue
            }
            for fileExtension in Self.photoExtensions {
                if let id = whole.id(forLink: Self.link(photo + "." + fileExtension)) { ids.insert(id) }
            }
        }
        if !ids.isEmpty { feed.onEvent?(.marksChanged(ids.sorted())) }
    }

    /// The extensions a Lightroom-named sidecar's photo is looked for with, as cameras and
    /// phones write them (both cases).
    private static let photoExtensions: [String] = [
        "jpg", "jpeg", "heic", "heif", "png", "tif", "tiff", "dng", "cr2", "cr3", "nef", "nrw", "arw", "raf", "orf",
        "rw2", "pef", "srw", "x3f", "avif", "webp", "jxl",
    ].flatMap { [$0, $0.uppercased()] }

    /// Works out what the waiting changes do, off the main thread, unless a plan is in the works.
    private func planIfIdle() {
        let rereading = sourceFinished ? toReread : []
        guard planning == nil, applying == nil, !waiting.isEmpty || !rereading.isEmpty else { return }
        let changes = waiting
        waiting = []
        if sourceFinished { toReread = [] }
        let snapshot = photos.snapshot()
        let version = photos.version
        let (order, known) = (order, facts)
        let cancellable = Cancellable()
        planning = cancellable
        let top = isTree ? url : nil
        let watched = Set(watches.keys).union(toWatch.map(\.folder.path))
        DispatchQueue.global(qos: .userInitiated).async {
            let entry = FolderSource.newFileEntries(under: top)
            // The folders that came are read from now on (and watched once planned).
            let readBegan = Date().timeIntervalSince1970
            // What the watches told of since they began is theirs to say (once).
            let told = Set(
                changes.flatMap { change -> [String] in
                    switch change {
                    case .created(let path), .deleted(let path), .changed(let path): [path]
                    case .renamed(let from, let to): [from, to]
                    }
                })
            let reread = Self.changes(
                rereading: rereading, list: snapshot, tree: top != nil, watched: watched, cancellable: cancellable
            ).filter { change in
                switch change {
                case .created(let path), .deleted(let path): !told.contains(path)
                default: true
                }
            }
            // In a tree, a folder that came is read (and watched once planned); one that went
            // takes its photos with it.
            let (expanded, newFolders, goneFolders) =
                top == nil
                ? (reread + changes, [], [])
                : Self.expandFolders(reread + changes, list: snapshot, watched: watched, cancellable: cancellable)
            let plan = FolderChanges.plan(
                expanded, list: snapshot, order: order, known: known, link: Self.link, entry: entry,
                facts: { SortFacts.read(link: $0.link, taken: order.key == .dateTaken) })
            PhotoIndex.shared?.flush() // the dates read, remembered for the next time
            MainLoop.onMainActor { [weak self] in
                guard let self, !cancellable.isCancelled else { return }
                planning = nil
                guard photos.version == version, order == self.order else {
                    // The list changed meanwhile (an action, a sort): worked out again.
                    waiting = changes + waiting
                    toReread = rereading + toReread
                    planIfIdle()
                    return
                }
                forgetWatches(goneFolders)
                watch(newFolders, readSince: readBegan)
                start(plan)
            }
        }
    }

    private func start(_ plan: FolderChangePlan) {
        for id in plan.rewritten { facts.removeValue(forKey: id) }
        for id in plan.removed { facts.removeValue(forKey: id) }
        indexed.forget(plan.rewritten)
        indexed.forget(plan.removed)
        facts.merge(plan.factsRead) { $1 }
        guard !plan.isEmpty else { return planIfIdle() }
        arrivingFacts = [:]
        for (entry, read) in zip(plan.inserted, plan.insertedFacts) {
            if let read { arrivingFacts[entry.link] = read }
        }
        applying = (plan.edits(slice: Self.editRows)[...], plan, photos.version)
        // The first slice at once; the rest on the next iterations, input and drawing between.
        slices.start(now: true)
    }

    private func applyNextEdit() -> IdleSlices.Step {
        guard var current = applying else { return .done }
        if photos.version != current.version {
            // Someone else changed the list between edits: the photos not yet in are placed
            // again by a new plan.
            let left = current.edits.flatMap { edit -> [FolderChange] in
                guard case .insert(let entries, _) = edit else { return [] }
                return entries.compactMap { Self.path(ofLink: $0.link).map(FolderChange.created) }
            }
            finish(current.plan)
            waiting = left + waiting
            planIfIdle()
            return .done
        }
        if let edit = current.edits.popFirst() {
            if case .move(let id, _, _) = edit {
                // The renamed file's facts, where the plan read them to place it.
                facts[id] = current.plan.factsRead[id]
                indexed.forget([id])
            }
            feed.apply(edit)
            if case .insert(let entries, let positions) = edit { keepArrivingFacts(entries, at: positions) }
        }
        current.version = photos.version
        applying = current
        guard current.edits.isEmpty else { return .more }
        finish(current.plan)
        planIfIdle()
        return .done
    }

    /// Keeps the facts read of new photos now in the list at `positions`, by their identities:
    /// the next photo placed among them (an Undo, say) compares with them without reading them
    /// again on the main thread.
    private func keepArrivingFacts(_ entries: [PhotoEntry], at positions: [Int]) {
        var kept: [PhotoID: SortFacts] = [:]
        for (entry, position) in zip(entries, positions) where position < whole.count {
            guard let read = arrivingFacts[entry.link], whole.entry(at: position).link == entry.link else { continue }
            kept[whole.id(at: position)] = read
        }
        if !kept.isEmpty { facts.merge(kept) { $1 } }
    }

    private func finish(_ plan: FolderChangePlan) {
        applying = nil
        arrivingFacts = [:]
        Trace.shared.emit(
            .sourceChanged(
                url: url.absoluteString, added: plan.added, removed: plan.removedCount, changed: plan.changed,
                rows: whole.count))
    }

    /// Stops watching the folders that went, and those beneath them.
    private func forgetWatches(_ folders: [String]) {
        for path in folders {
            let beneath = { (watched: String) in watched == path || watched.hasPrefix(path + "/") }
            for (watched, watch) in watches where beneath(watched) {
                watch.cancel()
                watches.removeValue(forKey: watched)
            }
            toWatch = toWatch.filter { !beneath($0.folder.path) }[...]
        }
    }

    /// Where photos named `entries` go in the folder's order now (photos put back from the
    /// trash), each as if it came alone; and the facts of theirs the order needed, by address.
    /// `read`: the facts of photos already read, by address (off the main thread, as they came
    /// back); any other photo's are read here.
    func positions(
        for entries: [PhotoEntry], read: [String: SortFacts] = [:]
    ) -> (
        positions: [Int], facts: [String: SortFacts]
    ) {
        var known = read
        let positions = FolderChanges.positions(of: entries, in: photos.snapshot(), order: order, known: facts) {
            [order] entry in
            if let facts = known[entry.link] { return facts }
            let facts = SortFacts.read(link: entry.link, taken: order.key == .dateTaken)
            known[entry.link] = facts
            return facts
        }
        return (positions, known)
    }

    /// Keeps the facts of photos put in the list by an action (`positions(for:read:)` gave
    /// them): the next photos placed are compared with them, not read again on the main thread.
    func remember(_ known: [PhotoID: SortFacts]) {
        guard !known.isEmpty else { return }
        facts.merge(known) { $1 }
    }

    /// The facts sorting read of a photo shown (or shown until just now), if any.
    func sortFacts(of id: PhotoID) -> SortFacts? { facts[id] }

    /// The date taken of a photo shown, as sorting read it, or as the index holds it; nil
    /// where neither knows it, or the index's answer has not come yet.
    func dateTaken(of id: PhotoID, link: String) -> String? {
        if let taken = facts[id]?.taken { return taken }
        return indexAnswer(for: id, link: link)??.taken
    }

    /// The date taken of a photo shown where it is known already (sorting read it, or the
    /// index's answer has come); with `ask`, the index is asked when it is not, and
    /// `.factsArrived` tells when it has come.
    func dateTaken(of id: PhotoID, link: String, ask: Bool) -> String? {
        if let taken = facts[id]?.taken { return taken }
        guard ask else { return indexed.known(id)??.taken }
        guard let answer = indexAnswer(for: id, link: link) else {
            datesWaiting.insert(id)
            return nil
        }
        return answer?.taken
    }

    /// What the index holds for the photo (nil inside: nothing), once its answer has come;
    /// nil until then (it is asked for now: see `IndexedFacts`).
    private func indexAnswer(for id: PhotoID, link: String) -> PhotoIndex.Facts?? {
        guard let path = Self.path(ofLink: link), case .known(let held) = indexed.facts(of: id, path: path) else {
            return nil
        }
        return .some(held)
    }

    /// What the index knows of a photo shown, in words: its size in pixels (as shown), its
    /// camera and when it was taken ("4000 × 3000 · Canon EOS R6 · 04/07/21 18:30"); nil
    /// where the index holds nothing for it (the folder was never sorted by date), or its
    /// answer has not come yet (the tooltip is asked for again when it comes).
    func details(of id: PhotoID, link: String) -> String? {
        guard let answer = indexAnswer(for: id, link: link) else {
            tooltipWaiting = id
            return nil
        }
        guard let held = answer else { return nil }
        var parts: [String] = []
        if let size = held.shownSize { parts.append("\(size.width) × \(size.height)") }
        if let camera = held.camera { parts.append(DisplayText.line(camera)) }
        // The locale's way of writing a date, and the time, as the camera's clock said it.
        if let taken = DateTaken(held.taken)?.formatted("%x %H:%M") { parts.append(taken) }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }
}
