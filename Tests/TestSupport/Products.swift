// Finds and runs the package's own executables from tests.

import Foundation

public enum Products {
    /// The build products folder (where `swift build` put the test bundle and executables).
    public static var directory: URL {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while url.pathComponents.count > 1 {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("classic-photos").path) { return url }
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    public static func executable(_ name: String) -> URL { directory.appendingPathComponent(name) }

    /// The repository's top folder (holding `Package.swift` and `data/`).
    public static var packageRoot: URL {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }
}

/// Whether this run is under a sanitizer: meson-helpers/sanitizers.sh names it in
/// `CLASSIC_PHOTOS_SANITIZER`. Its allocator keeps freed memory in quarantine and adds shadow
/// memory, so resident memory means nothing then.
public var runsUnderSanitizer: Bool { ProcessInfo.processInfo.environment["CLASSIC_PHOTOS_SANITIZER"] != nil }

/// How many times longer than usual work may take in this run: sanitizers slow every step
/// several times, so upper time bounds that tell "refused at once" from "worked through it"
/// stretch.
public var sanitizerSlowdown: Double { runsUnderSanitizer ? 6 : 1 }

/// The outcome of a finished child process.
public struct ProcessResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
    public let timedOut: Bool
}

/// Runs a program to completion (killing it after `timeout` seconds) and collects its output.
public func run(
    _ executable: URL, _ arguments: [String] = [], environment: [String: String] = [:],
    timeout: TimeInterval = 60
) throws -> ProcessResult {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let collector = OutputCollector(out: out, err: err)
    let deadline = Date().addingTimeInterval(timeout)
    var timedOut = false
    while process.isRunning {
        if Date() > deadline {
            // SIGKILL, not SIGTERM: the test runner blocks SIGTERM, and its children inherit the
            // mask, so a terminated child that does not unblock it (xdotool, say) would never end.
            timedOut = true
            kill(process.processIdentifier, SIGKILL)
            break
        }
        usleep(10_000)
    }
    process.waitUntilExit()
    // A grandchild that inherited the pipes (a daemon the child started) would keep them open
    // for ever; what arrived within a few seconds of the exit is what there is.
    let (o, e) = collector.finish(waitingAtMost: 5)
    return ProcessResult(status: process.terminationStatus, stdout: o, stderr: e, timedOut: timedOut)
}

/// `run`, waited for from a task without holding one of the threads tasks run on: there are
/// as many as cores, and tests that sat in `run` on both of a two-core machine's (probes taking
/// 20 s under a sanitizer) kept every other test's task from resuming until they ended, so
/// those tests' own deadlines passed with nothing done.
public func run(
    _ executable: URL, _ arguments: [String] = [], environment: [String: String] = [:],
    timeout: TimeInterval = 60
) async throws -> ProcessResult {
    try await onOwnThread { try run(executable, arguments, environment: environment, timeout: timeout) }
}

/// Runs `body` on a thread of its own and waits for it from a task: for work that keeps a
/// thread busy for seconds (a camera-size picture checked pixel by pixel takes 20 s under
/// ThreadSanitizer), which on the threads tasks run on would hold back every other test.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// Drains both pipes on background threads so a chatty child never blocks on a full pipe;
/// what has arrived can be read at any time.
final class OutputCollector: @unchecked Sendable {
    private let group = DispatchGroup()
    private var out = Data(), err = Data()
    private let lock = NSLock()

    init(out: Pipe, err: Pipe) {
        drain(out) { self.out.append($0) }
        drain(err) { self.err.append($0) }
    }

    private func drain(_ pipe: Pipe, into append: @escaping @Sendable (Data) -> Void) {
        group.enter()
        DispatchQueue.global().async {
            while true {
                let chunk = pipe.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                self.lock.withLock { append(chunk) }
            }
            self.group.leave()
        }
    }

    /// What the child has written to its standard error so far.
    var errorSoFar: String { lock.withLock { String(decoding: err, as: UTF8.self) } }

    /// Both outputs once the pipes close, or what had arrived after `seconds` (then the
    /// readers are left to finish on their own).
    func finish(waitingAtMost seconds: Double = .infinity) -> (String, String) {
        let closed =
            seconds.isFinite
            ? group.wait(timeout: .now() + seconds) == .success
            : {
                group.wait(); return true
            }()
        guard closed else { return ("", "") }
        return lock.withLock { (String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self)) }
    }
}
