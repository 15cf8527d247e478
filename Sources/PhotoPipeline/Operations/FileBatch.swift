import Foundation
import GLibKit
import Synchronization

/// One piece of a `FileBatch`'s work, as the main actor is handed it: the items done since
/// the last piece and how each went, and how far the whole batch is.
public struct FileBatchPiece<Item: Sendable, Outcome: Sendable>: Sendable {
    /// The items done since the last piece, in the order they were given, with their outcomes.
    public let results: [(item: Item, outcome: Outcome)]
    /// Items done so far, this piece's included.
    public let done: Int
    public let total: Int
    /// The batch's last piece: every item is done, or the batch was cancelled (then `done` is
    /// less than `total`, and the rest were never touched).
    public let isLast: Bool
    public let wasCancelled: Bool
    /// Time since the batch began.
    public let elapsed: Duration
}

/// Work on many files at once (move to the trash, put back, delete, turn, mark): one file
/// after another (or a few at once) on a thread of its own, handed back to the main actor in a few pieces (at most one
/// every `interval`, and the last; none larger than `largest`), so the list is edited a few
/// times in large edits rather than once a file, progress can be shown, and the work stops
/// between two files when cancelled. Nothing of it waits on the main thread.
public final class FileBatch: Sendable {
    private let cancelled = Atomic<Bool>(false)
    /// Signalled once the work has ended and `finishing` has run.
    private let ended = DispatchSemaphore(value: 0)

    public init() {}

    /// Stops the batch before its next file; the piece with what was done comes last.
    public func cancel() { cancelled.store(true, ordering: .relaxed) }

    public var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    /// Cancels the batch and waits, at most `seconds`, for the files under way to be done and
    /// its `finishing` to have run (the app is quitting: what `finishing` puts in place is not
    /// to be left half done). Blocks the caller: only for a window that is closing. Whether the
    /// batch ended in time.
    public func cancelAndWait(seconds: Double) -> Bool {
        cancel()
        return ended.wait(timeout: .now() + seconds) == .success
    }

    /// Runs `work` on each of `items` in turn, on a thread of its own; `piece` gets what was
    /// done on the main actor, in order, the last piece last (never before this returns).
    /// `finishing` runs on the batch's thread once the work has ended, before the last piece.
    /// `concurrency`: how many files are worked on at once (small files written and synced to
    /// the disk, where the waits for the disk overlap). `largest`: the most items in a piece. A piece is one turn of the main loop: 3,000
    /// photos put back in the list and selected at once were a stall of 40–90 ms; 1,000 stay
    /// well under a frame's worth of the main loop.
    public func run<Item: Sendable, Outcome: Sendable>(
        _ items: [Item], interval: Duration = .milliseconds(400), largest: Int = 1_000, concurrency: Int = 1,
        work: @escaping @Sendable (Item) -> Outcome, finishing: (@Sendable () -> Void)? = nil,
        piece: @escaping @MainActor @Sendable (FileBatchPiece<Item, Outcome>) -> Void
    ) {
        let clock = ContinuousClock()
        Thread.detachNewThread { [self] in
            let start = clock.now
            var pending: [(item: Item, outcome: Outcome)] = []
            var lastHandOver = start
            var done = 0
            func handOver(last: Bool) {
                let next = FileBatchPiece(
                    results: pending, done: done, total: items.count, isLast: last,
                    wasCancelled: last && done < items.count, elapsed: clock.now - start)
                pending = []
                lastHandOver = clock.now
                MainLoop.onMainActor { piece(next) }
            }
            // A few files at a time, each on a thread of its own, where `concurrency` asks for
            // it; their outcomes are kept in the items' order.
            var next = 0
            while next < items.count, !isCancelled {
                let group = items[next..<min(next + max(1, concurrency), items.count)]
                if group.count == 1 {
                    pending.append((group[group.startIndex], work(group[group.startIndex])))
                } else {
                    let outcomes = Locked([Outcome?](repeating: nil, count: group.count))
                    DispatchQueue.concurrentPerform(iterations: group.count) { k in
                        let outcome = work(group[group.startIndex + k])
                        outcomes.withLock { $0[k] = outcome }
                    }
                    let made = outcomes.withLock { $0 }
                    for (k, item) in group.enumerated() { pending.append((item, made[k]!)) }
                }
                next += group.count
                done = next
                // The first piece comes sooner: the list's first edit stays small.
                let wait = lastHandOver == start ? interval / 4 : interval
                if clock.now - lastHandOver >= wait || pending.count >= largest, done < items.count {
                    handOver(last: false)
                }
            }
            finishing?()
            ended.signal()
            handOver(last: true)
        }
    }
}
