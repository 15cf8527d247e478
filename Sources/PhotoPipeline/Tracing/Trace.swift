import CGLib
import Foundation
import GLibKit
import Synchronization

/// The JSON Lines trace through which tests and tools observe the running app.
///
/// One event per line: `{"t": seconds since process start (monotonic), "ev": name, …fields}`;
/// the events and their fields are defined by `TraceEvent`.
/// Any thread may emit; lines are buffered and written by a flusher every 50 ms,
/// and on `flush()` (called at exit and from the SIGTERM / SIGINT handlers).
public final class Trace: Sendable {
    /// The process-wide trace; disabled (every call a cheap no-op) until `open(path:)`.
    public static let shared = Trace()

    private struct State {
        var fd: Int32 = -1
        var buffer = ""
        var flusherStarted = false
    }

    private let origin = g_get_monotonic_time()
    private let state = Locked(State())
    private let enabledFlag = Atomic<Bool>(false)

    private init() {}

    public var isEnabled: Bool { enabledFlag.load(ordering: .relaxed) }

    /// Starts writing to `path` (truncating it). Returns false if the file cannot be opened.
    @discardableResult
    public func open(path: String) -> Bool {
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return false }
        let startFlusher = state.withLock { s -> Bool in
            if s.fd >= 0 { Glibc.close(s.fd) }
            s.fd = fd
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
        var line = ""
        event().append(to: &line, t: now)
        state.withLock { $0.buffer += line }
    }

    /// Writes everything buffered so far. Safe from any thread.
    public func flush() {
        state.withLock { s in
            guard s.fd >= 0, !s.buffer.isEmpty else { return }
            let bytes = Array(s.buffer.utf8)
            s.buffer = ""
            var offset = 0
            while offset < bytes.count {
                let n = bytes.withUnsafeBytes { Glibc.write(s.fd, $0.baseAddress! + offset, $0.count - offset) }
                if n <= 0 { break }
                offset += n
            }
        }
    }
}
