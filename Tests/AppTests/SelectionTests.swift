import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension DesktopGUITests {
    /// Many photos at once, on the real app: selecting all, one Delete and one Undo for them
    /// all, the selection following its photo when the folder changes, and dragging photos out
    /// into another window.
    @Suite(.serialized) struct SelectionTests {
        private func key(_ app: AppSession, _ keys: String...) throws {
            let window = try app.windowGeometry()
            try app.xdotool(["mousemove", "\(window.x + window.width / 2)", "\(window.y + 20)"])
            try app.xdotool(["key", "--delay", "150"] + keys)
        }

        private func folder(_ name: String, pictures: Int) throws -> URL {
            let folder = try TestPictures.makeFolder(name)
            for n in 1...pictures {
                let file = folder.appendingPathComponent(String(format: "\(name)%02d.png", n))
                try #require(TestPictures.write(file, format: "png", rgb: UInt32(0x224466 &* n) & 0xFF_FFFF))
            }
            return folder
        }

        private func settled(_ events: [TraceRecord], rows: Int) -> Bool {
            AppSession.rowStates(events).values.filter { $0 == .filtered }.count >= rows
        }

        @Test(
            "Ctrl+A in the grid and Delete move every photo to the trash with one toast; Ctrl+Z puts every one back"
        )
        func trashAllAndUndo() throws {
            let photos = try folder("many", pictures: 12)
            let dataHome = try TestPictures.makeFolder("data-home")
            defer {
                try? FileManager.default.removeItem(at: photos)
                try? FileManager.default.removeItem(at: dataHome)
            }
            let names = (1...12).map { String(format: "many%02d.png", $0) }
            let app = try AppSession(source: photos.path, environment: ["XDG_DATA_HOME": dataHome.path])
            try app.waitFor("rows filtered") { settled($0, rows: 8) }
            try key(app, "ctrl+2")
            try app.waitFor("the grid") {
                $0.contains { if case .viewMode("grid", _, _) = $0.event { true } else { false } }
            }
            try key(app, "ctrl+a")
            try app.waitFor("all selected") { $0.contains { $0.event == .selectionChanged(count: 12) } }
            try key(app, "Delete")
            var events = try app.waitFor("every photo trashed") { events in
                events.filter { $0.event.name == .fileTrashed }.count == 12
            }
            #expect(Set(events.filter { $0.event.name == .fileTrashed }.compactMap(\.event.photoName)) == Set(names))
            for name in names {
                let original = photos.appendingPathComponent(name).path
                #expect(!FileManager.default.fileExists(atPath: original))
                #expect(
                    FileManager.default.fileExists(atPath: dataHome.appendingPathComponent("Trash/files/\(name)").path))
                let info = try String(
                    contentsOfFile: dataHome.appendingPathComponent("Trash/info/\(name).trashinfo").path,
                    encoding: .utf8)
                #expect(info.contains("Path=\(original)"), "\(info)")
            }
            let notices = events.filter { $0.event.name == .noticeShown }.compactMap(\.event.text)
            #expect(notices == ["12 photos moved to the trash"], "\(notices)")
            #expect(events.last { $0.event.name == .selectionChanged }?.event == .selectionChanged(count: 0))

            try key(app, "ctrl+z")
            events = try app.waitFor("every photo put back") { events in
                events.filter { $0.event.name == .fileRestored }.count == 12
            }
            for name in names {
                #expect(FileManager.default.fileExists(atPath: photos.appendingPathComponent(name).path))
                #expect(
                    !FileManager.default.fileExists(atPath: dataHome.appendingPathComponent("Trash/files/\(name)").path)
                )
            }
            // Back in the folder's order, and selected again.
            let restored = events.filter { $0.event.name == .fileRestored }
            #expect(restored.map { $0.event.row ?? -1 } == Array(0..<12), "\(restored.map(\.event))")
            #expect(restored.map { $0.event.photoName ?? "" } == names)
            try app.waitFor("the photos put back selected") {
                $0.last { $0.event.name == .selectionChanged }?.event == .selectionChanged(count: 12)
            }
            #expect(app.terminate() == 0)
        }

        @Test("The selection follows its photo when a picture is added to the folder before it")
        func selectionFollowsItsPhoto() throws {
            let photos = try folder("follow", pictures: 6)
            let dataHome = try TestPictures.makeFolder("data-home")
            defer {
                try? FileManager.default.removeItem(at: photos)
                try? FileManager.default.removeItem(at: dataHome)
            }
            let app = try AppSession(source: photos.path, environment: ["XDG_DATA_HOME": dataHome.path])
            try app.waitFor("rows filtered") { settled($0, rows: 6) }
            // Row 3 (follow04.png) selected with a click, then a picture that sorts first arrives.
            let point = try app.rowPoint(3)
            try app.xdotool(["mousemove", "\(point.x)", "\(point.y)", "click", "1"])
            try app.waitFor("one selected") { $0.contains { $0.event == .selectionChanged(count: 1) } }
            #expect(TestPictures.write(photos.appendingPathComponent("follow00.png"), format: "png"))
            try app.waitFor("the new picture listed") { $0.contains { $0.event.name == .sourceChanged } }
            // Delete acts on the photo selected, now at row 4.
            try key(app, "Delete")
            let trashed = try app.waitFor(event: .fileTrashed)
            #expect(trashed.event.photoName == "follow04.png" && trashed.event.row == 4, "\(trashed.event)")
            #expect(FileManager.default.fileExists(atPath: photos.appendingPathComponent("follow03.png").path))
            #expect(app.terminate() == 0)
        }

        @Test("Selected photos dragged out of the list drop into another window as files (text/uri-list)")
        func dragOut() throws {
            let photos = try folder("drag", pictures: 4)
            defer { try? FileManager.default.removeItem(at: photos) }
            let display = try XvfbDisplay(width: 1200, height: 700)
            let environment = ["CLASSIC_PHOTOS_SCROLL_QUIET_MS": "150"]
            let source = try AppSession(
                arguments: [photos.path], environment: environment, separateInstance: true, display: display)
            try source.waitFor("rows filtered") { settled($0, rows: 4) }
            let target = try AppSession(
                arguments: [], environment: environment, separateInstance: true, display: display)
            try target.waitFor(event: .windowShown)
            // The second window beside the first (no window manager places them).
            func window(of app: AppSession) throws -> String {
                let ids = try app.xdotool(["search", "--sync", "--onlyvisible", "--pid", "\(app.processIdentifier)"])
                return try #require(ids.split(separator: "\n").first.map(String.init))
            }
            // (--sync: until the server has each where it was asked.)
            try source.xdotool(["windowmove", "--sync", try window(of: source), "0", "0"])
            try source.xdotool(["windowmove", "--sync", try window(of: target), "600", "0"])
            let window = (x: 0, y: 0)
            // Rows 0 and 1 selected (a click, a Shift+click), dragged from row 1 to the other window.
            let row0 = (x: window.x + 200, y: window.y + AppSession.headerHeight + 40)
            let row1 = (x: row0.x, y: row0.y + 80)
            try source.xdotool(["mousemove", "\(row0.x)", "\(row0.y)", "click", "1"])
            try source.xdotool([
                "keydown", "shift", "mousemove", "\(row1.x)", "\(row1.y)", "click", "1", "keyup", "shift",
            ])
            try source.waitFor("two selected") { $0.contains { $0.event == .selectionChanged(count: 2) } }
            // Past GTK's double-click time since the Shift+click was taken, so that the press
            // begins a drag and is not a second click of that one (which opens the photo).
            AppSession.pastDoubleClickTime(since: Date())
            var steps = ["mousedown", "1"]
            for step in 1...12 {
                steps += ["sleep", "0.05", "mousemove", "\(row1.x + step * 60)", "\(row1.y + step * 10)"]
            }
            steps += ["sleep", "0.3", "mousemove", "900", "350", "sleep", "0.5", "mouseup", "1"]
            try source.xdotool(steps)
            func dropped(_ events: [TraceRecord]) -> [String] {
                events.compactMap { record in
                    if case .sourceStart(let url, _) = record.event, url.contains("/drag") { url } else { nil }
                }
            }
            let events = try target.waitFor("the dropped photos opened", timeout: 20) { dropped($0).count >= 2 }
            let opened = dropped(events)
            let expected = ["drag01.png", "drag02.png"].map { photos.appendingPathComponent($0).absoluteString }
            #expect(opened == expected, "\(opened)")
            #expect(source.terminate() == 0)
            #expect(target.terminate() == 0)
        }
    }
}
