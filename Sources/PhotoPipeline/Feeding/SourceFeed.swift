import CGLib
import Foundation
import GLibKit

/// Hands the events of a source load to the window a little at a time.
///
/// The loader reads on a worker and may have a hundred batches of 10,000 rows ready at once;
/// run back to back they would hold the main loop for most of a second. The loader cuts them
/// into pieces on its worker; the feed queues the events and hands them over in idle slices
/// (`IdleSlices`): one piece per main-loop iteration, a few while each costs little, so input,
/// drawing and the photo work's results get their turn in between. Events keep their order.
///
/// The first rows of a load come in small pieces: the views make and bind their row widgets
/// (up to about 200 in GTK 4.8's list) as the first rows arrive, and lay them out in the next
/// frame, about 0.4 ms a row here, and the first piece pays for the first rows ever made
/// besides. 25 at a time, each turn stays well under the 50 ms a person notices: with 50, the
/// first piece of a tree's lead held the loop for 40 to 52 ms, with 25 for 25 to 45 (and pieces
/// of 100 took a grid filling to 59 ms). The rest come in pieces of up to 100,000, which only
/// append to the list: the rows come packed from the loader's worker, and a tree's 99,750 cost
/// the main thread about 10 ms.
@MainActor
final class SourceFeed {
    /// The first rows of a load (what the views make rows for), the pieces they come in, and
    /// the pieces after them.
    static let leadRows = 250
    static let leadPieceRows = 25
    static let pieceRows = 100_000

    private let handle: (PhotoSourceEvent) -> Void
    private var rowsQueued = 0
    private let sourceCount: Int
    private var loadEnded = false
    private var queue: [PhotoSourceEvent] = []
    private var next = 0
    /// Hands the events over, a piece at a time. Once the views have made their rows, the
    /// lead's last pieces cost a millisecond or two each; one a turn, each waited for a frame,
    /// and a tree's listing waited behind them. A piece that makes rows costs more than a
    /// slice's budget (25 rows, 4 to 10 ms), so those still go one a turn, each laid out in a
    /// frame of its own.
    private lazy var drain = IdleSlices { [weak self] in self?.handOverPiece() ?? .done }
    private var loading: Cancellable?

    /// Starts reading `sources`; `handle` receives every event on the main actor, in order.
    init(loader: PhotoSourceLoader, sources: [any PhotoSource], handle: @escaping (PhotoSourceEvent) -> Void) {
        self.handle = handle
        sourceCount = sources.count
        loading = loader.load(sources, pieces: (Self.leadRows, Self.leadPieceRows, Self.pieceRows), traced: true) {
            [weak self] event in
            self?.enqueue(event)
        }
    }

    /// Stops reading and drops every event not yet handed over.
    func cancel() {
        loading?.cancel()
        loading = nil
        drain.cancel()
        queue = []
        next = 0
    }

    private func enqueue(_ event: PhotoSourceEvent) {
        guard loading != nil else { return }
        if case .batch(_, let piece) = event { rowsQueued += piece.count }
        queue.append(event)
        drain.start()
    }

    /// Hands over the events up to the next batch, that batch, and the events after it up to
    /// the batch after that (the end of a batch's source goes with it, so the list is whole,
    /// and says so, without waiting for another frame); done when the queue is empty.
    private func handOverPiece() -> IdleSlices.Step {
        var batchHandedOver = false
        while next < queue.count, !(batchHandedOver && queue[next].isBatch) {
            let event = queue[next]
            next += 1
            handle(event)
            if event.isLast(of: sourceCount) { loadEnded = true }
            guard drain.isRunning else { return .done } // cancelled by the handler
            batchHandedOver = batchHandedOver || event.isBatch
        }
        guard next >= queue.count else {
            // Let go of what has been handed over: a piece's entries are copies of rows the
            // list now holds packed.
            if next >= 64 {
                var handedOver = Array(queue[..<next])
                queue.removeFirst(next)
                next = 0
                releaseOnWorker(&handedOver, leaving: [])
            }
            return .more
        }
        // Freeing the names and addresses of 100,000 rows was a third of what handing them
        // over cost the main thread.
        releaseOnWorker(&queue, leaving: [])
        next = 0
        if loadEnded, rowsQueued > 10_000 {
            // Reading a long list leaves freed memory that glibc keeps for itself; give it back.
            DispatchQueue.global(qos: .utility).async { _ = malloc_trim(0) }
        }
        return .done
    }
}

extension PhotoSourceEvent {
    var isBatch: Bool {
        if case .batch = self { true } else { false }
    }

    /// Whether this event ends the last of `count` sources (and so the whole load).
    func isLast(of count: Int) -> Bool {
        switch self {
        case .finished(let index, _, _), .failed(let index, _, _): index == count - 1
        default: false
        }
    }
}
