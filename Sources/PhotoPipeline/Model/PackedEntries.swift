import Foundation
import GLibKit

/// Entries with their names and links packed as a `PhotoCollection` keeps them, made on any
/// thread: a source's rows are packed on the worker that read them, and the main thread only
/// takes the packed text over (packing 100,000 rows took it about 60 ms).
public struct PackedEntries: Sendable {
    /// Numbered from 0.
    let chunks: [PhotoCollection.Chunk]
    public let count: Int

    /// Entries packed into one chunk at most; a bigger batch of entries is packed a chunk a
    /// core.
    static let chunkRows = 16_384

    /// `leading`, then the entries named `names[i]` and linked `links[i]` for each `i` of
    /// `order`, all with no base (absolute links). The texts are not copied: the list reads
    /// them where the source packed them (copying a tree's 100,000 names and addresses into
    /// chunks of the list's own held its rows back from the window by 30 to 40 ms).
    init(leading: ArraySlice<PhotoEntry> = [], names: PackedTexts, links: PackedTexts, order: ArraySlice<Int>) {
        assert(leading.allSatisfy { $0.base == nil }, "leading entries with a base")
        var chunks: [PhotoCollection.Chunk] = []
        if !leading.isEmpty { chunks.append(PhotoCollection.Chunk(leading, firstIndex: 0)) }
        if !order.isEmpty {
            chunks.append(
                PhotoCollection.Chunk(
                    names: names, links: links, picks: order.map { Int32($0) }, firstIndex: leading.count))
        }
        self.chunks = chunks
        count = leading.count + order.count
    }

    /// The entries, in order.
    public var entries: [PhotoEntry] { chunks.flatMap(\.entries) }

    public init(_ entries: [PhotoEntry]) {
        // Entries with one base (one source) share a chunk, which holds at most `chunkRows`.
        var ranges: [Range<Int>] = []
        var runStart = 0
        for end in 1..<(entries.count + 1) where end == entries.count || entries[end].base !== entries[runStart].base {
            for start in stride(from: runStart, to: end, by: Self.chunkRows) {
                ranges.append(start..<min(end, start + Self.chunkRows))
            }
            runStart = end
        }
        if ranges.count < 2 {
            chunks = ranges.map { PhotoCollection.Chunk(entries[$0], firstIndex: $0.lowerBound) }
        } else {
            // Packing 100,000 rows took one core about 40 ms.
            let made = Locked([PhotoCollection.Chunk?](repeating: nil, count: ranges.count))
            let cut = ranges
            DispatchQueue.concurrentPerform(iterations: cut.count) { index in
                let chunk = PhotoCollection.Chunk(entries[cut[index]], firstIndex: cut[index].lowerBound)
                made.withLock { $0[index] = chunk }
            }
            chunks = made.withLock { $0.map { $0! } }
        }
        count = entries.count
    }
}

/// The photos of a `PhotoCollection` at one moment, in order, readable from any thread.
public struct PhotoCollectionSnapshot: Sendable {
    let firstID: UInt64
    let order: [Int32]
    let chunks: [PhotoCollection.Chunk]
    let renamed: [Int: PhotoEntry]

    public var count: Int { order.count }

    public func id(at position: Int) -> PhotoID { PhotoID(rawValue: firstID + UInt64(order[position])) }

    /// The order in which the photo at `position` came into the list (as `PhotoCollection`'s
    /// `arrival(of:)` tells it).
    func arrival(at position: Int) -> Int { Int(order[position]) }

    /// How many photos had come into the list (removed ones too): one more than the latest
    /// arrival.
    var arrivals: Int { order.reduce(-1) { max($0, Int($1)) } + 1 }

    /// The order in which the photo `id` came into the list, if it is of this list.
    func arrival(of id: PhotoID) -> Int? {
        id.rawValue >= firstID && id.rawValue - firstID < UInt64(Int32.max) ? Int(id.rawValue - firstID) : nil
    }

    /// The address of the photo at `position` (cheaper than its whole entry).
    func link(at position: Int) -> String {
        let index = Int(order[position])
        if let entry = renamed[index] { return entry.link }
        return PhotoCollection.chunk(ofIndex: index, in: chunks).link(index)
    }

    public func entry(at position: Int) -> PhotoEntry {
        let index = Int(order[position])
        if let entry = renamed[index] { return entry }
        let chunk = PhotoCollection.chunk(ofIndex: index, in: chunks)
        return PhotoEntry(name: chunk.name(index), link: chunk.link(index), base: chunk.base)
    }
}
