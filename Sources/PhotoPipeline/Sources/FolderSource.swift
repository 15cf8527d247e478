import CGLib
import Foundation
import GLibKit

/// The pictures directly inside a local folder, in the order a file manager shows them.
///
/// Names come first: the folder is read with `readdir`, and a file whose name says it is a
/// picture (see `PictureTypes.verdict(forName:)`) is listed without being opened, so a folder
/// of 100,000 photos is on screen in a fraction of a second. Only files whose names say
/// nothing (no extension, or an unregistered one) have their first bytes read. A file whose
/// name lies (text called `.jpg`) stays in the list and fails as `not-image` when its row
/// loads, so nothing moves under the user. Sub-folders come first, as items (see
/// `PhotoEntry.isFolder`); hidden files and other files are left out. Each entry is named
/// after the file's display name and points at the file's URI.
///
/// With `includesSubfolders`, every picture beneath the folder is listed instead, named by
/// its path below it (see `FolderTree`), and no folder is an item.
public struct FolderSource: PhotoSource {
    public let location: URL
    public var order: PhotoOrder
    public var includesSubfolders: Bool

    public init(location: URL, order: PhotoOrder = .byName, includesSubfolders: Bool = false) {
        self.location = location
        self.order = order
        self.includesSubfolders = includesSubfolders
    }

    public func read(
        using fetcher: PhotoFetcher, cancellable: Cancellable,
        deliver: (PhotoSourceBatch) -> Void
    ) throws(PhotoSourceError) {
        try Self.readPictures(
            in: location, selecting: nil, order: order, recursive: includesSubfolders, cancellable: cancellable,
            lead: Self.configuredLead, deliver)
    }

    public func ordered(by order: PhotoOrder) -> any PhotoSource {
        FolderSource(location: location, order: order, includesSubfolders: includesSubfolders)
    }

    public func includingSubfolders(_ include: Bool) -> any PhotoSource {
        FolderSource(location: location, order: order, includesSubfolders: include)
    }

    /// Up to this many pictures, dates taken are read before the folder is shown (about 50 µs
    /// each), and every picture's size and time are checked against the index's first. A
    /// bigger folder is matched with the index by path alone and shown in the order of its
    /// dates at once (checked against the files in the background: see
    /// `PhotoSourceBatch.orderFromIndex`); where the index knows too few of its pictures, it
    /// shows in name order, and settles into the order taken once the dates are read in the
    /// background.
    static let inlineDatesLimit = 3_000

    /// How many of a big tree's first pictures by date are shown from the index while its
    /// folders are read (see `TreeLead`): a screen of rows and those the views make beside it.
    static let leadRows = 250

    /// When a tree's lead is shown: if it is ready before the tree is read (as the app does),
    /// or always (for tests, which then see it whatever the timing).
    enum LeadPolicy {
        case beforeListing
        case always
        case never
    }

    /// The app's policy: `CLASSIC_PHOTOS_TREE_LEAD=always` for tests, else before the listing.
    static var configuredLead: LeadPolicy {
        AppConfiguration.current.testSwitches.treeLeadAlways ? .always : .beforeListing
    }

    /// Lists the pictures in `folder` (`recursive`: beneath it) and delivers them in batches.
    /// `selecting` is the file name (as on disk) of a picture in `folder` to mark as selected;
    /// it is listed even when hidden.
    static func readPictures(
        in folder: URL, selecting: String?, order wanted: PhotoOrder, recursive: Bool = false,
        cancellable: Cancellable, index: PhotoIndex? = PhotoIndex.shared, lead leadPolicy: LeadPolicy = .beforeListing,
        _ deliver: (PhotoSourceBatch) -> Void
    ) throws(PhotoSourceError) {
        // Its folders' addresses and its pictures' paths are made from this one (2,000 folders
        // each made standard took 14 ms on the way to the window).
        let folder = folder.standardizedFileURL
        // Files the reading may miss (made in a folder after it was read, before it is
        // watched) are looked for in the folders changed since this (see `LiveFolder`).
        let readBegan = Date().timeIntervalSince1970
        var tree: [URL]?
        var nameOrder: [Int]?
        var listing: FolderListing
        // By date taken, the index is asked by path: no picture's status is read before a big
        // folder shows (a `stat` each was a third of the time a tree of 100,000 took).
        let details: FolderListing.Details =
            !wanted.needsFacts ? .none : wanted.key == .dateTaken ? .pathKeys : .status
        // A tree sorted by date asks the index on a thread of its own while its folders are
        // read: each took about as long as the other.
        let early =
            recursive && details == .pathKeys
            ? index.map {
                EarlyIndexRead(
                    $0, folder: folder, descending: wanted.descending,
                    leadRows: leadPolicy != .never && selecting == nil ? TreeLead.candidateRows(leadRows) : 0)
            } : nil
        var lead: TreeLead?
        if recursive {
            // The folders are read on a thread of their own while the index says which of
            // their pictures come first; those are shown if the reading is not done by then.
            let walk = OneShot<Result<FolderTree, PhotoSourceError>>()
            DispatchQueue.global(qos: .userInitiated).async {
                walk.set(
                    Result { () throws(PhotoSourceError) in
                        try FolderTree.read(folder, selecting: selecting, details: details, cancellable: cancellable)
                    })
            }
            // (Not with a picture to select: it is selected as its listing's batch arrives.)
            if leadPolicy != .never, selecting == nil {
                // By date, from the index; where it knows too little of the tree (its dates are
                // then read after it is shown by name), or by name, from the first folders.
                var fromIndex = false
                var shownOrder = PhotoOrder.byName
                var found: TreeLead?
                switch (details == .pathKeys ? index : nil).map({ index -> TreeLead.FromIndex in
                    // From the rows the index's dates were read with, where they are all dates.
                    if let (candidates, held) = early?.firstRows(), let candidates {
                        return held < inlineDatesLimit
                            ? .tooFew
                            : TreeLead.read(
                                candidates: candidates, folderPath: folder.path, order: wanted, rows: leadRows)
                    }
                    return TreeLead.read(
                        index: index, folderPath: folder.path, order: wanted, rows: leadRows, minimum: inlineDatesLimit)
                }) {
                case .lead(let shown)?:
                    (found, fromIndex, shownOrder) = (shown, true, wanted)
                case .tooFew?:
                    found = TreeLead.byName(top: folder, rows: leadRows, cancellable: cancellable)
                case .noneHold?:
                    break
                case nil:
                    if wanted == .byName {
                        found = TreeLead.byName(top: folder, rows: leadRows, cancellable: cancellable)
                    }
                }
                if let found, leadPolicy == .always || !walk.isSet {
                    lead = found
                    if fromIndex { Trace.shared.emit(.indexLead(rows: found.entries.count)) }
                    // No folder yet: the window watches it once the listing says what it holds.
                    deliver(
                        PhotoSourceBatch(
                            entries: found.entries, order: shownOrder, wantedOrder: wanted, orderFromIndex: fromIndex))
                }
            }
            let read: FolderTree
            do {
                read = try walk.wait().get()
            } catch {
                // The rows shown ahead go again with the listing that failed.
                if let lead, error != .cancelled {
                    deliver(PhotoSourceBatch(entries: [], order: wanted, removing: Array(lead.entries.indices)))
                }
                throw error
            }
            listing = read.listing
            nameOrder = read.nameOrder
            tree = read.folders
        } else {
            listing = try FolderListing.read(folder, selecting: selecting, details: details, cancellable: cancellable)
        }
        var used = wanted
        var orderFromIndex = false
        var dateNumbers: [Int64?]?
        if wanted.key == .dateTaken {
            let folderPath = folder.path
            if listing.names.count <= inlineDatesLimit {
                listing.readStatus()
                listing.facts = datesTaken(listing, folderPath: folderPath, index: index)
            } else if let dates = datesFromIndex(listing, folderPath: folderPath, index: index, early: early) {
                switch dates {
                case .numbers(let numbers): dateNumbers = numbers
                case .facts(let facts): listing.facts = facts
                }
                orderFromIndex = index != nil
            } else {
                used = .byName
            }
        }
        if cancellable.isCancelled { throw .cancelled }
        let order =
            dateNumbers.map {
                used.order(dateNumbers: $0, names: listing.names, links: listing.links, nameOrder: nameOrder)
            } ?? used.order(pictures: listing.names, links: listing.links, facts: listing.facts, nameOrder: nameOrder)
        let folderURL = folder
        // Sub-folders first, by name (as the file manager shows them), then the pictures.
        let folders = PhotoOrder.byName.order(names: listing.folderNames, links: listing.folderLinks, facts: [])
            .map { PhotoEntry(name: listing.folderNames[$0], link: listing.folderLinks[$0], base: nil) }
        let total = folders.count + order.count
        if total == 0, lead == nil {
            deliver(
                PhotoSourceBatch(
                    entries: [], folder: folderURL, order: used, wantedOrder: wanted, tree: tree,
                    orderFromIndex: orderFromIndex, readBegan: readBegan))
            return
        }
        let selectedPosition = listing.selected.flatMap { order.firstIndex(of: $0) }.map { folders.count + $0 }
        func entry(at position: Int) -> PhotoEntry {
            if position < folders.count { return folders[position] }
            let index = order[position - folders.count]
            return PhotoEntry(name: listing.names[index], link: listing.links[index], base: nil)
        }
        var start = 0
        if let lead {
            // Around the rows shown ahead: usually they are the listing's first, and the rest
            // is appended.
            let merge = lead.merge(count: total) { entry(at: $0).link }
            start = merge.appendingFrom
            if !merge.removing.isEmpty || !merge.inserting.isEmpty || start >= total {
                deliver(
                    PhotoSourceBatch(
                        entries: merge.inserting.map(entry(at:)), folder: folderURL, order: used, wantedOrder: wanted,
                        tree: tree, positions: merge.inserting.isEmpty ? nil : merge.inserting,
                        removing: merge.removing.isEmpty ? nil : merge.removing, orderFromIndex: orderFromIndex,
                        readBegan: readBegan))
            }
        }
        while start < total {
            if cancellable.isCancelled { throw .cancelled }
            let selectedHere = selectedPosition.flatMap { $0 >= start ? $0 - start : nil }
            if start == 0, lead == nil {
                // The first batch as any source's (the loader cuts it into the views' first pieces).
                let end = min(PhotoSources.batchSize, total)
                deliver(
                    PhotoSourceBatch(
                        entries: (0..<end).map(entry(at:)), selected: selectedHere.flatMap { $0 < end ? $0 : nil },
                        folder: folderURL, order: used, wantedOrder: wanted, tree: tree,
                        orderFromIndex: orderFromIndex, readBegan: readBegan))
                start = end
                continue
            }
            // The rest at once, packed here as the list keeps it (the loader hands it over in
            // pieces of its own; each batch was a turn of the main loop).
            let delay = AppConfiguration.current.testSwitches.listRestDelayMilliseconds
            if delay > 0 { usleep(delay * 1_000) }
            let end = min(start + PhotoSources.bulkBatchSize, total)
            let packed = PackedEntries(
                leading: folders[min(start, folders.count)..<min(end, folders.count)], names: listing.names,
                links: listing.links, order: order[max(0, start - folders.count)..<max(0, end - folders.count)])
            deliver(
                PhotoSourceBatch(
                    packed: packed,
                    selected: selectedHere.flatMap { $0 < end - start ? $0 : nil }, folder: folderURL, order: used,
                    wantedOrder: wanted, tree: tree, orderFromIndex: orderFromIndex, readBegan: readBegan))
            start = end
        }
        // Freed on a worker: the paths and facts read with a folder's status are strings each
        // (freeing 100,000 names and links, when they were strings too, held the end of the
        // source back from the window by 25 to 40 ms). The names and links stay: the list
        // reads its rows from them.
        releaseOnWorker(&listing, leaving: FolderListing())
    }

    /// The dates taken of a listing's pictures (whose status was read), from the index where
    /// it holds them for the same size and time, else read from the files (and given to it).
    private static func datesTaken(_ listing: FolderListing, folderPath: String, index: PhotoIndex?) -> [SortFacts?] {
        let known = index?.facts(inFolder: folderPath) ?? [:]
        var filled = listing.facts
        var misses = 0
        for position in filled.indices {
            guard let facts = filled[position] else { continue }
            if let held = known[listing.paths[position]], held.size == facts.size, held.modified == facts.modified {
                filled[position]?.taken = held.taken
            } else {
                misses += 1
                listing.paths[position].withCString { path in
                    _ = filled[position]?.fillDateTaken(path: path, index: index, known: [:])
                }
            }
        }
        index?.flush()
        if index != nil {
            Trace.shared.emit(.indexRead(rows: listing.names.count, hits: filled.count { $0 != nil } - misses))
        }
        return filled
    }

    /// The dates taken of a big listing's pictures, for sorting: as numbers
    /// (`PhotoOrder.dateNumber`; nil for a file that cannot be read), or as facts where a date
    /// is not in the form the numbers take.
    private enum IndexDates {
        case numbers([Int64?])
        case facts([SortFacts?])
    }

    /// What the index holds for a big listing's pictures, by path alone (their dates as it
    /// last saw them), with the few it does not hold read from the files; nil where it holds
    /// too few of them to be worth showing in its order.
    private static func datesFromIndex(
        _ listing: FolderListing, folderPath: String, index: PhotoIndex?, early: EarlyIndexRead? = nil
    ) -> IndexDates? {
        guard let index else { return nil }
        // Numbers first: no text is made of 100,000 dates, nor read again to sort them.
        let numbers = early.map { $0.result() } ?? index.dateNumbersByPathKey(inFolder: folderPath)
        if let numbers {
            // A file that cannot be read goes last (nil); a date that is no number stops this.
            let number: (SortFacts?) -> Int64?? = { facts in
                guard let facts else { return .some(nil) }
                return facts.taken.flatMap(PhotoOrder.dateNumber).map { .some($0) }
            }
            switch held(listing, known: numbers, index: index, read: number) {
            case .values(let values): return .numbers(values)
            case .tooFew: return nil
            case .notHeld: break
            }
        }
        let facts = held(listing, known: index.sortFactsByPathKey(inFolder: folderPath), index: index) { .some($0) }
        guard case .values(let values) = facts else { return nil }
        return .facts(values)
    }

    /// What `held` found: each picture's value, or why there is none.
    private enum Held<Value> {
        case values([Value?])
        /// More than `inlineDatesLimit` pictures are not in the index.
        case tooFew
        /// A picture read from its file has no value of this kind.
        case notHeld
    }

    /// Each of the listing's pictures' value in `known` (the index's, by `PathKey`), or, for
    /// the few it does not hold, `read` from the facts read from its file (nil for one that
    /// cannot be read; `read` returning nil means the value cannot be made).
    private static func held<Value: Sendable>(
        _ listing: FolderListing, known: PathKeyTable<Value>, index: PhotoIndex, read: (SortFacts?) -> Value??
    ) -> Held<Value> {
        var values = [Value?](repeating: nil, count: listing.names.count)
        var misses: [Int] = []
        for position in values.indices {
            if let held = known[listing.pathKeys[position]] {
                values[position] = held
            } else {
                misses.append(position)
                if misses.count > inlineDatesLimit { return .tooFew }
            }
        }
        for position in misses {
            let facts = SortFacts.read(link: listing.links[position], taken: true, index: index)
            guard let value = read(facts) else { return .notHeld }
            values[position] = value
        }
        index.flush()
        Trace.shared.emit(.indexRead(rows: listing.names.count, hits: listing.names.count - misses.count))
        return .values(values)
    }

    /// The local path of a `file:` address, as the index keys it.
    static func path(of link: String) -> String? {
        guard let path = g_filename_from_uri(link, nil, nil) else { return nil }
        defer { g_free(path) }
        return String(cString: path)
    }

    /// How many sub-folders `folder` holds, and how many pictures are in it and beneath it,
    /// as it would list them; nil if it cannot be read.
    public static func contents(of folder: URL, cancellable: Cancellable) -> (folders: Int, pictures: Int)? {
        guard let tree = try? FolderTree.read(folder, selecting: nil, details: .none, cancellable: cancellable) else {
            return nil
        }
        return (tree.topFolders, tree.listing.names.count)
    }

    /// The paths of every picture in `folder` and beneath it, and every folder read (`folder`
    /// first); nil if `folder` cannot be read (a folder that came into a tree shown).
    public static func picturesBeneath(_ folder: URL, cancellable: Cancellable) -> (paths: [String], folders: [URL])? {
        guard let tree = try? FolderTree.read(folder, selecting: nil, details: .none, cancellable: cancellable)
        else { return nil }
        return (tree.listing.links.compactMap(path(of:)), tree.folders)
    }

    /// The entry a new file at `path` in a shown folder gets, if the folder lists it.
    public static func entry(forNewFile path: String) -> PhotoEntry? {
        newFileEntries()(path)
    }

    /// The addresses of `folder`'s pictures and of its sub-folders (each of those ending in
    /// "/"), as its listing holds them (hidden ones left out); nil where it cannot be read.
    public static func links(in folder: URL, cancellable: Cancellable) -> (pictures: [String], folders: [String])? {
        guard let listing = try? FolderListing.read(folder, selecting: nil, cancellable: cancellable) else {
            return nil
        }
        return (Array(listing.links), listing.folderLinks)
    }

    /// Gives the entries of new files in shown folders, reading each folder's hidden names
    /// once (for a burst of changes; on one thread). With `top` (a folder shown with every
    /// picture beneath it), pictures are named by their path below it and folders are not
    /// items; without, a new sub-folder is an item.
    public static func newFileEntries(under top: URL? = nil) -> (String) -> PhotoEntry? {
        var hiddenByFolder: [String: Set<String>] = [:]
        let topPath = top.map { $0.standardizedFileURL.path + "/" }
        return { path in
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            let hidden = hiddenByFolder[folder] ?? FolderListing.hiddenNames(inFolder: folder)
            hiddenByFolder[folder] = hidden
            guard let topPath else { return FolderListing.entry(forFile: path, hiddenNames: hidden, folders: true) }
            guard path.hasPrefix(topPath),
                let found = FolderListing.entry(forFile: path, hiddenNames: hidden, folders: false)
            else { return nil }
            let below = String(path.dropFirst(topPath.count))
            // The name as shown: each folder's part as the listing shows it.
            let parts = below.split(separator: "/").dropLast().map(String.init) + [found.name]
            return PhotoEntry(name: parts.joined(separator: "/"), link: found.link, base: nil)
        }
    }
}

/// The index's dates taken for a folder and everything below it (as numbers: see
/// `PhotoIndex.dateNumbersByPathKey`), read on a thread of its own from the moment it is made,
/// and on the way the files that come first by them (for a lead: see `TreeLead`).
private final class EarlyIndexRead: Sendable {
    private let numbers = OneShot<PathKeyTable<Int64>?>()
    private let first = OneShot<(rows: [(path: String, facts: SortFacts)]?, held: Int)>()

    init(_ index: PhotoIndex, folder: URL, descending: Bool, leadRows: Int) {
        let path = folder.standardizedFileURL.path
        DispatchQueue.global(qos: .userInitiated).async { [numbers, first] in
            let leading = PhotoIndex.FirstRows(limit: leadRows, descending: descending) { first.set(($0, $1)) }
            numbers.set(index.dateNumbersByPathKey(inFolder: path, first: leadRows > 0 ? leading : nil))
            first.set((nil, 0))
        }
    }

    /// Waits for the read to end; what it found (nil: a date not in the numbers' form).
    func result() -> PathKeyTable<Int64>? { numbers.wait() }

    /// Waits for the rows to be read; the files that come first and how many files the index
    /// holds there (no files: a date not in the numbers' form, or no lead was asked for).
    func firstRows() -> (rows: [(path: String, facts: SortFacts)]?, held: Int) { first.wait() }
}
