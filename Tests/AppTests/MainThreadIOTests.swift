import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension GUITests {
    /// The main thread never waits on the disk: what a tooltip or the floating place label
    /// shows of a photo beyond its name is read on another thread and shown when it comes.
    @Suite(.serialized) struct MainThreadIOTests {
        /// Rests the pointer on rows `rows` of `app`'s list in turn, each until its tooltip is
        /// asked for (GTK asks half a second after the pointer stops, then at once on each move).
        private static func hover(_ app: AppSession, _ rows: ClosedRange<Int>) throws {
            let window = try app.windowGeometry()
            for row in rows {
                let y = window.y + AppSession.headerHeight + 80 * row + 40
                let before = app.events().filter { $0.event.name == .rowTooltip }.count
                // GTK forgets a pending tooltip when the rows under a still pointer are bound
                // again (the list sorted meanwhile): the pointer moves a pixel and waits again.
                for nudge in 0..<5 {
                    if nudge > 0 {
                        // Off the rows first, to the header bar: the tooltip of the row before,
                        // shown late on a loaded machine, can lie under the pointer and take
                        // its moves; leaving the rows lets it go, and coming back asks anew.
                        try app.xdotool(["mousemove", "\(window.x + window.width / 2)", "\(window.y + 12)"])
                    }
                    try app.xdotool(["mousemove", "\(window.x + window.width / 2 + nudge)", "\(y)"])
                    let deadline = Date().addingTimeInterval(3)
                    var asked = false
                    while !asked, Date() < deadline {
                        usleep(50_000)
                        asked = app.events().filter { $0.event.name == .rowTooltip }.count > before
                    }
                    if asked { break }
                    if nudge == 4 { throw AppSessionError.timeout("row \(row)'s tooltip was never asked for") }
                }
            }
        }

        private static func diskWorkOnMain(_ events: [TraceRecord]) -> Set<String> {
            Set(events.filter { $0.event.name == .ioOnMain }.map { $0.event.text ?? "" })
        }

        @Test(
            "Hovering rows and scrolling while a tree of 100,000 photos is read, and after, stats no file and queries no index on the main thread"
        )
        func hoverWhileReading() throws {
            let top = try GridLayoutTests.tree()
            defer { try? FileManager.default.removeItem(at: top) }
            // Sorted by date taken: once its names are in, every photo's date is read (and
            // the index is read and written) while the pointer rests on the rows.
            let app = try AppSession(
                arguments: ["--recursive", top.appendingPathComponent("photos").path],
                environment: try GUITests.privateSettings(["sort-by": "date-taken"]),
                display: XvfbDisplay(width: 1400, height: 1000))
            try app.waitFor(event: .windowShown)
            try Self.hover(app, 0...4)
            try app.xdotool(["click", "--repeat", "6", "--delay", "40", "5"]) // the place label shows
            try Self.hover(app, 0...2)
            try app.waitFor("the tree read and sorted", timeout: 180) { events in
                events.contains { $0.event.name == .sourceLoaded && $0.event.rows == 100_000 }
                    && events.contains { $0.event.name == .listSorted }
            }
            try Self.hover(app, 0...3)
            try app.xdotool(["click", "--repeat", "6", "--delay", "40", "5"])
            try Self.hover(app, 4...5)
            let events = app.events()
            let tooltips = events.filter { $0.event.name == .rowTooltip }
            #expect(tooltips.count >= 12)
            let sorted = try #require(events.first { $0.event.name == .listSorted })
            #expect(tooltips.contains { $0.t < sorted.t }, "no row hovered while the tree was read (by \(sorted.t) s)")
            #expect(Self.diskWorkOnMain(events).isEmpty, "disk work on the main thread: \(Self.diskWorkOnMain(events))")
            #expect(app.terminate() == 0, "\(app.errorOutput.suffix(600))")
        }

        @Test(
            "A photo's tooltip tells its size, camera and date taken from the index once they are read, off the main thread"
        )
        func tooltipFromIndex() throws {
            let folder = try TestPictures.makeFolder("described")
            defer { try? FileManager.default.removeItem(at: folder) }
            for n in 1...6 {
                let jpeg = try TestPictures.jpegWithExif(
                    make: "Cam", model: "One", original: "2021:07:0\(n) 18:30:05", orientation: 1, little: true)
                try jpeg.write(to: folder.appendingPathComponent("photo\(n).jpg"))
            }
            // Sorted by date taken: the dates are read, and the index keeps what was read.
            let environment = try GUITests.privateSettings(["sort-by": "date-taken"])
            let app = try AppSession(arguments: [folder.path], environment: environment)
            try app.waitFor(event: .sourceLoaded)
            func described(_ events: [TraceRecord]) -> Bool {
                events.contains { $0.event.name == .rowTooltip && ($0.event.text ?? "").contains("18:30") }
            }
            var events = app.events()
            for _ in 0..<20 where !described(events) { // the first asks start the reading
                try Self.hover(app, 0...2)
                events = app.events()
            }
            #expect(described(events), "\(events.filter { $0.event.name == .rowTooltip }.map(\.event))")
            #expect(Self.diskWorkOnMain(events).isEmpty, "disk work on the main thread: \(Self.diskWorkOnMain(events))")
            #expect(app.terminate() == 0, "\(app.errorOutput.suffix(600))")
        }
    }
}
