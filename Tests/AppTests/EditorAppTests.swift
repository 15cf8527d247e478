import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension DesktopGUITests {
    /// The photo editor, driven by real keys on the real app: a JPEG turned and cropped, Undo
    /// inside the editor, saved as a copy without decoding it, and the copy listed beside it.
    @Suite(.serialized) struct EditorAppTests {
        private func key(_ app: AppSession, _ keys: String...) throws {
            try key(app, keys)
        }

        private func key(_ app: AppSession, _ keys: [String]) throws {
            try app.xdotool(["key", "--delay", "80"] + keys)
        }

        /// The size of the picture at `path`, and the grey of its pixel at (`x`, `y`).
        private func look(_ path: String, x: Int, y: Int) throws -> (w: Int, h: Int, grey: Int) {
            let out = try run(
                URL(fileURLWithPath: "/usr/bin/convert"),
                [path, "-format", "%w %h %[fx:int(255*p{\(x),\(y)}.intensity)]", "info:"])
            try #require(out.status == 0, "\(out.stderr)")
            let parts = out.stdout.split(separator: " ").compactMap { Int($0) }
            try #require(parts.count == 3, "\(out.stdout)")
            return (parts[0], parts[1], parts[2])
        }

        /// The app on the folder of `file`, a two-tone JPEG made `width` × `height` (white
        /// above black), opened in the viewer and then in the editor (E).
        private func editing(_ file: URL, width: Int, height: Int) throws -> AppSession {
            try TestPictures.writeTwoTone(file, width: width, height: height)
            return try editing(folder: file.deletingLastPathComponent())
        }

        /// The app on `folder`, its first photo opened in the viewer and then in the editor (E).
        private func editing(folder: URL) throws -> AppSession {
            let app = try AppSession(source: folder.path)
            try app.waitFor("the row filtered") { AppSession.rowStates($0).values.contains(.filtered) }
            try app.clickRow(0)
            try app.waitFor("the photo in the viewer") { $0.contains { $0.event.name == .viewerImage } }
            try key(app, "e")
            try app.waitFor(event: .editBegin)
            return app
        }

        @Test(
            "E opens the editor; ] turns the photo, Shift+Left narrows the crop, Ctrl+Z takes a step back; Ctrl+S saves a copy beside it, losslessly"
        )
        func turnCropAndSave() throws {
            let photos = try TestPictures.makeFolder("editor")
            defer { try? FileManager.default.removeItem(at: photos) }
            let file = photos.appendingPathComponent("wide.jpg")
            let app = try editing(file, width: 480, height: 240)
            let before = try Data(contentsOf: file)
            try key(app, "bracketright", "shift+Left", "shift+Left", "shift+Left", "ctrl+z")
            try app.screenshot(to: FileManager.default.temporaryDirectory.appendingPathComponent("editor.png").path)
            try key(app, "ctrl+s")
            let events = try app.waitFor("edit.saved, and the copy listed") { events in
                events.contains { $0.event.name == .editSaved }
                    && events.contains { $0.event.name == .rowShown && $0.event.row == 1 }
            }
            let saved = try #require(events.first { $0.event.name == .editSaved })
            let copy = photos.appendingPathComponent("wide (edited).jpg").path
            #expect(saved.event.path == copy)
            guard case .editSaved(_, _, let lossless, let w, let h, _) = saved.event else { return }
            #expect(lossless)
            // Turned right: 240 wide, 480 high, white above black; two of the three steps in
            // from the right stayed.
            #expect(h == 480 && w < 240 && w > 120, "\(w)×\(h)")
            let top = try look(copy, x: 10, y: 10), bottom = try look(copy, x: 10, y: 470)
            #expect(top.w == w && top.h == h)
            #expect(top.grey > 200 && bottom.grey < 50, "top \(top.grey), bottom \(bottom.grey)")
            #expect(try Data(contentsOf: file) == before, "the photo itself is untouched")
            // The editor closed, the viewer stays open on the photo.
            #expect(!events.contains { $0.event.name == .viewerClose })
        }

        @Test(
            "Alt+A takes the keys to the straightening slider; 30 steps of Right turn the photo 3°, Undo takes the whole slide back in one step and Redo brings it; Ctrl+S saves a copy of what stays inside, encoded again"
        )
        func straighten() throws {
            let photos = try TestPictures.makeFolder("editor-straighten")
            defer { try? FileManager.default.removeItem(at: photos) }
            let app = try editing(photos.appendingPathComponent("level.jpg"), width: 600, height: 400)
            try key(app, ["alt+a"] + Array(repeating: "Right", count: 30))
            try app.screenshot(
                to: FileManager.default.temporaryDirectory.appendingPathComponent("editor-straighten.png").path)
            // The slide is one step of Undo (the keys reach the editor with the slider focused):
            // after it, there is nothing to save.
            try key(app, "ctrl+z", "ctrl+s")
            try app.waitFor("nothing to save") { events in
                events.contains {
                    if case .noticeShown(let text) = $0.event { text.hasPrefix("Nothing to save") } else { false }
                }
            }
            try key(app, "ctrl+shift+z", "ctrl+s")
            let events = try app.waitFor("edit.saved") { events in events.contains { $0.event.name == .editSaved } }
            let saved = try #require(events.first { $0.event.name == .editSaved })
            guard case .editSaved(_, let path, let lossless, let w, let h, _) = saved.event else { return }
            #expect(!lossless)
            let kept = StraightenedJPEG.inscribed(width: 600, height: 400, degrees: 3)
            #expect(w == kept.width && h == kept.height, "\(w)×\(h), expected \(kept)")
            #expect(path == photos.appendingPathComponent("level (edited).jpg").path)
            let top = try look(path, x: w / 2, y: 10), bottom = try look(path, x: w / 2, y: h - 10)
            #expect(top.w == w && top.h == h)
            #expect(top.grey > 200 && bottom.grey < 50, "top \(top.grey), bottom \(bottom.grey)")
        }

        @Test(
            "A 24 MP photo straightened takes a moment to save: the editor says “Saving…” (edit.saving) until it is saved"
        )
        func savingShown() throws {
            let photos = try TestPictures.makeFolder("editor-saving")
            defer { try? FileManager.default.removeItem(at: photos) }
            let app = try editing(photos.appendingPathComponent("large.jpg"), width: 6000, height: 4000)
            try key(app, ["alt+a"] + Array(repeating: "Right", count: 10) + ["ctrl+s"])
            let events = try app.waitFor("edit.saved", timeout: 60) { events in
                events.contains { $0.event.name == .editSaved }
            }
            let saved = try #require(events.firstIndex { $0.event.name == .editSaved })
            guard case .editSaved(_, _, _, _, _, let ms) = events[saved].event else { return }
            let saying = events.firstIndex { $0.event.name == .editSaving }
            #expect(saying.map { $0 < saved } == true, "no “Saving…” in a save of \(Int(ms)) ms")
        }

        @Test(
            "L, then a line dragged 300 points across and 16 down: the photo turns 3.1° back to level it, Level goes off, and the copy saved is what stays inside"
        )
        func level() throws {
            let photos = try TestPictures.makeFolder("editor-level")
            defer { try? FileManager.default.removeItem(at: photos) }
            let app = try editing(photos.appendingPathComponent("tilted.jpg"), width: 600, height: 400)
            let window = try app.windowGeometry()
            let (x, y) = (window.x + window.width / 2 - 150, window.y + window.height / 2 - 8)
            try key(app, "l")
            let moves = (0..<10).flatMap { step in
                ["mousemove_relative", "--", "30", step < 8 ? "2" : "0", "sleep", "0.02"]
            }
            try app.xdotool(["mousemove", "\(x)", "\(y)", "mousedown", "1"] + moves + ["mouseup", "1"])
            try app.screenshot(
                to: FileManager.default.temporaryDirectory.appendingPathComponent("editor-level.png").path)
            try key(app, "ctrl+s")
            let events = try app.waitFor("edit.saved") { events in events.contains { $0.event.name == .editSaved } }
            let saved = try #require(events.first { $0.event.name == .editSaved })
            guard case .editSaved(_, _, let lossless, let w, let h, _) = saved.event else { return }
            #expect(!lossless)
            let kept = StraightenedJPEG.inscribed(width: 600, height: 400, degrees: -3.1)
            #expect(w == kept.width && h == kept.height, "\(w)×\(h), expected \(kept) (3.1° back)")
        }

        @Test(
            "Save puts the photo's new version in its place, the original in the trash; the viewer stays on it; Ctrl+Z brings the original back"
        )
        func replaceAndUndo() throws {
            let photos = try TestPictures.makeFolder("editor-replace")
            let dataHome = try TestPictures.makeFolder("editor-data-home")
            defer {
                try? FileManager.default.removeItem(at: photos); try? FileManager.default.removeItem(at: dataHome)
            }
            for n in 1...2 {
                try TestPictures.writeTwoTone(photos.appendingPathComponent("p\(n).jpg"), width: 320, height: 160)
            }
            let file = photos.appendingPathComponent("p1.jpg")
            let before = try Data(contentsOf: file)
            let app = try AppSession(source: photos.path, environment: ["XDG_DATA_HOME": dataHome.path])
            try app.waitFor("rows filtered") { AppSession.rowStates($0).values.filter { $0 == .filtered }.count == 2 }
            try app.clickRow(0)
            try app.waitFor("the photo in the viewer") { $0.contains { $0.event.name == .viewerImage } }
            try key(app, "e")
            try app.waitFor(event: .editBegin)
            try key(app, "bracketleft")
            // Save in place (Shift+Ctrl+S): the viewer shows the photo anew, turned.
            try key(app, "shift+ctrl+s")
            var events = try app.waitFor("edit.saved, and the photo shown again, turned") { events in
                guard let saved = events.firstIndex(where: { $0.event.name == .editSaved }) else { return false }
                return events[saved...].contains { $0.event.name == .viewerImage && $0.event.imageSize?.w ?? 0 < 200 }
            }
            let saved = try #require(events.first { $0.event.name == .editSaved })
            #expect(saved.event.path == file.path)
            #expect(!events.contains { $0.event.name == .viewerOpen && $0.event.row == 1 }, "the viewer stayed")
            #expect(try look(file.path, x: 5, y: 5).w == 160)
            let trashed = dataHome.appendingPathComponent("Trash/files/p1.jpg")
            #expect(try Data(contentsOf: trashed) == before)

            try key(app, "ctrl+z")
            events = try app.waitFor("the original shown again") { events in
                guard let saved = events.firstIndex(where: { $0.event.name == .editSaved }) else { return false }
                return events[saved...].contains { $0.event.name == .viewerImage && $0.event.imageSize?.w ?? 0 > 200 }
            }
            #expect(try Data(contentsOf: file) == before)
            #expect(!FileManager.default.fileExists(atPath: trashed.path))
        }

        @Test(
            "Escape leaves an editor with nothing changed at once, the viewer's keys work again; with a change it asks, and Return keeps editing"
        )
        func escapeUnchanged() throws {
            let photos = try TestPictures.makeFolder("editor-escape")
            defer { try? FileManager.default.removeItem(at: photos) }
            for n in 1...2 {
                try TestPictures.writeTwoTone(photos.appendingPathComponent("p\(n).jpg"), width: 200, height: 100)
            }
            let app = try AppSession(source: photos.path)
            try app.waitFor("rows filtered") { AppSession.rowStates($0).values.filter { $0 == .filtered }.count == 2 }
            try app.clickRow(0)
            try app.waitFor("the photo in the viewer") { $0.contains { $0.event.name == .viewerImage } }
            try key(app, "e")
            try app.waitFor(event: .editBegin)
            try key(app, "Escape", "Right")
            try app.waitFor("the next photo in the viewer") { events in
                events.contains { $0.event.name == .viewerOpen && $0.event.row == 1 }
            }
            #expect(!app.events().contains { $0.event.name == .viewerClose || $0.event.name == .editSaved })
            let names = try FileManager.default.contentsOfDirectory(atPath: photos.path).sorted()
            #expect(names == ["p1.jpg", "p2.jpg"])

            // With a change, Escape asks first: Return keeps editing (the question's default),
            // and the change is still there to save.
            try key(app, "e")
            try app.waitFor("the editor open again") { $0.filter { $0.event.name == .editBegin }.count == 2 }
            try key(app, "bracketright", "Escape")
            try app.waitFor("the question shown", timeout: 10) { _ in
                (try? app.xdotool(["search", "--onlyvisible", "--name", "Discard the Changes?"]))?.isEmpty == false
            }
            try app.xdotool(["key", "Return"])
            try key(app, "ctrl+s")
            let saved = try app.waitFor(event: .editSaved)
            #expect(saved.event.path == photos.appendingPathComponent("p2 (edited).jpg").path)
            // Turned right, the 100 rows (6¼ blocks of 16) lose their partial block: 96 wide.
            #expect(saved.event.imageSize?.w == 96 && saved.event.imageSize?.h == 200)
        }

        /// `folder` made read-only where it is (a bind mount of itself), as a locked card or a
        /// read-only share is: even root cannot write it.
        private func mountReadOnly(_ folder: URL) throws {
            for arguments in [["--bind", folder.path, folder.path], ["-o", "remount,bind,ro", folder.path]] {
                let out = try run(URL(fileURLWithPath: "/bin/mount"), arguments)
                try #require(out.status == 0, "mount \(arguments): \(out.stderr)")
            }
        }

        @Test(
            "In a folder that cannot be written, saving says so and offers Save As: Enter opens the chooser, and the edited photo is saved where chosen",
            .enabled(if: getuid() == 0, "a read-only bind mount needs root")
        )
        func saveAsFromReadOnlyFolder() throws {
            let photos = try TestPictures.makeFolder("editor-read-only")
            let elsewhere = try TestPictures.makeFolder("editor-saved-elsewhere")
            let file = photos.appendingPathComponent("locked.jpg")
            try TestPictures.writeTwoTone(file, width: 480, height: 240)
            try mountReadOnly(photos)
            defer {
                _ = try? run(URL(fileURLWithPath: "/bin/umount"), [photos.path])
                try? FileManager.default.removeItem(at: photos)
                try? FileManager.default.removeItem(at: elsewhere)
            }
            let before = try FileManager.default.contentsOfDirectory(atPath: photos.path)
            let app = try editing(folder: photos)
            try key(app, "bracketright", "ctrl+s")
            let failed = try app.waitFor(event: .editFailed)
            #expect(failed.event.error == String(cString: strerror(EROFS)))
            try app.waitFor("the question shown", timeout: 10) { _ in
                (try? app.xdotool(["search", "--onlyvisible", "--name", "Cannot Save Beside the Photo"]))?.isEmpty
                    == false
            }
            // Enter: Save As (it loses nothing), the chooser with the copy's name.
            try app.xdotool(["key", "Return"])
            let focused = { ((try? app.xdotool(["getwindowfocus", "getwindowname"])) ?? "") }
            try app.waitFor("the chooser focused", timeout: 10) { _ in focused().contains("Save Edited Photo As") }
            let destination = elsewhere.appendingPathComponent("turned.jpg").path
            try app.xdotool(["key", "ctrl+a", "type", "--delay", "15", destination])
            try app.xdotool(["key", "Return"])
            let saved = try app.waitFor(event: .editSaved)
            #expect(saved.event.path == destination)
            guard case .editSaved(_, _, let lossless, let w, let h, _) = saved.event else { return }
            #expect(lossless && w == 240 && h == 480, "\(w)×\(h)")
            let top = try look(destination, x: 10, y: 10), bottom = try look(destination, x: 10, y: 470)
            #expect(top.w == 240 && top.h == 480 && top.grey > 200 && bottom.grey < 50)
            #expect(try FileManager.default.contentsOfDirectory(atPath: photos.path) == before)
            #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path) == ["turned.jpg"])
        }

        @Test(
            "A RAW file is edited as its camera's preview and saved as a JPEG beside it, even by the shortcut that saves in place; it is not turned"
        )
        func rawSavedAsJPEG() throws {
            let folder = try TestPictures.makeFolder("editor-raw")
            defer { try? FileManager.default.removeItem(at: folder) }
            let preview = try #require(CameraFiles.jpeg(width: 640, height: 480, rgb: 0xCC3333))
            let dng = folder.appendingPathComponent("IMG_0001.DNG")
            let bytes = CameraFiles.dng(
                preview: preview, previewWidth: 640, previewHeight: 480, width: 640, height: 480, orientation: 1,
                dateTime: "2021:07:04 18:30:05")
            try bytes.write(to: dng)
            let app = try AppSession(source: folder.path)
            try app.waitFor("the row filtered") { AppSession.rowStates($0).values.contains(.filtered) }
            try app.clickRow(0)
            try app.waitFor("the photo in the viewer") { $0.contains { $0.event.name == .viewerImage } }
            try key(app, "ctrl+r")
            try app.waitFor("a notice") { events in
                events.contains {
                    $0.event.name == .noticeShown && $0.event.text?.contains("cannot be rotated") == true
                }
            }
            try app.screenshot(to: FileManager.default.temporaryDirectory.appendingPathComponent("raw-rotate.png").path)
            try key(app, "e")
            try app.waitFor(event: .editBegin)
            try key(app, "bracketright")
            try app.screenshot(to: FileManager.default.temporaryDirectory.appendingPathComponent("editor-raw.png").path)
            // The shortcut of Save (in place) saves a copy: the RAW file is never written.
            try key(app, "ctrl+shift+s")
            let saved = try app.waitFor(event: .editSaved)
            let copy = folder.appendingPathComponent("IMG_0001 (edited).jpg")
            #expect(saved.event.path == copy.path)
            guard case .editSaved(_, _, let lossless, let w, let h, _) = saved.event else { return }
            #expect(lossless && w == 480 && h == 640, "\(w)×\(h)")
            #expect(try Data(contentsOf: dng) == bytes, "the RAW file as it was")
            #expect(PhotoDetails.read(try Data(contentsOf: copy))?.dateTaken == "2021:07:04 18:30:05")
            try app.waitFor("the copy listed beside the RAW file") { events in
                events.contains { $0.event.name == .rowShown && $0.event.row == 1 }
            }
        }

        @Test("A phone's HEIC turned in the editor is saved as a HEIC beside it, losslessly, listed there")
        func heicSavedAsHEIC() async throws {
            let folder = try TestPictures.makeFolder("editor-heic")
            defer { try? FileManager.default.removeItem(at: folder) }
            let source = folder.appendingPathComponent("source.jpg")
            let drawn = try await run(
                URL(fileURLWithPath: "/usr/bin/convert"),
                [
                    "-size", "640x480", "xc:white", "-fill", "black", "-draw", "rectangle 0,240 639,479", "-quality",
                    "95", source.path,
                ])
            try #require(drawn.status == 0, "\(drawn.stderr)")
            let photo = folder.appendingPathComponent("IMG_4001.HEIC")
            try await FormatFiles.convert(source, to: "heic", at: photo)
            try FileManager.default.removeItem(at: source)
            let before = try Data(contentsOf: photo)
            let app = try editing(folder: folder)
            try key(app, "bracketright", "ctrl+s")
            let saved = try app.waitFor(event: .editSaved)
            let copy = folder.appendingPathComponent("IMG_4001 (edited).HEIC")
            #expect(saved.event.path == copy.path)
            guard case .editSaved(_, _, let lossless, let w, let h, _) = saved.event else { return }
            #expect(lossless && w == 480 && h == 640, "\(w)×\(h)")
            // Read by libheif's own tool (ImageMagick 6's reader of HEIC mixes its colours up).
            let png = FileManager.default.temporaryDirectory.appendingPathComponent("heic-copy-\(UUID()).png")
            defer { try? FileManager.default.removeItem(at: png) }
            let converted = try await run(URL(fileURLWithPath: "/usr/bin/heif-convert"), [copy.path, png.path])
            try #require(converted.status == 0, "\(converted.stderr)")
            let left = try look(png.path, x: 20, y: 320), right = try look(png.path, x: 460, y: 320)
            #expect(left.w == 480 && left.h == 640 && left.grey < 50 && right.grey > 200, "\(left) \(right)")
            #expect(try Data(contentsOf: photo) == before, "the photo itself is untouched")
            try app.waitFor("the copy listed beside it") { events in
                events.contains { $0.event.name == .rowShown && $0.event.row == 1 }
            }
        }
    }
}
