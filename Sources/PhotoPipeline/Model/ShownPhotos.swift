/// The photos of a list a filter lets through, in the list's order: what the views show of it
/// while a filter is on. Made again from the whole list after every change of it or of the
/// filter (a pass over the identities: a few milliseconds for 100,000 photos), and compared
/// with what was shown before, so that the views are told only what differs.
@MainActor
struct ShownPhotos {
    /// The photos shown, in order (raw identities).
    private(set) var ids: [UInt64]
    /// The position of each photo shown, by the order in which it arrived in the list; -1:
    /// hidden.
    private var positionOfArrival: [Int32]

    /// The photos of `photos` that `passes` lets through (all, for nil), and sub-folders: those
    /// always stay, to go into, first. With `rank`, the photos highest first, ties in the
    /// list's order.
    init(of photos: PhotoCollection, firstPhoto: Int, passes: ((PhotoID) -> Bool)?, rank: ((PhotoID) -> Int)? = nil) {
        let all = photos.rawIDs(in: 0..<photos.count)
        var ids: [UInt64] = []
        ids.reserveCapacity(all.count)
        ids.append(contentsOf: all[..<firstPhoto])
        if let passes {
            for raw in all[firstPhoto...] where passes(PhotoID(rawValue: raw)) { ids.append(raw) }
        } else {
            ids.append(contentsOf: all[firstPhoto...])
        }
        if let rank { Self.rank(&ids[firstPhoto...], by: rank) }
        var positions = [Int32](repeating: -1, count: photos.arrivals)
        for (position, raw) in ids.enumerated() {
            if let arrival = photos.arrival(of: PhotoID(rawValue: raw)) { positions[arrival] = Int32(position) }
        }
        self.ids = ids
        positionOfArrival = positions
    }

    /// Puts `ids` highest rank first, ties as they were: ranks of a small span (stars) are
    /// counted into buckets, in one pass (sorting 100,000 photos each time one was given stars
    /// held the main thread 50 ms); others sorted.
    private static func rank(_ ids: inout ArraySlice<UInt64>, by rank: (PhotoID) -> Int) {
        let ranks = ids.map { rank(PhotoID(rawValue: $0)) }
        guard let low = ranks.min(), let high = ranks.max(), low < high else { return }
        if high - low < 64 {
            var buckets = [[UInt64]](repeating: [], count: high - low + 1)
            for (raw, rank) in zip(ids, ranks) { buckets[high - rank].append(raw) }
            ids.replaceSubrange(ids.startIndex..., with: buckets.joined())
        } else {
            let order = ranks.indices.sorted { (ranks[$0], -$0) > (ranks[$1], -$1) }
            let sorted = order.map { ids[ids.startIndex + $0] }
            ids.replaceSubrange(ids.startIndex..., with: sorted)
        }
    }

    var count: Int { ids.count }

    func id(at position: Int) -> PhotoID { PhotoID(rawValue: ids[position]) }

    func position(of id: PhotoID, in photos: PhotoCollection) -> Int? {
        guard let arrival = photos.arrival(of: id), arrival < positionOfArrival.count else { return nil }
        let position = Int(positionOfArrival[arrival])
        return position >= 0 ? position : nil
    }

    /// The photos of `new` not in `old` (they came into view), and those of `old` not in
    /// `new` (they left), in their orders: one pass over each, marking by arrival.
    static func moves(
        from old: ArraySlice<UInt64>, to new: ArraySlice<UInt64>, in photos: PhotoCollection
    ) -> (came: [UInt64], left: [UInt64]) {
        var inOld = [Bool](repeating: false, count: photos.arrivals)
        var inNew = inOld
        for raw in old { if let arrival = photos.arrival(of: PhotoID(rawValue: raw)) { inOld[arrival] = true } }
        for raw in new { if let arrival = photos.arrival(of: PhotoID(rawValue: raw)) { inNew[arrival] = true } }
        // A photo of an earlier list (a new list replaced it) has no arrival here: it left.
        let came = new.filter { raw in photos.arrival(of: PhotoID(rawValue: raw)).map { !inOld[$0] } ?? true }
        let left = old.filter { raw in photos.arrival(of: PhotoID(rawValue: raw)).map { !inNew[$0] } ?? true }
        return (came, left)
    }

    /// Whether `a` and `b` hold the same photos (in any order).
    static func same(_ a: ArraySlice<UInt64>, _ b: [UInt64], in photos: PhotoCollection) -> Bool {
        let (came, left) = moves(from: a, to: b[...], in: photos)
        return came.isEmpty && left.isEmpty
    }

    /// How `new` differs from `old`: the run of rows between the first and the last that
    /// differ, as it was (`removed` rows at `position`) and as it is now (`added`).
    static func difference(from old: [UInt64], to new: [UInt64]) -> (position: Int, removed: Int, added: Int) {
        let common = min(old.count, new.count)
        var prefix = 0
        while prefix < common, old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < common - prefix, old[old.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }
        return (prefix, old.count - prefix - suffix, new.count - prefix - suffix)
    }
}

extension PhotoCollection {
    /// How many sub-folders head the list (they always come first): the position of its
    /// first photo. A binary search, reading a few entries.
    var firstPhoto: Int {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if entry(at: middle).isFolder { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
