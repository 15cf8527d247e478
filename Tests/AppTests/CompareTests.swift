import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension GUITests {
    /// The compare view, driven as a person would: photos selected in the list, C, zoom and a
    /// drag in one pane, stars given with the pointer over another, Escape.
    @Suite(.serialized) struct CompareTests {
        /// The last `compare.view` of each photo: its zoom and centre.
        private func views(_ events: [TraceRecord]) -> [PhotoID: (level: Double, x: Double, y: Double)] {
            var views: [PhotoID: (level: Double, x: Double, y: Double)] = [:]
            for case .compareView(let id, let level, let x, let y) in events.map(\.event) { views[id] = (level, x, y) }
            return views
        }

        @Test(
            "C compares the 3 photos selected side by side, zoomed and panned together; 4 stars go to the one under the pointer; Escape keeps the selection"
        )
        func compareThree() throws {
            let folder = try TestPictures.makeFolder("compare-three")
            defer { try? FileManager.default.removeItem(at: folder) }
            for n in 1...5 {
                let file = folder.appendingPathComponent(String(format: "b%02d.jpg", n))
                // Of different sizes: the same zoom and the same part of each is not the same pixels.
                try #require(
                    TestPictures.writeGradient(
                        file, width: Int32(1000 + 300 * n), height: Int32(750 + 225 * n),
                        rgb: UInt32(n * 0x3F6A91 % 0xFFFFFF)))
            }
            let app = try AppSession(arguments: [folder.path])
            defer { _ = app.terminate() }
            try app.waitFor(event: .sourceLoaded)
            try app.waitFor("rows shown") { $0.contains { $0.event.name == .rowShown && $0.event.row == 2 } }
            // Rows 0 to 2 selected: a click, then Shift and a click.
            let first = try app.rowPoint(0), third = try app.rowPoint(2)
            _ = try app.xdotool(["mousemove", "\(first.x)", "\(first.y)", "click", "1"])
            _ = try app.xdotool([
                "keydown", "shift", "mousemove", "\(third.x)", "\(third.y)", "click", "1", "keyup", "shift",
            ])
            try app.waitFor("3 selected") { events in
                if case .selectionChanged(3)? = events.last(where: { $0.event.name == .selectionChanged })?.event {
                    true
                } else {
                    false
                }
            }
            let selected = app.events().filter { $0.event.name == .selectionChanged }.count
            _ = try app.xdotool(["key", "c"])
            var events = try app.waitFor("3 photos compared, sepia") { events in
                events.contains { if case .compareOpen(3) = $0.event { true } else { false } }
                    && Set(
                        events.filter { $0.event.name == .compareImage && $0.event.viewerState == .filtered }
                            .compactMap(\.event.viewerPhoto)
                    ).count == 3
            }
            let ids = Array(
                Set(events.filter { $0.event.name == .compareImage }.compactMap(\.event.viewerPhoto)))
            #expect(ids.count == 3)

            // The middle pane: the window's width in three, below the title.
            let window = try app.windowGeometry()
            let paneWidth = (window.width - 12) / 3
            let top = window.y + AppSession.headerHeight + 64
            let middle = (x: window.x + 6 + paneWidth + paneWidth / 2, y: top + (window.height - 47 - 70) / 2)
            _ = try app.xdotool(["mousemove", "\(middle.x)", "\(middle.y)"])
            let fitted = try #require(views(app.events()).values.map(\.level).max())
            var mark = app.events().count
            _ = try app.xdotool(["key", "--delay", "100", "plus", "plus", "plus"])
            events = try app.waitFor("zoomed together") { events in
                let zoomed = views(Array(events.dropFirst(mark)))
                return zoomed.count == 3 && zoomed.values.allSatisfy { $0.level > fitted * 1.8 }
            }
            let zoomed = views(Array(events.dropFirst(mark)))
            let levels = zoomed.values.map(\.level)
            #expect(levels.max()! - levels.min()! < 0.001, "zooms \(levels)")
            // A drag in the middle pane pans every photo to the same part.
            mark = app.events().count
            _ = try app.xdotool([
                "mousedown", "1", "mousemove", "--sync", "\(middle.x - 15)", "\(middle.y - 10)", "mousemove", "--sync",
                "\(middle.x - 30)", "\(middle.y - 20)", "mouseup", "1",
            ])
            events = try app.waitFor("panned together") { events in
                let panned = views(Array(events.dropFirst(mark)))
                return panned.count == 3 && panned.values.allSatisfy { $0.x > 0.52 }
            }
            let panned = views(Array(events.dropFirst(mark)))
            let xs = panned.values.map(\.x), ys = panned.values.map(\.y)
            #expect(xs.max()! - xs.min()! < 0.001 && ys.max()! - ys.min()! < 0.001, "centres \(panned)")
            try app.screenshot(to: NSTemporaryDirectory() + "classic-photos-compare.png")

            // 4: stars for the photo under the pointer (the middle one, the pointer back over it
            // after the drag), not the others.
            _ = try app.xdotool([
                "mousemove", "\(middle.x + 10)", "\(middle.y)", "mousemove", "\(middle.x)", "\(middle.y)",
            ])
            let second = try #require(
                app.events().compactMap { record -> PhotoID? in
                    if case .rowShown(_, let id, "b02.jpg", _) = record.event { id } else { nil }
                }.last)
            events = try app.waitFor("the pointer over the middle photo, b02.jpg") { events in
                events.last { $0.event.name == .compareFocus }?.event.viewerPhoto == second
            }
            let focused = second
            mark = app.events().count
            _ = try app.xdotool(["key", "4"])
            events = try app.waitFor("4 stars given") { events in
                events.dropFirst(mark).contains { $0.event.name == .photoMarked }
            }
            let marked = events.dropFirst(mark).compactMap { record -> PhotoID? in
                if case .rowMarks(_, let id, 4, _, _) = record.event { id } else { nil }
            }
            #expect(Set(marked) == [focused], "marked \(marked), under the pointer \(focused)")

            // Escape: back to the list, the 3 photos still selected.
            _ = try app.xdotool(["key", "Escape"])
            // (Closing touches no selection: a change would be traced before the close.)
            events = try app.waitFor("closed") { $0.contains { $0.event.name == .compareClose } }
            #expect(events.filter { $0.event.name == .selectionChanged }.count == selected, "the selection changed")
            #expect(app.terminate() == 0)
        }
    }
}
