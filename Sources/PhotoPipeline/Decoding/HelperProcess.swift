import CDecoderSandbox
import CGLib
import Foundation

/// One decoder helper process: its id, the app's end of its socket, and since when it has been
/// idle (kept by `HelperRoster`).
struct HelperProcess {
    let pid: pid_t
    let channel: DecoderChannel
    var idleSince: Double = 0

    /// Whether an idle helper's end of the socket shows it gone (an idle helper has nothing to
    /// say: anything readable is its end).
    var hasLeft: Bool {
        var poller = pollfd(fd: channel.fd, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, 0) > 0
    }

    /// Ends the process and says how it ended. One that `died`, or that was told to leave by its
    /// socket closing (`leaving`), is given a moment to be gone by itself, so that its own end
    /// (a crash, say) is what is reported; then, and at once for any other, it is killed.
    func end(died: Bool, leaving: Bool) -> (how: String, exitCode: Int32?) {
        channel.close()
        var status: Int32 = 0
        var ended = false
        if died || leaving {
            for _ in 0..<100 {
                let result = waitpid(pid, &status, WNOHANG)
                if result == pid || (result < 0 && errno != EINTR) {
                    ended = true
                    break
                }
                usleep(10_000)
            }
        }
        if !ended {
            kill(pid, SIGKILL)
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        }
        // WIFEXITED / WEXITSTATUS, which Swift does not see as macros.
        return (Self.describe(status), status & 0x7F == 0 ? (status >> 8) & 0xFF : nil)
    }

    /// "crashed (SIGSEGV)", "was killed (SIGKILL)", "exited with status 3".
    static func describe(_ status: Int32) -> String {
        // WIFSIGNALED / WTERMSIG / WEXITSTATUS, which Swift does not see as macros.
        let signal = status & 0x7F
        if signal != 0, signal != 0x7F { return signalWords(signal) }
        let code = (status >> 8) & 0xFF
        // bubblewrap passes on a signal that ended the helper as 128 + its number.
        if code > 128, code < 128 + 65 { return signalWords(code - 128) }
        return "exited with status \(code)"
    }

    private static func signalWords(_ signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGSEGV: "SIGSEGV", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGILL: "SIGILL", SIGABRT: "SIGABRT",
            SIGTRAP: "SIGTRAP", SIGKILL: "SIGKILL", SIGSYS: "SIGSYS", SIGTERM: "SIGTERM",
        ]
        let name = names[signal] ?? "signal \(signal)"
        switch signal {
        case SIGKILL: return "was killed (\(name))"
        case SIGABRT, SIGTRAP, SIGILL: return "stopped (\(name); out of memory, or a damaged picture)"
        default: return "crashed (\(name))"
        }
    }
}

/// Starts decoder helpers: the program and its arguments, under bubblewrap or not, and the
/// wait for the helper to say it is ready, confined as asked.
final class HelperLauncher: @unchecked Sendable {
    /// The helper program (nil: not installed).
    let helperPath: String?
    let bubblewrapPath: String?
    /// The address space each helper may use.
    let addressSpaceBytes: UInt64
    private let faults: Bool
    private let lock = NSLock()
    // Guarded by `lock`.
    private var bubblewrapArgumentsValue: [String]?

    init(helperPath: String?, bubblewrapPath: String?, addressSpaceBytes: UInt64, faults: Bool) {
        self.helperPath = helperPath
        self.bubblewrapPath = bubblewrapPath
        self.addressSpaceBytes = addressSpaceBytes
        self.faults = faults
    }

    struct Failure: Error {
        var failure: PhotoFailure
        /// bubblewrap ended by itself, with the status it gives its own failures, before the
        /// helper was ready.
        var bubblewrapRefused = false
    }

    /// Starts a helper and waits for it to say it is ready. `started` is told its process id
    /// as soon as it runs, and `gone` if it then ends before it is ready.
    func launch(
        underBubblewrap: Bool, started: (pid_t) -> Void, gone: (pid_t) -> Void
    ) throws(Failure) -> HelperProcess {
        guard let helperPath else {
            throw Failure(failure: PhotoFailure(.decoderCrashed, detail: "The decoder helper is not installed"))
        }
        var arguments = [helperPath, "--limit-memory", String(addressSpaceBytes)]
        if underBubblewrap, let bubblewrapPath {
            arguments = [bubblewrapPath] + bubblewrapArguments(helperPath) + ["--"] + arguments
        } else {
            // The helper shares the app's /proc: nothing of the user's may read the app's memory.
            Self.protectApp
        }
        let ours: DecoderChannel
        let theirs: DecoderChannel
        do throws(PhotoFailure) {
            (ours, theirs) = try DecoderChannel.pair()
        } catch {
            throw Failure(failure: error)
        }
        // Standard error, read only if the helper (or bubblewrap) fails before it is ready:
        // the helper sends its own to /dev/null once it is confined.
        var errorPipe: [Int32] = [-1, -1]
        if cp_pipe(&errorPipe) != 0 { errorPipe = [-1, -1] }
        defer { if errorPipe[0] >= 0 { close(errorPipe[0]) } }
        let environment = Sandbox.helperEnvironment(faults: faults)
        let (status, pid) = HelperSpawner.shared.spawn(
            arguments, environment: environment, socket: theirs.fd, errorOutput: errorPipe[1])
        // Only the helper holds its end now: when it dies, this end reads the end of the stream.
        theirs.close()
        if errorPipe[1] >= 0 { close(errorPipe[1]) }
        guard status == 0 else {
            ours.close()
            throw Failure(
                failure: PhotoFailure(
                    .decoderCrashed,
                    detail: "The decoder helper could not be started: \(String(cString: strerror(status)))"))
        }
        let helper = HelperProcess(pid: pid, channel: ours)
        started(pid)
        // The helper says it is ready once its limits and filter are in place.
        let answered = ours.waitReadable(milliseconds: 15_000)
        let first = answered ? ours.receive() : .closed
        if case .message(_, let fd?) = first { close(fd) }
        guard case .message(.ready(let ready), _) = first, ready.filtered,
            ready.addressSpace == addressSpaceBytes || (ready.addressSpace == 0 && Self.sanitized)
        else {
            // A helper that went away by itself is given a moment to be gone, so that its own
            // status is what is reported; one that said something else, or nothing, is killed.
            var left = false
            if answered, case .closed = first { left = true }
            let (how, code) = helper.end(died: false, leaving: left)
            gone(pid)
            let said = Self.readAvailable(errorPipe[0])
            let detail = "The decoder helper \(how) before it was ready" + (said.isEmpty ? "" : ": \(said)")
            throw Failure(
                failure: PhotoFailure(.decoderCrashed, detail: detail),
                bubblewrapRefused: underBubblewrap && left && code == 1)
        }
        return helper
    }

    /// What a process wrote to the pipe `fd` so far (at most a few lines), without waiting.
    private static func readAvailable(_ fd: Int32) -> String {
        guard fd >= 0 else { return "" }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var buffer = [UInt8](repeating: 0, count: 2048)
        let count = read(fd, &buffer, buffer.count)
        return String(decoding: buffer.prefix(max(0, count)), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static let protectApp: Void = { _ = cp_sandbox_protect_app() }()

    /// Whether a sanitizer's runtime is in this process (and so in its helpers, which then run
    /// without the address-space limit).
    private static let sanitized = ["__tsan_init", "__asan_init"].contains { (name: String) in
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) != nil
    }

    /// bubblewrap's arguments, worked out at the first start (they ask the dynamic loader).
    private func bubblewrapArguments(_ helperPath: String) -> [String] {
        if let known = lock.withLock({ bubblewrapArgumentsValue }) { return known }
        let arguments = Sandbox.bubblewrapArguments(helper: helperPath)
        lock.withLock { bubblewrapArgumentsValue = arguments }
        return arguments
    }
}
