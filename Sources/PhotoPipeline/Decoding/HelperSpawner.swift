import CDecoderSandbox
import Foundation
import GLibKit

/// Starts helpers from one thread that lives as long as the app. A helper (and bubblewrap)
/// asks to die with its parent, and Linux takes "parent" to be the thread that started it:
/// started from an operation queue's worker, it would be killed when that thread is retired.
final class HelperSpawner: @unchecked Sendable {
    static let shared = HelperSpawner()

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
