import Foundation
import GLibKit

/// The photos of the list shown, in display order, each with its identity: the storage of
/// `PhotoList`, which alone changes it.
///
/// Built for lists of a million rows: names and addresses are packed into byte buffers, one
/// per batch or per 16,384 rows of one (8 bytes of bookkeeping per row beyond their text, and no buffer is ever copied
/// to grow, which took tens of milliseconds at this size), or read where a folder's source
/// packed them (20 bytes a row: its place in the source's order, and where its two texts
/// end), identities are computed rather
/// than stored (a list reserves a block of them; a photo's identity is the block's start plus
/// the order in which it arrived), and a `PhotoRecord` exists only for photos that have been
/// shown. Rows are added in batches at the end; `reorder` moves photos without changing who
/// they are; `remove`, `insert` and `rename` follow a folder as it changes.
@MainActor
public final class PhotoCollection {
    /// Identities reserved per list; no list comes near it.
    private static let idBlock = 1 << 40

    public private(set) var count = 0
    /// Entries ever added (the arrival indexes in use); more than `count` once rows were removed.
    private var arrived = 0
    /// The first identity of the block this list reserved: a photo's is it plus its arrival.
    let firstID: UInt64
    /// The names and links of each batch, in arrival order.
    private var chunks: [Chunk] = []
    /// Position → arrival index, and its inverse (-1: removed); nil while the two are the same.
    private var order: [Int32]?
    private var positionOfIndex: [Int32]?
    /// Entries that changed name since they arrived (renamed files), by arrival index.
    private var renamed: [Int: PhotoEntry] = [:]
    /// Arrival index by link, made when a change first needs it.
    private var indexOfLink: [String: Int]?
    private var records: [PhotoID: PhotoRecord] = [:]

    public init() {
        firstID = PhotoID.allocate(Self.idBlock)
    }

    // MARK: Building

    /// Adds `entries` after the last row. Returns the positions they took.
    @discardableResult
    func append(_ entries: [PhotoEntry]) -> Range<Int> {
        append(PackedEntries(entries))
    }

    /// Adds entries packed already (on a worker, say) after the last row. Returns the
    /// positions they took.
    @discardableResult
    func append(_ packed: PackedEntries) -> Range<Int> {
        let start = count
        precondition(arrived + packed.count < Self.idBlock)
        guard packed.count > 0 else { return start..<start }
        let firstIndex = arrived
        // The packed text is shared, not copied: each chunk is only renumbered.
        chunks += packed.chunks.map { Chunk($0, firstIndex: firstIndex + $0.firstIndex) }
        arrived += packed.count
        count += packed.count
        if order != nil {
            // New rows go last, in arrival order; appended in place (no copy of the whole order).
            order!.append(contentsOf: (firstIndex..<arrived).lazy.map(Int32.init))
            positionOfIndex!.append(contentsOf: (start..<count).lazy.map(Int32.init))
        }
        if indexOfLink != nil {
            for index in firstIndex..<arrived {
                let link = chunk(ofIndex: index).link(index)
                if indexOfLink![link] == nil { indexOfLink![link] = index }
            }
        }
        return start..<count
    }

    /// Shows the same photos in a new order: `positions[p]` is the current position of the
    /// photo to show at `p` (a permutation of `0..<count`).
    func reorder(_ positions: [Int]) {
        precondition(
            positions.count == count && Set(positions).count == count
                && positions.allSatisfy { (0..<count).contains($0) }, "not a permutation of the positions")
        let old = materializedOrder()
        setOrder(positions.map { old[$0] })
    }

    // MARK: Changing

    /// Takes the photos `ids` out of the list. Returns the positions they had, in ascending
    /// order; their records are retired (position -1).
    @discardableResult
    func remove(_ ids: some Sequence<PhotoID>) -> [Int] {
        let ids = Array(ids)
        let positions = Set(ids.compactMap { position(of: $0) }).sorted()
        guard !positions.isEmpty else { return [] }
        let old = materializedOrder()
        // One pass, keeping the runs between the positions taken out.
        var kept: [Int32] = []
        kept.reserveCapacity(old.count - positions.count)
        var start = 0
        for position in positions {
            kept.append(contentsOf: old[start..<position])
            start = position + 1
        }
        kept.append(contentsOf: old[start...])
        for id in ids {
            records.removeValue(forKey: id)?.position = -1
        }
        setOrder(kept)
        return positions
    }

    /// Adds `entry` as a new photo shown at `position` (0...count). Returns its identity.
    @discardableResult
    func insert(_ entry: PhotoEntry, at position: Int) -> PhotoID {
        insert([entry], at: [position])[0]
    }

    /// Adds `entries` as new photos, each shown at the position of the same index in
    /// `positions` once all are in (ascending, each within the list that results), in one pass
    /// over the order however many they are. Returns their identities.
    @discardableResult
    func insert(_ entries: [PhotoEntry], at positions: [Int]) -> [PhotoID] {
        precondition(entries.count == positions.count)
        guard !entries.isEmpty else { return [] }
        let total = count + entries.count
        precondition(
            zip(positions, positions.dropFirst()).allSatisfy { $0 < $1 } && positions.first! >= 0
                && positions.last! < total, "insertion positions out of order or range")
        let firstIndex = arrived
        let before = materializedOrder()
        append(entries)
        if positions.first! == total - entries.count {
            return (0..<entries.count).map { PhotoID(rawValue: firstID + UInt64(firstIndex + $0)) }
        }
        var new: [Int32] = []
        new.reserveCapacity(total)
        var old = 0
        for (offset, position) in positions.enumerated() {
            let keep = position - new.count
            new.append(contentsOf: before[old..<old + keep])
            old += keep
            new.append(Int32(firstIndex + offset))
        }
        new.append(contentsOf: before[old...])
        setOrder(new)
        return (0..<entries.count).map { PhotoID(rawValue: firstID + UInt64(firstIndex + $0)) }
    }

    /// Shows the same photos in the order `ids` (each of them once).
    func reorder(_ ids: [PhotoID]) {
        precondition(ids.count == count, "not the photos of the list")
        var new: [Int32] = []
        new.reserveCapacity(ids.count)
        for id in ids {
            precondition(contains(id), "not a photo of the list")
            new.append(Int32(id.rawValue - firstID))
        }
        setOrder(new)
    }

    /// Shows the photo `id` at `position` instead (positions of the others close up).
    func move(_ id: PhotoID, to position: Int) {
        guard let from = self.position(of: id), from != position else { return }
        var new = materializedOrder()
        let index = new.remove(at: from)
        new.insert(index, at: min(position, new.count))
        setOrder(new)
    }

    /// Gives the photo `id` a new name and address (its file was renamed); it stays who it is.
    func rename(_ id: PhotoID, to entry: PhotoEntry) {
        guard contains(id) else { return }
        let index = Int(id.rawValue - firstID)
        let old = self.entry(index: index)
        renamed[index] = entry
        if indexOfLink != nil {
            if indexOfLink![old.link] == index { indexOfLink!.removeValue(forKey: old.link) }
            indexOfLink![entry.link] = index
        }
        records[id]?.rename(to: entry)
    }

    /// The photo whose address is `link`, exactly as its entry has it, if one is shown.
    public func id(forLink link: String) -> PhotoID? {
        if indexOfLink == nil {
            var map: [String: Int] = [:]
            map.reserveCapacity(arrived)
            for index in 0..<arrived where map[entry(index: index).link] == nil {
                map[entry(index: index).link] = index
            }
            indexOfLink = map
        }
        guard let index = indexOfLink![link] else { return nil }
        let id = PhotoID(rawValue: firstID + UInt64(index))
        return contains(id) ? id : nil
    }

    /// The arrival index of every position.
    private func materializedOrder() -> [Int32] {
        order ?? (0..<arrived).map(Int32.init)
    }

    /// Shows the arrival indexes `new` in this order (a subset of those that arrived).
    private func setOrder(_ new: [Int32]) {
        var inverse = [Int32](repeating: -1, count: arrived)
        for (position, index) in new.enumerated() { inverse[Int(index)] = Int32(position) }
        order = new
        positionOfIndex = inverse
        count = new.count
        for record in records.values { record.position = self.position(of: record.id) ?? -1 }
    }

    // MARK: Looking up

    /// The photo at `position`.
    public func id(at position: Int) -> PhotoID {
        PhotoID(rawValue: firstID + UInt64(index(at: position)))
    }

    /// The identities of the photos at `positions`, in order: read straight from the order
    /// (a tree's 100,000 rows one `id(at:)` at a time took the main thread 10 ms, twice over,
    /// as they were appended).
    func rawIDs(in positions: Range<Int>) -> [UInt64] {
        precondition(positions.lowerBound >= 0 && positions.upperBound <= count, "positions outside 0..<\(count)")
        return Self.rawIDs(firstID: firstID, indexes: order?[positions], positions: positions)
    }

    /// Away from the main actor: a closure made in its methods checks, each time it is called,
    /// that it runs there (as long as making the 100,000 identities themselves).
    private nonisolated static func rawIDs(
        firstID: UInt64, indexes: ArraySlice<Int32>?, positions: Range<Int>
    ) -> [UInt64] {
        guard let indexes else { return positions.map { firstID + UInt64($0) } }
        return indexes.map { firstID + UInt64($0) }
    }

    /// Where `id` is shown, or nil if it is not in this list.
    public func position(of id: PhotoID) -> Int? {
        guard id.rawValue >= firstID, id.rawValue - firstID < UInt64(arrived) else { return nil }
        let index = Int(id.rawValue - firstID)
        guard let positionOfIndex else { return index }
        let position = Int(positionOfIndex[index])
        return position >= 0 ? position : nil
    }

    public func contains(_ id: PhotoID) -> Bool { position(of: id) != nil }

    /// How many photos arrived in this list so far, and the order in which `id` did (nil: it
    /// is not one of them): a number below `arrivals` for each photo, kept while it is in the list.
    var arrivals: Int { arrived }
    func arrival(of id: PhotoID) -> Int? {
        id.rawValue >= firstID && id.rawValue - firstID < UInt64(arrived) ? Int(id.rawValue - firstID) : nil
    }

    /// The entry of the photo at `position`.
    public func entry(at position: Int) -> PhotoEntry { entry(index: index(at: position)) }

    /// The name shown at `position` (cheaper than the whole entry).
    public func name(at position: Int) -> String {
        let index = index(at: position)
        if let entry = renamed[index] { return entry.name }
        return chunk(ofIndex: index).name(index)
    }

    /// The record of `id`, made if there is none yet (the photo is being shown or worked
    /// on); nil if `id` is not in this list. Records stay inside the pipeline: what leaves it
    /// is snapshots (`PhotoProcessor.snapshot(of:)`).
    func makeRecord(for id: PhotoID) -> PhotoRecord? {
        if let record = records[id] { return record }
        guard let position = position(of: id) else { return nil }
        let record = PhotoRecord(id: id, entry: entry(at: position), position: position)
        records[id] = record
        return record
    }

    /// The record of `id` if one has been made (the photo was shown or worked on).
    func existingRecord(for id: PhotoID) -> PhotoRecord? { records[id] }

    /// Every record made so far.
    var existingRecords: Dictionary<PhotoID, PhotoRecord>.Values { records.values }

    /// Marks every record as no longer shown (the list is being replaced).
    func retire() {
        for record in records.values { record.position = -1 }
    }

    /// The photos as they are now, to read on another thread (what a change of the folder
    /// does to them is worked out there): the order is copied, the names and links are shared.
    func snapshot() -> PhotoCollectionSnapshot {
        PhotoCollectionSnapshot(
            firstID: firstID, order: materializedOrder(), chunks: chunks, renamed: renamed)
    }

    // MARK: Storage

    private func index(at position: Int) -> Int {
        precondition((0..<count).contains(position), "position \(position) outside 0..<\(count)")
        return order.map { Int($0[position]) } ?? position
    }

    private func entry(index: Int) -> PhotoEntry {
        if let entry = renamed[index] { return entry }
        let chunk = chunk(ofIndex: index)
        return PhotoEntry(name: chunk.name(index), link: chunk.link(index), base: chunk.base)
    }

    /// The chunk holding arrival index `index` (chunks are few: one per batch).
    private func chunk(ofIndex index: Int) -> Chunk { Self.chunk(ofIndex: index, in: chunks) }

    nonisolated static func chunk(ofIndex index: Int, in chunks: [Chunk]) -> Chunk {
        var low = 0, high = chunks.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if chunks[middle].firstIndex <= index { low = middle } else { high = middle - 1 }
        }
        return chunks[low]
    }

    /// The names and links of consecutive entries with one base: packed as UTF-8 in a buffer
    /// of their own, or picked from a source's packed names and links.
    final class Chunk: Sendable {
        let firstIndex: Int
        let base: PhotoEntryBase?
        private let storage: Storage

        private enum Storage: Sendable {
            /// The i-th entry's name ends at `ends[2i]` of `text`, its link at `ends[2i + 1]`.
            case own(text: [UInt8], ends: [UInt32])
            /// The i-th entry is named `names[picks[i]]` and linked `links[picks[i]]`.
            case picked(names: PackedTexts, links: PackedTexts, picks: [Int32])
        }

        /// The same entries (their text shared), numbered from `firstIndex`.
        init(_ chunk: Chunk, firstIndex: Int) {
            self.firstIndex = firstIndex
            base = chunk.base
            storage = chunk.storage
        }

        /// `entries` (all with the first one's base), their texts packed.
        init(_ entries: ArraySlice<PhotoEntry>, firstIndex: Int) {
            self.firstIndex = firstIndex
            base = entries.first?.base
            var text: [UInt8] = []
            var ends: [UInt32] = []
            ends.reserveCapacity(2 * entries.count)
            for entry in entries {
                var (name, link) = (entry.name, entry.link)
                if text.isEmpty {
                    // Room for the rest as long as the first: grown by doubling after that.
                    text.reserveCapacity((name.utf8.count + link.utf8.count) * entries.count * 5 / 4)
                }
                name.withUTF8 { text.append(contentsOf: $0) }
                ends.append(UInt32(text.count))
                link.withUTF8 { text.append(contentsOf: $0) }
                ends.append(UInt32(text.count))
            }
            storage = .own(text: text, ends: ends)
        }

        /// The entries named `names[p]` and linked `links[p]` for each `p` of `picks`, with no
        /// base (absolute links); the texts are shared, not copied.
        init(names: PackedTexts, links: PackedTexts, picks: [Int32], firstIndex: Int) {
            self.firstIndex = firstIndex
            base = nil
            storage = .picked(names: names, links: links, picks: picks)
        }

        private var count: Int {
            switch storage {
            case .own(_, let ends): ends.count / 2
            case .picked(_, _, let picks): picks.count
            }
        }

        /// Its entries, in order.
        var entries: [PhotoEntry] {
            (0..<count).map {
                PhotoEntry(name: name(firstIndex + $0), link: link(firstIndex + $0), base: base)
            }
        }

        func name(_ index: Int) -> String {
            let i = index - firstIndex
            switch storage {
            case .own(let text, let ends): return Self.string(text, i == 0 ? 0 : Int(ends[2 * i - 1]), Int(ends[2 * i]))
            case .picked(let names, _, let picks): return names[Int(picks[i])]
            }
        }

        func link(_ index: Int) -> String {
            let i = index - firstIndex
            switch storage {
            case .own(let text, let ends): return Self.string(text, Int(ends[2 * i]), Int(ends[2 * i + 1]))
            case .picked(_, let links, let picks): return links[Int(picks[i])]
            }
        }

        private static func string(_ text: [UInt8], _ start: Int, _ end: Int) -> String {
            text.withUnsafeBufferPointer {
                String(decoding: UnsafeBufferPointer(rebasing: $0[start..<end]), as: UTF8.self)
            }
        }
    }
}

extension PhotoCollection {
    /// Whether the photo still needs its work (a folder never does).
    func needsWork(_ id: PhotoID) -> Bool {
        if let record = records[id] { return record.needsWork }
        guard let position = position(of: id) else { return false }
        return !entry(at: position).isFolder
    }
}
