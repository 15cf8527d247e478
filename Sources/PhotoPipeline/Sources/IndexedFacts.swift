import Foundation
import GLibKit

/// What the index holds for the photos a window shows, for what a tooltip or a label says of
/// them beyond their names: read on a thread of its own the first time it is asked for (the
/// file's `stat` and the index's lookup never run on the main thread, where the index's lock
/// can be held for a quarter of a second by a folder's whole read), then kept. Asked before
/// it has come, it answers "not yet" and says when it comes (`onArrived`).
@MainActor
public final class IndexedFacts {
    /// What is known of each photo asked about: the index's facts, or nil where it holds none.
    private var known: [PhotoID: PhotoIndex.Facts?] = [:]
    /// Photos whose facts are being read.
    private var reading: Set<PhotoID> = []
    private let queue = DispatchQueue(label: "indexed facts", qos: .userInitiated)
    private let index: PhotoIndex?
    /// Told of each photo whose facts have come (once asked for, and still wanted).
    public var onArrived: ((PhotoID) -> Void)?

    /// The most photos kept; past it, what is kept is let go (a window shows a few dozen).
    static let capacity = 5_000

    public init(index: PhotoIndex? = PhotoIndex.shared) {
        self.index = index
    }

    public enum Answer {
        /// Read: the index's facts, nil where it holds none for the file as it is.
        case known(PhotoIndex.Facts?)
        /// Being read; `onArrived` tells when it has come.
        case notYet
    }

    /// What the index holds for photo `id`, whose file is at `path`.
    public func facts(of id: PhotoID, path: String) -> Answer {
        if let held = known[id] { return .known(held) }
        guard let index else { return .known(nil) }
        guard reading.insert(id).inserted else { return .notYet }
        queue.async {
            let read = index.facts(ofFileAt: path)
            MainLoop.onMainActor { [weak self] in self?.arrived(read, for: id) }
        }
        return .notYet
    }

    /// What the index holds for photo `id` if it has been read (nil inside: nothing), without
    /// asking for it.
    public func known(_ id: PhotoID) -> PhotoIndex.Facts?? { known[id] }

    private func arrived(_ facts: PhotoIndex.Facts?, for id: PhotoID) {
        guard reading.remove(id) != nil else { return } // forgotten meanwhile
        if known.count >= Self.capacity { known.removeAll() }
        known[id] = .some(facts)
        onArrived?(id)
    }

    /// Lets go of what was read of `ids` (their files changed or left); a read under way for
    /// one of them is not told.
    public func forget(_ ids: some Sequence<PhotoID>) {
        for id in ids {
            known.removeValue(forKey: id)
            reading.remove(id)
        }
    }
}
