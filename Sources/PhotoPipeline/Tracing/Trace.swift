import CGLib
import Foundation
import GLibKit
import Synchronization

/// The JSON Lines trace through which tests and tools observe the running app.
///
/// One event per line: `{"t": seconds since process start (monotonic), "ev": name, …fields}`;
/// the events and their fields are defined by `TraceEvent`.
/// Any thread may emit. An event is only stamped and queued where it happens; the flusher
/// thread turns the queue into lines and writes them every 50 ms, as does `flush()` (called at
/// exit and from the SIGTERM / SIGINT handlers). Formatting the JSON where events happen cost
/// the main thread about 7% of its time on a jump through a 10,000-row list (a `rowShown`
/// for each of 400 rows bound).
public final class Trace: Sendable {
    /// The process-wide trace; disabled (every call a cheap no-op) until `open(path:)`.
    public static let shared = Trace()

    private struct State {
        var queued: [(event: TraceEvent, t: Double)] = []
        var flusherStarted = false
    }

    private let origin = g_get_monotonic_time()
    private let state = Locked(State())
    /// The file's descriptor (-1 while closed). Held for a whole flush, so one flush writes at
    /// a time and batches reach the file in the order they were taken.
    private let output = Locked<Int32>(-1)
    private let enabledFlag = Atomic<Bool>(false)

    private init() {}

    public var isEnabled: Bool { enabledFlag.load(ordering: .relaxed) }

    /// Starts writing to `path` (truncating it). Returns false if the file cannot be opened.
    @discardableResult
    public func open(path: String) -> Bool {
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return false }
        // Not while a flush writes to the descriptor it replaces.
        output.withLock { current in
            if current >= 0 { Glibc.close(current) }
            current = fd
        }
        let startFlusher = state.withLock { s -> Bool in
            defer { s.flusherStarted = true }
            return !s.flusherStarted
        }
        enabledFlag.store(true, ordering: .releasing)
        if startFlusher {
            let thread = Thread { [self] in
                while true {
                    usleep(50_000)
                    flush()
                }
            }
            thread.name = "trace-flusher"
            thread.start()
        }
        return true
    }

    /// Seconds since the trace clock started (process start, for the shared trace).
    public var now: Double { Double(g_get_monotonic_time() - origin) / 1_000_000 }

    /// Records one event, stamped with `now`. The event is only built when the trace is open.
    public func emit(_ event: @autoclosure () -> TraceEvent) {
        guard isEnabled else { return }
        let record = (event: event(), t: now)
        state.withLock { $0.queued.append(record) }
    }

    /// Writes everything queued so far. Safe from any thread.
    public func flush() {
        // Emitters wait for nothing but the swap of the queue.
        output.withLock { fd in
            guard fd >= 0 else { return }
            let batch = state.withLock { s in
                defer { s.queued.removeAll() }
                return s.queued
            }
            guard !batch.isEmpty else { return }
            var text = ""
            for record in batch { record.event.append(to: &text, t: record.t) }
            let bytes = Array(text.utf8)
            var offset = 0
            while offset < bytes.count {
                let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
                if n <= 0 { break }
                offset += n
            }
        }
    }
}
