import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension GUITests {
    /// Acting on thousands of photos at once, as a person does after Ctrl+A: the trash and
    /// Undo in a few large edits of the list, the progress said for work over a second, and
    /// Cancel, which leaves every photo either moved or shown where it was.
    @Suite(.serialized) struct BulkActionTests {
        /// A folder of `count` photos (hard links to one), and a data folder of its own for the trash.
        private static func folder(_ count: Int) throws -> (photos: URL, dataHome: URL) {
            let photos = try TestPictures.makeFolder("bulk")
            let source = Products.packageRoot.appendingPathComponent("data/photos/coffee.jpg").path
            for n in 0..<count {
                let name = photos.appendingPathComponent(String(format: "IMG_%05d.jpg", n)).path
                guard link(source, name) == 0 else { throw CocoaError(.fileWriteUnknown) }
            }
            return (photos, try TestPictures.makeFolder("bulk-data"))
        }

        private static func files(in folder: URL) -> Set<String> {
            Set((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
        }

        private static func key(_ app: AppSession, _ keys: String...) throws {
            let window = try app.windowGeometry()
            _ = try app.xdotool(["mousemove", "\(window.x + window.width / 2)", "\(window.y + 20)"])
            _ = try app.xdotool(["key", "--delay", "100"] + keys)
        }

        /// The app on `photos` (trashing into `dataHome`), its `count` photos listed and all selected.
        private static func launchAllSelected(
            _ photos: URL, count: Int, dataHome: URL, environment: [String: String] = [:]
        ) throws -> AppSession {
            let app = try AppSession(
                arguments: [photos.path],
                environment: environment.merging(["XDG_DATA_HOME": dataHome.path]) { $1 })
            try app.waitFor("the folder listed") {
                $0.contains { $0.event.name == .sourceLoaded && $0.event.rows == count }
            }
            try app.clickRow(0)
            try key(app, "Escape", "ctrl+a")
            try app.waitFor("all selected") { $0.contains { $0.event == .selectionChanged(count: count) } }
            return app
        }

        private static func batchEnd(_ events: [TraceRecord], _ kind: FileBatchKind) -> TraceRecord? {
            events.last { $0.event.batchEnded?.kind == kind }
        }

        private static func subtitle(_ events: [TraceRecord]) -> String? {
            events.compactMap { if case .windowSubtitle(let text) = $0.event { text } else { nil } }.last
        }

        @Test(
            "Ctrl+A and Delete on 4,000 photos move them all to the trash in one batch, the rows gone in one edit; Ctrl+Z puts every one back, in the folder's order, selected"
        )
        func trashAndUndoMany() throws {
            let count = 4_000
            let (photos, dataHome) = try Self.folder(count)
            defer {
                try? FileManager.default.removeItem(at: photos)
                try? FileManager.default.removeItem(at: dataHome)
            }
            let names = Self.files(in: photos)
            let app = try Self.launchAllSelected(photos, count: count, dataHome: dataHome)
            try Self.key(app, "Delete")
            var events = try app.waitFor("the batch ended", timeout: 120) { Self.batchEnd($0, .trash) != nil }
            let trashed = try #require(Self.batchEnd(events, .trash)?.event.batchEnded)
            #expect(trashed.done == count && trashed.count == count && !trashed.cancelled, "\(trashed)")
            #expect(Self.files(in: photos).isEmpty)
            let kept = Self.files(in: dataHome.appendingPathComponent("Trash/files"))
            #expect(kept == names, "\(kept.count) in the trash")
            #expect(events.filter { $0.event.name == .fileTrashed }.count == count)
            // The rows went at once, before the files: no photo on its way failed for want of its file.
            #expect(
                !events.contains { $0.event.name == .opFail }, "\(events.filter { $0.event.name == .opFail }.prefix(3))"
            )
            #expect(Self.subtitle(events) == "0 photos")

            try Self.key(app, "ctrl+z")
            events = try app.waitFor("put back", timeout: 120) { Self.batchEnd($0, .restore) != nil }
            let restored = try #require(Self.batchEnd(events, .restore))
            #expect(restored.event.batchEnded.map { $0.done == count && !$0.cancelled } == true)
            #expect(Self.files(in: photos) == names)
            #expect(Self.files(in: dataHome.appendingPathComponent("Trash/files")).isEmpty)
            let trashEnded = try #require(Self.batchEnd(events, .trash)).t
            let back = events.filter { $0.t > trashEnded && $0.event.name == .fileRestored }
            #expect(back.count == count)
            // In the folder's order: the row each went to is its number.
            let misplaced = back.filter { record in
                guard case .fileRestored(let row, _, let name) = record.event else { return true }
                return row >= count || !name.hasPrefix("IMG_")
            }
            #expect(misplaced.isEmpty)
            try app.waitFor("all selected again") {
                $0.last { $0.event.name == .selectionChanged }?.event == .selectionChanged(count: count)
            }
            #expect(app.terminate() == 0, "\(app.errorOutput.suffix(600))")
        }

        @Test(
            "Photos put back into a folder sorted by date find their places without a file read on the main thread: the photos they are compared with are read with them"
        )
        func putBackReadsNothingOnMain() throws {
            let count = 500
            let photos = try TestPictures.makeFolder("bulk-dated")
            let dataHome = try TestPictures.makeFolder("bulk-data")
            defer {
                try? FileManager.default.removeItem(at: photos)
                try? FileManager.default.removeItem(at: dataHome)
            }
            // Copies (links would share one time), the later names the older files: the
            // order by date is the names' backwards.
            let source = try Data(contentsOf: Products.packageRoot.appendingPathComponent("data/photos/coffee.jpg"))
            for n in 0..<count {
                let file = photos.appendingPathComponent(String(format: "IMG_%05d.jpg", n))
                try source.write(to: file)
                let time = Date(timeIntervalSince1970: 1_600_000_000 - Double(n) * 60)
                try FileManager.default.setAttributes([.modificationDate: time], ofItemAtPath: file.path)
            }
            let environment = try GUITests.privateSettings(["sort-by": "'date-modified'"]).merging([
                "XDG_DATA_HOME": dataHome.path
            ]) { $1 }
            let app = try AppSession(arguments: [photos.path], environment: environment)
            try app.waitFor("the folder listed") {
                $0.contains { $0.event.name == .sourceLoaded && $0.event.rows == count }
            }
            // Rows 2 to 6: the photos named 497 down to 493.
            try app.clickRow(2)
            try Self.key(app, "Escape", "shift+Down", "shift+Down", "shift+Down", "shift+Down")
            try app.waitFor("five selected") {
                $0.last { $0.event.name == .selectionChanged }?.event == .selectionChanged(count: 5)
            }
            try Self.key(app, "Delete")
            try app.waitFor("trashed") { Self.batchEnd($0, .trash) != nil }
            try Self.key(app, "ctrl+z")
            let events = try app.waitFor("put back") { Self.batchEnd($0, .restore) != nil }
            let back = events.compactMap { record -> (Int, String)? in
                guard case .fileRestored(let row, _, let name) = record.event else { return nil }
                return (row, name)
            }
            #expect(
                back.sorted { $0.0 < $1.0 }.map(\.1)
                    == (493...497).reversed().map { String(format: "IMG_%05d.jpg", $0) }, "\(back)")
            #expect(back.map(\.0).sorted() == Array(2...6))
            let onMain = events.filter { $0.event.name == .ioOnMain }.map { $0.event.text ?? "" }
            #expect(onMain.isEmpty, "\(onMain.prefix(5))")
            #expect(app.terminate() == 0, "\(app.errorOutput.suffix(600))")
        }

        @Test(
            "Work over a second says how far it is; Cancel (Alt+C) stops it: the photos moved are in the trash and one Undo brings them back, the rest never left their folder or the list"
        )
        func progressAndCancel() throws {
            let count = 600
            let (photos, dataHome) = try Self.folder(count)
            defer {
                try? FileManager.default.removeItem(at: photos)
                try? FileManager.default.removeItem(at: dataHome)
            }
            // Each file waits 10 ms: the batch takes six seconds.
            let app = try Self.launchAllSelected(
                photos, count: count, dataHome: dataHome, environment: ["CLASSIC_PHOTOS_FILE_WORK_DELAY_MS": "10"])
            try Self.key(app, "Delete")
            var events = try app.waitFor("the progress shown") { $0.contains { $0.event.name == .batchProgress } }
            let start = try #require(events.first { $0.event.name == .batchStart })
            let shown = try #require(events.first { $0.event.name == .batchProgress })
            #expect(shown.t - start.t >= 0.9, "shown only once the work has taken a second")
            let shot = NSTemporaryDirectory() + "classic-photos-bulk-progress.png"
            try app.screenshot(to: shot)
            print("progress notice: \(shot)")

            try app.xdotool(["key", "alt+c"])
            events = try app.waitFor("the batch ended", timeout: 60) { Self.batchEnd($0, .trash) != nil }
            let ended = try #require(Self.batchEnd(events, .trash)?.event.batchEnded)
            let done = ended.done
            #expect(ended.cancelled && done > 0 && done < count, "\(ended)")
            // Every photo is in one place: moved to the trash, or still in its folder and listed.
            let moved = Self.files(in: dataHome.appendingPathComponent("Trash/files"))
            let left = Self.files(in: photos)
            #expect(moved.count == done && left.count == count - done && moved.isDisjoint(with: left))
            try app.waitFor("the rest listed again") { Self.subtitle($0) == "\(count - done) photos" }
            try Self.key(app, "ctrl+z")
            try app.waitFor("put back", timeout: 60) { Self.batchEnd($0, .restore) != nil }
            #expect(Self.files(in: photos).count == count)
            try app.waitFor("all listed") { Self.subtitle($0) == "\(count) photos" }
            #expect(app.terminate() == 0, "\(app.errorOutput.suffix(600))")
        }

        @Test("Ctrl+Z while photos are on their way to the trash stops them and puts back those already moved")
        func undoWhileTrashing() throws {
            let count = 400
            let (photos, dataHome) = try Self.folder(count)
            defer {
                try? FileManager.default.removeItem(at: photos)
                try? FileManager.default.removeItem(at: dataHome)
            }
            let names = Self.files(in: photos)
            let app = try Self.launchAllSelected(
                photos, count: count, dataHome: dataHome, environment: ["CLASSIC_PHOTOS_FILE_WORK_DELAY_MS": "10"])
            try Self.key(app, "Delete")
            try app.waitFor("some moved") { $0.filter { $0.event.name == .fileTrashed }.count >= 20 }
            try Self.key(app, "ctrl+z")
            let events = try app.waitFor("stopped, and those moved put back", timeout: 60) { events in
                Self.batchEnd(events, .trash) != nil && Self.batchEnd(events, .restore) != nil
            }
            let trashed = try #require(Self.batchEnd(events, .trash)?.event.batchEnded)
            #expect(trashed.cancelled && trashed.done < count, "\(trashed)")
            let restored = try #require(Self.batchEnd(events, .restore)?.event.batchEnded)
            #expect(restored.done == trashed.done && !restored.cancelled, "\(restored)")
            #expect(Self.files(in: photos) == names)
            try app.waitFor("all listed") { Self.subtitle($0) == "\(count) photos" }
            #expect(app.terminate() == 0, "\(app.errorOutput.suffix(600))")
        }
    }
}
