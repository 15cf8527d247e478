import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension DesktopGUITests {
    /// What the viewer does to a photo, driven by real keys on the real app: the trash and
    /// Undo, rotating, Set as Background without a portal, the slideshow.
    @Suite(.serialized) struct PhotoActionsTests {
        private func key(_ app: AppSession, _ keys: String...) throws {
            try app.xdotool(["key", "--delay", "80"] + keys)
        }

        private func folder(_ name: String, pictures: Int) throws -> URL {
            let folder = try TestPictures.makeFolder(name)
            for n in 1...pictures {
                try #require(
                    TestPictures.write(
                        folder.appendingPathComponent("\(name)\(n).png"), format: "png", rgb: UInt32(0x224466 * n)))
            }
            return folder
        }

        private func filtered(_ events: [TraceRecord], rows: Int) -> Bool {
            AppSession.rowStates(events).values.filter { $0 == .filtered }.count >= rows
        }

        @Test(
            "Delete moves the photo shown to the trash (file and .trashinfo), the viewer shows the next; Ctrl+Z puts it back"
        )
        func trashAndUndo() throws {
            let photos = try folder("trash", pictures: 3)
            let dataHome = try TestPictures.makeFolder("data-home")
            defer {
                try? FileManager.default.removeItem(at: photos); try? FileManager.default.removeItem(at: dataHome)
            }
            let app = try AppSession(source: photos.path, environment: ["XDG_DATA_HOME": dataHome.path])
            try app.waitFor("rows filtered") { filtered($0, rows: 3) }
            try app.clickRow(1)
            try app.waitFor("row 1 in the viewer") {
                $0.contains { $0.event.name == .viewerImage && $0.event.row == 1 }
            }

            try key(app, "Delete")
            var events = try app.waitFor("file.trashed, and the next photo shown") { events in
                events.contains { $0.event.name == .fileTrashed }
                    && events.contains { $0.event.name == .viewerOpen && $0.event.photoName == "trash3.png" }
            }
            let trashed = try #require(events.first { $0.event.name == .fileTrashed })
            #expect(trashed.event.row == 1 && trashed.event.photoName == "trash2.png", "\(trashed.event)")
            let original = photos.appendingPathComponent("trash2.png").path
            let kept = dataHome.appendingPathComponent("Trash/files/trash2.png").path
            let info = dataHome.appendingPathComponent("Trash/info/trash2.png.trashinfo").path
            #expect(!FileManager.default.fileExists(atPath: original))
            #expect(FileManager.default.fileExists(atPath: kept))
            let trashInfo = try String(contentsOfFile: info, encoding: .utf8)
            #expect(trashInfo.contains("[Trash Info]") && trashInfo.contains("Path=\(original)"), "\(trashInfo)")
            #expect(events.contains { $0.event.name == .noticeShown && $0.event.text?.contains("trash") == true })
            // The row left the list: the viewer counts two photos, and the one shown is at row 1.
            #expect(events.last { $0.event.name == .viewerOpen }?.event.row == 1)

            try key(app, "ctrl+z")
            try app.waitFor(event: .fileRestored)
            events = app.events()
            let restored = try #require(events.first { $0.event.name == .fileRestored })
            #expect(restored.event.row == 1 && restored.event.photoName == "trash2.png", "\(restored.event)")
            #expect(FileManager.default.fileExists(atPath: original))
            #expect(!FileManager.default.fileExists(atPath: kept) && !FileManager.default.fileExists(atPath: info))
            // Shown again, and the folder watch took the file coming back for nobody's change: a
            // picture added by someone else afterwards is the first change it reports, alone (the
            // watch reports the folder's changes in the order they came).
            try app.waitFor("the photo put back shown again") { events in
                events.last { $0.event.name == .viewerOpen }?.event.photoName == "trash2.png"
            }
            #expect(TestPictures.write(photos.appendingPathComponent("trash4.png"), format: "png"))
            events = try app.waitFor("the picture added reported") { $0.contains { $0.event.name == .sourceChanged } }
            let changes = events.filter { $0.event.name == .sourceChanged }.map(\.event)
            #expect(
                changes.count == 1
                    && changes.first?.folderChange.map { [$0.added, $0.removed, $0.changed] } == [1, 0, 0]
                    && changes.first?.rows == 4,
                "the watch reported the app's own moves: \(changes)")
            #expect(app.terminate() == 0)
        }

        @Test("Ctrl+R writes the EXIF orientation, and the viewer, the row and the shared thumbnail turn")
        func rotate() throws {
            let photos = try TestPictures.makeFolder("rotate")
            let cacheHome = try TestPictures.makeFolder("rotate-cache")
            defer {
                try? FileManager.default.removeItem(at: photos); try? FileManager.default.removeItem(at: cacheHome)
            }
            let file = photos.appendingPathComponent("wide.jpg")
            try TestPictures.writeTwoTone(file, width: 400, height: 200)
            let thumbnails = ThumbnailCache(directory: cacheHome.appendingPathComponent("thumbnails"))
            // The size a 2:1 photo's thumbnail is made at (its shorter side must fill the row).
            let size = ThumbnailCache.Size.fitting(square: 80, width: 400, height: 200)
            func thumbnailSize() throws -> (Int, Int)? {
                let key = try #require(thumbnails.key(for: file))
                let path = thumbnails.location(of: key, size: size).path
                guard let info = try? run(URL(fileURLWithPath: "/usr/bin/identify"), ["-format", "%w %h", path]),
                    info.status == 0
                else { return nil }
                let parts = info.stdout.split(separator: " ").compactMap { Int($0) }
                return parts.count == 2 ? (parts[0], parts[1]) : nil
            }
            let app = try AppSession(source: file.path, environment: ["XDG_CACHE_HOME": cacheHome.path])
            var events = try app.waitFor("the row filtered and the photo in the viewer") { events in
                filtered(events, rows: 1) && events.contains { $0.event.name == .viewerImage && $0.event.row == 0 }
            }
            let before = try #require(events.last { $0.event.name == .viewerImage }?.event.imageSize)
            #expect(before.w == 400 && before.h == 200)
            let thumbnailBefore = try #require(try thumbnailSize())
            #expect(thumbnailBefore == (size.rawValue, size.rawValue / 2))

            try key(app, "ctrl+r")
            events = try app.waitFor("viewer.rotate, then the photo shown upright") { events in
                guard let turn = events.firstIndex(where: { $0.event.name == .viewerRotate }) else { return false }
                return events[turn...].contains { $0.event.name == .viewerImage && $0.event.imageSize?.w == 200 }
            }
            let rotated = try #require(events.first { $0.event.name == .viewerRotate })
            #expect(rotated.event.row == 0 && rotated.event.degrees == 90)
            #expect(ExifReader.read(try Data(contentsOf: file)).orientation == 6)
            let after = try #require(events.last { $0.event.name == .viewerImage }?.event.imageSize)
            #expect(after.w == 200 && after.h == 400)
            // The row was decoded again, from a new shared thumbnail that stands upright.
            let turnIndex = events.firstIndex { $0.event.name == .viewerRotate }!
            try app.waitFor("the row filtered again") { events in
                events.count > turnIndex
                    && events[turnIndex...].contains { $0.event.name == .rowState && $0.event.state == .filtered }
            }
            let thumbnailAfter = try #require(try thumbnailSize())
            #expect(thumbnailAfter == (size.rawValue / 2, size.rawValue))

            // On screen, the row's square now has white above black (it had white left of black),
            // once the viewer has faded out and the row's new picture is painted.
            try key(app, "Escape")
            try app.waitFor(event: .viewerClose)
            let window = try app.windowGeometry()
            let (x, y) = (window.x + 12, window.y + AppSession.headerHeight + 12)
            var (top, bottom, left, right) = (0.0, 0.0, 0.0, 0.0)
            try app.waitForScreenshot { shot in
                top = try ScreenshotStats(path: shot, region: (x, y, 70, 28)).meanLuminance
                bottom = try ScreenshotStats(path: shot, region: (x, y + 40, 70, 28)).meanLuminance
                left = try ScreenshotStats(path: shot, region: (x, y, 30, 68)).meanLuminance
                right = try ScreenshotStats(path: shot, region: (x + 40, y, 30, 68)).meanLuminance
                return top > bottom + 100 && abs(left - right) < 40
            }
            print("rotated row: top \(Int(top)), bottom \(Int(bottom)), left \(Int(left)), right \(Int(right))")
            #expect(top > bottom + 100, "the row's picture is not white above black")
            #expect(abs(left - right) < 40, "the row's picture still has a white and a black side")
            #expect(app.terminate() == 0)
        }

        @Test("Set as Background with no desktop portal says so")
        func backgroundWithoutPortal() throws {
            let photos = try folder("background", pictures: 2)
            defer { try? FileManager.default.removeItem(at: photos) }
            // A bus of the test's own, where nobody provides the portal.
            let bus = try PrivateBus()
            let app = try AppSession(source: photos.path, environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
            try app.waitFor("rows filtered") { filtered($0, rows: 2) }
            try app.clickRow(0)
            try app.waitFor("row 0 in the viewer") {
                $0.contains { $0.event.name == .viewerImage && $0.event.row == 0 }
            }
            try key(app, "ctrl+F8")
            let events = try app.waitFor("a notice") { $0.contains { $0.event.name == .noticeShown } }
            let notice = events.first { $0.event.name == .noticeShown }?.event.text
            #expect(notice == "No desktop portal to set the background", "\(String(describing: notice))")
            #expect(app.terminate() == 0)
        }

        @Test("F5 in the viewer starts the slideshow, which advances, loops at the end and stops on Escape")
        func slideshow() throws {
            let photos = try folder("slides", pictures: 3)
            defer { try? FileManager.default.removeItem(at: photos) }
            let app = try AppSession(source: photos.path)
            try app.waitFor("rows filtered") { filtered($0, rows: 3) }
            try app.clickRow(1)
            try app.waitFor("row 1 in the viewer") {
                $0.contains { $0.event.name == .viewerImage && $0.event.row == 1 }
            }
            try key(app, "F5")
            let started = try app.waitFor(event: .slideshowStart)
            // Every 5 seconds: row 2, then back to row 0.
            var events = try app.waitFor("two photos later", timeout: 20) { events in
                events.filter { $0.t > started.t && $0.event.name == .viewerOpen }.count >= 2
            }
            let shown = events.filter { $0.t > started.t && $0.event.name == .viewerOpen }
            #expect(shown.prefix(2).map(\.event.row) == [2, 0], "\(shown.map(\.event))")
            let interval = shown[1].t - shown[0].t
            #expect(interval > 4 && interval < 6.5, "\(interval) s between photos")
            #expect(!events.contains { $0.event.name == .sourceStart && $0.t > started.t }, "F5 reloaded the list")

            try key(app, "Escape")
            let stop = try app.waitFor(event: .slideshowStop)
            // Escape stopped the slideshow only: the viewer stays open, on the same photo. A
            // slide that does not come has no event to wait for: this waits past the time the
            // next would have come (5 s after the last one shown), and a little more.
            let last = try #require(app.events().last { $0.event.name == .viewerOpen && $0.t < stop.t })
            Thread.sleep(forTimeInterval: max(0, last.t + 5.5 - stop.t))
            events = app.events()
            #expect(!events.contains { $0.event.name == .viewerClose })
            #expect(!events.contains { $0.t > stop.t && $0.event.name == .viewerOpen }, "moved on after stopping")
            #expect(app.terminate() == 0)
        }

        @Test("Moving the pointer pauses the slideshow, which goes on two seconds after the pointer stops")
        func slideshowPausesOnInput() throws {
            let photos = try folder("pause", pictures: 3)
            defer { try? FileManager.default.removeItem(at: photos) }
            let app = try AppSession(source: photos.path)
            try app.waitFor("rows filtered") { filtered($0, rows: 3) }
            try app.clickRow(0)
            try app.waitFor("row 0 in the viewer") {
                $0.contains { $0.event.name == .viewerImage && $0.event.row == 0 }
            }
            let window = try app.windowGeometry()
            try key(app, "F5")
            let started = try app.waitFor(event: .slideshowStart)
            // The pointer's motion over time is what this is about (there is nothing to wait for
            // but the time): past the first second (whose motion only says where the pointer
            // is), from 1.8 s after the start, it moves every quarter second for a second and a
            // quarter, then rests.
            for step in 0..<6 {
                Thread.sleep(forTimeInterval: step == 0 ? 1.8 : 0.25)
                try app.xdotool([
                    "mousemove", "\(window.x + 100 + 20 * step)", "\(window.y + 300 + 10 * (step % 2))",
                ])
            }
            let events = try app.waitFor("the next photo", timeout: 20) { events in
                events.contains { $0.t > started.t && $0.event.name == .viewerOpen }
            }
            let next = try #require(events.first { $0.t > started.t && $0.event.name == .viewerOpen })
            let delay = next.t - started.t
            print("slideshow: next photo \(delay) s after the start (the pointer moved from 1.8 s to 3.3 s)")
            // Without the pause it would have come 5 s after the start; paused, it comes at least
            // 2 s (rest) + 5 s (interval) after the last motion, about 3.3 s after the start.
            #expect(delay > 9, "the slideshow did not pause: next photo \(delay) s after the start")
            #expect(delay < 14)
            #expect(next.event.row == 1)
            #expect(app.terminate() == 0)
        }

        @Test("A web photo is no file: Delete and Ctrl+R do nothing to it, and Copy Location gives its address")
        func webPhoto() throws {
            let server = try LoopbackServer()
            let app = try AppSession(source: server.url("/list.plist?rows=3").absoluteString)
            try app.waitFor("rows filtered") { filtered($0, rows: 3) }
            try app.clickRow(0)
            let opened = try app.waitFor("row 0 in the viewer") { events in
                events.contains { $0.event.name == .viewerImage && $0.event.row == 0 }
            }
            try key(app, "Delete", "ctrl+r", "ctrl+shift+c")
            try app.waitFor("Copy Location's notice") { $0.contains { $0.event.name == .noticeShown } }
            // Delete and Ctrl+R look for the photo's file on a thread of their own, and say
            // nothing when there is none: nothing to wait for but the time a trash or a turn
            // would take to be traced.
            Thread.sleep(forTimeInterval: 0.5)
            let events = app.events()
            #expect(!events.contains { [.fileTrashed, .viewerRotate].contains($0.event.name) })
            #expect(events.filter { $0.event.name == .noticeShown }.map(\.event.text) == ["Location copied"])
            #expect(!events.dropFirst(opened.count).contains { $0.event.name == .viewerOpen }, "the viewer moved on")
            let copied = try run(
                URL(fileURLWithPath: "/usr/bin/xclip"), ["-selection", "clipboard", "-o"],
                environment: ["DISPLAY": app.display.name], timeout: 10)
            #expect(copied.stdout.hasPrefix("http://127.0.0.1:"), "copied \(copied.stdout)")
            #expect(app.terminate() == 0)
        }
    }
}
