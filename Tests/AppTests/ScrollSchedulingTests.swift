import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension GUITests {
    /// Scroll-driven scheduling end to end: real X input (xdotool) on the real app, a list of
    /// 2,000 photos on a loopback server that answers each photo 1.5 s late (so the first screen
    /// is still loading when the scroll begins).
    @Suite(.serialized) struct ScrollSchedulingTests {
        static let rows = 2000
        static let margin = 2 // the app's prefetch margin

        struct Run {
            let app: AppSession
            let server: LoopbackServer
            let window: (x: Int, y: Int, width: Int, height: Int)
        }

        private func start() throws -> Run {
            let server = try LoopbackServer()
            server.photoLatencyMs.store(1500, ordering: .relaxed)
            let app = try AppSession(source: server.url("/list.plist?rows=\(Self.rows)").absoluteString)
            let loaded = try app.waitFor(event: .sourceLoaded)
            #expect(loaded.event.rows == Self.rows)
            // The first screen starts by itself, without any scrolling.
            try app.waitFor("first downloads under way") { $0.contains { $0.event.name == .opStart } }
            return Run(app: app, server: server, window: try app.windowGeometry())
        }

        private static func settled(_ events: [TraceRecord]) -> Bool {
            guard case .scrollEnd(let first, let end)? = events.last(where: { $0.event.name == .scrollEnd })?.event
            else { return false }
            let states = AppSession.rowStates(events)
            return (first...end).allSatisfy { states[$0] == .filtered || states[$0] == .failed }
        }

        /// Checks every rule on the trace of one scroll gesture and prints the figures.
        private func check(_ run: Run, via expected: ScrollVia) throws {
            let events = try run.app.waitFor("visible rows filtered after scrolling", timeout: 90) { Self.settled($0) }
            #expect(run.app.terminate() == 0)
            let names = events.map(\.event.name)

            // Began: traced with its source, and the queues suspended at once.
            let begin = try #require(names.firstIndex(of: .scrollBegin))
            #expect(events[begin].event.via == expected)
            #expect(names[(begin + 1)...].first { $0 == .queuesSuspended || $0 == .queuesResumed } == .queuesSuspended)
            // No operation starts while scrolling: between each begin and its end only cancels.
            var scrolling = false
            for name in names {
                if name == .scrollBegin { scrolling = true }
                if name == .scrollEnd { scrolling = false }
                #expect(!(scrolling && name == .opStart), "an operation started while scrolling")
            }
            // Ended after the quiet period; the queues resumed after the last end.
            let lastEnd = try #require(names.lastIndex(of: .scrollEnd))
            #expect(names[lastEnd...].contains(.queuesResumed))
            let beganAt = events[begin].t, endedAt = events[lastEnd].t
            #expect(endedAt - beganAt >= 0.15)

            // No download for a row that was never within the visible range plus the margin.
            let allowed = AppSession.visibleRanges(events).map {
                max(0, $0.lowerBound - Self.margin)...min(Self.rows - 1, $0.upperBound + Self.margin)
            }
            let downloads = events.filter { $0.event.name == .opStart && $0.event.kind == .download }
                .compactMap(\.event.row)
            let stray = downloads.filter { row in !allowed.contains { $0.contains(row) } }
            #expect(stray.isEmpty, "downloads for rows never on screen: \(stray)")

            // Work for the first screen, still in flight when the scroll began, was cancelled.
            let cancels = events.filter { $0.event.name == .opCancel }.compactMap(\.event.row)
            let firstScreen = try #require(AppSession.visibleRanges(events).first)
            #expect(
                cancels.contains { $0 <= firstScreen.upperBound + Self.margin },
                "first screen \(firstScreen), cancels \(cancels)")

            // Figures for the notes: work started against rows shown at rest.
            let finalRange = AppSession.visibleRanges(events).last!
            let visibleRows = Set(AppSession.visibleRanges(events).flatMap { Array($0) })
            let filteredAt =
                events.filter { $0.event.name == .rowState && $0.event.state != .downloaded }
                .filter { finalRange.contains($0.event.row ?? -1) }.map(\.t).max() ?? endedAt
            print(
                "scroll via \(expected): \(downloads.count) downloads started for \(visibleRows.count) rows visible at rest "
                    + "(\(Set(downloads).count) distinct), \(cancels.count) cancellations, \(run.server.totalPhotoRequests) requests; "
                    + "last visible row ready \(Int((filteredAt - endedAt) * 1000)) ms after scroll end; "
                    + "scrolled to rows \(finalRange)")
        }

        @Test("Mouse wheel: suspend at the first step, resume after the quiet period, cancel what scrolled away")
        func wheel() throws {
            let run = try start()
            try run.app.xdotool([
                "mousemove", "\(run.window.x + run.window.width / 2)", "\(run.window.y + run.window.height / 2)",
            ])
            try run.app.xdotool(["click", "--repeat", "80", "--delay", "15", "5"])
            try check(run, via: .wheel)
        }

        @Test("Scrollbar drag: the held button keeps the scroll going until release")
        func scrollbar() throws {
            let run = try start()
            let x = run.window.x + run.window.width - 7
            let top = run.window.y + 70
            try run.app.xdotool([
                "mousemove", "\(x - 40)", "\(top + 10)", "sleep", "0.2", "mousemove", "\(x)", "\(top + 10)", "sleep",
                "0.3",
            ])
            try run.app.xdotool([
                "mousedown", "1", "sleep", "0.1",
                "mousemove", "\(x)", "\(top + 60)", "sleep", "0.1",
                "mousemove", "\(x)", "\(top + 140)", "sleep", "0.4",
                "mousemove", "\(x)", "\(top + 200)", "sleep", "0.1", "mouseup", "1",
            ])
            try check(run, via: .scrollbar)
        }

        @Test("Keyboard: Page Down scrolls and schedules like the wheel")
        func keyboard() throws {
            let run = try start()
            // The click selects that row and gives the list the keyboard (Escape closes the viewer,
            // were one open).
            try run.app.xdotool([
                "mousemove", "\(run.window.x + run.window.width / 2)", "\(run.window.y + 120)", "click", "1", "key",
                "Escape",
            ])
            try run.app.xdotool([
                "key", "--delay", "60", "Page_Down", "Page_Down", "Page_Down", "Page_Down", "Page_Down", "Page_Down",
            ])
            try check(run, via: .keyboard)
        }
    }
}
