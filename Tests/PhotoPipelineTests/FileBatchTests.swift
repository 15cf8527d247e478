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
        FileBatch().run(Array(0..<2_000), interval: .milliseconds(5)) { item in
            if MainLoop.isMainThread { onMain.add(1, ordering: .relaxed) }
            usleep(20)
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
        #expect(results.map(\.item) == Array(0..<2_000) && results.allSatisfy { $0.outcome == $0.item * 2 })
        #expect(pieces.map(\.done) == pieces.map(\.done).sorted() && pieces.last?.done == 2_000)
        // Each piece's count is what it adds.
        var total = 0
        for piece in pieces {
            total += piece.results.count
            #expect(piece.done == total && piece.total == 2_000)
        }
    }

    @Test("Cancelled, the batch stops before its next item; its last piece says how far it came")
    func cancel() async {
        var pieces: [FileBatchPiece<Int, Void>] = []
        let touched = Atomic<Int>(0)
        let batch = FileBatch()
        batch.run(Array(0..<1_000), interval: .milliseconds(10)) { _ in
            touched.add(1, ordering: .relaxed)
            usleep(2_000)
        } piece: {
            pieces.append($0)
        }
        #expect(await waitUntil { !pieces.isEmpty })
        batch.cancel()
        #expect(await waitUntil { pieces.last?.isLast == true })
        let last = pieces.last!
        #expect(last.wasCancelled && last.done < 1_000 && last.done == touched.load(ordering: .relaxed))
        #expect(pieces.flatMap(\.results).count == last.done)
    }
}
