import CGLib
import CStallStacks
import Foundation
import GLibKit

/// Reports when the GLib main loop stops answering for more than a frame (16 ms).
///
/// A watchdog thread posts a high-priority ping to the main loop and waits for the answer;
/// an answer later than the threshold is traced as `mainloopStall` with how long it took.
///
/// With `CLASSIC_PHOTOS_STALL_STACKS` naming a file, a ping not answered within 30 ms has the
/// main thread write where it is to that file, again every 10 ms while the stall lasts, then a
/// line with the stall's length (meson-helpers/stall-stacks.py reads it): what a stall was
/// spent on, in the app as people run it.
public final class StallWatchdog: Sendable {
    private let thresholdMs: Double
    /// Whether the watchdog runs; stalls are only traced while holding it, so after `stop()`
    /// returns nothing more is traced (the trace ends with the app's own last event).
    private let running = Locked<Bool>(false)
    private static let firstSample = 30.0
    private static let sampleGap = 10.0

    public init(thresholdMs: Double = 16) { self.thresholdMs = thresholdMs }

    /// Starts watching; call on the main thread once the main loop is about to run.
    public func start() {
        guard
            running.withLock({ running in
                defer { running = true }; return !running
            })
        else { return }
        let sampling =
            Thread.isMainThread
            && ProcessInfo.processInfo.environment["CLASSIC_PHOTOS_STALL_STACKS"].map {
                cp_stall_stacks_install($0)
            } == true
        let thread = Thread { [self] in
            var watching = true
            var ping = 0
            while watching {
                let sent = g_get_monotonic_time()
                let answered = DispatchSemaphore(value: 0)
                MainLoop.perform(priority: G_PRIORITY_HIGH) { answered.signal() }
                if sampling {
                    ping += 1
                    Self.sample(until: answered, sent: sent, ping: ping)
                } else {
                    answered.wait()
                }
                let ms = Double(g_get_monotonic_time() - sent) / 1000
                watching = running.withLock { running in
                    if running, ms > thresholdMs { Trace.shared.emit(.mainloopStall(ms: ms)) }
                    return running
                }
                if sampling, ms >= Self.firstSample {
                    cp_stall_stacks_note(String(format: "stall %d %.1f ms", ping, ms))
                }
                usleep(4_000)
            }
        }
        thread.name = "stall-watchdog"
        thread.start()
    }

    /// Waits for the main loop's answer, having the main thread write its stack while it is late
    /// (each sample headed by the ping's number, which the stall's closing line repeats).
    private static func sample(until answered: DispatchSemaphore, sent: Int, ping: Int) {
        var wait = firstSample
        while answered.wait(timeout: .now() + .microseconds(Int(wait * 1000))) == .timedOut {
            let late = Double(g_get_monotonic_time() - sent) / 1000
            cp_stall_stacks_sample(String(format: "%d %.0f", ping, late))
            wait = sampleGap
        }
    }

    public func stop() { running.withLock { $0 = false } }
}
