import Foundation
import Testing
import TestSupport

extension GUITests {
    /// The desktop's low-memory warning, end to end: a stand-in for low-memory-monitor on a
    /// private bus, GIO's `GMemoryMonitor` in the real app, and the app's reaction in its trace.
    @Suite(.serialized) struct MemoryWarningTests {
        @Test("A low-memory warning cancels the work in flight and forgets off-screen images")
        func lowMemoryWarning() throws {
            let monitor = try FakeLowMemoryMonitor()
            let server = try LoopbackServer()
            let app = try AppSession(source: server.url("/list.plist?rows=60").absoluteString,
                                     environment: ["DBUS_SYSTEM_BUS_ADDRESS": monitor.busAddress])
            // The first screen fills in at full speed.
            try app.waitFor(event: "source.loaded")
            let firstScreen = try app.waitFor("first screen filtered") { events in
                guard let visible = events.last(where: { $0["ev"] as? String == "view.visible" }),
                      let last = visible["last"] as? Int else { return false }
                let states = AppSession.rowStates(events)
                return (0...last).allSatisfy { states[$0] == "filtered" }
            }
            let firstVisible = try #require(firstScreen.last { $0["ev"] as? String == "view.visible" }?["last"] as? Int)

            // Then the server slows down and the list goes to its end: the photos there are in
            // flight, and the first screen's images are off screen.
            server.photoLatencyMs.store(30_000, ordering: .relaxed)
            let window = try app.windowGeometry()
            try app.xdotool(["mousemove", "\(window.x + window.width / 2)", "\(window.y + 150)", "click", "1"])
            try app.xdotool(["key", "End"])
            let inFlight = try app.waitFor("downloads at the end of the list under way") { events in
                events.contains { $0["ev"] as? String == "op.start" && ($0["row"] as? Int ?? 0) >= 50 }
            }
            let runningRows = Set(inFlight.filter { $0["ev"] as? String == "op.start" && ($0["row"] as? Int ?? 0) >= 50 }
                .compactMap { $0["row"] as? Int })

            try monitor.warn(level: 255)
            let events = try app.waitFor("work cancelled and images dropped", timeout: 20) { events in
                guard let warned = events.firstIndex(where: { $0["ev"] as? String == "memory.low" }) else { return false }
                let after = events[warned...]
                let cancelled = Set(after.filter { $0["ev"] as? String == "op.cancel" }.compactMap { $0["row"] as? Int })
                let dropped = Set(after.filter { $0["ev"] as? String == "row.state" && $0["state"] as? String == "new" }
                    .compactMap { $0["row"] as? Int })
                return runningRows.isSubset(of: cancelled) && (0...firstVisible).allSatisfy(dropped.contains)
            }
            let warning = try #require(events.first { $0["ev"] as? String == "memory.low" })
            #expect(warning["level"] as? Int == 255)
            // The running downloads were cancelled while running, not left to finish.
            let runningCancels = events.filter { $0["ev"] as? String == "op.cancel" && $0["running"] as? Bool == true }
            #expect(!runningCancels.isEmpty)
            #expect(app.terminate() == 0)
        }
    }
}
