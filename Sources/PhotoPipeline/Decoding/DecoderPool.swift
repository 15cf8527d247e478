import CDecoderSandbox
import CGLib
import Foundation
import GLibKit

/// The decoder helpers: separate processes (`classic-photos-decoder`) that decode every
/// picture the app shows, so that a decoder's crash, endless loop or runaway allocation costs
/// one photo, not the app.
///
/// Each helper runs under bubblewrap (no network, no home, a read-only `/usr`, its own
/// namespaces and session, gone with the app), with a seccomp filter (no sockets, no files
/// opened for writing, no exec) and an address-space limit. Where bubblewrap cannot run
/// (no user namespaces), the helpers keep the filter and the limit, and the app says so once.
///
/// A worker thread takes an idle helper (or starts one, up to `maxHelpers`; beyond that it
/// waits its turn), sends it the picture on a descriptor (a memfd of bytes in memory, or the
/// open file), and waits for the pixels in a sealed memfd. A helper that dies fails that
/// picture with `decoder-crashed`; one past the deadline is killed and fails it with
/// `timeout`; either way the next picture gets a fresh helper. Helpers idle for
/// `idleSeconds` leave.
public final class DecoderPool: @unchecked Sendable {
    /// How decodes are run.
    public enum Confinement: Sendable, Equatable {
        /// Helpers under bubblewrap, with seccomp and the memory limit.
        case bubblewrap
        /// Helpers with seccomp and the memory limit, without bubblewrap (the reason).
        case processes(String)
        /// In the app's own process (`CLASSIC_PHOTOS_SANDBOX=off`: for debugging only).
        case inProcess
    }

    /// The pool the app decodes in, as the process configuration asks.
    public static let shared = DecoderPool(configuration: .current)

    /// The most helpers at once: one a core for the rows, and one more so that a photo's
    /// quick embedded preview need not wait behind the decodes of whole photos.
    public let maxHelpers: Int
    /// How long one decode may take.
    public let deadlineSeconds: Double
    /// How long a helper may stay idle before it leaves.
    public let idleSeconds: Double
    /// The address space each helper may use.
    public let addressSpaceBytes: UInt64
    /// How this pool's pictures are decoded: in its helpers, or in the app itself (chosen once,
    /// from the configuration, as the pool is made).
    private(set) var decoding: any PictureDecoding = InProcessDecoding()

    private let helperPath: String?
    private let bubblewrapPath: String?
    private let faults: Bool
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var confinementValue: Confinement
    private var idle: [Helper] = []
    private var live = 0
    private var nextID: UInt64 = 0
    private var reported = false
    private var started = 0
    private var crashed = 0
    private var bubblewrapArgumentsValue: [String]?
    private var processes: Set<pid_t> = []
    private var idleCheckDue = false
    /// A helper is being started (and has not said it is ready yet).
    private var launching = false

    public init(
        configuration: AppConfiguration = .current,
        maxHelpers: Int = ProcessInfo.processInfo.activeProcessorCount + 1, idleSeconds: Double = 20
    ) {
        self.maxHelpers = max(1, maxHelpers)
        self.idleSeconds = idleSeconds
        deadlineSeconds = configuration.decodeSeconds
        addressSpaceBytes = 1 << 30
        faults = configuration.testSwitches.decoderFaults
        helperPath = Self.findHelper(configuration.decoderPath)
        bubblewrapPath = Self.findProgram("bwrap", in: configuration.programSearchPath)
        switch configuration.sandbox {
        case .off: confinementValue = .inProcess
        case .withoutBubblewrap: confinementValue = .processes("turned off by CLASSIC_PHOTOS_SANDBOX=no-bwrap")
        case .confined:
            if helperPath == nil {
                confinementValue = .inProcess
            } else if bubblewrapPath == nil {
                confinementValue = .processes("bwrap is not installed")
            } else {
                confinementValue = .bubblewrap
            }
        }
        if confinementValue != .inProcess { decoding = ConfinedDecoding(pool: self) }
    }

    /// How decodes are run now (bubblewrap may turn out not to work at the first start).
    public var confinement: Confinement { condition.withLock { confinementValue } }

    /// The processes this pool started that are still there: the helpers, or the bubblewrap
    /// processes they run under (for tests and diagnostics).
    public var processIdentifiers: [pid_t] { condition.withLock { processes.sorted() } }

    /// Helpers started, and helpers that died or were killed, since the pool was made.
    public var counts: (started: Int, crashed: Int) { condition.withLock { (started, crashed) } }

    /// A sentence for logs and the About window's troubleshooting information.
    public var confinementDescription: String {
        let limit = "\(addressSpaceBytes >> 30) GiB of address space"
        switch confinement {
        case .bubblewrap:
            return "Pictures are decoded in helper processes confined by bubblewrap (no network, no home folder, "
                + "read-only system files), a seccomp filter and \(limit) each."
        case .processes(let reason):
            return "Pictures are decoded in helper processes with a seccomp filter and \(limit) each, "
                + "but without bubblewrap: \(reason)."
        case .inProcess:
            return helperPath == nil
                ? "Pictures are decoded inside the app: the decoder helper (classic-photos-decoder) was not found."
                : "Pictures are decoded inside the app: confinement is turned off (CLASSIC_PHOTOS_SANDBOX=off)."
        }
    }

    /// Says once, on standard error, how pictures are decoded when it is less than it should be.
    public func reportConfinementOnce() {
        let first = condition.withLock {
            defer { reported = true }
            return !reported
        }
        guard first, confinement != .bubblewrap else { return }
        FileHandle.standardError.write(Data("classic-photos: \(confinementDescription)\n".utf8))
    }

    /// Starts one helper now, in the background, unless one is there or starting, so that the
    /// first picture does not wait for it: the app calls this as it starts, while its main
    /// thread builds the window and the other core has little to do.
    public func prepare() {
        guard confinement != .inProcess else { return }
        let idleOrStarting = condition.withLock { live > 0 || launching }
        guard !idleOrStarting else { return }
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            let cancellable = Cancellable()
            guard let helper = try? checkOut(cancellable: cancellable) else { return }
            checkIn(helper)
        }
    }

    // MARK: Decoding

    /// What a picture is handed to a helper as.
    enum Input {
        case bytes(Data)
        case descriptor(Int32)
    }

    struct Decoded {
        var image: PhotoImage?
        var outcome: DecodeReply.Outcome
        /// A file the helper made (a RAW file's preview).
        var file: Data? = nil
        /// An animation's frames.
        var frames: [PhotoImage] = []
    }

    /// Runs `job` on `input` in a helper; the caller keeps its descriptor (a copy is sent).
    func run(
        _ job: DecodeRequest.Job, input: Input, limits: DecodeLimits, budget: DecodeMemoryBudget,
        cancellable: Cancellable
    ) throws(PhotoFailure) -> Decoded {
        let fd: Int32
        switch input {
        case .descriptor(let given): fd = given
        case .bytes(let data): fd = try SealedPixels.sealedFile(holding: data)
        }
        defer { if case .bytes = input { close(fd) } }
        var helper = try checkOut(cancellable: cancellable)
        let id = condition.withLock {
            nextID += 1
            return nextID
        }
        let request = DecodeRequest(id: id, job: job, limits: limits, budgetBytes: budget.capacity)
        if helper.channel.send(.request(request), attached: fd) != nil {
            // It left or died while idle: a fresh one takes the picture.
            retire(helper, died: true)
            helper = try checkOut(cancellable: cancellable)
            if let error = helper.channel.send(.request(request), attached: fd) {
                retire(helper, died: true)
                throw PhotoFailure(
                    .decoderCrashed,
                    detail: "The decoder helper did not take the picture: \(String(cString: strerror(error)))")
            }
        }
        return try waitForReply(id, from: helper, limits: limits, budget: budget, cancellable: cancellable)
    }

    private func waitForReply(
        _ id: UInt64, from helper: Helper, limits: DecodeLimits, budget: DecodeMemoryBudget, cancellable: Cancellable
    ) throws(PhotoFailure) -> Decoded {
        // What the helper reserved of the budget, given back when the decode ends, however it ends.
        var reservations: [DecodeMemoryBudget.Reservation] = []
        defer { for reservation in reservations { reservation.release() } }
        let deadline = monotonicSeconds() + deadlineSeconds
        let budgetDeadline = DispatchTime.now() + deadlineSeconds
        var cancelSent = false
        /// A helper that stops reading what the app sends is not waited for.
        func send(_ message: DecoderMessage) throws(PhotoFailure) {
            guard let error = helper.channel.send(message) else { return }
            retire(helper, died: error != EAGAIN)
            throw PhotoFailure(
                .decoderCrashed,
                detail: "The decoder stopped listening to the app (\(String(cString: strerror(error))))")
        }
        while true {
            if cancellable.isCancelled, !cancelSent {
                cancelSent = true
                try send(.cancel(id))
            }
            if monotonicSeconds() > deadline {
                retire(helper, died: false)
                throw PhotoFailure(
                    .timeout,
                    detail: "Decoding took more than \(PhotoLimits.seconds(deadlineSeconds)); the decoder was stopped")
            }
            guard helper.channel.waitReadable(milliseconds: 50) else { continue }
            switch helper.channel.receive() {
            case .closed:
                let (how, _) = retire(helper, died: true)
                throw PhotoFailure(.decoderCrashed, detail: "The decoder \(how) while decoding this picture")
            case .message(.reply(let reply), let fd) where reply.id == id:
                checkIn(helper)
                return try decoded(reply.outcome, fd: fd, limits: limits)
            case .message(.reserve(let asked, let bytes), let fd) where asked == id:
                if let fd { close(fd) }
                var refusal: PhotoFailure?
                // One picture's reservations together fit in the budget (else two halves
                // and a bit would wait for each other for ever); the wait ends with the decode's.
                let held = reservations.reduce(0) { $0 + $1.bytes }
                if bytes < 0 || bytes > budget.capacity - held {
                    refusal = PhotoFailure(
                        .tooManyPixels,
                        detail: "Decoding it would need more than \(PhotoLimits.megabytes(budget.capacity)) of memory")
                } else {
                    do throws(PhotoFailure) {
                        reservations.append(
                            try budget.reserve(bytes, cancellable: cancellable, deadline: budgetDeadline))
                    } catch {
                        refusal = error
                    }
                }
                try send(.reserved(id: id, refusal: refusal))
            case .message(_, let fd):
                if let fd { close(fd) } // an answer to an earlier request, or noise
            }
        }
    }

    /// What a reply means, once what it says has been checked against what was asked: no
    /// more pixels than the limits allow, no larger file than the picture was.
    private func decoded(
        _ outcome: DecodeReply.Outcome, fd: Int32?, limits: DecodeLimits
    ) throws(PhotoFailure) -> Decoded {
        let unusable = PhotoFailure(.decoderCrashed, detail: "The decoder helper's answer is larger than was asked for")
        switch outcome {
        case .picture(let layout, _), .preview(let layout, _, _, _, _):
            guard layout.isWithin(maxPixels: limits.maxPixels) else {
                if let fd { close(fd) }
                throw unusable
            }
        case .animation(let layouts, _, _, _):
            // Each frame within the limits (so the sum of at most `maxFrames` cannot overflow),
            // and all of them within what an animation's frames may take.
            let framesFit =
                layouts.count <= AnimationDecoder.maxFrames
                && layouts.allSatisfy { $0.isWithin(maxPixels: limits.maxPixels) }
            guard framesFit, layouts.reduce(0, { $0 + $1.byteCount }) <= AnimationDecoder.maxFrameBytes else {
                if let fd { close(fd) }
                throw unusable
            }
        case .file(let byteCount):
            guard byteCount >= 0, byteCount <= limits.maxBytes else {
                if let fd { close(fd) }
                throw unusable
            }
        default: break
        }
        switch outcome {
        case .failure(let failure):
            if let fd { close(fd) }
            throw failure
        case .animation(let layouts, let offsets, _, _):
            guard let fd else {
                throw PhotoFailure(.decoderCrashed, detail: "The decoder helper sent no frames with its animation")
            }
            let frames = try SealedPixels.images(from: fd, layouts: layouts, offsets: offsets)
            return Decoded(image: nil, outcome: outcome, frames: frames)
        case .noPreview, .info, .still:
            if let fd { close(fd) }
            return Decoded(image: nil, outcome: outcome)
        case .file(let byteCount):
            guard let fd else {
                throw PhotoFailure(.decoderCrashed, detail: "The decoder helper sent no file with its answer")
            }
            return Decoded(image: nil, outcome: outcome, file: try SealedPixels.bytes(from: fd, byteCount: byteCount))
        case .picture(let layout, _), .preview(let layout, _, _, _, _):
            guard let fd else {
                throw PhotoFailure(.decoderCrashed, detail: "The decoder helper sent no pixels with its picture")
            }
            return Decoded(image: try SealedPixels.image(from: fd, layout: layout), outcome: outcome)
        }
    }

    // MARK: Helpers

    private struct Helper {
        let pid: pid_t
        let channel: DecoderChannel
        var idleSince: Double = 0
    }

    private func checkOut(cancellable: Cancellable) throws(PhotoFailure) -> Helper {
        condition.lock()
        // One helper starts at a time: each loads Swift's runtime and Foundation, and several
        // at once took the cores from the app's main loop as a big folder filled the list.
        while idle.isEmpty, live >= maxHelpers || launching {
            if cancellable.isCancelled {
                condition.unlock()
                throw PhotoFailure.cancelled
            }
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05))
        }
        if let helper = idle.popLast() {
            condition.unlock()
            // An idle helper has nothing to say: anything readable is its end (it was killed).
            guard Self.hasLeft(helper) else { return helper }
            retire(helper, died: true)
            return try checkOut(cancellable: cancellable)
        }
        live += 1
        launching = true
        condition.unlock()
        defer {
            condition.withLock {
                launching = false
                condition.broadcast()
            }
        }
        do throws(PhotoFailure) {
            return try start()
        } catch {
            condition.withLock { live -= 1 }
            throw error
        }
    }

    private func checkIn(_ helper: Helper) {
        var helper = helper
        helper.idleSince = monotonicSeconds()
        condition.withLock {
            idle.append(helper)
            condition.signal()
        }
        scheduleIdleCheck()
    }

    /// Ends `helper` and says how it ended. A helper that `died`, or that was told to leave by
    /// its socket closing (`leaving`), is given a moment to be gone by itself, so that its own
    /// end (a crash, say) is what is reported; then, and at once for any other, it is killed.
    @discardableResult
    private func retire(_ helper: Helper, died: Bool, leaving: Bool = false) -> (how: String, exitCode: Int32?) {
        helper.channel.close()
        var status: Int32 = 0
        var ended = false
        if died || leaving {
            for _ in 0..<100 {
                let result = waitpid(helper.pid, &status, WNOHANG)
                if result == helper.pid || (result < 0 && errno != EINTR) {
                    ended = true
                    break
                }
                usleep(10_000)
            }
        }
        if !ended {
            kill(helper.pid, SIGKILL)
            while waitpid(helper.pid, &status, 0) < 0, errno == EINTR {}
        }
        condition.withLock {
            live -= 1
            if died { crashed += 1 }
            processes.remove(helper.pid)
            condition.signal()
        }
        // WIFEXITED / WEXITSTATUS, which Swift does not see as macros.
        return (Self.describe(status), status & 0x7F == 0 ? (status >> 8) & 0xFF : nil)
    }

    /// Whether an idle helper's end of the socket shows it gone.
    private static func hasLeft(_ helper: Helper) -> Bool {
        var poller = pollfd(fd: helper.channel.fd, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, 0) > 0
    }

    /// Checks for helpers idle too long once `idleSeconds` from now, unless a check is due
    /// already (one at a time, however many decodes end meanwhile).
    private func scheduleIdleCheck() {
        let due = condition.withLock {
            defer { idleCheckDue = true }
            return idleCheckDue
        }
        guard !due else { return }
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + idleSeconds + 0.5) { [weak self] in
            self?.retireIdle()
        }
    }

    private func retireIdle() {
        let now = monotonicSeconds()
        let (leaving, stillIdle): ([Helper], Bool) = condition.withLock {
            let old = idle.filter { now - $0.idleSince >= idleSeconds }
            idle.removeAll { now - $0.idleSince >= idleSeconds }
            idleCheckDue = false
            return (old, !idle.isEmpty)
        }
        // Helpers that became idle since are checked in their turn.
        if stillIdle { scheduleIdleCheck() }
        // Closing its end tells a helper to exit.
        for helper in leaving { retire(helper, died: false, leaving: true) }
    }

    /// Starts a helper and waits for it to say it is ready. If bubblewrap itself cannot run
    /// here (no user namespaces), the pool goes on without it; any other failure to start
    /// (a timeout under load, no descriptors left) fails this picture only.
    private func start() throws(PhotoFailure) -> Helper {
        guard let helperPath else { throw PhotoFailure(.decoderCrashed, detail: "The decoder helper is not installed") }
        let mode = confinement
        do throws(LaunchFailure) {
            let helper = try launch(helperPath, underBubblewrap: mode == .bubblewrap)
            condition.withLock { started += 1 }
            return helper
        } catch {
            guard mode == .bubblewrap, error.bubblewrapRefused else { throw error.failure }
            condition.withLock {
                confinementValue = .processes("bwrap could not start a helper (\(error.failure.detail))")
            }
            reportConfinementOnce()
            do throws(LaunchFailure) {
                let helper = try launch(helperPath, underBubblewrap: false)
                condition.withLock { started += 1 }
                return helper
            } catch {
                throw error.failure
            }
        }
    }

    private struct LaunchFailure: Error {
        var failure: PhotoFailure
        /// bubblewrap ended by itself, with the status it gives its own failures, before the
        /// helper was ready.
        var bubblewrapRefused = false
    }

    private func launch(_ helperPath: String, underBubblewrap: Bool) throws(LaunchFailure) -> Helper {
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
            throw LaunchFailure(failure: error)
        }
        // Standard error, read only if the helper (or bubblewrap) fails before it is ready:
        // the helper sends its own to /dev/null once it is confined.
        var errorPipe: [Int32] = [-1, -1]
        if cp_pipe(&errorPipe) != 0 { errorPipe = [-1, -1] }
        defer { if errorPipe[0] >= 0 { close(errorPipe[0]) } }
        let environment = Sandbox.helperEnvironment(faults: faults)
        let (status, pid) = Spawner.shared.spawn(
            arguments, environment: environment, socket: theirs.fd, errorOutput: errorPipe[1])
        // Only the helper holds its end now: when it dies, this end reads the end of the stream.
        theirs.close()
        if errorPipe[1] >= 0 { close(errorPipe[1]) }
        guard status == 0 else {
            ours.close()
            throw LaunchFailure(
                failure: PhotoFailure(
                    .decoderCrashed,
                    detail: "The decoder helper could not be started: \(String(cString: strerror(status)))"))
        }
        let helper = Helper(pid: pid, channel: ours)
        condition.withLock { _ = processes.insert(pid) }
        // The helper says it is ready once its limits and filter are in place.
        let answered = ours.waitReadable(milliseconds: 15_000)
        let first = answered ? ours.receive() : .closed
        if case .message(_, let fd?) = first { close(fd) }
        guard case .message(.ready(let ready), _) = first, ready.filtered,
            ready.addressSpace == addressSpaceBytes || (ready.addressSpace == 0 && Self.sanitized)
        else {
            // A helper that went away by itself is given a moment to be gone, so that its own
            // status is what is reported; one that said something else, or nothing, is killed.
            var gone = false
            if answered, case .closed = first { gone = true }
            let (how, code) = retire(helper, died: false, leaving: gone)
            condition.withLock { live += 1 } // `retire` counted it out; the caller still does
            let said = Self.readAvailable(errorPipe[0])
            let detail = "The decoder helper \(how) before it was ready" + (said.isEmpty ? "" : ": \(said)")
            throw LaunchFailure(
                failure: PhotoFailure(.decoderCrashed, detail: detail),
                bubblewrapRefused: underBubblewrap && gone && code == 1)
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
        if let known = condition.withLock({ bubblewrapArgumentsValue }) { return known }
        let arguments = Sandbox.bubblewrapArguments(helper: helperPath)
        condition.withLock { bubblewrapArgumentsValue = arguments }
        return arguments
    }

    // MARK: Small things

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

    private static func findHelper(_ given: String?) -> String? {
        if let given, access(given, X_OK) == 0 { return given }
        // Beside the app (a build folder, or bin/), else in libexec/ beside bin/.
        guard let own = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        let executable = URL(fileURLWithPath: own).deletingLastPathComponent()
        for candidate in [
            executable.appendingPathComponent("classic-photos-decoder"),
            executable.deletingLastPathComponent().appendingPathComponent("libexec/classic-photos-decoder"),
        ] where access(candidate.path, X_OK) == 0 {
            return candidate.path
        }
        return nil
    }

    private static func findProgram(_ name: String, in path: String) -> String? {
        path.split(separator: ":").map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
    }
}

private func monotonicSeconds() -> Double { Double(g_get_monotonic_time()) / 1e6 }

/// Starts helpers from one thread that lives as long as the app. A helper (and bubblewrap)
/// asks to die with its parent, and Linux takes "parent" to be the thread that started it:
/// started from an operation queue's worker, it would be killed when that thread is retired.
private final class Spawner: @unchecked Sendable {
    static let shared = Spawner()

    private struct Job {
        let arguments: [String]
        let environment: [String]
        let socket: Int32
        let errorOutput: Int32
        let result: OneShot<(Int32, pid_t)>
    }

    private let condition = NSCondition()
    private var jobs: [Job] = []

    private init() {
        let thread = Thread { [self] in run() }
        thread.name = "decoder-spawner"
        thread.start()
    }

    /// Starts a process (see `cp_spawn_helper`) from the spawning thread; errno (0 on success)
    /// and its id.
    func spawn(
        _ arguments: [String], environment: [String], socket: Int32, errorOutput: Int32
    ) -> (Int32, pid_t) {
        let result = OneShot<(Int32, pid_t)>()
        condition.withLock {
            jobs.append(
                Job(
                    arguments: arguments, environment: environment, socket: socket, errorOutput: errorOutput,
                    result: result))
            condition.signal()
        }
        return result.wait()
    }

    private func run() {
        // What this thread starts inherits its niceness: where processes rather than sessions
        // are weighed, helpers loading Swift's runtime and Foundation (tens of milliseconds of
        // a core) before they lower themselves do not take the cores from the app's main loop.
        _ = cp_nice_thread(10)
        while true {
            let job = condition.withLock {
                while jobs.isEmpty { condition.wait() }
                return jobs.removeFirst()
            }
            var pid: pid_t = 0
            let status = withCStrings(job.arguments) { argv in
                withCStrings(job.environment) { envp in
                    cp_spawn_helper(argv, envp, job.socket, job.errorOutput, &pid)
                }
            }
            job.result.set((status, pid))
        }
    }
}
