/// One thing that happened to a file of a folder shown, by path.
public enum FolderChange: Equatable, Sendable {
    case created(String)
    case deleted(String)
    case renamed(from: String, to: String)
    /// The file was written and closed.
    case changed(String)
}

/// What a burst of changes to a folder shown does to its list, worked out in one go: the
/// photos that leave, those renamed (and where they go), the new ones with the positions they
/// take (a sorted merge into the list, not a search and a splice per file), and those whose
/// files were rewritten. `edits(slice:)` turns it into the list's edits.
public struct FolderChangePlan: Sendable {
    public var removed: [PhotoID] = []
    /// Renamed photos, each moved to `position` in turn, after the removals.
    public var moved: [Move] = []
    /// New photos, and the positions they have once all are in (ascending).
    public var inserted: [PhotoEntry] = []
    public var insertedAt: [Int] = []
    /// The sort facts read of each new photo (in an order that needs them), in `inserted`'s
    /// order: kept once the photos are in, for the next photo placed among them.
    public var insertedFacts: [SortFacts?] = []
    /// Photos whose files were rewritten.
    public var rewritten: [PhotoID] = []
    /// What the trace counts: files added, removed and changed, one per event that did so.
    public var added = 0, removedCount = 0, changed = 0
    /// Sort facts read on the way, to keep for the next change.
    public var factsRead: [PhotoID: SortFacts] = [:]

    public struct Move: Sendable, Equatable {
        public let id: PhotoID
        public let entry: PhotoEntry
        public let position: Int
    }

    public var isEmpty: Bool { added + removedCount + changed == 0 }

    /// The edits that carry the plan out, in order; new photos come in edits of at most
    /// `slice` each, so that each can be applied in a main-loop iteration of its own.
    public func edits(slice: Int) -> [PhotoListEdit] {
        var edits: [PhotoListEdit] = []
        if !removed.isEmpty { edits.append(.remove(removed)) }
        for move in moved { edits.append(.move(move.id, to: move.position, renamed: move.entry)) }
        // Inserting the first k photos (by position) at their final positions is already right:
        // every photo before each of them is in by then.
        var start = 0
        while start < inserted.count {
            let end = min(inserted.count, start + max(1, slice))
            edits.append(.insert(Array(inserted[start..<end]), at: Array(insertedAt[start..<end])))
            start = end
        }
        if !rewritten.isEmpty { edits.append(.replace(rewritten)) }
        return edits
    }
}

/// Works out what a burst of folder changes does to the list shown (pure: no I/O of its own).
public enum FolderChanges {
    /// The plan for `changes` (in the order they happened) to `list`, sorted by `order`.
    /// `link` gives the address a path has in the list, `entry` the entry a file gets if the
    /// folder lists it (nil: not a picture, or hidden), `facts` what sorting needs of a photo
    /// (called only when the order needs it; `known` holds what was read before).
    public static func plan(
        _ changes: [FolderChange], list: PhotoCollectionSnapshot, order: PhotoOrder,
        known: [PhotoID: SortFacts] = [:], link: (String) -> String, entry: (String) -> PhotoEntry?,
        facts: (PhotoEntry) -> SortFacts?
    ) -> FolderChangePlan {
        var overlay = Overlay(list: list)
        var plan = FolderChangePlan()
        // A photo's address, or a sub-folder's (which ends in "/").
        func shown(_ path: String) -> Slot? {
            let address = link(path)
            return overlay.find(address) ?? overlay.find(address + "/")
        }
        for change in changes {
            switch change {
            case .created(let path):
                if let slot = overlay.find(link(path)) {
                    overlay.rewrite(slot) // replaced by a file of the same name
                    plan.changed += 1
                } else if let new = entry(path) {
                    overlay.add(new)
                    plan.added += 1
                }
            case .deleted(let path):
                if let slot = shown(path) {
                    overlay.remove(slot)
                    plan.removedCount += 1
                }
            case .renamed(let from, let to):
                let old = shown(from)
                let new = entry(to)
                if let target = overlay.find(link(to)), target != old {
                    // Moved over a photo shown (how editors save: a hidden file, then a rename):
                    // that photo's file was replaced; it stays, and is loaded again.
                    if let old {
                        overlay.remove(old)
                        plan.removedCount += 1
                    }
                    if new != nil {
                        overlay.rewrite(target)
                        plan.changed += 1
                    } else {
                        overlay.remove(target)
                        plan.removedCount += 1
                    }
                    continue
                }
                switch (old, new) {
                case (let slot?, let new?):
                    overlay.rename(slot, to: new)
                    plan.changed += 1
                case (let slot?, nil):
                    overlay.remove(slot) // no longer a picture by its name, or hidden now
                    plan.removedCount += 1
                case (nil, let new?):
                    overlay.add(new)
                    plan.added += 1
                case (nil, nil):
                    break
                }
            case .changed(let path):
                // A sub-folder's contents changed: nothing to its item.
                if shown(path) != nil, overlay.find(link(path)) == nil { continue }
                guard let slot = overlay.find(link(path)) else {
                    // Written and closed, not created: a file that was not a picture by its
                    // content before (no extension) may be one now.
                    if let new = entry(path) {
                        overlay.add(new)
                        plan.added += 1
                    }
                    continue
                }
                // A photo added in this burst: its writing being done is no change to it.
                guard case .existing = slot else { continue }
                overlay.rewrite(slot)
                plan.changed += 1
            }
        }
        guard !plan.isEmpty else { return plan }
        return withoutActuallyEscaping(facts) { facts in
            var placing = Placing(list: list, order: order, known: known, facts: facts)
            placing.place(overlay, into: &plan)
            return plan
        }
    }

    /// Where a photo named `entry` goes in `list`, sorted by `order` (a binary search: only the
    /// photos compared have their facts read).
    public static func position(
        of entry: PhotoEntry, in list: PhotoCollectionSnapshot, order: PhotoOrder,
        known: [PhotoID: SortFacts] = [:], facts: (PhotoEntry) -> SortFacts?
    ) -> Int {
        positions(of: [entry], in: list, order: order, known: known, facts: facts)[0]
    }

    /// Where each of `entries` goes in `list` as it is, sorted by `order`, each as if it came
    /// alone: sorted among themselves first, each is looked for from where the one before it
    /// went, a few rows on (thousands put back into a folder take a few comparisons each, not a
    /// whole binary search).
    public static func positions(
        of entries: [PhotoEntry], in list: PhotoCollectionSnapshot, order: PhotoOrder,
        known: [PhotoID: SortFacts] = [:], facts: (PhotoEntry) -> SortFacts?
    ) -> [Int] {
        withoutActuallyEscaping(facts) { facts in
            var placing = Placing(list: list, order: order, known: known, facts: facts)
            let rows = (0..<list.count).map(Placing.Row.at)
            let entryFacts = order.needsFacts ? entries.map(facts) : entries.map { _ in nil }
            let sorted = order.order(names: entries.map(\.name), links: entries.map(\.link), facts: entryFacts)
            var positions = [Int](repeating: 0, count: entries.count)
            var from = 0
            for index in sorted {
                from = placing.insertionPoint(entries[index], entryFacts[index], in: rows, from: from, galloping: true)
                positions[index] = from
            }
            return positions
        }
    }

    /// A photo of the list, or one new in this burst (by its place among the new ones).
    enum Slot: Equatable {
        case existing(PhotoID)
        case new(Int)
    }

    /// The list as the burst leaves it, noted on top of the snapshot.
    struct Overlay {
        let list: PhotoCollectionSnapshot
        /// Position in the list by address, for the photos not renamed.
        let positionByLink: [String: Int]
        var removed: Set<PhotoID> = []
        var renamed: [PhotoID: PhotoEntry] = [:]
        /// Renamed photos, in the order they were first renamed.
        var renamedOrder: [PhotoID] = []
        var renamedByLink: [String: PhotoID] = [:]
        var rewritten: [PhotoID] = []
        /// New photos (nil once gone again), and where each is by address.
        var new: [PhotoEntry?] = []
        var newByLink: [String: Int] = [:]

        init(list: PhotoCollectionSnapshot) {
            self.list = list
            var positions: [String: Int] = [:]
            positions.reserveCapacity(list.count)
            for position in 0..<list.count {
                let link = list.entry(at: position).link
                if positions[link] == nil { positions[link] = position }
            }
            positionByLink = positions
        }

        func find(_ link: String) -> Slot? {
            if let index = newByLink[link] { return .new(index) }
            if let id = renamedByLink[link] { return .existing(id) }
            guard let position = positionByLink[link] else { return nil }
            let id = list.id(at: position)
            return removed.contains(id) || renamed[id] != nil ? nil : .existing(id)
        }

        mutating func add(_ entry: PhotoEntry) {
            newByLink[entry.link] = new.count
            new.append(entry)
        }

        mutating func remove(_ slot: Slot) {
            switch slot {
            case .existing(let id):
                removed.insert(id)
                if let entry = renamed.removeValue(forKey: id) { renamedByLink.removeValue(forKey: entry.link) }
            case .new(let index):
                if let entry = new[index] { newByLink.removeValue(forKey: entry.link) }
                new[index] = nil
            }
        }

        mutating func rename(_ slot: Slot, to entry: PhotoEntry) {
            switch slot {
            case .existing(let id):
                if let old = renamed[id] {
                    renamedByLink.removeValue(forKey: old.link)
                } else {
                    renamedOrder.append(id)
                }
                renamed[id] = entry
                renamedByLink[entry.link] = id
            case .new(let index):
                if let old = new[index] { newByLink.removeValue(forKey: old.link) }
                new[index] = entry
                newByLink[entry.link] = index
            }
        }

        mutating func rewrite(_ slot: Slot) {
            if case .existing(let id) = slot, !rewritten.contains(id) { rewritten.append(id) }
        }
    }

    /// Finds where renamed and new photos go in the order, reading sort facts only for the
    /// photos compared.
    struct Placing {
        let list: PhotoCollectionSnapshot
        let order: PhotoOrder
        var known: [PhotoID: SortFacts]
        let facts: (PhotoEntry) -> SortFacts?
        var read: [PhotoID: SortFacts] = [:]
        /// Rows whose facts could not be read.
        var unreadable: Set<PhotoID> = []

        /// A row of the list being worked on: a photo of the snapshot (by position) or a
        /// renamed one.
        enum Row {
            case at(Int)
            case renamed(PhotoID, PhotoEntry)
        }

        mutating func place(_ overlay: Overlay, into plan: inout FolderChangePlan) {
            plan.removed = overlay.removed.sorted()
            plan.rewritten = overlay.rewritten.filter { !overlay.removed.contains($0) }
            // The list once the photos removed are gone, renamed photos still where they were.
            var rows: [Row] = []
            rows.reserveCapacity(list.count)
            // A rewritten photo stays where it is, but its size and times are new: read here,
            // off the main thread, so that the next photo placed among the rows finds them.
            let rewritten = order.needsFacts ? Set(plan.rewritten).subtracting(overlay.renamedOrder) : []
            for position in 0..<list.count {
                let id = list.id(at: position)
                guard !overlay.removed.contains(id) else { continue }
                rows.append(.at(position))
                if rewritten.contains(id), let fresh = facts(list.entry(at: position)) { read[id] = fresh }
            }
            // Renamed photos move one after another, as the edits will move them.
            for id in overlay.renamedOrder {
                guard let entry = overlay.renamed[id], let from = rows.firstIndex(where: { self.id(of: $0) == id })
                else { continue }
                rows.remove(at: from)
                let newFacts = order.needsFacts ? facts(entry) : nil
                if let newFacts { read[id] = newFacts }
                known[id] = newFacts
                let to = insertionPoint(entry, newFacts, in: rows, from: 0)
                rows.insert(.renamed(id, entry), at: to)
                plan.moved.append(.init(id: id, entry: entry, position: to))
            }
            // New photos: sorted among themselves, then merged in, each after the one before.
            let new = overlay.new.compactMap { $0 }
            let newFacts = order.needsFacts ? new.map(facts) : new.map { _ in nil }
            let sorted = order.order(names: new.map(\.name), links: new.map(\.link), facts: newFacts)
            var from = 0
            for (offset, index) in sorted.enumerated() {
                from = insertionPoint(new[index], newFacts[index], in: rows, from: from)
                plan.inserted.append(new[index])
                plan.insertedAt.append(from + offset)
                if order.needsFacts { plan.insertedFacts.append(newFacts[index]) }
            }
            plan.factsRead = read
        }

        private func id(of row: Row) -> PhotoID {
            switch row {
            case .at(let position): list.id(at: position)
            case .renamed(let id, _): id
            }
        }

        /// The first row at or after `from` that a photo named `entry` with `facts` precedes
        /// (a binary search). `galloping`: the row is likely near `from`, so rows 1, 2, 4, 8, …
        /// on are tried first, and the search is made between the last two.
        mutating func insertionPoint(
            _ entry: PhotoEntry, _ facts: SortFacts?, in rows: [Row], from: Int, galloping: Bool = false
        )
            -> Int
        {
            var low = from, high = rows.count
            if galloping, low < high {
                if precedes(entry, facts, rows[low]) { return low }
                // It goes after `low`: the row `step` on is tried, twice as far each time.
                var step = 1
                while true {
                    let next = low + step
                    if next >= high {
                        low += 1
                        break
                    }
                    if precedes(entry, facts, rows[next]) {
                        (low, high) = (low + 1, next)
                        break
                    }
                    low = next
                    step *= 2
                }
            }
            while low < high {
                let middle = (low + high) / 2
                if precedes(entry, facts, rows[middle]) {
                    high = middle
                } else {
                    low = middle + 1
                }
            }
            return low
        }

        /// Whether a photo named `entry` with `facts` goes before `row`.
        private mutating func precedes(_ entry: PhotoEntry, _ facts: SortFacts?, _ row: Row) -> Bool {
            let (id, other): (PhotoID, PhotoEntry) =
                switch row {
                case .at(let position): (list.id(at: position), list.entry(at: position))
                case .renamed(let id, let entry): (id, entry)
                }
            // Sub-folders come first, whatever the order: a photo never goes before one (and
            // nothing of a folder is read to know it).
            guard other.isFolder == entry.isFolder else { return entry.isFolder }
            return order.precedes(facts, named: entry.name, rowFacts(id, other), named: other.name)
        }

        /// The facts of the row `id`, read once (a file that could not be read is not tried again).
        private mutating func rowFacts(_ id: PhotoID, _ entry: PhotoEntry) -> SortFacts? {
            guard order.needsFacts, !unreadable.contains(id) else { return nil }
            if let known = known[id] ?? read[id] { return known }
            guard let found = facts(entry) else {
                unreadable.insert(id)
                return nil
            }
            read[id] = found
            return found
        }
    }
}
