import Foundation

/// A folder's entries handed over as they are listed, each where it belongs among those handed
/// over before: a share's enumerator gives names a page at a time, in no particular order,
/// and a tree's folders one round trip each, so its rows are shown as they come instead of
/// once the last page is in.
///
/// The order is the one `PhotoOrder.order(names:links:facts:)` gives the whole listing:
/// sub-folders first by name, then pictures by the order's facts, names breaking ties (a
/// tree's names are paths below its top, so each folder's pictures stay together).
struct ArrivalOrder {
    /// One sub-folder or picture, with what it is ordered by.
    struct Item {
        var entry: PhotoEntry
        var facts: SortFacts?
        var isFolder: Bool
        /// `NaturalOrder.pathKey` of its name, made once.
        var nameKey: [UInt8]

        init(name: String, link: String, facts: SortFacts?, isFolder: Bool) {
            entry = PhotoEntry(name: name, link: link, base: nil)
            self.facts = facts
            self.isFolder = isFolder
            nameKey = NaturalOrder.pathKey(name)
        }
    }

    let order: PhotoOrder
    /// What has been handed over, in display order.
    private(set) var shown: [Item] = []
    private var arrived: [Item] = []

    init(order: PhotoOrder) {
        self.order = order
    }

    var hasArrivals: Bool { !arrived.isEmpty }

    /// Counts `item` as handed over already (a photo delivered ahead of its folder).
    mutating func hold(_ item: Item) {
        insert([item])
    }

    mutating func add(_ item: Item) {
        arrived.append(item)
    }

    /// What arrived since the last call, in order, and where each goes among everything handed
    /// over (ascending, counted in the list once they are in); nil positions when they all go
    /// after what is there.
    mutating func take() -> (entries: [PhotoEntry], positions: [Int]?) {
        let before = shown.count
        let (items, positions) = insert(arrived)
        arrived.removeAll()
        let appended = positions.enumerated().allSatisfy { $0.element == before + $0.offset }
        return (items.map(\.entry), appended ? nil : positions)
    }

    /// Merges `items` into `shown`: them in order, and where each went.
    @discardableResult
    private mutating func insert(_ items: [Item]) -> (items: [Item], positions: [Int]) {
        let items = items.sorted(by: precedes)
        var merged: [Item] = []
        merged.reserveCapacity(shown.count + items.count)
        var positions: [Int] = []
        positions.reserveCapacity(items.count)
        var old = 0
        for item in items {
            while old < shown.count, !precedes(item, shown[old]) {
                merged.append(shown[old])
                old += 1
            }
            positions.append(merged.count)
            merged.append(item)
        }
        merged.append(contentsOf: shown[old...])
        shown = merged
        return (items, positions)
    }

    /// Whether `a` comes before `b`.
    func precedes(_ a: Item, _ b: Item) -> Bool {
        if a.isFolder != b.isFolder { return a.isFolder }
        if !a.isFolder, order.key != .name {
            switch (a.facts, b.facts) {
            case (let x?, let y?): if let first = order.precedes(x, y) { return first }
            case (nil, _?): return false // unreadable files last
            case (_?, nil): return true
            case (nil, nil): break
            }
        }
        if a.nameKey != b.nameKey {
            let byName = a.nameKey.lexicographicallyPrecedes(b.nameKey)
            return !a.isFolder && order.key == .name && order.descending ? !byName : byName
        }
        return a.entry.link < b.entry.link
    }
}
