import CGLib
import Foundation
import GLibKit

/// A window's filter over its list: knows the marks of every photo of the list and has the list
/// show only those the filter passes (the list, the grid and the viewer's paging all read what
/// it shows). The marks come from the index in one pass over the part of it that holds the
/// list's folder, then from the files of the photos it does not hold, off the main thread, a
/// few hundred at a time (the filter takes in each batch as it comes); marks given or read
/// again later reach it through the processor's snapshots. A filter outlives the lists: a
/// window keeps it when another folder opens.
@MainActor
public final class PhotoListFilter {
    public private(set) var filter = PhotoFilter.none
    /// Whether the photos are shown by their stars: most first (true), fewest first (false);
    /// nil: in the list's order. Ties stay in the list's order (the folder's sort).
    public private(set) var byRating: Bool?
    /// When it was chosen (GLib's monotonic clock, µs).
    private var chosenAt = g_get_monotonic_time()
    let list: PhotoList
    /// The marks known of the list's photos (sub-folders have none).
    private(set) var marks: [PhotoID: PhotoMarks] = [:]
    /// The words searched for, and which photos they match (`PhotoListFilter+Search.swift`).
    var search = SearchState()
    /// Whether each photo passes the filter `verdictsFor`, by the order it arrived in the list:
    /// 1 it passes, 0 not, -1 its marks are not known (then `noneVerdict`, as a photo without
    /// marks). Kept as marks come, so that showing the list again reads an array rather than a
    /// dictionary of marks (a fifth of the time, for 100,000 photos).
    private var verdicts: [Int8] = []
    private var verdictsFor: PhotoFilter?
    private var noneVerdict = true
    /// Each photo's rating (−1 rejected, 0 none or not known yet), by arrival.
    private var ratings: [Int8] = []
    /// Reading the marks of the photos not known: one pass at a time; `again`: photos came in
    /// meanwhile, for another pass once it is done.
    private(set) var reading: Cancellable?
    private var readAgain = false
    /// How many photos had come into the list when the pass under way began, and whether it
    /// reads only what the index holds (a read-ahead).
    private var readingArrivals = 0
    private var readingIndexOnly = false
    /// Whether the marks of every photo of the list are known (a pass read them all, and no
    /// photo came since).
    private(set) var allKnown = false
    /// A filter chosen waits for the first marks read (`firstWait` ms at most) before the list
    /// is shown by it.
    private var awaitingFirst = false
    private static let firstWait: UInt32 = 300
    /// A change of some photo's marks that moves it in or out of the filter, carried out once
    /// the main loop is free (marks come in while the processor is telling its observers).
    private let refilterSoon: Debounce
    /// Reading ahead what the index holds of the list's marks (`readUnknown(indexOnly:)`).
    private let prefetchSoon: Debounce
    /// Matching the search again once photos came or tags were read (`searchAgain`).
    let searchSoon: Debounce
    private static let prefetchWait: UInt32 = 1_500
    /// … or this soon once the list's sources are all read (their first screen comes first).
    private static let loadedWait: UInt32 = 400
    private var observation = 0
    private let queue = OperationQueue.serial("filter marks", .userInitiated)
    /// How many photos each trip off the main thread reads from their files.
    private nonisolated static let batchSize = 400
    /// When the list was last shown again, and the least time between two while marks come
    /// in (µs).
    private var refilteredAt = 0
    private static let refilterGap = 200_000
    /// Told after the photos shown changed by the filter (their count is in the list), and
    /// once the marks `readAll` asked for are in.
    public var onChanged: (() -> Void)?
    /// Whether marks of the list's photos are still being read (more may pass the filter).
    public var isReading: Bool { reading != nil }

    public init(list: PhotoList, processor: PhotoProcessor) {
        self.list = list
        var apply: (() -> Void)?
        var prefetch: (() -> Void)?
        var matchAgain: (() -> Void)?
        refilterSoon = Debounce.onMainActor { apply?() }
        prefetchSoon = Debounce.onMainActor { prefetch?() }
        searchSoon = Debounce.onMainActor { matchAgain?() }
        apply = { [weak self] in self?.refilter() }
        matchAgain = { [weak self] in self?.runSearch() }
        prefetch = { [weak self] in
            guard let self, !allKnown, reading == nil else { return }
            readUnknown(indexOnly: true)
        }
        observation = list.observe(
            willApply: { [unowned self] edit in
                guard case .replaceAll = edit else { return }
                // A new list: nothing known of the old one applies.
                marks.removeAll()
                allKnown = false
                verdicts = []
                verdictsFor = nil
                ratings = []
                reading?.cancel()
                reading = nil
                readAgain = false
            },
            didApply: { [unowned self] change in
                switch change.edit {
                case .replaceAll, .append, .insert, .move:
                    searchListChanged(change)
                    guard change.edit != .move, !change.inserted.isEmpty else { break }
                    allKnown = false
                    if filter.isOn || byRating != nil {
                        readUnknown()
                    } else {
                        // What the index holds is read ahead, once the list has been still
                        // for a moment: a filter chosen then shows at once.
                        prefetchSoon.schedule(afterMilliseconds: Self.prefetchWait)
                    }
                case .remove:
                    for id in change.removed { marks.removeValue(forKey: id) }
                case .reorder, .replace, .refilter: break
                }
            })
        processor.observePhotos { [weak self] snapshot in
            guard let self, let new = snapshot.marks else { return }
            let old = remember(new, of: snapshot.id)
            // Tags given or taken away: the search may find it, or no longer.
            if (old?.tags ?? []) != new.tags { self.searchAgain() }
            if filter.isOn && (old == nil || filter.passes(old!) != filter.passes(new))
                || byRating != nil && old?.rating != new.rating
            {
                refilterSoon.schedule(afterMilliseconds: 0)
            }
        }
    }

    /// Shows only the photos `new` passes (all of them for `.none`), at once with the marks
    /// known, and again as the others' are read.
    public func set(_ new: PhotoFilter) {
        guard new != filter else { return }
        filter = new
        choose(needingMarks: new.isOn)
    }

    /// Shows the photos by their stars (most first, or fewest), or in the list's order (nil).
    public func order(byRating mostFirst: Bool?) {
        guard mostFirst != byRating else { return }
        byRating = mostFirst
        choose(needingMarks: mostFirst != nil)
    }

    /// The list is shown again, by marks known now or, where they are needed and not all
    /// known, once the index's have come.
    private func choose(needingMarks: Bool) {
        chosenAt = g_get_monotonic_time()
        guard needingMarks, !allKnown else { return refilter() }
        // What the index holds comes in a moment: the list is shown by it then (or by what is
        // known, if that takes long), not first emptied by marks not read yet.
        readUnknown()
        awaitingFirst = true
        refilterSoon.cancel()
        refilterSoon.schedule(afterMilliseconds: Self.firstWait)
    }

    /// The list's sources are all read: what the index holds of its marks is read ahead soon,
    /// so that a filter chosen then shows at once.
    public func listLoaded() {
        guard !allKnown, reading == nil else { return }
        prefetchSoon.schedule(afterMilliseconds: Self.loadedWait)
    }

    /// Has the marks of every photo of the list read (those not known yet), for the tags they
    /// hold (`tagsKnown`) or a filter to come; `onChanged` once they are in.
    public func readAll() {
        if !allKnown { readUnknown() }
    }

    /// The tags of the list's photos (as far as known), the most used first.
    public var tagsKnown: [String] {
        var uses: [String: Int] = [:]
        for marks in marks.values { for tag in marks.tags { uses[tag, default: 0] += 1 } }
        return uses.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map(\.key)
    }

    /// Lets go of the list (the window is closing).
    public func close() {
        list.stopObserving(observation)
        refilterSoon.cancel()
        prefetchSoon.cancel()
        searchSoon.cancel()
        search.running?.cancel()
        search.queue.cancelAllOperations()
        search.learningRun?.cancel()
        search.learning.cancelAllOperations()
        reading?.cancel()
        queue.cancelAllOperations()
        onChanged = nil
    }

    // MARK: Showing

    func refilter() {
        awaitingFirst = false
        let began = g_get_monotonic_time()
        refilteredAt = began
        let rank: ((PhotoID) -> Int)? =
            switch byRating {
            case true?: { [unowned self] id in rating(id) }
            case false?: { [unowned self] id in -rating(id) }
            case nil: nil
            }
        if filter.isOn || search.verdicts != nil {
            if filter.isOn { makeVerdicts() }
            list.show(only: passing(), rankedBy: rank)
        } else {
            list.show(only: nil, rankedBy: rank)
        }
        let now = g_get_monotonic_time()
        // Told first: what the window says of it is in place by the time the trace says so.
        onChanged?()
        Trace.shared.emit(
            .filterChanged(
                shown: list.photosShown, total: list.photoTotal, reading: isReading, ms: Double(now - began) / 1000,
                elapsed: Double(now - chosenAt) / 1000))
    }

    // MARK: Verdicts

    /// Takes `new` as the marks of `id`; returns what they were.
    @discardableResult
    private func remember(_ new: PhotoMarks, of id: PhotoID) -> PhotoMarks? {
        let old = marks.updateValue(new, forKey: id)
        guard let arrival = list.photos.arrival(of: id) else { return old }
        if arrival >= ratings.count { ratings += repeatElement(0, count: arrival + 1 - ratings.count) }
        ratings[arrival] = Int8(new.rating)
        if verdictsFor == filter {
            if arrival >= verdicts.count { verdicts += repeatElement(-1, count: arrival + 1 - verdicts.count) }
            verdicts[arrival] = filter.passes(new) ? 1 : 0
        }
        return old
    }

    /// The verdicts for the filter as it is now, from the marks known.
    private func makeVerdicts() {
        guard verdictsFor != filter else { return }
        verdictsFor = filter
        noneVerdict = filter.passes(.none)
        let photos = list.photos
        verdicts = [Int8](repeating: -1, count: photos.arrivals)
        for (id, marks) in marks {
            if let arrival = photos.arrival(of: id) { verdicts[arrival] = filter.passes(marks) ? 1 : 0 }
        }
    }

    /// The rank of `id` when shown by rating: its stars, rejected below none.
    private func rating(_ id: PhotoID) -> Int {
        guard let arrival = list.photos.arrival(of: id), arrival < ratings.count else { return 0 }
        return Int(ratings[arrival])
    }

    /// Whether a photo passes the filter and the search, as they are now: their verdicts
    /// captured (asked of 100,000 photos at each refilter, without a look at this object or the
    /// list: a tenth of the time). Every change of a verdict that matters shows the list again.
    private func passing() -> (PhotoID) -> Bool {
        let first = list.photos.firstID
        let found = search.verdicts
        let marks: [Int8]? = filter.isOn ? verdicts : nil
        let none = noneVerdict
        return { id in
            guard id.rawValue >= first, id.rawValue - first < UInt64(Int32.max) else {
                return found == nil && (marks == nil || none)
            }
            let arrival = Int(id.rawValue - first)
            // Found by the search (one that came since it was made, not yet).
            if let found, arrival >= found.count || !found[arrival] { return false }
            guard let marks else { return true }
            guard arrival < marks.count, marks[arrival] >= 0 else { return none }
            return marks[arrival] == 1
        }
    }

    // MARK: Reading

    /// Reads the marks of every photo of the list not known yet, off the main thread: first
    /// what the index holds under the list's folder, then (unless `indexOnly`) the files of the
    /// rest.
    func readUnknown(indexOnly: Bool = false) {
        guard reading == nil else {
            // The pass under way reads every photo but those that came since it began, and
            // (a read-ahead) those the index does not hold.
            if list.photos.arrivals != readingArrivals || readingIndexOnly && !indexOnly { readAgain = true }
            return
        }
        let cancellable = Cancellable()
        reading = cancellable
        readingArrivals = list.photos.arrivals
        readingIndexOnly = indexOnly
        let snapshot = list.snapshot()
        let known = marks
        let index = PhotoIndex.shared
        queue.addOperation { [weak self] in
            let wanted = Self.localPhotos(of: snapshot, except: known, elsewhereToo: true)
            var held = MarksRead()
            var rest: [LocalPhoto] = []
            if let index, !wanted.isEmpty {
                let inIndex = index.marks(under: Self.commonFolder(of: wanted.map(\.path)))
                held.reserve(wanted.count)
                for photo in wanted {
                    if let marks = inIndex[photo.path] { held.add(marks, of: photo) } else { rest.append(photo) }
                }
            } else {
                rest = wanted
            }
            Self.deliver(held, last: rest.isEmpty || indexOnly, complete: rest.isEmpty, to: self, cancellable)
            if indexOnly { return }
            let indexing = MarksForIndex()
            var start = 0
            while start < rest.count, !cancellable.isCancelled {
                let batch = rest[start..<min(start + Self.batchSize, rest.count)]
                var read = MarksRead()
                for photo in batch { read.add(MarksFiles.read(photoAt: photo.path, indexing: indexing), of: photo) }
                start += batch.count
                let last = start >= rest.count
                Self.deliver(read, last: last, complete: last, to: self, cancellable)
            }
            indexing.flush()
        }
    }

    /// `last`: the pass is over; `complete`: it read every photo's marks.
    private nonisolated static func deliver(
        _ read: MarksRead, last: Bool, complete: Bool, to filter: PhotoListFilter?,
        _ cancellable: Cancellable
    ) {
        MainLoop.onMainActor { [weak filter] in
            guard let filter, filter.reading === cancellable, !cancellable.isCancelled else { return }
            filter.took(read, last: last, complete: complete)
        }
    }

    private func took(_ read: MarksRead, last: Bool, complete: Bool) {
        // Tags read: the search may find more.
        if search.verdicts != nil, read.marks.values.contains(where: { !$0.tags.isEmpty }) { searchAgain() }
        if marks.isEmpty {
            // The first marks known of the list (the index's, all at once): taken whole, as
            // the worker arranged them, not one by one on the main thread (a tenth of a second
            // for 100,000).
            marks = read.marks
            ratings = read.ratings
            verdictsFor = nil
        } else {
            // Marks given or read meanwhile are newer.
            for (id, new) in read.marks where marks[id] == nil { remember(new, of: id) }
        }
        if last {
            reading = nil

            if readAgain {
                readAgain = false
                readUnknown()
            } else if complete, list.photos.arrivals == readingArrivals {
                allKnown = true
            }
        }
        if filter.isOn || byRating != nil {
            // Batches read from files come many a second: the list is shown again at most five
            // times a second as they come, and at once with the last.
            let wait = Self.refilterGap - (g_get_monotonic_time() - refilteredAt)
            if last || wait <= 0 || awaitingFirst {
                refilterSoon.cancel()
                refilter()
            } else if !refilterSoon.isPending {
                refilterSoon.schedule(afterMilliseconds: UInt32(wait / 1000) + 1)
            }
        } else if last {
            onChanged?()
        }
    }

    /// A photo of the list on this computer: its id, when it came into the list, its path.
    struct LocalPhoto: Sendable {
        let id: PhotoID
        let arrival: Int
        let path: String
    }

    /// Marks read off the main thread, by photo, and the ratings by arrival (0 for photos
    /// with none read), as the filter keeps them.
    private struct MarksRead: Sendable {
        var marks: [PhotoID: PhotoMarks] = [:]
        var ratings: [Int8] = []

        mutating func reserve(_ count: Int) { marks.reserveCapacity(count) }

        mutating func add(_ new: PhotoMarks, of photo: LocalPhoto) {
            marks[photo.id] = new
            if photo.arrival >= ratings.count {
                ratings += repeatElement(0, count: photo.arrival + 1 - ratings.count)
            }
            ratings[photo.arrival] = Int8(new.rating)
        }
    }

    /// The photos of `snapshot` on this computer whose marks are not in `known`, with their paths;
    /// `elsewhereToo`: and the others (a share's, a web list's) with their addresses, whose
    /// marks the index alone keeps.
    nonisolated static func localPhotos(
        of snapshot: PhotoCollectionSnapshot, except known: [PhotoID: PhotoMarks], elsewhereToo: Bool = false
    ) -> [LocalPhoto] {
        (0..<snapshot.count).compactMap { position in
            let id = snapshot.id(at: position)
            guard known[id] == nil else { return nil }
            let entry = snapshot.entry(at: position)
            guard !entry.isFolder else { return nil }
            let arrival = snapshot.arrival(at: position)
            // A folder's photos have whole `file:` addresses: read as GLib does, not parsed as
            // URLs (half a second for 65,000).
            if entry.base == nil, entry.link.hasPrefix("file:") {
                return FolderSource.path(of: entry.link).map { LocalPhoto(id: id, arrival: arrival, path: $0) }
            }
            guard let url = try? entry.resolvedURL(), url.isFileURL || elsewhereToo else { return nil }
            return LocalPhoto(id: id, arrival: arrival, path: url.isFileURL ? url.path : url.absoluteString)
        }
    }

    /// The deepest folder holding every one of `paths`, with its "/" ("" if there is none).
    nonisolated static func commonFolder(of paths: [String]) -> String {
        guard let first = paths.first else { return "" }
        var common = Array(first.utf8)
        for path in paths.dropFirst() where !path.utf8.starts(with: common) {
            var same = 0
            for (a, b) in zip(common, path.utf8) {
                guard a == b else { break }
                same += 1
            }
            common.removeLast(common.count - same)
        }
        guard let slash = common.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        return String(decoding: common[...slash], as: UTF8.self)
    }
}
