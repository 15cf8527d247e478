import Foundation
import GLibKit

/// The model behind the list shown, and the only thing that edits it: it reads the sources
/// (`SourceFeed`), keeps a folder shown up to date and in the order chosen (`LiveFolder`, or
/// `RemoteFolderWatch` on a share), counts what sub-folders hold (`FolderCounts`), and carries
/// out what the actions ask of the list (photos out to the trash and back, files rewritten).
///
/// Views, the viewer and the actions read `list` and observe its edits; the window hears of
/// what it shows or says through `onEvent`. Whether an edit keeps the photo in view is a
/// property of the edit (`PhotoListEdit.reorder`), not a call into a view.
@MainActor
public final class PhotoListFeed {
    /// What the window is told of.
    public enum Event {
        /// Rows of a source came into the list. `selected`: the position of a photo its source
        /// named, to select once laid out (a single picture opened with its folder).
        case rowsArrived(selected: Int?)
        /// The photo delivered ahead of its folder is now at `position` (its folder filled in
        /// around it).
        case aheadMoved(PhotoID, to: Int)
        /// A source could not be read.
        case sourceFailed(URL, PhotoSourceError)
        /// Every source has been read (or failed).
        case loaded
        /// A tree has more folders than may be watched: how many are, of how many.
        case watchLimitReached(watched: Int, folders: Int)
        /// What the index holds for a photo came in (its tooltip may say more now).
        case factsArrived(PhotoID)
        /// The date of a photo on screen came in (what its row says to a screen reader). Apart
        /// from `factsArrived`: a tooltip asked for again where the pointer is not leaves GTK
        /// asking for none until the pointer has left the window.
        case dateArrived(PhotoID)
        /// The folder on a share changed in a way only reading it anew can follow.
        case needsReading
        /// The sidecars of these photos came, changed or went: their marks are to be read again.
        case marksChanged([PhotoID])
    }

    /// The list shown.
    public let list = PhotoList()
    /// What each sub-folder shown holds.
    public let folderCounts = FolderCounts()
    public var onEvent: ((Event) -> Void)?
    /// The order folders are shown in (the main menu's choice).
    public private(set) var order: PhotoOrder
    private let loader: PhotoSourceLoader
    /// The sources being read, and the feed of their rows while they are.
    private var sources: [any PhotoSource] = []
    private var loading: SourceFeed?
    private var readFailed = false
    /// Where each source's rows begin, for a source that fills in around a photo shown ahead.
    private var starts: [Int: Int] = [:]
    /// The photo a source named, selected when it arrived: kept in view as the rest of its
    /// folder fills in around it.
    private var photoAhead: PhotoID?
    /// The folder shown, when the list is one folder on this computer: watched, and sorted.
    private var liveFolder: LiveFolder?
    /// The folder on a network share the list shows, and its watch where its backend has one.
    private var remoteFolder: URL?
    private var remoteWatch: RemoteFolderWatch?
    /// Files the app itself is changing (trash, undo, rotate): until when their changes are
    /// its own (`distantFuture` while the work runs).
    private var ownChanges: [String: Date] = [:]

    public init(loader: PhotoSourceLoader, order: PhotoOrder = PhotoOrder(key: .name)) {
        self.loader = loader
        self.order = order
    }

    // MARK: Reading sources

    /// Whether sources are being read.
    public var isLoading: Bool { loading != nil }

    /// A new list begins: empty until `read` fills it.
    public func clear() {
        begin(with: [])
    }

    private func begin(with entries: [PhotoEntry]) {
        loading?.cancel()
        loading = nil
        forgetFolder()
        list.apply(.replaceAll(entries))
        photoAhead = nil
        folderCounts.forget()
    }

    /// Reads `sources` one after another (off the main thread) into the list, in the order
    /// given; `onEvent` tells of each step, and `.loaded` of the end.
    public func read(_ sources: [any PhotoSource]) {
        self.sources = sources
        readFailed = false
        starts = [:]
        loading = SourceFeed(loader: loader, sources: sources) { [unowned self] event in
            handle(event, of: sources.count)
        }
    }

    private func handle(_ event: PhotoSourceEvent, of count: Int) {
        switch event {
        case .started(let index, _):
            starts[index] = list.photos.count
        case .batch(let index, let batch):
            folderBatchArrived(batch)
            if batch.count > 0 || batch.removing != nil { add(batch, sourceStart: starts[index] ?? 0) }
        case .finished(let index, let location, let rows):
            liveFolder?.sourceDidFinish()
            Trace.shared.emit(
                .sourceLoaded(url: location.absoluteString, rows: rows, recursive: sources[index].includesSubfolders))
        case .failed(_, let location, let error):
            readFailed = true
            onEvent?(.sourceFailed(location, error))
        }
        if event.isLast(of: count) { finishedReading() }
    }

    /// Adds a batch of photos at the end of the list, or around a photo its source delivered
    /// ahead of the rest (whose rows begin at `sourceStart`); first takes out the rows
    /// delivered ahead that the rest does not hold.
    private func add(_ batch: PhotoSourceBatch, sourceStart: Int) {
        if let removing = batch.removing {
            let whole = list.photos
            let gone = removing.compactMap { sourceStart + $0 < whole.count ? whole.id(at: sourceStart + $0) : nil }
            list.apply(.remove(gone))
        }
        let start = list.photos.count
        if let positions = batch.positions {
            list.apply(.insert(batch.entries, at: positions.map { sourceStart + $0 }))
            if let ahead = photoAhead, let position = list.position(of: ahead) {
                onEvent?(.aheadMoved(ahead, to: position))
            }
            return onEvent?(.rowsArrived(selected: nil)) ?? ()
        }
        list.apply(.append(batch.packed ?? PackedEntries(batch.entries)))
        let selected = batch.selected.map { list.photos.id(at: start + $0) }
        if let selected { photoAhead = selected }
        onEvent?(.rowsArrived(selected: selected.flatMap(list.position(of:))))
    }

    private func finishedReading() {
        loading = nil
        if let folder = liveFolder, folder.order != order || !folder.orderChecked {
            // Not yet in the order asked for (the dates taken of a big folder), or in the one
            // the index gave, which the files may have changed since: worked out now.
            folder.sort(by: order, generation: list.generation, checking: folder.order == order)
        }
        if let folder = remoteFolder, remoteWatch == nil, !readFailed, let source = sources.first {
            let watch = RemoteFolderWatch(folder: folder, source: source, feed: self, loader: loader)
            watch.onReorder = { [unowned self] in onEvent?(.needsReading) }
            remoteWatch = watch
        }
        onEvent?(.loaded)
    }

    /// Stops reading and watching, and empties the list (the window is closing: tearing it
    /// down then binds no rows on the way out).
    public func close() {
        loading?.cancel()
        loading = nil
        forgetFolder()
        list.apply(.replaceAll([]))
    }

    // MARK: A folder that lives

    /// A batch of a source arrived: a list made of one folder is watched from now on.
    private func folderBatchArrived(_ batch: PhotoSourceBatch) {
        guard liveFolder == nil, sources.count == 1, let url = batch.folder, let order = batch.order else { return }
        // A folder on a network share is shown as it was read (GVfs's backends seldom watch).
        guard url.isFileURL else {
            remoteFolder = url
            return
        }
        let folder = LiveFolder(
            url: url, order: order, orderChecked: !batch.orderFromIndex, tree: batch.tree, readBegan: batch.readBegan,
            feed: self)
        folder.onWatchLimit = { [unowned self] watched, folders in
            onEvent?(.watchLimitReached(watched: watched, folders: folders))
        }
        liveFolder = folder
    }

    private func forgetFolder() {
        remoteFolder = nil
        remoteWatch?.close()
        remoteWatch = nil
        liveFolder?.close()
        liveFolder = nil
    }

    /// The one folder the list shows, on this computer or a share, if it shows one.
    public var shownFolder: URL? { liveFolder?.url ?? remoteFolder }
    /// Whether the list is a folder on this computer with every picture beneath it.
    public var showsTree: Bool { liveFolder?.isTree ?? false }
    /// The order the folder shown is in now, if the list is a folder on this computer.
    public var folderOrder: PhotoOrder? { liveFolder?.order }
    /// See `LiveFolder.placement()`; nil where the list is not a folder on this computer.
    public func folderPlacement() -> FolderPlacement? { liveFolder?.placement() }

    /// The sort chosen: applied to the folder shown once it has been read (and, as it is
    /// read, to its rows as they come: see `PhotoSource.ordered(by:)`).
    public func sort(by order: PhotoOrder) {
        guard order != self.order else { return }
        self.order = order
        if let folder = liveFolder, !isLoading { folder.sort(by: order, generation: list.generation) }
    }

    /// What the index knows of a photo of the folder shown, in words (see `LiveFolder.details`).
    public func details(of id: PhotoID, link: String) -> String? {
        liveFolder?.details(of: id, link: link)
    }

    /// The date taken of a photo of the folder shown, as sorting read it or the index holds it.
    public func dateTaken(of id: PhotoID, link: String) -> String? {
        liveFolder?.dateTaken(of: id, link: link)
    }

    /// The date taken of a photo of the folder shown where known already; with `ask`, looked
    /// for when not (`.factsArrived` tells when it has come).
    public func dateTaken(of id: PhotoID, link: String, ask: Bool) -> String? {
        liveFolder?.dateTaken(of: id, link: link, ask: ask)
    }

    // MARK: The actions' edits

    /// The app itself begins to change the files at `paths`: what their folder's watch tells
    /// of them is its own doing (already in the list) until `ownChangesEnded` and five
    /// seconds after, however long the work takes.
    public func ownChangesBegan(_ paths: [String]) {
        let now = Date()
        ownChanges = ownChanges.filter { now.timeIntervalSince($0.value) < 5 }
        for path in paths { ownChanges[path] = .distantFuture }
    }

    public func ownChangesEnded(_ paths: [String]) {
        let now = Date()
        for path in paths where ownChanges[path] != nil { ownChanges[path] = now }
    }

    /// Forgets that the app is changing the files at `paths` (the list they were in is gone).
    public func forgetOwnChanges(_ paths: [String]) {
        for path in paths { ownChanges[path] = nil }
    }

    /// Whether the app itself just changed the file at `path`.
    func isOwnChange(_ path: String) -> Bool {
        ownChanges[path].map { Date().timeIntervalSince($0) < 5 } ?? false
    }

    /// Photos whose files go (to the trash, or for good): their rows go at once, in one edit.
    public func remove(_ ids: [PhotoID]) {
        list.apply(.remove(ids))
    }

    /// Photos whose files were rewritten (turned): what was made from them goes, and they are
    /// loaded again.
    public func rewritten(_ ids: [PhotoID]) {
        list.apply(.replace(ids))
    }

    /// The facts sorting read of a photo shown (or shown until just now), if any.
    public func sortFacts(of id: PhotoID) -> SortFacts? { liveFolder?.sortFacts(of: id) }

    /// Puts photos back in the list (back from the trash, or work on them that did not
    /// happen), in one edit: where their folder's order puts them when the list is that folder
    /// (by `facts` read of them off the main thread, or known from before), else at `position`
    /// (in the list as it is now). `compared`: the facts of photos of the list read off the
    /// main thread for finding their places (`FolderPlacement`). Their identities.
    @discardableResult
    public func putBack(
        _ entries: [(entry: PhotoEntry, path: String, position: Int, facts: SortFacts?)],
        compared: [PhotoID: SortFacts] = [:]
    )
        -> [PhotoID]
    {
        // The places in the list as it is now, then the places once all are in.
        var places = entries.map { min($0.position, list.photos.count) }
        // The sort facts of the photos placed, by address, kept with them once they are in.
        var known: [String: SortFacts] = [:]
        if let folder = liveFolder {
            // Files right in the folder (NSString's path functions cost 5 % of the main thread
            // putting 10,000 back).
            let here = folder.url.standardizedFileURL.path
            let prefix = (here.hasSuffix("/") ? here : here + "/").utf8
            let inFolder = entries.indices.filter {
                let path = entries[$0].path.utf8
                return path.starts(with: prefix) && !path.dropFirst(prefix.count).contains(UInt8(ascii: "/"))
            }
            folder.remember(compared)
            let read = Dictionary(
                inFolder.compactMap { index in entries[index].facts.map { (entries[index].entry.link, $0) } }
            ) { first, _ in first }
            let placed = folder.positions(for: inFolder.map { entries[$0].entry }, read: read)
            for (index, place) in zip(inFolder, placed.positions) { places[index] = place }
            known = placed.facts
        }
        let order = entries.indices.sorted { (places[$0], $0) < (places[$1], $1) }
        let positions = order.enumerated().map { offset, index in places[index] + offset }
        let inserted = list.apply(.insert(order.map { entries[$0].entry }, at: positions)).inserted
        liveFolder?.remember(
            Dictionary(
                zip(inserted, order).compactMap { id, index in known[entries[index].entry.link].map { (id, $0) } }
            ) { first, _ in first })
        return inserted
    }

    // MARK: Tools

    /// Shows `entries` as the whole list, in one edit (the benchmark).
    public func show(_ entries: [PhotoEntry]) {
        begin(with: entries)
    }

    // MARK: The folders' edits

    /// Carries out an edit a folder's watch or sort worked out.
    func apply(_ edit: PhotoListEdit) {
        list.apply(edit)
    }
}
