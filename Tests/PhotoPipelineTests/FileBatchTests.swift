import Foundation
import GLibKit
import PhotoPipeline
import Synchronization
import Testing
import TestSupport

/// Work on many files at once: done in order off the main thread, handed back in a few pieces
/// that add up to every item, the last last; Cancel stops it between two items.
@MainActor
@Suite struct FileBatchTests {
    @Test("Every item is done once, in order, off the main thread; the pieces come in order and add up, the last last")
    func piecesAddUp() async {
        var pieces: [FileBatchPiece<Int, Int>] = []
        let onMain = Atomic<Int>(0)
        // No wait between pieces: each item is handed over as it is done.
        FileBatch().run(Array(0..<300), interval: .zero) { item in
            if MainLoop.isMainThread { onMain.add(1, ordering: .relaxed) }
            return item * 2
        } piece: {
            pieces.append($0)
        }
        #expect(pieces.isEmpty, "no piece before run returns")
        #expect(await waitUntil { pieces.last?.isLast == true })
        #expect(onMain.load(ordering: .relaxed) == 0)
        #expect(pieces.count > 2, "\(pieces.count) pieces")
        #expect(pieces.filter(\.isLast).count == 1 && !pieces.last!.wasCancelled)
        let results = pieces.flatMap(\.results)
        #expect(results.map(\.item) == Array(0..<300) && results.allSatisfy { $0.outcome == $0.item * 2 })
        // Each piece's count is what it adds.
        var total = 0
        for piece in pieces {
            total += piece.results.count
            #expect(piece.done == total && piece.total == 300)
        }
        #expect(total == 300)
    }

    @Test("However quick the work, no piece holds more than the most asked for")
    func largestPiece() async {
        var pieces: [FileBatchPiece<Int, Void>] = []
        // An interval no run reaches: the pieces are cut by their size alone.
        FileBatch().run(Array(0..<2_500), interval: .seconds(600), largest: 1_000) { _ in
        } piece: {
            pieces.append($0)
        }
        #expect(await waitUntil { pieces.last?.isLast == true })
        #expect(pieces.map(\.results.count) == [1_000, 1_000, 500])
    }

    @Test("Cancelled, the batch stops before its next item; its last piece says how far it came")
    func cancel() async {
        var pieces: [FileBatchPiece<Int, Void>] = []
        let touched = Atomic<Int>(0)
        // The second item waits until the batch has been cancelled.
        let cancelled = DispatchSemaphore(value: 0)
        let batch = FileBatch()
        batch.run(Array(0..<1_000), interval: .zero) { item in
            touched.add(1, ordering: .relaxed)
            if item == 1 { cancelled.wait() }
        } piece: {
            pieces.append($0)
        }
        // Cancelled once the second item has begun (waiting for the first piece only, the
        // cancel could come before the thread took the second: under ThreadSanitizer it did).
        #expect(await waitUntil { touched.load(ordering: .relaxed) == 2 })
        batch.cancel()
        cancelled.signal()
        #expect(await waitUntil { pieces.last?.isLast == true })
        let last = pieces.last!
        #expect(last.wasCancelled && last.done == 2 && touched.load(ordering: .relaxed) == 2, "\(last.done)")
        #expect(pieces.flatMap(\.results).count == 2)
    }
}
