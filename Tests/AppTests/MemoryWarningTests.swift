import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension GUITests {
    /// The desktop's low-memory warning, end to end: a stand-in for low-memory-monitor on a
    /// private bus, GIO's `GMemoryMonitor` in the real app, and the app's reaction in its trace.
    @Suite(.serialized) struct MemoryWarningTests {
        /// The last visible row a `view.visible` event names.
        private static func lastRow(of record: TraceRecord?) -> Int? {
            if case .viewVisible(_, let last)? = record?.event { last } else { nil }
        }

        @Test("A low-memory warning cancels the work in flight and forgets off-screen images")
        func lowMemoryWarning() throws {
            let monitor = try FakeLowMemoryMonitor()
            let server = try LoopbackServer()
            let app = try AppSession(
                source: server.url("/list.plist?rows=60").absoluteString,
                environment: ["DBUS_SYSTEM_BUS_ADDRESS": monitor.busAddress])
            // The first screen fills in at full speed.
            try app.waitFor(event: .sourceLoaded)
            let firstScreen = try app.waitFor("first screen filtered") { events in
                guard let last = Self.lastRow(of: events.last { $0.event.name == .viewVisible }) else { return false }
                let states = AppSession.rowStates(events)
                return (0...last).allSatisfy { states[$0] == .filtered }
            }
            let firstVisible = try #require(Self.lastRow(of: firstScreen.last { $0.event.name == .viewVisible }))

            // Then the server slows down and the list goes to its end: the photos there are in
            // flight, and the first screen's images are off screen.
            server.photoLatencyMs.store(30_000, ordering: .relaxed)
            let window = try app.windowGeometry()
            // The click selects that row and gives the list the keyboard (Escape closes the viewer,
            // were one open).
            try app.xdotool([
                "mousemove", "\(window.x + window.width / 2)", "\(window.y + 150)", "click", "1", "key", "Escape",
            ])
            try app.xdotool(["key", "End"])
            let inFlight = try app.waitFor("downloads at the end of the list under way") { events in
                events.contains { $0.event.name == .opStart && ($0.event.row ?? 0) >= 50 }
            }
            let runningRows = Set(
                inFlight.filter { $0.event.name == .opStart && ($0.event.row ?? 0) >= 50 }
                    .compactMap(\.event.row))

            try monitor.warn(level: 255)
            let events = try app.waitFor("work cancelled and images dropped", timeout: 20) { events in
                guard let warned = events.firstIndex(where: { $0.event.name == .memoryLow }) else { return false }
                let after = events[warned...]
                let cancelled = Set(after.filter { $0.event.name == .opCancel }.compactMap(\.event.row))
                let dropped = Set(
                    after.filter { $0.event.name == .rowState && $0.event.state == .new }
                        .compactMap(\.event.row))
                return runningRows.isSubset(of: cancelled) && (0...firstVisible).allSatisfy(dropped.contains)
            }
            let warning = try #require(events.first { $0.event.name == .memoryLow })
            #expect(warning.event.level == 255)
            // The running downloads were cancelled while running, not left to finish.
            let runningCancels = events.filter { $0.event.name == .opCancel && $0.event.running == true }
            #expect(!runningCancels.isEmpty)
            #expect(app.terminate() == 0)
        }
    }
}
