import CGLib
import Foundation
import GLibKit

/// Reports when the GLib main loop stops answering for more than a frame (16 ms).
///
/// A watchdog thread posts a high-priority ping to the main loop and waits for the answer;
/// an answer later than the threshold is traced as `mainloopStall` with how long it took.
public final class StallWatchdog: Sendable {
    private let thresholdMs: Double
    /// Whether the watchdog runs; stalls are only traced while holding it, so after `stop()`
    /// returns nothing more is traced (the trace ends with the app's own last event).
    private let running = Locked<Bool>(false)

    public init(thresholdMs: Double = 16) { self.thresholdMs = thresholdMs }

    /// Starts watching; call once the main loop is about to run.
    public func start() {
        guard
            running.withLock({ running in
                defer { running = true }; return !running
            })
        else { return }
        let thread = Thread { [self] in
            var watching = true
            while watching {
                let sent = g_get_monotonic_time()
                MainLoop.perform(waitUntilDone: true, priority: G_PRIORITY_HIGH) {}
                let ms = Double(g_get_monotonic_time() - sent) / 1000
                watching = running.withLock { running in
                    if running, ms > thresholdMs { Trace.shared.emit(.mainloopStall(ms: ms)) }
                    return running
                }
                usleep(4_000)
            }
        }
        thread.name = "stall-watchdog"
        thread.start()
    }

    public func stop() { running.withLock { $0 = false } }
}
