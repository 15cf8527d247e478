import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension GUITests {
    /// The grid beside the list, on the real app under Xvfb: switching to it and back with the
    /// keys, its size, what it remembers, its look at scale 1 and 2, the keyboard, and the
    /// scheduling of its cells as the seeds schedule rows.
    @Suite(.serialized) struct GridTests {
        /// A folder of `count` pictures of 600 × 400 pixels, each a gradient of its own colour.
        private static func folder(_ count: Int) throws -> URL {
            let folder = try TestPictures.makeFolder("grid")
            for index in 0..<count {
                // Light colours of every hue, which the sepia filter turns warm.
                let rgb = UInt32(0x90_A0_B0 + (index % 8) * 0x0C_00_00 + (index % 5) * 0x00_0A_00)
                let name = String(format: "photo-%03d.jpg", index)
                #expect(
                    TestPictures.writeGradient(folder.appendingPathComponent(name), width: 600, height: 400, rgb: rgb))
            }
            return folder
        }

        private static func layouts(_ events: [TraceRecord]) -> [(t: Double, mode: String, columns: Int, size: Int)] {
            events.compactMap { record in
                guard case .viewMode(let mode, let columns, let size) = record.event else { return nil }
                return (record.t, mode, columns, size)
            }
        }

        /// Every cell of the last visible range (after `since`) is filtered or failed.
        private static func settled(_ events: [TraceRecord], since: Double = 0) -> Bool {
            let ranges = events.filter { $0.t >= since }.compactMap { $0.event.visibleRows }
            guard let visible = ranges.last else { return false }
            let states = AppSession.rowStates(events)
            return visible.allSatisfy { states[$0] == .filtered || states[$0] == .failed }
        }

        /// Presses `keys` in turn, the pointer on the header bar (where the keyboard goes with
        /// no window manager): GTK takes them in order, each after the ones before are done.
        private func press(_ app: AppSession, _ keys: String...) throws {
            let window = try app.windowGeometry()
            _ = try app.xdotool(["mousemove", "\(window.x + window.width / 2)", "\(window.y + 20)"])
            _ = try app.xdotool(["key"] + keys)
        }

        @Test(
            "Ctrl+2 shows the grid and Ctrl+1 the list; Ctrl+plus makes fewer, larger cells decoded again at their size; Enter opens the viewer; both choices are remembered"
        )
        func gridSizeAndMemory() throws {
            let folder = try Self.folder(40)
            defer { try? FileManager.default.removeItem(at: folder) }
            let environment = try privateSettings()

            // GTK's animations off: the viewer is gone when it has closed. (Closing, it fades out;
            // a view chosen meanwhile, Ctrl+1 at once after Escape, leaves the view's actions
            // off until the viewer is opened again: Ctrl+2 then did nothing.)
            let app = try AppSession(
                arguments: [folder.path], environment: environment.merging(AppSession.withoutAnimations) { $1 })
            var events = try app.waitFor("the list settled") { Self.settled($0) }
            #expect(Self.layouts(events).last.map { [$0.mode, "\($0.columns)", "\($0.size)"] } == ["list", "1", "80"])

            try press(app, "ctrl+2")
            events = try app.waitFor("the grid's first screen settled") { events in
                guard let grid = Self.layouts(events).last(where: { $0.mode == "grid" }) else { return false }
                return Self.settled(events, since: grid.t)
            }
            let grid = try #require(Self.layouts(events).last)
            // A window 1000 pixels wide holds five cells of 160 + 12 pixels to a row.
            #expect(grid.mode == "grid" && grid.size == 160 && grid.columns == 5, "\(grid)")
            let gridScreen = try #require(
                events.last { $0.t >= grid.t && $0.event.visibleRows != nil }?.event.visibleRows)
            #expect(gridScreen.lowerBound == 0 && gridScreen.count % grid.columns == 0, "whole rows: \(gridScreen)")
            // (The cells' pictures reach the screen a frame after the trace says they are ready.)
            let shot = try app.waitForScreen(keeping: NSTemporaryDirectory() + "classic-photos-grid-scale1.png") {
                $0.sepiaPixels > 20_000
            }
            #expect(shot.sepiaPixels > 20_000, "\(shot)")

            // One size larger: four columns; the cells on screen, decoded for 160 pixels, are
            // decoded again for 192, after the zoom's scroll ended and never during it.
            try press(app, "ctrl+plus")
            events = try app.waitFor("the larger cells settled") { events in
                guard let zoomed = Self.layouts(events).last, zoomed.size == 192,
                    let end = events.last(where: { $0.event.name == .scrollEnd && $0.t > zoomed.t })
                else { return false }
                return Self.settled(events, since: end.t)
            }
            let zoomed = try #require(Self.layouts(events).last)
            #expect(zoomed.columns == 4 && zoomed.mode == "grid", "\(zoomed)")
            let begin = try #require(events.last { $0.event.name == .scrollBegin })
            #expect(begin.event.via == .zoom)
            let end = try #require(events.last { $0.event.name == .scrollEnd })
            let during = events.filter { $0.t > begin.t && $0.t < end.t }
            #expect(!during.contains { $0.event.name == .opStart }, "work started while zooming")
            let renewed = events.filter { $0.t > grid.t && $0.event.name == .rowState && $0.event.state == .new }
                .compactMap(\.event.row)
            let screen = try #require(end.event.visibleRows)
            #expect(screen.allSatisfy { renewed.contains($0) }, "cells decoded again: \(renewed), screen \(screen)")

            // The keys: Right, Down and Enter open the photo of the second row's second cell.
            try press(app, "Home", "Right", "Down", "Return")
            let opened = try app.waitFor(event: .viewerOpen)
            #expect(opened.event.row == zoomed.columns + 1)
            try press(app, "Escape")
            try app.waitFor(event: .viewerClose)
            try press(app, "ctrl+1")
            events = try app.waitFor("back to the list") { Self.layouts($0).last?.mode == "list" }
            try press(app, "ctrl+2")
            events = try app.waitFor("the grid again") { Self.layouts($0).last?.mode == "grid" }
            #expect(Self.layouts(events).last?.size == 192)
            #expect(app.terminate() == 0)

            // The next launch shows the grid at once, at the size chosen.
            let second = try AppSession(arguments: [folder.path], environment: environment)
            events = try second.waitFor("the grid settled") { Self.settled($0) }
            let first = try #require(Self.layouts(events).first)
            #expect(first.mode == "grid" && first.size == 192, "\(first)")
            #expect(second.terminate() == 0)
        }

        @Test("At scale 2 the grid lays its cells out in logical pixels and shows them sharp (screenshot)")
        func hiDPI() throws {
            let folder = try Self.folder(24)
            defer { try? FileManager.default.removeItem(at: folder) }
            let environment = try privateSettings(["view-mode": "grid"], width: 500, height: 440)
            let app = try AppSession(
                arguments: [folder.path], environment: environment.merging(["GDK_SCALE": "2"]) { $1 })
            let events = try app.waitFor("the grid settled") { Self.settled($0) }
            let layout = try #require(Self.layouts(events).last)
            // 1000 device pixels are 500 logical ones: two cells of 160 + 12 to a row.
            #expect(layout.mode == "grid" && layout.columns == 2 && layout.size == 160, "\(layout)")
            let path = NSTemporaryDirectory() + "classic-photos-grid-scale2.png"
            let shot = try app.waitForScreen(keeping: path) { $0.sepiaPixels > 20_000 }
            #expect(shot.sepiaPixels > 20_000, "\(shot)")
            print("grid screenshots: \(NSTemporaryDirectory())classic-photos-grid-scale{1,2}.png")
            #expect(app.terminate() == 0)
        }

        @Test(
            "A cell shows its whole photo, fitted into the square; a failed cell's whole story is its tooltip, shown when the pointer rests on it"
        )
        func wholePhotosAndTooltips() throws {
            let folder = try TestPictures.makeFolder("grid-whole")
            defer { try? FileManager.default.removeItem(at: folder) }
            // A panorama three times as wide as high, and a file that is no picture.
            #expect(
                TestPictures.writeGradient(
                    folder.appendingPathComponent("a-wide.jpg"), width: 900, height: 300, rgb: 0x90_A0_B0))
            try Data("not a picture at all".utf8).write(to: folder.appendingPathComponent("b-broken.jpg"))
            let environment = try privateSettings(["view-mode": "grid"], width: 1000, height: 700)
            let app = try AppSession(arguments: [folder.path], environment: environment)
            let events = try app.waitFor("the grid settled") { Self.settled($0) }
            let layout = try #require(Self.layouts(events).last)
            #expect(layout.mode == "grid" && layout.size == 160, "\(layout)")
            let window = try app.windowGeometry()
            // Away from the cells, so no tooltip covers them.
            _ = try app.xdotool(["mousemove", "\(window.x + window.width - 10)", "\(window.y + window.height - 10)"])
            // The whole panorama is 160 × 53 in the middle of its square (which begins under the
            // header bar, 61 pixels down, and 22 in): the square's top band is the window's
            // background, its middle the picture. A square cut from it would fill both. (Until
            // the picture is on screen, a frame after the trace says it is ready.)
            let before = NSTemporaryDirectory() + "classic-photos-grid-whole.png"
            var top: ScreenshotStats?, middle: ScreenshotStats?
            try app.waitForScreenshot(keeping: before) { shot in
                top = try ScreenshotStats(path: shot, region: (window.x + 30, window.y + 66, 140, 36))
                middle = try ScreenshotStats(path: shot, region: (window.x + 30, window.y + 130, 140, 20))
                return top!.meanLuminance > 235 && middle!.meanLuminance < 200
            }
            #expect(top!.meanLuminance > 235, "the band above the photo: \(top!)")
            #expect(middle!.meanLuminance < 200, "the photo: \(middle!)")

            // The pointer rests on the failed cell (the second of the first row): its tooltip, a
            // dark box under the pointer, says what went wrong.
            let cellWidth = window.width / max(1, layout.columns)
            let (x, y) = (window.x + cellWidth + cellWidth / 2, window.y + 47 + 6 + 80)
            let below = (x - 90, y + 14, 180, 24)
            let plain = try ScreenshotStats(path: before, region: below)
            for step in 0..<4 {
                _ = try app.xdotool(["mousemove", "\(x + step)", "\(y)"])
                Thread.sleep(forTimeInterval: 0.1)
            }
            // GTK shows the tooltip once the pointer has rested for its hover time.
            let hovered = NSTemporaryDirectory() + "classic-photos-grid-tooltip.png"
            let tip = try app.waitForScreen(region: below, keeping: hovered) {
                $0.meanLuminance < plain.meanLuminance - 60
            }
            #expect(
                tip.meanLuminance < plain.meanLuminance - 60,
                "a tooltip under the pointer: \(tip.meanLuminance) against \(plain.meanLuminance)")
            #expect(app.terminate() == 0)
        }

        @Test("Scrolling the grid suspends the queues, cancels the cells that left and starts those on screen")
        func scrolling() throws {
            let server = try LoopbackServer()
            server.photoLatencyMs.store(1500, ordering: .relaxed)
            let rows = 2000
            let environment = try privateSettings(["view-mode": "grid"], width: 1000, height: 700)
            let app = try AppSession(
                arguments: [server.url("/list.plist?rows=\(rows)").absoluteString], environment: environment)
            try app.waitFor("first downloads under way") { $0.contains { $0.event.name == .opStart } }
            let window = try app.windowGeometry()
            _ = try app.xdotool([
                "mousemove", "\(window.x + window.width / 2)", "\(window.y + window.height / 2)",
            ])
            _ = try app.xdotool(["click", "--repeat", "40", "--delay", "15", "5"])
            let events = try app.waitFor("the cells on screen after the scroll settled", timeout: 90) { events in
                guard let end = events.last(where: { $0.event.name == .scrollEnd }) else { return false }
                return Self.settled(events, since: end.t)
            }
            #expect(app.terminate() == 0)
            let columns = try #require(Self.layouts(events).last?.columns)
            #expect(columns == 5)
            var scrolling = false
            for name in events.map(\.event.name) {
                if name == .scrollBegin { scrolling = true }
                if name == .scrollEnd { scrolling = false }
                #expect(!(scrolling && name == .opStart), "an operation started while scrolling")
            }
            // Work only for cells on screen at rest and at most one row of cells around them.
            let allowed = AppSession.visibleRanges(events).map {
                max(0, $0.lowerBound - columns)...min(rows - 1, $0.upperBound + columns)
            }
            let downloads = events.filter { $0.event.name == .opStart && $0.event.kind == .download }
                .compactMap(\.event.row)
            let stray = downloads.filter { row in !allowed.contains { $0.contains(row) } }
            #expect(stray.isEmpty, "downloads for cells never on screen: \(stray)")
            let first = try #require(AppSession.visibleRanges(events).first)
            let cancels = events.filter { $0.event.name == .opCancel }.compactMap(\.event.row)
            #expect(cancels.contains { first.contains($0) }, "first screen \(first), cancels \(cancels)")
            let last = try #require(AppSession.visibleRanges(events).last)
            #expect(last.lowerBound > first.upperBound && last.lowerBound % columns == 0, "\(first) then \(last)")
            // The visible cells start nearest the centre of the screen first.
            let end = try #require(events.last { $0.event.name == .scrollEnd })
            let started = events.filter { $0.t > end.t && $0.event.name == .opStart && $0.event.kind == .download }
                .compactMap(\.event.row).filter { last.contains($0) }
            let rowsOnScreen = (last.upperBound / columns) - (last.lowerBound / columns) + 1
            let centreRow = last.lowerBound / columns + rowsOnScreen / 2
            // (The rows just above and below the centre are as near it; the downloads start on
            // several threads, so either may be traced first.)
            #expect(
                started.first.map { abs($0 / columns - centreRow) <= 1 } == true,
                "first started \(started.prefix(4)), screen \(last)")
            print(
                "grid scroll: \(downloads.count) downloads for \(Set(AppSession.visibleRanges(events).flatMap { Array($0) }).count) cells visible at rest, "
                    + "\(cancels.count) cancellations, \(server.totalPhotoRequests) requests; screen \(last)")
        }
    }
}
