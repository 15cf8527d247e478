import Foundation
import Testing
import TestSupport

/// Main-loop marshalling and main-actor hops, measured in a process whose real main thread
/// runs the GLib loop (the probe), exactly as the app's does.
@Suite struct MainLoopTests {
    private func probe(_ scenario: String, environment: [String: String] = [:]) async throws -> [String: Any] {
        let result = try await run(
            Products.executable("glibkit-probe"), [scenario], environment: environment, timeout: 60)
        #expect(result.status == 0, "probe failed: \(result.stderr)")
        let line = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        return try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test("10,000 calls from 8 threads all arrive on the main thread in per-thread order")
    func marshalledCallsArriveInOrder() async throws {
        let r = try await probe("marshal")
        #expect(r["finished"] as? Bool == true)
        #expect(r["arrived"] as? Int == 10_000)
        #expect(r["offMain"] as? Int == 0)
        #expect(r["outOfOrder"] as? Int == 0)
    }

    @Test("10,000 main-actor hops from 8 threads run in the order they were made, across the threads")
    func mainActorHopsKeepOneOrder() async throws {
        let r = try await probe("ordered")
        #expect(r["finished"] as? Bool == true)
        #expect(r["arrived"] as? Int == 10_000)
        #expect(r["offMain"] as? Int == 0)
        #expect(r["outOfOrder"] as? Int == 0)
    }

    @Test("waitUntilDone blocks the caller until the closure has run on the main thread")
    func waitUntilDoneWaits() async throws {
        let r = try await probe("wait")
        #expect(r["finished"] as? Bool == true)
        #expect(r["ranOnMain"] as? Bool == true)
        #expect(r["workerSawEffect"] as? Bool == true)
        #expect((r["workerWaitedMs"] as? Double ?? 0) >= 45)
        #expect(r["inlineOnMain"] as? Bool == true)
    }

    @Test("Main-actor hops from workers run on the main thread while g_application_run loops")
    func mainActorRunsInsideGLibLoop() async throws {
        let r = try await probe("mainactor")
        #expect(r["status"] as? Int == 0)
        #expect(r["ran"] as? Int == 1000)
        #expect(r["offMain"] as? Int == 0)
        #expect(r["mainActorRunOnMain"] as? Bool == true)
        // The drain watch must sleep when idle, not spin: 300 ms idle should cost ~0 CPU.
        #expect((r["cpuWhileIdleMs"] as? Double ?? 1e9) < 100)
    }

    @Test("Calls queued from a worker wake a main loop asleep in poll")
    func wakesTheLoop() async throws {
        let r = try await probe("wakeup")
        #expect(r["count"] as? Int == 40)
        // A correctness bound: without a wake-up the call would wait for the next unrelated event.
        #expect((r["maxMs"] as? Double ?? .infinity) < 100)
    }

    @Test("The main window, filled and destroyed, leaves no GObject and no signal closure behind")
    func windowLeavesNothingBehind() async throws {
        let display = try XvfbDisplay()
        let r = try await probe("window", environment: display.gtkEnvironment)
        #expect((r["rowsBound"] as? Int ?? 0) > 3)
        #expect(r["finalized"] as? [String] == r["watched"] as? [String])
        #expect(r["closuresLeft"] as? Int == 0)
    }
}
