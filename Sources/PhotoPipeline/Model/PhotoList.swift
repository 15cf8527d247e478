import CGLib
import CPhotoListModel
import GLibKit

/// The list shown: the photos in display order (`PhotoCollection`) and the `GListModel` of
/// their identities that every view binds to, changed together, and only through `apply(_:)`,
/// which tells each observer once what changed.
///
/// Only its model edits it (`PhotoListFeed`: `apply` is not public). Everything else reads it
/// through `PhotoListReading` and observes its edits: views, the viewer's paging (which asks
/// for neighbours by identity), the actions, the processor's scheduling.
@MainActor
public final class PhotoList {
    /// The photos, and the records of those shown or worked on.
    private(set) var photos = PhotoCollection()
    private let store: ObjectRef<GObject>
    private var observers: [(token: Int, willApply: ((PhotoListEdit) -> Void)?, didApply: (PhotoListChange) -> Void)] =
        []
    private var nextToken = 0
    /// Asked by an edit that keeps the photo in view, after `willApply`: whether the views
    /// stay where they are (at the top of the list, no photo selected on screen, so the top of
    /// the new order is what they show). The items made for rows may then stand for the photos
    /// that come to their positions, and GTK keeps the rows it made. Set by the views.
    public var viewsStayPut: (() -> Bool)?
    /// Past this many rows added in place of others, the views are told of the two apart.
    private static let addedApart = 2_000
    /// Whether the last `reshow` told the views so.
    private var placeLost = false
    /// Counts the lists shown (`replaceAll`), so that work for an earlier one is recognised.
    public private(set) var generation = 0
    /// Counts the edits, so that what was worked out from a snapshot is known to be current.
    public private(set) var version = 0
    /// Whether a photo is shown while a filter is on (nil: all are).
    private var passes: ((PhotoID) -> Bool)?
    /// The rank photos are shown by, highest first (ties in the list's order); nil: the
    /// list's order.
    private var rank: ((PhotoID) -> Int)?
    /// The photos shown while a filter is on, which every position read or given here counts
    /// in; the model holds them. The whole list is `photos` (what its feed reads and changes).
    private var shown: ShownPhotos?

    public init() {
        store = ObjectRef(takingOpaque: OpaquePointer(cp_photo_list_model_new()!))
    }

    /// The `GListModel` of photo identities (items are `CpPhotoItem`s, made for the rows asked
    /// for), for a view to bind to. Views never change it.
    public var model: OpaquePointer { store.opaque }

    // MARK: Observing

    /// Calls `didApply` after every edit, with what changed, and `willApply` before it (while
    /// the photos it takes away are still in the list). Observers are called in the order they
    /// began observing. Returns what `stopObserving` takes.
    @discardableResult
    public func observe(
        willApply: ((PhotoListEdit) -> Void)? = nil, didApply: @escaping (PhotoListChange) -> Void
    ) -> Int {
        nextToken += 1
        observers.append((nextToken, willApply, didApply))
        return nextToken
    }

    public func stopObserving(_ token: Int) {
        observers.removeAll { $0.token == token }
    }

    // MARK: Filtering

    /// Shows only the photos `passes` lets through (and every sub-folder), or all of them
    /// (nil); with `rank`, highest first (ties, and the sub-folders before them all, in the
    /// list's order). Both are asked again of each photo whenever the list changes, and by
    /// `refilter`.
    public func show(only passes: ((PhotoID) -> Bool)?, rankedBy rank: ((PhotoID) -> Int)? = nil) {
        guard passes != nil || self.passes != nil || rank != nil || self.rank != nil else { return }
        self.passes = passes
        self.rank = rank
        apply(.refilter)
    }

    /// Asks the filter and the rank again of every photo (what they read of them changed).
    public func refilter() {
        if passes != nil || rank != nil { apply(.refilter) }
    }

    public var isFiltered: Bool { passes != nil }
    /// The photos shown while a filter is on (nil: all are), as their identities' raw values.
    var shownIDs: [UInt64]? { shown?.ids }
    /// How many photos (sub-folders aside) the list holds, shown or not.
    public var photoTotal: Int { photos.count - photos.firstPhoto }
    /// How many of them are shown.
    public var photosShown: Int { count - firstPhoto }

    /// Makes `shown` again from the whole list and has the model hold it, in one edit of what
    /// differs; `inPlace`: the photos shown are the same, reordered, and the views stay put
    /// (see `PhotoListEdit.reorder`). `naming`: returns the photos that came into view and those
    /// that left.
    @discardableResult
    private func reshow(inPlace: Bool = false, naming: Bool = false) -> (shown: [PhotoID], hidden: [PhotoID]) {
        let old = shown?.ids ?? photos.rawIDs(in: 0..<photos.count)
        let new =
            passes == nil && rank == nil
            ? nil : ShownPhotos(of: photos, firstPhoto: photos.firstPhoto, passes: passes, rank: rank)
        shown = new
        let now = new?.ids ?? photos.rawIDs(in: 0..<photos.count)
        let (position, removed, added) = ShownPhotos.difference(from: old, to: now)
        placeLost = false
        guard removed > 0 || added > 0 else { return ([], []) }
        let before = old[position..<position + removed]
        var after = Array(now[position..<position + added])
        if inPlace, removed == added, ShownPhotos.same(before, after, in: photos) {
            after.withUnsafeMutableBufferPointer {
                cp_photo_list_model_reorder(store.pointer, UInt32(position), $0.baseAddress, UInt32($0.count), 1)
            }
            return ([], [])
        }
        // GTK 4.8's list and grid, told of rows replaced where the row they keep in view (or the
        // focus) was, look for each row added among those taken away, asking the model for every
        // one of them: for 100,000 rows coming back (a filter or a search ended) a tenth of a
        // second. Told of the rows taken away first, and of those added after, they look for none.
        var removing = UInt32(removed)
        placeLost = removed > 0 && added > Self.addedApart
        if placeLost {
            cp_photo_list_model_splice(store.pointer, UInt32(position), removing, nil, 0)
            removing = 0
        }
        after.withUnsafeMutableBufferPointer {
            cp_photo_list_model_splice(store.pointer, UInt32(position), removing, $0.baseAddress, UInt32($0.count))
        }
        guard naming else { return ([], []) }
        let (came, left) = ShownPhotos.moves(from: before, to: after[...], in: photos)
        return (Self.ids(came), Self.ids(left))
    }

    // MARK: Changing

    /// Carries out `edit` on the photos and the model at once (the model emits one
    /// `items-changed`), and tells the observers.
    @discardableResult
    func apply(_ edit: PhotoListEdit) -> PhotoListChange {
        for observer in observers { observer.willApply?(edit) }
        version += 1
        var change = carryOut(edit)
        if passes != nil || rank != nil || shown != nil, edit.isReshaping {
            defer {
                // Records say where their photos are shown (the trace's rows, what is on
                // screen): -1 for those a filter hides.
                for record in photos.existingRecords { record.position = position(of: record.id) ?? -1 }
            }
            let rowsInPlace = change.rowsInPlace
            let naming = if case .refilter = edit { true } else { false }
            let (came, left) = reshow(inPlace: rowsInPlace, naming: naming)
            change.placeLost = placeLost
            if naming {
                change.inserted = came
                change.removed = left
            }
        }
        for observer in observers { observer.didApply(change) }
        return change
    }

    private func carryOut(_ edit: PhotoListEdit) -> PhotoListChange {
        let before = photos.count
        switch edit {
        case .replaceAll(let entries):
            photos.retire()
            photos = PhotoCollection()
            generation += 1
            photos.append(entries)
            splice(at: 0, removed: before, added: photos.count)
            return PhotoListChange(edit: .replaceAll, inserted: ids(in: 0..<photos.count))
        case .append(let entries):
            let added = photos.append(entries)
            splice(at: added.lowerBound, removed: 0, added: added.count)
            return PhotoListChange(edit: .append, inserted: ids(in: added))
        case .insert(let entries, let positions):
            let ids = photos.insert(entries, at: positions)
            if let first = positions.first, let last = positions.last {
                let span = last - first + 1
                splice(at: first, removed: span - positions.count, added: span)
            }
            return PhotoListChange(edit: .insert, inserted: ids)
        case .remove(let ids):
            let present = ids.filter(photos.contains)
            let positions = photos.remove(present)
            if let first = positions.first, let last = positions.last {
                let span = last - first + 1
                splice(at: first, removed: span, added: span - positions.count)
            }
            return PhotoListChange(edit: .remove, removed: present)
        case .move(let id, let position, let renamed):
            guard let from = photos.position(of: id) else { return PhotoListChange(edit: .move) }
            if let renamed { photos.rename(id, to: renamed) }
            photos.move(id, to: position)
            let to = photos.position(of: id) ?? from
            // The same place: the row is bound again, to show the new name.
            let range = min(from, to)...max(from, to)
            splice(at: range.lowerBound, removed: range.count, added: range.count)
            return PhotoListChange(edit: .move, moved: [id], renamed: renamed == nil ? [] : [id])
        case .reorder(let ids, let keepingInView):
            let rowsInPlace = keepingInView && (viewsStayPut?() ?? false)
            // Only the run between the first and the last row that moved changes in the model.
            let common = min(before, ids.count)
            var prefix = 0
            while prefix < common, photos.id(at: prefix) == ids[prefix] { prefix += 1 }
            var suffix = 0
            while suffix < common - prefix, photos.id(at: before - 1 - suffix) == ids[ids.count - 1 - suffix] {
                suffix += 1
            }
            photos.reorder(ids)
            let changed = max(0, before - prefix - suffix)
            if shown == nil {
                var raw = ids[prefix..<prefix + changed].map(\.rawValue)
                raw.withUnsafeMutableBufferPointer {
                    cp_photo_list_model_reorder(
                        store.pointer, UInt32(prefix), $0.baseAddress, UInt32($0.count), rowsInPlace ? 1 : 0)
                }
            }
            return PhotoListChange(
                edit: .reorder, moved: Array(ids[prefix..<prefix + changed]), keptInView: keepingInView,
                rowsInPlace: rowsInPlace)
        case .replace(let ids):
            // The rows stay bound; what was made from the files goes (the processor's part).
            return PhotoListChange(edit: .replace, replaced: ids.filter(photos.contains))
        case .refilter:
            return PhotoListChange(edit: .refilter)
        }
    }

    /// Mirrors a change of the photos in the model: `removed` rows at `position` gave way to
    /// the `added` rows the photos now have there.
    private func splice(at position: Int, removed: Int, added: Int) {
        // While a filter is on, `reshow` has the model follow.
        guard shown == nil, passes == nil, rank == nil, removed > 0 || added > 0 else { return }
        var raw = photos.rawIDs(in: position..<position + added)
        raw.withUnsafeMutableBufferPointer {
            cp_photo_list_model_splice(
                store.pointer, UInt32(position), UInt32(removed), $0.baseAddress, UInt32($0.count))
        }
    }

    private func ids(in positions: Range<Int>) -> [PhotoID] { Self.ids(photos.rawIDs(in: positions)) }

    private nonisolated static func ids(_ raw: [UInt64]) -> [PhotoID] { raw.map { PhotoID(rawValue: $0) } }

    // MARK: Reading

    // Positions count the photos shown (all of them, unless a filter is on).
    public var count: Int { shown?.count ?? photos.count }
    public func id(at position: Int) -> PhotoID { shown?.id(at: position) ?? photos.id(at: position) }
    public func position(of id: PhotoID) -> Int? {
        guard let shown else { return photos.position(of: id) }
        return shown.position(of: id, in: photos)
    }
    public func entry(at position: Int) -> PhotoEntry { photos.entry(at: whole(position)) }
    public func name(at position: Int) -> String { photos.name(at: whole(position)) }
    /// Where the photo `id` is in the whole list, shown or not (nil: it is not in the list).
    public func wholePosition(of id: PhotoID) -> Int? { photos.position(of: id) }
    public func id(forLink link: String) -> PhotoID? {
        photos.id(forLink: link).flatMap { shown == nil || position(of: $0) != nil ? $0 : nil }
    }
    /// How many sub-folders head the list (they always come first, and a filter keeps them):
    /// the position of its first photo.
    public var firstPhoto: Int { photos.firstPhoto }
    public func needsWork(_ id: PhotoID) -> Bool { photos.needsWork(id) }
    /// Where the photo shown at `position` is in the whole list.
    private func whole(_ position: Int) -> Int {
        guard let shown else { return position }
        return photos.position(of: shown.id(at: position)) ?? position
    }
    /// The whole list as it is now (every photo, shown or not), to read on another thread.
    public func snapshot() -> PhotoCollectionSnapshot { photos.snapshot() }

    /// The photo of a row item of the model.
    public static func id(ofItem item: OpaquePointer) -> PhotoID {
        PhotoID(rawValue: cp_photo_item_get_id(UnsafeMutableRawPointer(item)))
    }
}

extension PhotoList: @MainActor PhotoListReading, @MainActor ScrollLayout {}

/// What views, the viewer and the actions may know of the list: which photo is where.
public protocol PhotoListReading: AnyObject, ViewerList {
    func entry(at position: Int) -> PhotoEntry
    func name(at position: Int) -> String
    /// The photo whose address is `link`, exactly as its entry has it, if one is in the list.
    func id(forLink link: String) -> PhotoID?
}

extension PhotoListReading {
    public func contains(_ id: PhotoID) -> Bool { position(of: id) != nil }
}

/// One change of the list, the only way it changes (see `PhotoList.apply`).
public enum PhotoListEdit: Sendable {
    /// A new list: every photo before leaves for good, `entries` arrive (new identities).
    case replaceAll([PhotoEntry])
    /// Photos after the last row (packed on any thread: see `PackedEntries`).
    case append(PackedEntries)
    /// New photos, each at the position of the same index once all are in (ascending).
    case insert([PhotoEntry], at: [Int])
    /// Photos that leave the list.
    case remove([PhotoID])
    /// A photo shown at `position` instead (the others close up), with a new name and address
    /// if given (its file was renamed); it stays who it is.
    case move(PhotoID, to: Int, renamed: PhotoEntry?)
    /// The same photos in another order. With `keepingInView`, the views keep the photo in
    /// view where it is on screen (the one selected, or the one at the top), or, where they
    /// stay put (`PhotoList.viewsStayPut`), show the top of the new order in the rows they
    /// have: the model's items made for rows then stand for the photos that come to their
    /// positions, and each view shows its rows' new photos itself (see
    /// `cp_photo_list_model_reorder`).
    case reorder([PhotoID], keepingInView: Bool = false)
    /// Photos whose files were rewritten: they stay, and their pictures are made again.
    case replace([PhotoID])
    /// The same photos, some of them now shown and others not (the filter, or what it reads
    /// of them, changed): the change names those that came into view and those that left.
    case refilter

    /// Whether the photos or their order may have changed.
    var isReshaping: Bool {
        if case .replace = self { return false }
        return true
    }
}

/// What an edit did, as every observer of the list is told.
public struct PhotoListChange: Sendable {
    public enum Kind: Sendable { case replaceAll, append, insert, remove, move, reorder, replace, refilter }
    public let edit: Kind
    /// Photos that arrived.
    public var inserted: [PhotoID] = []
    /// Photos that left.
    public var removed: [PhotoID] = []
    /// Photos now at another position (besides the shifts that insertions and removals cause).
    public var moved: [PhotoID] = []
    /// Photos with a new name and address.
    public var renamed: [PhotoID] = []
    /// Photos whose files were rewritten.
    public var replaced: [PhotoID] = []
    /// Whether the views are to keep the photo in view (a reorder asked for it), and whether
    /// the rows' items now stand for the photos at their positions (the views stayed put).
    public var keptInView = false
    public var rowsInPlace = false
    /// Whether the views were told of rows taken away apart from the many added in their place
    /// (`reshow`): they no longer keep their row in view, and the one selected is brought back.
    public var placeLost = false

    /// Whether positions may have changed (anything but a rewrite).
    public var reshaped: Bool { edit != .replace }
}
