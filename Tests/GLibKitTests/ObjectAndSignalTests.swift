import CGLib
import GLibKit
import Testing

/// Owned references, signal closure boxes and errors, checked on real GObjects.
@Suite(.serialized) struct ObjectAndSignalTests {
    private func load(_ path: String, cancellable: UnsafeMutablePointer<GCancellable>?) throws(GLibError) {
        let file = ObjectRef(takingOpaque: g_file_new_for_path(path)!)
        var contents: UnsafeMutablePointer<CChar>? = nil
        _ = try withGError { error in g_file_load_contents(file.opaque, cancellable, &contents, nil, nil, error) }
        g_free(contents)
    }

    @Test("ObjectRef balances ref and unref")
    func referencesAreBalanced() {
        let raw = g_cancellable_new()!
        let watch = FinalizationWatch(raw)
        do {
            let owner = ObjectRef(taking: raw)
            #expect(owner.referenceCount == 1)
            do {
                let second = ObjectRef(retaining: raw)
                #expect(second.referenceCount == 2)
            }
            #expect(owner.referenceCount == 1)
            #expect(!watch.isFinalized)
        }
        #expect(watch.isFinalized)
    }

    /// Something a closure holds, to see when GLib lets go of the closure's box: other tests
    /// running meanwhile connect and free boxes of their own, so the global count of live boxes
    /// cannot say which were freed.
    private final class Held: @unchecked Sendable {}

    private struct WeakHeld {
        weak var held: Held?
    }

    @Test("Signal closures run, and their boxes are freed on disconnect and on finalize")
    func signalBoxesAreFreed() {
        let cancellable = ObjectRef(taking: g_cancellable_new()!)
        var calls = 0
        var kept: [SignalConnection] = []
        var keptHeld: [WeakHeld] = []
        var droppedHeld = WeakHeld()
        do {
            let held = Held()
            droppedHeld.held = held
            let dropped = SignalConnection.connect(cancellable.pointer, "cancelled") {
                withExtendedLifetime(held) { calls += 100 }
            }
            for _ in 0..<10 {
                let held = Held()
                keptHeld.append(WeakHeld(held: held))
                kept.append(
                    SignalConnection.connect(cancellable.pointer, "cancelled") {
                        withExtendedLifetime(held) { calls += 1 }
                    })
            }
            #expect(droppedHeld.held != nil && keptHeld.allSatisfy { $0.held != nil })
            dropped.disconnect()
            #expect(!dropped.isConnected)
        }
        #expect(droppedHeld.held == nil, "the disconnected closure's box is freed")
        #expect(keptHeld.allSatisfy { $0.held != nil })
        g_cancellable_cancel(cancellable.pointer)
        #expect(calls == 10)

        // Finalizing the instance frees the remaining boxes; the connections then disconnect
        // nothing (the weak reference is empty) instead of touching freed memory.
        let watch = FinalizationWatch(cancellable.pointer)
        _ = consume cancellable
        #expect(watch.isFinalized)
        #expect(keptHeld.allSatisfy { $0.held == nil }, "the boxes are freed with the instance")
        #expect(kept.allSatisfy { !$0.isConnected })
        kept.removeAll()
    }

    @Test("GError becomes a Swift error with domain, code and message")
    func gerrorBridges() throws {
        let error = #expect(throws: GLibError.self) {
            try load("/nonexistent/classic-photos", cancellable: nil)
        }
        #expect(error?.isIOError(G_IO_ERROR_NOT_FOUND) == true)
        #expect(error?.message.contains("nonexistent") == true)
    }

    @Test("Cancellable cancels a GIO call and bridges task cancellation")
    func cancellableBridges() async throws {
        let c = Cancellable()
        c.cancel()
        let error = #expect(throws: GLibError.self) {
            try load("/etc/hostname", cancellable: c.pointer)
        }
        #expect(error?.isCancellation == true)

        let task = Task {
            await Cancellable.bridgingTask { cancellable in
                while !cancellable.isCancelled { try? await Task.sleep(for: .milliseconds(1)) }
                return true
            }
        }
        task.cancel()
        #expect(await task.value)
    }
}
