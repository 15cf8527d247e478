/// The photos of the list shown, in display order, each with its identity.
///
/// Built for lists of a million rows: names and addresses are packed into one byte buffer
/// (a few bytes of bookkeeping per row beyond their text), identities are computed rather
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
    /// UTF-8 of every name and link, in arrival order.
    private var text: [UInt8] = []
    /// For arrival index i: the name ends at `ends[2i]`, the link at `ends[2i + 1]`.
    private var ends: [Int] = []
    /// The base address of the rows from each arrival index on (one per source batch run).
    private var bases: [(from: Int, base: PhotoEntryBase?)] = []
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
        text.reserveCapacity(text.count + entries.reduce(0) { $0 + $1.name.utf8.count + $1.link.utf8.count })
        ends.reserveCapacity(ends.count + 2 * entries.count)
        for (offset, entry) in entries.enumerated() {
            if bases.last.map({ $0.base !== entry.base }) ?? true { bases.append((start + offset, entry.base)) }
            text.append(contentsOf: entry.name.utf8)
            ends.append(text.count)
            text.append(contentsOf: entry.link.utf8)
            ends.append(text.count)
        }
        count += entries.count
        if var order, var inverse = positionOfIndex {
            for index in start..<count {
                order.append(Int32(index))
                inverse.append(Int32(index))
            }
            self.order = order
            positionOfIndex = inverse
        }
        return start..<count
    }

    /// Shows the same photos in a new order: `positions[p]` is the current position of the
    /// photo to show at `p` (a permutation of `0..<count`).
    public func reorder(_ positions: [Int]) {
        precondition(positions.count == count && Set(positions).count == count)
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
        return string(from: index == 0 ? 0 : ends[2 * index - 1], to: ends[2 * index])
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
        let nameStart = index == 0 ? 0 : ends[2 * index - 1]
        let name = string(from: nameStart, to: ends[2 * index])
        let link = string(from: ends[2 * index], to: ends[2 * index + 1])
        return PhotoEntry(name: name, link: link, base: base(ofIndex: index))
    }

    private func base(ofIndex index: Int) -> PhotoEntryBase? {
        // Runs are few (one per source, usually); the last one at or before `index`.
        var low = 0, high = bases.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if bases[middle].from <= index { low = middle } else { high = middle - 1 }
        }
        return bases.isEmpty ? nil : bases[low].base
    }

    private func string(from start: Int, to end: Int) -> String {
        text.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[start..<end]), as: UTF8.self) }
    }
}

extension PhotoCollection: @MainActor ScrollLayout {
    public func needsWork(_ id: PhotoID) -> Bool {
        records[id]?.needsWork ?? contains(id)
    }
}
