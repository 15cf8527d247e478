import CGLib
import Foundation
import GLibKit
import PhotoPipeline

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
    private let photos: PhotoList
    private let pane: PhotoListPane
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
    private(set) var order: PhotoOrder
    /// Whether that order is known to be right: false while it comes from the dates the index
    /// held for the photos' paths, not yet checked against the files (`sort(by:generation:checking:)`).
    private(set) var orderChecked: Bool
    /// Sort facts read so far, by photo.
    private var facts: [PhotoID: SortFacts] = [:] {
        didSet { factsVersion += 1 }
    }
    /// Counts the changes to `facts`, so that facts merged off the main thread from a copy can
    /// replace them whole when nothing changed them meanwhile.
    private var factsVersion = 0
    /// A sort or a plan being worked out off the main thread.
    private var sorting: Cancellable?
    private var planning: Cancellable?
    /// Changes waiting for the plan in the works, or the edits being applied, to finish.
    private var waiting: [FolderChange] = []
    /// What is left to apply of the current plan, and what the trace says once it is.
    private var applying: (edits: ArraySlice<PhotoListEdit>, plan: FolderChangePlan, version: Int)?
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
    /// Whether the app itself just changed the file at a path (its own trash, undo, rotate).
    var isOwnChange: ((String) -> Bool)?

    /// New photos put into the list per edit.
    static let editRows = 2_000

    init(
        url: URL, order: PhotoOrder, orderChecked: Bool = true, tree: [URL]? = nil, readBegan: Double? = nil,
        photos: PhotoList, pane: PhotoListPane
    ) {
        self.url = url
        self.order = order
        self.orderChecked = orderChecked
        self.photos = photos
        self.pane = pane
        isTree = tree != nil
        watchLimit = AppConfiguration.current.testSwitches.watchLimit ?? Self.systemWatchLimit
        watch(tree ?? [url], readSince: readBegan)
        indexed.onArrived = { [unowned self, unowned pane] id in
            guard id == tooltipWaiting else { return }
            tooltipWaiting = nil
            pane.refreshTooltip(of: id)
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
                facts.removeValue(forKey: id)
                indexed.forget([id])
            }
            photos.apply(edit)
        }
        current.version = photos.version
        applying = current
        guard current.edits.isEmpty else { return .more }
        finish(current.plan)
        planIfIdle()
        return .done
    }

    private func finish(_ plan: FolderChangePlan) {
        applying = nil
        Trace.shared.emit(
            .sourceChanged(
                url: url.absoluteString, added: plan.added, removed: plan.removedCount, changed: plan.changed,
                rows: photos.count))
    }

    /// The changes of a tree with its folders' own made plain: a folder that came becomes each
    /// picture in it and beneath it (and is given back to be watched); one that went, each
    /// photo shown from it and beneath it.
    private nonisolated static func expandFolders(
        _ changes: [FolderChange], list: PhotoCollectionSnapshot, watched: Set<String>, cancellable: Cancellable
    ) -> (changes: [FolderChange], newFolders: [URL], goneFolders: [String]) {
        var expanded: [FolderChange] = []
        var newFolders: [URL] = []
        var linksShown: [String]?
        func photos(under folder: String) -> [FolderChange] {
            let links = linksShown ?? (0..<list.count).map { list.entry(at: $0).link }
            linksShown = links
            let prefix = Self.link(folder) + "/"
            return links.filter { $0.hasPrefix(prefix) }.compactMap { path(ofLink: $0).map(FolderChange.deleted) }
        }
        func added(_ folder: String) -> [FolderChange] {
            let url = URL(fileURLWithPath: folder, isDirectory: true)
            guard let tree = FolderSource.picturesBeneath(url, cancellable: cancellable) else { return [] }
            newFolders += tree.folders
            return tree.paths.map(FolderChange.created)
        }
        for change in changes {
            switch change {
            case .created(let path) where Self.isFolder(path): expanded += added(path)
            case .deleted(let path) where watched.contains(path): expanded += photos(under: path)
            case .renamed(let from, let to) where Self.isFolder(to):
                expanded += photos(under: from) + added(to)
            default: expanded.append(change)
            }
        }
        let gone = changes.compactMap { change -> String? in
            switch change {
            case .deleted(let path) where watched.contains(path): path
            case .renamed(let from, _) where watched.contains(from): from
            default: nil
            }
        }
        return (expanded, newFolders, gone)
    }

    /// What `folders`, read again, hold that the list does not show, and what it shows of them
    /// that is gone: each as the change a watch would have told of (see `toReread`). In a
    /// tree, a sub-folder counts as new where it is not watched, and as gone where it is watched
    /// and no longer there; elsewhere a sub-folder is an item like a photo.
    private nonisolated static func changes(
        rereading folders: [(path: String, readSince: Double)], list: PhotoCollectionSnapshot, tree: Bool,
        watched: Set<String>, cancellable: Cancellable
    ) -> [FolderChange] {
        guard !folders.isEmpty else { return [] }
        let prefixes = Set(folders.map { folderLink($0.path) })
        var shownIn: [String: Set<String>] = [:]
        // Every folder a row is in (a tree's sub-folder with rows in it is not new, watched or not).
        var parents: Set<String> = []
        for position in 0..<list.count {
            let shown = list.entry(at: position).link
            // Its folder's address: up to the last "/" but one that ends a folder's own.
            let own = shown.hasSuffix("/") ? shown.dropLast() : Substring(shown)
            guard let slash = own.lastIndex(of: "/") else { continue }
            let parent = String(own[...slash])
            if tree { parents.insert(parent) }
            if prefixes.contains(parent) { shownIn[parent, default: []].insert(shown) }
        }
        // The watched folders by the folder they are in.
        var watchedIn: [String: [String]] = [:]
        if tree {
            for path in watched {
                watchedIn[URL(fileURLWithPath: path).deletingLastPathComponent().path, default: []].append(path)
            }
        }
        var changes: [FolderChange] = []
        var reread: Set<String> = []
        for (folder, readSince) in folders where reread.insert(folder).inserted {
            let url = URL(fileURLWithPath: folder, isDirectory: true)
            // A folder gone meanwhile is told of by its parent's watch.
            guard let listing = FolderSource.links(in: url, cancellable: cancellable) else { continue }
            let shown = shownIn[folderLink(folder)] ?? []
            var held = Set(listing.pictures)
            if !tree { held.formUnion(listing.folders) }
            for added in held.subtracting(shown).sorted() {
                if let path = path(ofLink: added) { changes.append(.created(withoutSlash(path))) }
            }
            // Gone from the disk, not only from the listing (a hidden picture opened by its name
            // is shown although a listing leaves it out).
            for gone in shown.subtracting(held).sorted() {
                guard let path = path(ofLink: gone).map(withoutSlash) else { continue }
                var status = stat()
                if lstat(path, &status) != 0 { changes.append(.deleted(path)) }
            }
            guard tree else { continue }
            let subfolders = Set(listing.folders.compactMap { path(ofLink: $0).map(withoutSlash) })
            // New: not watched, no row beneath it, and made (or moved here) since the reading; a
            // link to a folder read by another path, or a loop, is none of these.
            let newFolders = subfolders.subtracting(watched).filter { subfolder in
                let prefix = folderLink(subfolder)
                var status = stat()
                return lstat(subfolder, &status) == 0
                    && Double(status.st_ctim.tv_sec) + Double(status.st_ctim.tv_nsec) / 1e9 >= readSince - 0.05
                    && !parents.contains { $0.hasPrefix(prefix) }
            }
            changes += newFolders.sorted().map(FolderChange.created)
            let goneFolders = (watchedIn[url.path] ?? []).filter { !subfolders.contains($0) }
            changes += goneFolders.sorted().map(FolderChange.deleted)
        }
        return changes
    }

    /// A folder's address ending in "/", as the addresses of what is in it begin.
    private nonisolated static func folderLink(_ path: String) -> String {
        let address = link(path)
        return address.hasSuffix("/") ? address : address + "/"
    }

    private nonisolated static func withoutSlash(_ path: String) -> String {
        path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
    }

    private nonisolated static func isFolder(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
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

    private nonisolated static func link(_ path: String) -> String {
        guard let uri = g_filename_to_uri(path, nil, nil) else { return "" }
        defer { g_free(uri) }
        return String(cString: uri)
    }

    private nonisolated static func path(ofLink link: String) -> String? {
        guard let path = g_filename_from_uri(link, nil, nil) else { return nil }
        defer { g_free(path) }
        return String(cString: path)
    }

    /// Where photos named `entries` go in the folder's order now (photos put back from the
    /// trash), each as if it came alone.
    /// `read`: the facts of photos already read, by address (off the main thread, as they came
    /// back); any other photo's are read here.
    func positions(for entries: [PhotoEntry], read: [String: SortFacts] = [:]) -> [Int] {
        FolderChanges.positions(of: entries, in: photos.snapshot(), order: order, known: facts) { [order] in
            read[$0.link] ?? SortFacts.read(link: $0.link, taken: order.key == .dateTaken)
        }
    }

    /// The facts sorting read of a photo shown (or shown until just now), if any.
    func sortFacts(of id: PhotoID) -> SortFacts? { facts[id] }

    /// The date taken of a photo shown, as sorting read it, or as the index holds it; nil
    /// where neither knows it, or the index's answer has not come yet.
    func dateTaken(of id: PhotoID, link: String) -> String? {
        if let taken = facts[id]?.taken { return taken }
        return indexFacts(of: id, link: link)?.taken
    }

    /// What the index holds for the photo, if it has been read (see `IndexedFacts`; the
    /// tooltip is asked again when it comes).
    private func indexFacts(of id: PhotoID, link: String) -> PhotoIndex.Facts? {
        guard let path = Self.path(ofLink: link), case .known(let held) = indexed.facts(of: id, path: path) else {
            return nil
        }
        return held
    }

    /// What the index knows of a photo shown, in words: its size in pixels (as shown), its
    /// camera and when it was taken ("4000 × 3000 · Canon EOS R6 · 04/07/21 18:30"); nil
    /// where the index holds nothing for it (the folder was never sorted by date), or its
    /// answer has not come yet.
    func details(of id: PhotoID, link: String) -> String? {
        guard let path = Self.path(ofLink: link) else { return nil }
        guard case .known(let facts) = indexed.facts(of: id, path: path) else {
            tooltipWaiting = id
            return nil
        }
        guard let held = facts else { return nil }
        var parts: [String] = []
        if let size = held.shownSize { parts.append("\(size.width) × \(size.height)") }
        if let camera = held.camera { parts.append(DisplayText.line(camera)) }
        // The locale's way of writing a date, and the time, as the camera's clock said it.
        if let taken = DateTaken(held.taken)?.formatted("%x %H:%M") { parts.append(taken) }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }

    // MARK: Sorting

    /// The folder is to be shown in `order`: worked out off the main thread (reading what it
    /// needs from each file, on every core), then shown without moving the photo in view.
    /// With `checking` (the order the rows came in, from the index's dates), nothing is said
    /// or moved when the photos turn out to be in it already.
    func sort(by order: PhotoOrder, generation: Int, checking: Bool = false) {
        sorting?.cancel()
        let snapshot = photos.snapshot()
        let version = photos.version
        let ids = (0..<snapshot.count).map { snapshot.id(at: $0) }
        let known = order.key == .name ? [:] : facts
        let (allKnown, knownVersion) = (facts, factsVersion)
        let cancellable = Cancellable()
        sorting = cancellable
        let folderPath = url.path
        DispatchQueue.global(qos: .userInitiated).async {
            let entries = (0..<snapshot.count).map { snapshot.entry(at: $0) }
            var facts: [SortFacts?] = []
            if order.needsFacts {
                // What the index holds for the whole folder, read at once: asked photo by photo,
                // a tree of 100,000 took seconds more.
                let indexed = order.key == .dateTaken ? PhotoIndex.shared?.facts(inFolder: folderPath) : nil
                facts = Self.readFacts(
                    entries.indices.map { index in
                        known[ids[index]].flatMap { order.key != .dateTaken || $0.taken != nil ? $0 : nil }
                    }, of: entries, taken: order.key == .dateTaken, indexed: indexed, cancellable: cancellable)
            }
            if order.key == .dateTaken { PhotoIndex.shared?.flush() }
            if cancellable.isCancelled { return }
            let sorted = order.order(names: entries.map(\.name), links: entries.map(\.link), facts: facts)
            let newIDs = sorted.map { ids[$0] }
            let found = Dictionary(
                uniqueKeysWithValues: zip(ids, facts).compactMap { id, facts in facts.map { (id, $0) } })
            // Merged here: 100,000 photos' facts merged on the main thread held it up for 40 ms.
            // Handed over in a box, so that the main thread can pass what it does not keep to a
            // worker to free (see `releaseOnWorker`).
            let handed = Locked<(found: [PhotoID: SortFacts], merged: [PhotoID: SortFacts])?>(
                (found, allKnown.merging(found) { $1 }))
            MainLoop.onMainActor { [weak self] in
                guard var (found, merged) = handed.withLock({ $0.take() }) else { return }
                defer {
                    releaseOnWorker(&found, leaving: [:])
                    releaseOnWorker(&merged, leaving: [:])
                }
                guard let self, !cancellable.isCancelled, generation == photos.generation, sorting === cancellable
                else { return }
                sorting = nil
                if factsVersion == knownVersion {
                    swap(&self.facts, &merged) // the facts before go with `merged`
                } else {
                    self.facts.merge(found) { $1 }
                }
                let unchanged = newIDs == ids && photos.version == version
                if checking, order == self.order {
                    Trace.shared.emit(.indexChecked(rows: ids.count, reordered: !unchanged))
                    if unchanged {
                        orderChecked = true
                        return
                    }
                }
                show(newIDs, in: order)
            }
        }
    }

    /// The facts of `entries` where `had` has none, read on every core (the dates from
    /// `indexed` where it holds them for the same size and time).
    private nonisolated static func readFacts(
        _ had: [SortFacts?], of entries: [PhotoEntry], taken: Bool, indexed: [String: PhotoIndex.Facts]?,
        cancellable: Cancellable
    ) -> [SortFacts?] {
        let read = UnsafeMutableBufferPointer<SortFacts?>.allocate(capacity: entries.count)
        _ = read.initialize(from: had)
        defer {
            read.deinitialize()
            read.deallocate()
        }
        // Each chunk writes its own slots and no other.
        nonisolated(unsafe) let slots = read
        let chunks = entries.count < 256 ? 1 : 4 * ProcessInfo.processInfo.activeProcessorCount
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            for index in (entries.count * chunk / chunks)..<(entries.count * (chunk + 1) / chunks) {
                if index % 1024 == 0, cancellable.isCancelled { return }
                if slots[index] == nil {
                    slots[index] = SortFacts.read(link: entries[index].link, taken: taken, known: indexed)
                }
            }
        }
        return Array(read)
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
        orderChecked = true
        pane.keepingPlace { rowsInPlace in photos.apply(.reorder(ids, rowsInPlace: rowsInPlace)) }
        Trace.shared.emit(.listSorted(key: order.key.rawValue, descending: order.descending, rows: ids.count))
    }
}
