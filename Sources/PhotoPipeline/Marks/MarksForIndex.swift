import GLibKit

/// Marks read or written for many photos, given to the index a few hundred at a time, in one
/// transaction each, rather than one transaction (and one sync of its log to the disk) for
/// each photo. Used from any thread; whatever is still held is given by `flush`.
public final class MarksForIndex: Sendable {
    private let index: PhotoIndex?
    private let held = Locked<[(path: String, marks: PhotoIndex.HeldMarks)]>([])
    /// How many are given at once.
    private let size: Int

    public init(index: PhotoIndex? = PhotoIndex.shared, size: Int = 256) {
        self.index = index
        self.size = size
    }

    func add(_ path: String, _ marks: PhotoIndex.HeldMarks) {
        let full = held.withLock { held -> [(path: String, marks: PhotoIndex.HeldMarks)]? in
            held.append((path, marks))
            guard held.count >= size else { return nil }
            defer { held = [] }
            return held
        }
        if let full { index?.remember(marks: full) }
    }

    /// Gives the index what is held.
    public func flush() {
        let rest = held.withLock { held in
            defer { held = [] }
            return held
        }
        index?.remember(marks: rest)
    }
}
