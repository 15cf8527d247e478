/// What the list's photos hold in memory (pictures, and bytes waiting to be decoded), in the
/// order they were last used, bounded by a total in bytes.
///
/// Once the total passes `cap`, the least recently used entries that are not pinned (photos
/// on screen, or with work in flight) are named for eviction until the total is back under
/// three quarters of the cap, so evicting happens now and then in batches rather than with
/// every new picture. Plain state, no knowledge of records: the processor drops what it names.
public struct MemoryLRU<Key: Hashable>: Sendable where Key: Sendable {
    /// The most the entries may hold, in bytes.
    public var cap: Int
    public private(set) var total = 0
    private var entries: [Key: (cost: Int, used: UInt64)] = [:]
    private var clock: UInt64 = 0

    public init(cap: Int) {
        precondition(cap > 0)
        self.cap = cap
    }

    public var count: Int { entries.count }

    /// Records that `key` holds `cost` bytes now (0 removes it), and was just used.
    public mutating func set(_ key: Key, cost: Int) {
        total -= entries[key]?.cost ?? 0
        guard cost > 0 else {
            entries[key] = nil
            return
        }
        clock += 1
        entries[key] = (cost, clock)
        total += cost
    }

    /// Marks `key` as just used (shown again), if it holds anything.
    public mutating func touch(_ key: Key) {
        guard let entry = entries[key] else { return }
        clock += 1
        entries[key] = (entry.cost, clock)
    }

    public mutating func remove(_ key: Key) { set(key, cost: 0) }

    /// Forgets everything.
    public mutating func removeAll() {
        entries.removeAll()
        total = 0
    }

    /// If the total is over the cap: the entries to drop, least recently used first, leaving
    /// pinned ones alone, until the total is under three quarters of the cap (or nothing
    /// unpinned is left). They are removed here.
    public mutating func evictions(pinned: (Key) -> Bool) -> [Key] {
        guard total > cap else { return [] }
        let target = cap / 4 * 3
        var evicted: [Key] = []
        for (key, _) in entries.sorted(by: { $0.value.used < $1.value.used }) where !pinned(key) {
            if total <= target { break }
            evicted.append(key)
            remove(key)
        }
        return evicted
    }
}
