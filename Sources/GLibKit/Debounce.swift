import CGLib
import Synchronization

/// One call a moment after the last of a run of requests: the one way the app waits for
/// something to settle (scrolling to stop, failures to stop coming, a folder to go quiet).
///
/// `schedule(afterMilliseconds:)` sets a GLib timeout on the context given (the default one,
/// run by the main thread, unless told otherwise); scheduled again before it fires, the wait
/// starts over. It fires once, then nothing more until it is scheduled again; `cancel()`, or
/// dropping it, takes a wait back. The action runs on the thread that runs the context; the
/// wait is over, and `isPending` false, by the time it runs, so the action may schedule again.
///
/// It may be scheduled and cancelled from any thread; a wait replaced or cancelled as it came
/// due does not fire.
public final class Debounce: Sendable {
    /// A GLib main context lives as long as the app; the pointer is only handed to GLib.
    nonisolated(unsafe) private let context: OpaquePointer?
    private let action: @Sendable () -> Void
    /// The wait set, and a count of the waits set or taken back, so that a timer that came due
    /// as it was replaced knows it is no longer the one.
    private let state = Mutex<(count: Int, timer: MainLoopSource?)>((0, nil))

    /// Calls `action` on the thread that runs `context` (the default main context when nil).
    public init(on context: OpaquePointer? = nil, _ action: @escaping @Sendable () -> Void) {
        self.context = context
        self.action = action
    }

    /// Calls `action` on the main actor (the default context is run by the main thread).
    @MainActor
    public static func onMainActor(_ action: @escaping @MainActor @Sendable () -> Void) -> Debounce {
        Debounce { MainActor.assumeIsolated { action() } }
    }

    /// Whether a wait is set and has not fired.
    public var isPending: Bool { state.withLock { $0.timer != nil } }

    /// Calls the action `milliseconds` from now, in place of any wait already set.
    public func schedule(afterMilliseconds milliseconds: UInt32) {
        let replaced = state.withLock { state -> MainLoopSource? in
            state.count += 1
            let count = state.count
            let replaced = state.timer
            state.timer = MainLoopSource(.timeout(milliseconds: milliseconds), on: context) { [weak self] in
                self?.fire(count)
                return .remove
            }
            return replaced
        }
        replaced?.cancel()
    }

    /// Takes back the wait set, if any: the action is not called.
    public func cancel() {
        let cancelled = state.withLock { state -> MainLoopSource? in
            state.count += 1
            return state.timer.take()
        }
        cancelled?.cancel()
    }

    private func fire(_ count: Int) {
        let timer = state.withLock { state -> MainLoopSource? in
            state.count == count ? state.timer.take() : nil
        }
        guard timer != nil else { return }
        action()
    }
}
