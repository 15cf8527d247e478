import CGLib
import Dispatch

/// Runs closures on the GLib main loop from any thread: the counterpart of Cocoa's
/// `performSelectorOnMainThread(_:withObject:waitUntilDone:)`.
public enum MainLoop {
    /// Makes the calling thread the permanent owner of the default main context, so
    /// `isMainThread` holds on it even between loop iterations. Call once, on the GTK thread.
    public static func claimCurrentThread() {
        precondition(
            g_main_context_acquire(g_main_context_default()) != 0,
            "another thread owns the default GLib main context")
    }

    /// True on the thread that owns (runs) the default GLib main context.
    public static var isMainThread: Bool {
        g_main_context_is_owner(g_main_context_default()) != 0
    }

    /// Queues `body` on the main loop. With `waitUntilDone`, blocks until it has run (and runs
    /// it inline when already on the main thread, as Cocoa does). Closures queued from one
    /// thread run in the order they were queued.
    public static func perform(
        waitUntilDone: Bool = false, priority: Int32 = G_PRIORITY_DEFAULT,
        _ body: @escaping @Sendable () -> Void
    ) {
        if waitUntilDone {
            if isMainThread { body(); return }
            let done = DispatchSemaphore(value: 0)
            enqueue(priority: priority) {
                body(); done.signal()
            }
            done.wait()
        } else {
            enqueue(priority: priority, body)
        }
    }

    /// Runs `body` once on the thread that runs `context` (any GLib main context, e.g. a
    /// worker's own), at its next iteration or after `milliseconds`.
    public static func perform(
        on context: OpaquePointer, afterMilliseconds milliseconds: UInt32? = nil,
        _ body: @escaping @Sendable () -> Void
    ) {
        let trigger = milliseconds.map { MainLoopSource.Trigger.timeout(milliseconds: $0) } ?? .idle
        MainLoopSource.attachDetached(trigger, on: context) {
            body(); return .remove
        }
    }

    /// The app's one way back to the main thread: runs `body` on the main actor at a turn of
    /// the GLib main loop, never before the caller returns, from any thread (the main thread
    /// included).
    ///
    /// Ordered: calls run in the order they were made, across all threads. Each is an idle
    /// source of one priority on the default context; GLib keeps the sources of a priority in
    /// the order they were attached (under the context's lock) and dispatches them in that
    /// order. `Task { @MainActor in }` gives no such promise: tasks made on threads of
    /// different priorities may run in either order.
    public static func onMainActor(
        priority: Int32 = G_PRIORITY_DEFAULT, _ body: @escaping @MainActor @Sendable () -> Void
    ) {
        enqueue(priority: priority) { MainActor.assumeIsolated { body() } }
    }

    /// For code that waits on the main actor (tests, tools): lets `milliseconds` pass while
    /// the default context's sources run. Inside a running GLib loop (the app, the benchmark)
    /// that is a plain sleep, the loop dispatching meanwhile; where none runs (the test
    /// runner), it waits in GLib's poll until something is ready (an `onMainActor` call wakes
    /// it at once) or the time is up, and dispatches what is ready.
    @MainActor
    public static func turn(milliseconds: Int) async {
        guard g_main_depth() == 0 else {
            try? await Task.sleep(for: .milliseconds(milliseconds))
            return
        }
        let timeout = MainLoopSource(.timeout(milliseconds: UInt32(clamping: max(0, milliseconds)))) { .remove }
        _ = g_main_context_iteration(nil, 1)
        var dispatched = 0
        while dispatched < 1_000, g_main_context_iteration(nil, 0) != 0 { dispatched += 1 }
        timeout.cancel()
        await Task.yield()
    }

    private static func enqueue(priority: Int32, _ body: @escaping @Sendable () -> Void) {
        // An idle source rather than g_main_context_invoke: invoke runs inline on the owner
        // thread, and a queued call must never run before its caller returns.
        MainLoopSource.attachDetached(.idle, priority: priority) {
            body(); return .remove
        }
    }
}
