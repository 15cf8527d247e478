import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension DesktopGUITests {
    /// Stars, rejects and labels given with the keys on the real app: on the rows selected and
    /// in the viewer, shown at once, written to sidecars other apps read, undone together, read
    /// again on the next start.
    @Suite(.serialized) struct MarksAppTests {
        private func key(_ app: AppSession, _ keys: String...) throws {
            try app.xdotool(["key", "--delay", "80"] + keys)
        }

        /// What exiftool reads as the photo's rating from its sidecar (nil: no sidecar or none).
        private func sidecarRating(_ photo: URL) throws -> String? {
            let sidecar = photo.path + ".xmp"
            guard FileManager.default.fileExists(atPath: sidecar) else { return nil }
            let read = try run(
                URL(fileURLWithPath: "/usr/bin/exiftool"), ["-s3", "-XMP-xmp:Rating", sidecar], timeout: 60)
            try #require(read.status == 0, "\(read.stderr)")
            let text = read.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            return text.isEmpty ? nil : text
        }

        private func sidecarLabel(_ photo: URL) throws -> String {
            let read = try run(
                URL(fileURLWithPath: "/usr/bin/exiftool"), ["-s3", "-XMP-xmp:Label", photo.path + ".xmp"],
                timeout: 60)
            return read.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// The marks each row shows, as last traced.
        private func rowMarks(_ events: [TraceRecord]) -> [Int: (rating: Int, label: String)] {
            var shown: [Int: (Int, String)] = [:]
            for case .rowMarks(let row, _, let rating, let label, _) in events.map(\.event) {
                shown[row] = (rating, label)
            }
            return shown
        }

        private func marked(_ events: [TraceRecord], after: Int) -> [(count: Int, rating: Int?, label: String?)] {
            events.dropFirst(after).compactMap {
                if case .photoMarked(let count, let rating, let label, _, _) = $0.event {
                    (count, rating, label)
                } else {
                    nil
                }
            }
        }

        /// Waits until `count` more batches of marks have been written.
        private func waitForWritten(_ app: AppSession, after before: Int, count: Int = 1) throws -> [TraceRecord] {
            try app.waitFor("\(count) batch(es) of marks written") { events in
                events.dropFirst(before).filter {
                    if case .batchEnd(.mark, _, _, _, _) = $0.event { true } else { false }
                }.count >= count
            }
        }

        @Test(
            "3 on three rows selected gives them three stars (sidecars exiftool reads, rows show them); Ctrl+Z takes them back; X and 6 reject and label; the next start shows them, and a sidecar another app changes or makes (either name)"
        )
        func rateRowsAndUndo() throws {
            let folder = try TestPictures.makeFolder("marks")
            defer { try? FileManager.default.removeItem(at: folder) }
            let photos = (1...5).map { folder.appendingPathComponent("m\($0).png") }
            for (n, photo) in photos.enumerated() {
                try #require(TestPictures.write(photo, format: "png", rgb: UInt32(0x335577 * (n + 1))))
            }
            let cache = try TestPictures.makeFolder("marks-cache")
            defer { try? FileManager.default.removeItem(at: cache) }
            var app: AppSession? = try AppSession(source: folder.path, environment: ["XDG_CACHE_HOME": cache.path])
            let session = try #require(app)
            try session.waitFor("rows filtered") {
                AppSession.rowStates($0).values.filter { $0 == .filtered }.count >= 5
            }
            // Rows 0 to 2 selected, then 3.
            let first = try session.rowPoint(0)
            _ = try session.xdotool(["mousemove", "\(first.x)", "\(first.y)", "click", "1"])
            try key(session, "shift+Down", "shift+Down")
            try session.waitFor("three selected") {
                $0.last { $0.event.name == .selectionChanged }?.event == .selectionChanged(count: 3)
            }
            var before = session.events().count
            try key(session, "3")
            var events = try waitForWritten(session, after: before)
            #expect(marked(events, after: before).first.map { $0.count == 3 && $0.rating == 3 } == true)
            events = try session.waitFor("rows 0 to 2 show three stars") { events in
                let shown = rowMarks(events)
                return (0...2).allSatisfy { shown[$0]?.rating == 3 }
            }
            for photo in photos[0...2] { #expect(try sidecarRating(photo) == "3", "\(photo.lastPathComponent)") }
            #expect(try sidecarRating(photos[3]) == nil, "a photo not selected is left alone")

            // One Undo takes back the three.
            before = events.count
            try key(session, "ctrl+z")
            events = try waitForWritten(session, after: before)
            #expect(marked(events, after: before).first.map { $0.count == 3 && $0.rating == 0 } == true)
            events = try session.waitFor("rows 0 to 2 show no stars") { events in
                let shown = rowMarks(events)
                return (0...2).allSatisfy { shown[$0]?.rating == 0 }
            }
            // No stars: no xmp:Rating (as Lightroom and darktable leave it), the sidecar kept.
            for photo in photos[0...2] {
                #expect(FileManager.default.fileExists(atPath: photo.path + ".xmp"))
                #expect(try sidecarRating(photo) == nil, "\(photo.lastPathComponent)")
            }

            // X rejects the photo selected alone, again takes the reject back; 6 labels it red.
            try key(session, "Down")
            try session.waitFor("row 3 alone selected") {
                $0.last { $0.event.name == .selectionChanged }?.event == .selectionChanged(count: 1)
            }
            before = session.events().count
            try key(session, "x")
            _ = try waitForWritten(session, after: before)
            try session.waitFor("row 3 rejected") { rowMarks($0)[3]?.rating == -1 }
            #expect(try sidecarRating(photos[3]) == "-1")
            before = session.events().count
            try key(session, "x")
            _ = try waitForWritten(session, after: before)
            try session.waitFor("row 3 not rejected") { rowMarks($0)[3]?.rating == 0 }
            before = session.events().count
            try key(session, "x", "6")
            _ = try waitForWritten(session, after: before, count: 2)
            try session.waitFor("row 3 rejected and red") { rowMarks($0)[3].map { $0 == (-1, "Red") } == true }
            #expect(try sidecarLabel(photos[3]) == "Red")
            try session.screenshot(to: NSTemporaryDirectory() + "classic-photos-marks-list.png")
            app = nil

            // The next start shows what the sidecars hold.
            let again = try AppSession(source: folder.path, environment: ["XDG_CACHE_HOME": cache.path])
            try again.waitFor("row 3 shown rejected and red from its sidecar") {
                rowMarks($0)[3].map { $0 == (-1, "Red") } == true
            }
            #expect(rowMarks(again.events())[0] == nil, "rows with no marks trace none")
            // Another app gives m1 five stars in its sidecar: the row follows.
            let changed = try run(
                URL(fileURLWithPath: "/usr/bin/exiftool"),
                ["-q", "-overwrite_original", "-XMP-xmp:Rating=5", photos[0].path + ".xmp"], timeout: 60)
            try #require(changed.status == 0, "\(changed.stderr)")
            try again.waitFor("row 0 shows the five stars another app gave") { rowMarks($0)[0]?.rating == 5 }
            // Lightroom names its sidecar without the photo's extension: m5.xmp.
            let lightroom = try run(
                URL(fileURLWithPath: "/usr/bin/exiftool"),
                ["-q", "-o", folder.appendingPathComponent("m5.xmp").path, "-XMP-xmp:Rating=2", photos[4].path],
                timeout: 60)
            try #require(lightroom.status == 0, "\(lightroom.stderr)")
            try again.waitFor("row 4 shows the two stars of m5.xmp") { rowMarks($0)[4]?.rating == 2 }
        }

        @Test(
            "In the viewer the digits rate the photo shown and Ctrl+0 / Ctrl+1 zoom; a photo whose sidecar cannot be written keeps its marks, said once"
        )
        func viewerAndUnwritable() throws {
            let folder = try TestPictures.makeFolder("marks-viewer")
            defer { try? FileManager.default.removeItem(at: folder) }
            let photos = (1...3).map { folder.appendingPathComponent("v\($0).png") }
            // Larger than the window: fitted, it is shown below 100 %.
            for (n, photo) in photos.enumerated() {
                try #require(TestPictures.write(photo, format: "png", rgb: UInt32(0x553311 * (n + 1)), size: 2400))
            }
            // v2 and v3 have sidecars cut short (XMP no reader takes): they are not written over.
            let damaged = Data("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF".utf8)
            for photo in photos[1...2] { try damaged.write(to: URL(fileURLWithPath: photo.path + ".xmp")) }
            let app = try AppSession(source: folder.path)
            try app.waitFor("rows filtered") { AppSession.rowStates($0).values.filter { $0 == .filtered }.count >= 3 }
            try app.clickRow(0)
            try app.waitFor("row 0 in the viewer") {
                $0.contains { $0.event.name == .viewerImage && $0.event.row == 0 }
            }
            var before = app.events().count
            try key(app, "5")
            var events = try waitForWritten(app, after: before)
            #expect(marked(events, after: before).first.map { $0.count == 1 && $0.rating == 5 } == true)
            #expect(try sidecarRating(photos[0]) == "5")
            #expect(!events.dropFirst(before).contains { $0.event.name == .viewerZoom }, "5 is no zoom")
            try key(app, "ctrl+1")
            try app.waitFor("Ctrl+1: 100 %") { $0.last { $0.event.name == .viewerZoom }?.event.zoomLevel == 1.0 }
            try key(app, "ctrl+0")
            try app.waitFor("Ctrl+0: fitted again") {
                ($0.last { $0.event.name == .viewerZoom }?.event.zoomLevel ?? 1) < 1.0
            }

            // v2, then v3: their marks stay (shown, in the index), and the user is told once.
            try key(app, "Right")
            try app.waitFor("v2 shown") { $0.last { $0.event.name == .viewerOpen }?.event.row == 1 }
            before = app.events().count
            try key(app, "2")
            _ = try waitForWritten(app, after: before)
            try key(app, "Right")
            try app.waitFor("v3 shown") { $0.last { $0.event.name == .viewerOpen }?.event.row == 2 }
            try key(app, "4")
            events = try waitForWritten(app, after: before, count: 2)
            let notices = events.dropFirst(before).compactMap { $0.event.name == .noticeShown ? $0.event.text : nil }
            #expect(notices.count == 1 && notices.first?.contains("marks-viewer") == true, "\(notices)")
            try app.screenshot(to: NSTemporaryDirectory() + "classic-photos-marks-viewer.png")
            for photo in photos[1...2] {
                #expect(try Data(contentsOf: URL(fileURLWithPath: photo.path + ".xmp")) == damaged)
            }
            try key(app, "Escape")
            try app.waitFor("rows 1 and 2 show their marks") { events in
                let shown = rowMarks(events)
                return shown[1]?.rating == 2 && shown[2]?.rating == 4
            }
        }

        @Test(
            "With Write Marks into Photos on, 3 goes into a JPEG itself (exiftool reads it there, no sidecar is made, the row keeps its thumbnail); Ctrl+Z takes it out"
        )
        func intoPhotos() throws {
            let folder = try TestPictures.makeFolder("marks-in-photos")
            defer { try? FileManager.default.removeItem(at: folder) }
            let photos = (1...2).map { folder.appendingPathComponent("IMG_000\($0).jpg") }
            for photo in photos {
                try FileManager.default.copyItem(
                    at: Products.packageRoot.appendingPathComponent("data/photos/coffee.jpg"), to: photo)
            }
            let photoRating = { (photo: URL) throws -> String in
                let read = try run(
                    URL(fileURLWithPath: "/usr/bin/exiftool"), ["-s3", "-XMP-xmp:Rating", photo.path], timeout: 60)
                try #require(read.status == 0, "\(read.stderr)")
                return read.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let environment = try GUITests.privateSettings(["write-marks-into-photos": "true"])
            let app = try AppSession(source: folder.path, environment: environment)
            try app.waitFor("rows filtered") { AppSession.rowStates($0).values.filter { $0 == .filtered }.count >= 2 }
            let first = try app.rowPoint(0)
            _ = try app.xdotool(["mousemove", "\(first.x)", "\(first.y)", "click", "1"])
            try app.waitFor("row 0 selected") {
                $0.last { $0.event.name == .selectionChanged }?.event == .selectionChanged(count: 1)
            }
            var before = app.events().count
            try key(app, "3")
            var events = try waitForWritten(app, after: before)
            #expect(try photoRating(photos[0]) == "3", "written into the photo")
            #expect(try photoRating(photos[1]).isEmpty, "a photo not selected is left alone")
            #expect(MarksFiles.sidecar(for: photos[0].path) == nil, "no sidecar made")
            try app.waitFor("row 0 shows three stars") { rowMarks($0)[0]?.rating == 3 }
            try app.screenshot(to: NSTemporaryDirectory() + "classic-photos-marks-in-photos.png")
            // The app's own rewrite of the photo is not taken for another app's change (the
            // folder watch reports 150 ms after the folder falls quiet; exiftool's three reads
            // above took longer than that): the row was not loaded again.
            events = app.events()
            #expect(!events.contains { $0.event.name == .sourceChanged }, "the folder watch took the app's own change")
            #expect(events.filter { $0.event.name == .opStart && $0.event.row == 0 }.count == 2, "loaded once")

            before = app.events().count
            try key(app, "ctrl+z")
            events = try waitForWritten(app, after: before)
            #expect(try photoRating(photos[0]).isEmpty, "taken out of the photo again")
            try app.waitFor("row 0 shows no stars") { rowMarks($0)[0]?.rating == 0 }
        }

        @Test(
            "Quitting while marks are written puts the sidecars written so far in place, whole, and leaves no temporary file"
        )
        func quitWhileMarking() throws {
            let folder = try TestPictures.makeFolder("marks-quit")
            defer { try? FileManager.default.removeItem(at: folder) }
            let photos = (0..<300).map { folder.appendingPathComponent(String(format: "q%03d.png", $0)) }
            try #require(TestPictures.write(photos[0], format: "png"))
            for photo in photos.dropFirst() { try FileManager.default.linkItem(at: photos[0], to: photo) }
            // Each photo's work paced (40 ms), so that the app is quit mid-batch, its first
            // group of sidecars (256) not yet renamed into place.
            let app = try AppSession(source: folder.path, environment: ["CLASSIC_PHOTOS_FILE_WORK_DELAY_MS": "40"])
            // A click opens the photo in the viewer: Escape, back to the list.
            try app.clickRow(0)
            try key(app, "Escape", "ctrl+a")
            try app.waitFor("all selected") { $0.contains { $0.event == .selectionChanged(count: 300) } }
            try key(app, "3")
            try app.waitFor("the marks' first progress") { events in
                events.contains { if case .batchProgress(.mark, _, _) = $0.event { true } else { false } }
            }
            #expect(app.terminate() == 0)
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(!names.contains { $0.contains("~") }, "temporary files left: \(names.filter { $0.contains("~") })")
            let sidecars = names.filter { $0.hasSuffix(".xmp") }
            #expect(!sidecars.isEmpty && sidecars.count < 300, "quit mid-batch: \(sidecars.count) sidecars")
            let read = try run(
                URL(fileURLWithPath: "/usr/bin/exiftool"),
                ["-s3", "-XMP-xmp:Rating"] + sidecars.map { folder.appendingPathComponent($0).path }, timeout: 120)
            let ratings = read.stdout.split(separator: "\n").filter {
                !$0.hasPrefix("=") && !$0.contains("image files")
            }
            #expect(ratings.count == sidecars.count && ratings.allSatisfy { $0 == "3" }, "\(read.stdout.prefix(300))")
        }

        @Test(
            "10,000 photos given 3 stars at once: a sidecar each, whole, no temporary left; the filter finds all 10,000; one Undo takes them all back"
        )
        func tenThousandAtOnce() throws {
            let folder = try TestPictures.makeFolder("marks-many")
            defer { try? FileManager.default.removeItem(at: folder) }
            let count = 10_000
            let photos = (0..<count).map { folder.appendingPathComponent(String(format: "p%05d.png", $0)) }
            try #require(TestPictures.write(photos[0], format: "png"))
            for photo in photos.dropFirst() { try FileManager.default.linkItem(at: photos[0], to: photo) }
            let cache = try TestPictures.makeFolder("marks-many-cache")
            defer { try? FileManager.default.removeItem(at: cache) }
            let app = try AppSession(source: folder.path, environment: ["XDG_CACHE_HOME": cache.path])
            try app.clickRow(0)
            try key(app, "Escape", "ctrl+a")
            try app.waitFor("all selected") { $0.contains { $0.event == .selectionChanged(count: count) } }
            var before = app.events().count
            try key(app, "3")
            var events = try waitForWritten(app, after: before)
            #expect(marked(events, after: before).first.map { $0.count == count && $0.rating == 3 } == true)
            let ended = events.dropFirst(before).compactMap { record -> (done: Int, cancelled: Bool)? in
                if case .batchEnd(.mark, let done, _, let cancelled, _) = record.event {
                    (done, cancelled)
                } else {
                    nil
                }
            }
            #expect(ended.first.map { $0.done == count && !$0.cancelled } == true, "\(ended)")
            var names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(names.filter { $0.hasSuffix(".png.xmp") }.count == count, "a sidecar for each photo")
            #expect(!names.contains { $0.contains("~") }, "no temporary file left")
            // Every hundredth sidecar, by exiftool.
            let sample = stride(from: 0, to: count, by: 100).map { photos[$0].path + ".xmp" }
            let read = try run(
                URL(fileURLWithPath: "/usr/bin/exiftool"), ["-s3", "-XMP-xmp:Rating"] + sample, timeout: 120)
            let ratings = read.stdout.split(separator: "\n").filter { !$0.hasPrefix("=") && !$0.contains("files read") }
            #expect(ratings.count == sample.count && ratings.allSatisfy { $0 == "3" }, "\(read.stdout.prefix(300))")

            // The filter (3 stars or more) finds them all, from what the marking told the index.
            before = app.events().count
            try key(app, "ctrl+shift+f", "3")
            try app.waitFor("3 stars or more: all") { events in
                guard
                    case .filterChanged(let shown, let total, false, _, _) = events.dropFirst(before).last(where: {
                        $0.event.name == .filterChanged
                    })?.event
                else { return false }
                return shown == count && total == count
            }
            try key(app, "ctrl+shift+f", "a")

            // One Undo: every photo back to no stars, every sidecar without a rating.
            before = app.events().count
            try key(app, "ctrl+z")
            events = try waitForWritten(app, after: before)
            #expect(marked(events, after: before).first.map { $0.count == count && $0.rating == 0 } == true)
            let undone = try run(
                URL(fileURLWithPath: "/usr/bin/exiftool"), ["-s3", "-XMP-xmp:Rating"] + sample, timeout: 120)
            let left = undone.stdout.split(separator: "\n").filter { !$0.hasPrefix("=") && !$0.contains("files read") }
            #expect(left.isEmpty, "ratings left: \(left.prefix(5))")
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(!names.contains { $0.contains("~") }, "no temporary file left")
        }

        @Test(
            "A web list's photo takes marks too: the app keeps them itself (said once), shows them, and has them again on the next start"
        )
        func marksOfPhotosElsewhere() throws {
            let server = try LoopbackServer()
            let cache = try TestPictures.makeFolder("marks-web-cache")
            defer { try? FileManager.default.removeItem(at: cache) }
            let list = server.url("/list.plist?rows=3").absoluteString
            var app = try AppSession(source: list, environment: ["XDG_CACHE_HOME": cache.path])
            try app.waitFor("rows filtered") { AppSession.rowStates($0).values.filter { $0 == .filtered }.count >= 3 }
            try app.clickRow(0)
            try app.waitFor("row 0 in the viewer") {
                $0.contains { $0.event.name == .viewerImage && $0.event.row == 0 }
            }
            var marking = app.events().count
            try key(app, "4")
            var events = try waitForWritten(app, after: marking)
            #expect(marked(events, after: marking).first.map { $0.count == 1 && $0.rating == 4 } == true)
            try key(app, "Right")
            try app.waitFor("row 1 in the viewer") { $0.last { $0.event.name == .viewerOpen }?.event.row == 1 }
            marking = app.events().count
            try key(app, "x")
            events = try waitForWritten(app, after: marking)
            let notices = events.compactMap { $0.event.name == .noticeShown ? $0.event.text : nil }
            #expect(notices.count == 1 && notices.first?.contains("Classic Photos") == true, "said once: \(notices)")
            try key(app, "Escape")
            try app.waitFor("rows 0 and 1 show their marks") {
                rowMarks($0)[0]?.rating == 4 && rowMarks($0)[1]?.rating == -1
            }
            #expect(app.terminate() == 0)

            // The next start: the index has them.
            app = try AppSession(source: list, environment: ["XDG_CACHE_HOME": cache.path])
            defer { _ = app.terminate() }
            try app.waitFor("rows 0 and 1 show their marks again") {
                rowMarks($0)[0]?.rating == 4 && rowMarks($0)[1]?.rating == -1
            }
            // The filter finds them by the index too: 4 stars or more, one of three.
            let before = app.events().count
            try key(app, "ctrl+shift+f", "4")
            try app.waitFor("4 stars or more: one of three") { events in
                guard
                    case .filterChanged(let shown, let total, false, _, _) = events.dropFirst(before).last(where: {
                        $0.event.name == .filterChanged
                    })?.event
                else { return false }
                return shown == 1 && total == 3
            }
        }
    }
}
