import Dispatch
import GLibKit
import Synchronization

/// A time limit on blocking work: when it passes, a timer cancels the work's `Cancellable`,
/// which aborts whatever GIO or libsoup call is waiting, and the deadline remembers that it
/// was the one that cancelled, so the failure is reported as `timeout`, not as a cancellation.
///
/// The timer runs on a serial queue of its own, not on the thread doing the work (which is
/// blocked in a read), nor on libdispatch's shared pool, which has a thread per core that
/// long work may hold: a serial queue of its own gets a thread even when those are all busy,
/// so a deadline fires on time under load.
/// `stop()` when the work ends; a timer that fires after that does nothing.
final class Deadline: Sendable {
    private let cancellable: Cancellable
    /// 0 running, 1 stopped, 2 expired.
    private let state = Atomic<Int>(0)
    /// Where every deadline's timer fires (firing only cancels: it takes microseconds).
    private static let timers = DispatchQueue(label: "Photo deadlines")

    /// Starts a deadline `seconds` from now that cancels `cancellable`. A limit that is not
    /// positive and finite never expires.
    init(seconds: Double, cancelling cancellable: Cancellable) {
        self.cancellable = cancellable
        guard seconds > 0, seconds.isFinite else { return }
        let when = DispatchTime.now() + .nanoseconds(Int(min(seconds, 1e9) * 1e9))
        Self.timers.asyncAfter(deadline: when) { [weak self] in self?.fire() }
    }

    private func fire() {
        guard state.compareExchange(expected: 0, desired: 2, ordering: .acquiringAndReleasing).exchanged else { return }
        cancellable.cancel()
    }

    /// Ends the deadline; returns whether it had already expired.
    @discardableResult
    func stop() -> Bool {
        _ = state.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing)
        return hasExpired
    }

    /// Whether the time ran out (and the work was cancelled because of it).
    var hasExpired: Bool { state.load(ordering: .acquiring) == 2 }
}

/// A `Cancellable` of its own that is cancelled whenever `parent` is, so a deadline can stop
/// one piece of work without cancelling everything that shares the parent (a list's
/// deadline must not stop the sources after it). `disconnect()` when the work ends.
final class LinkedCancellable: Sendable {
    let child = Cancellable()
    private let handler: CancelHandler

    init(parent: Cancellable) {
        handler = parent.onCancel { [child] in child.cancel() }
    }

    /// Stops following the parent (waits for a callback running on another thread).
    func disconnect() { handler.disconnect() }
}
