import Synchronization

/// A photo's identity: assigned once when its list is shown and never reused in the process,
/// so it keeps naming the same photo however the list is sorted, filtered, extended or replaced.
public struct PhotoID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64

    public init(rawValue: UInt64) { self.rawValue = rawValue }

    public static func < (a: PhotoID, b: PhotoID) -> Bool { a.rawValue < b.rawValue }
    public var description: String { String(rawValue) }

    private static let next = Atomic<UInt64>(1)

    /// `count` fresh identities in a row; returns the first.
    static func allocate(_ count: Int) -> UInt64 {
        next.add(UInt64(count), ordering: .relaxed).oldValue
    }
}
