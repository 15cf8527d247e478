/// The photos of the list shown, in display order, each with its identity.
///
/// Built for lists of a million rows: names and addresses are packed into byte buffers, one
/// per batch (8 bytes of bookkeeping per row beyond their text, and no buffer is ever copied
/// to grow, which took tens of milliseconds at this size), identities are computed rather
/// than stored (a list reserves a block of them; a photo's identity is the block's start plus
/// the order in which it arrived), and a `PhotoRecord` exists only for photos that have been
/// shown. Rows are added in batches at the end; `reorder` moves photos without changing who
/// they are.
@MainActor
public final class PhotoCollection {
    /// Identities reserved per list; no list comes near it.
    private static let idBlock = 1 << 40

    public private(set) var count = 0
    private let firstID: UInt64
    /// The names and links of each batch, in arrival order.
    private var chunks: [Chunk] = []
    /// Position → arrival index, and its inverse; nil while the two are the same.
    private var order: [Int32]?
    private var positionOfIndex: [Int32]?
    private var records: [PhotoID: PhotoRecord] = [:]

    public init() {
        firstID = PhotoID.allocate(Self.idBlock)
    }

    // MARK: Building

    /// Adds `entries` after the last row. Returns the positions they took.
    @discardableResult
    public func append(_ entries: [PhotoEntry]) -> Range<Int> {
        let start = count
        precondition(start + entries.count < Self.idBlock)
        guard !entries.isEmpty else { return start..<start }
        // Entries of one batch share a base (one source); a batch that mixes them is split.
        var runStart = 0
        for end in 1...entries.count where end == entries.count || entries[end].base !== entries[runStart].base {
            chunks.append(Chunk(entries[runStart..<end], firstIndex: start + runStart))
            runStart = end
        }
        count += entries.count
        if order != nil {
            // New rows go last, in arrival order; appended in place (no copy of the whole order).
            order!.append(contentsOf: (start..<count).lazy.map(Int32.init))
            positionOfIndex!.append(contentsOf: (start..<count).lazy.map(Int32.init))
        }
        return start..<count
    }

    /// Shows the same photos in a new order: `positions[p]` is the current position of the
    /// photo to show at `p` (a permutation of `0..<count`).
    public func reorder(_ positions: [Int]) {
        precondition(positions.count == count && Set(positions).count == count
                     && positions.allSatisfy { (0..<count).contains($0) }, "not a permutation of the positions")
        let old = order ?? (0..<count).map(Int32.init)
        let new = positions.map { old[$0] }
        var inverse = [Int32](repeating: 0, count: count)
        for (position, index) in new.enumerated() { inverse[Int(index)] = Int32(position) }
        order = new
        positionOfIndex = inverse
        for record in records.values { record.position = self.position(of: record.id) ?? -1 }
    }

    // MARK: Looking up

    /// The photo at `position`.
    public func id(at position: Int) -> PhotoID {
        PhotoID(rawValue: firstID + UInt64(index(at: position)))
    }

    /// Where `id` is shown, or nil if it is not in this list.
    public func position(of id: PhotoID) -> Int? {
        guard id.rawValue >= firstID, id.rawValue - firstID < UInt64(count) else { return nil }
        let index = Int(id.rawValue - firstID)
        return positionOfIndex.map { Int($0[index]) } ?? index
    }

    public func contains(_ id: PhotoID) -> Bool { position(of: id) != nil }

    /// The entry of the photo at `position`.
    public func entry(at position: Int) -> PhotoEntry { entry(index: index(at: position)) }

    /// The name shown at `position` (cheaper than the whole entry).
    public func name(at position: Int) -> String {
        let index = index(at: position)
        return chunk(ofIndex: index).name(index)
    }

    /// The record of `id`, made when first asked for; nil if `id` is not in this list.
    public func record(for id: PhotoID) -> PhotoRecord? {
        if let record = records[id] { return record }
        guard let position = position(of: id) else { return nil }
        let record = PhotoRecord(id: id, entry: entry(at: position), position: position)
        records[id] = record
        return record
    }

    /// The record of `id` if one has been made (the photo was shown or worked on).
    public func existingRecord(for id: PhotoID) -> PhotoRecord? { records[id] }

    /// Every record made so far.
    public var existingRecords: Dictionary<PhotoID, PhotoRecord>.Values { records.values }

    /// Marks every record as no longer shown (the list is being replaced).
    public func retire() {
        for record in records.values { record.position = -1 }
    }

    // MARK: Storage

    private func index(at position: Int) -> Int {
        precondition((0..<count).contains(position), "position \(position) outside 0..<\(count)")
        return order.map { Int($0[position]) } ?? position
    }

    private func entry(index: Int) -> PhotoEntry {
        let chunk = chunk(ofIndex: index)
        return PhotoEntry(name: chunk.name(index), link: chunk.link(index), base: chunk.base)
    }

    /// The chunk holding arrival index `index` (chunks are few: one per batch).
    private func chunk(ofIndex index: Int) -> Chunk {
        var low = 0, high = chunks.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if chunks[middle].firstIndex <= index { low = middle } else { high = middle - 1 }
        }
        return chunks[low]
    }

    /// The names and links of consecutive entries with one base, as UTF-8 in one buffer.
    private final class Chunk {
        let firstIndex: Int
        let base: PhotoEntryBase?
        private let text: [UInt8]
        /// For the i-th entry of the chunk: its name ends at `ends[2i]`, its link at `ends[2i + 1]`.
        private let ends: [UInt32]

        init(_ entries: ArraySlice<PhotoEntry>, firstIndex: Int) {
            self.firstIndex = firstIndex
            base = entries.first?.base
            var text: [UInt8] = []
            text.reserveCapacity(entries.reduce(0) { $0 + $1.name.utf8.count + $1.link.utf8.count })
            var ends: [UInt32] = []
            ends.reserveCapacity(2 * entries.count)
            for entry in entries {
                text.append(contentsOf: entry.name.utf8)
                ends.append(UInt32(text.count))
                text.append(contentsOf: entry.link.utf8)
                ends.append(UInt32(text.count))
            }
            self.text = text
            self.ends = ends
        }

        func name(_ index: Int) -> String {
            let i = index - firstIndex
            return string(i == 0 ? 0 : Int(ends[2 * i - 1]), Int(ends[2 * i]))
        }

        func link(_ index: Int) -> String {
            let i = index - firstIndex
            return string(Int(ends[2 * i]), Int(ends[2 * i + 1]))
        }

        private func string(_ start: Int, _ end: Int) -> String {
            text.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[start..<end]), as: UTF8.self) }
        }
    }
}

extension PhotoCollection: @MainActor ScrollLayout {
    public func needsWork(_ id: PhotoID) -> Bool {
        records[id]?.needsWork ?? contains(id)
    }
}
