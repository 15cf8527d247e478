import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension GUITests {
    /// Folders as people keep them: a big one on screen at once, changes made by other programs
    /// shown live, and the order chosen in the main menu.
    @Suite(.serialized) struct FolderLiveTests {
        private func events(_ events: [TraceRecord], _ name: TraceEvent.Name) -> [TraceRecord] {
            events.filter { $0.event.name == name }
        }

        /// Name and identity shown per row (from `row.shown`), the latest for each row.
        private func shown(_ events: [TraceRecord]) -> [Int: (name: String, id: PhotoID)] {
            var rows: [Int: (name: String, id: PhotoID)] = [:]
            for case .rowShown(let row, let id, let name, _) in self.events(events, .rowShown).map(\.event) {
                rows[row] = (name, id)
            }
            return rows
        }

        private func settled(_ events: [TraceRecord]) -> Bool {
            guard let range = AppSession.visibleRanges(events).last else { return false }
            let states = AppSession.rowStates(events)
            return range.allSatisfy { states[$0] == .filtered || states[$0] == .failed }
        }

        /// `count` photos named `name(n)`, each a minute older than the one before: by date
        /// modified, the reverse of their names' order.
        private func writeNewestFirst(_ count: Int, in folder: URL, name: (Int) -> String) throws {
            let first = folder.appendingPathComponent(name(0))
            #expect(TestPictures.write(first, format: "jpeg", rgb: 0x6699CC))
            for n in 0..<count {
                let file = folder.appendingPathComponent(name(n))
                if n > 0 { try FileManager.default.copyItem(at: first, to: file) }
                try FileManager.default.setAttributes(
                    [.modificationDate: Date(timeIntervalSince1970: 1_700_000_000 - Double(n) * 60)],
                    ofItemAtPath: file.path)
            }
        }

        private func names(_ events: [TraceRecord], rows: Int) -> [String] {
            let rowsShown = shown(events)
            return (0..<rows).map { rowsShown[$0]?.name ?? "?" }
        }

        @Test("A folder of 20,000 pictures (hard links) shows its first screen, named in natural order")
        func bigFolder() throws {
            let folder = try TestPictures.makeFolder("big")
            defer { try? FileManager.default.removeItem(at: folder) }
            let originals = folder.appendingPathComponent(".originals")
            try FileManager.default.createDirectory(at: originals, withIntermediateDirectories: true)
            let colours: [UInt32] = [0xCC3333, 0x33CC33, 0x3333CC, 0xCCCC33]
            for (n, colour) in colours.enumerated() {
                #expect(TestPictures.write(originals.appendingPathComponent("\(n).jpg"), format: "jpeg", rgb: colour))
            }
            for n in 0..<20_000 {
                let source = originals.appendingPathComponent("\(n % colours.count).jpg").path
                #expect(link(source, folder.appendingPathComponent("IMG_\(n + 1).jpg").path) == 0)
            }
            let app = try AppSession(source: folder.path)
            let loaded = try app.waitFor(event: .sourceLoaded, timeout: 60)
            #expect(loaded.event.rows == 20_000)
            let events = try app.waitFor("the first screen settled", timeout: 60) { settled($0) }
            let first = try #require(events.first { $0.event.name == .rowShown })
            let start = try #require(events.first { $0.event.name == .sourceStart })
            print(
                "20,000 pictures: first row \(Int((first.t - start.t) * 1000)) ms after source.start, \(Int(first.t * 1000)) ms after start"
            )
            let visible = try #require(AppSession.visibleRanges(events).last)
            #expect(visible.lowerBound == 0 && visible.count >= 4)
            // Natural order: IMG_1, IMG_2, … IMG_10 after IMG_9.
            #expect(names(events, rows: 3) == ["IMG_1.jpg", "IMG_2.jpg", "IMG_3.jpg"])
            #expect(app.terminate() == 0)
        }

        @Test(
            "Pictures added, removed, renamed and rewritten while the folder is open show live; the viewer keeps its photo"
        )
        func liveChanges() throws {
            let folder = try TestPictures.makeFolder("live")
            defer { try? FileManager.default.removeItem(at: folder) }
            for n in 1...6 {
                #expect(
                    TestPictures.write(
                        folder.appendingPathComponent("p\(n).png"), format: "png", rgb: UInt32(n) * 0x203010))
            }
            let app = try AppSession(source: folder.path)
            var events = try app.waitFor("rows settled") { settled($0) }
            let p3 = try #require(shown(events)[2]?.id)
            let p6 = try #require(shown(events)[5]?.id)

            // The viewer shows p3.
            try app.clickRow(2)
            events = try app.waitFor("viewer open on p3") { events in
                events.contains { if case .viewerOpen(_, let id, _) = $0.event { id == p3 } else { false } }
            }

            // Added before it: the viewer stays on p3, now the fourth row.
            #expect(TestPictures.write(folder.appendingPathComponent("p0.png"), format: "png", rgb: 0xFF8800))
            events = try app.waitFor("p0 added") { self.events($0, .sourceChanged).count >= 1 }
            var change = try #require(self.events(events, .sourceChanged).last?.event)
            #expect(change.folderChange?.added == 1 && change.rows == 7, "\(change)")

            // Removed.
            try FileManager.default.removeItem(at: folder.appendingPathComponent("p5.png"))
            events = try app.waitFor("p5 removed") { self.events($0, .sourceChanged).count >= 2 }
            change = try #require(self.events(events, .sourceChanged).last?.event)
            #expect(change.folderChange?.removed == 1 && change.rows == 6, "\(change)")

            // Renamed: the same photo (identity) under its new name, first by name.
            try FileManager.default.moveItem(
                at: folder.appendingPathComponent("p6.png"), to: folder.appendingPathComponent("a0.png"))
            events = try app.waitFor("p6 renamed") { self.events($0, .sourceChanged).count >= 3 }
            change = try #require(self.events(events, .sourceChanged).last?.event)
            #expect(change.folderChange?.changed == 1 && change.rows == 6, "\(change)")

            // The photo in the viewer rewritten: decoded again, in its row and in the viewer.
            let rewritten = try #require(self.events(events, .sourceChanged).last?.t)
            // As editors save: a hidden file, renamed over the photo.
            let replacement = folder.appendingPathComponent(".p3.png.saving")
            #expect(TestPictures.write(replacement, format: "png", rgb: 0x00FFFF))
            #expect(rename(replacement.path, folder.appendingPathComponent("p3.png").path) == 0)
            events = try app.waitFor("p3 decoded again in its row and in the viewer") { events in
                let after = events.filter { $0.t > rewritten }
                let row = after.contains {
                    if case .rowState(_, let id, .filtered) = $0.event { id == p3 } else { false }
                }
                let viewer = after.contains {
                    if case .opFinish(.view, _, let id, _) = $0.event { id == p3 } else { false }
                }
                return row && viewer
            }

            events = try app.waitFor("rows settled after the changes") { settled($0) }
            #expect(names(events, rows: 6) == ["a0.png", "p0.png", "p1.png", "p2.png", "p3.png", "p4.png"])
            #expect(shown(events)[0]?.id == p6, "the renamed photo keeps its identity")
            // The viewer never left p3.
            let opened = events.compactMap { if case .viewerOpen(_, let id, _) = $0.event { id } else { nil } }
            #expect(opened.allSatisfy { $0 == p3 }, "\(opened)")
            let shot = NSTemporaryDirectory() + "folder-live.png"
            try app.screenshot(to: shot)
            print("screenshot: \(shot)")
            #expect(app.terminate() == 0)
        }

        @Test(
            "A picture made, one removed and a sub-folder made before the folder's watch began are found as it begins")
        func changedBeforeWatched() throws {
            let folder = try TestPictures.makeFolder("before-watch")
            defer { try? FileManager.default.removeItem(at: folder) }
            for n in 1...3 { #expect(TestPictures.write(folder.appendingPathComponent("p\(n).png"), format: "png")) }
            // The watch begins 2 s after it is asked for: the changes below are made before.
            let app = try AppSession(source: folder.path, environment: ["CLASSIC_PHOTOS_WATCH_DELAY_MS": "2000"])
            var events = try app.waitFor("the folder listed") { $0.contains { $0.event.name == .sourceLoaded } }
            let mark = events.last?.t ?? 0
            #expect(TestPictures.write(folder.appendingPathComponent("p4.png"), format: "png"))
            try FileManager.default.removeItem(at: folder.appendingPathComponent("p1.png"))
            try FileManager.default.createDirectory(
                at: folder.appendingPathComponent("Later"), withIntermediateDirectories: false)
            events = try app.waitFor("the changes found") { events in
                self.events(events, .sourceChanged).contains { $0.t > mark }
            }
            let change = try #require(self.events(events, .sourceChanged).first { $0.t > mark })
            // One plan for all three, made as the watch began: the sub-folder first, then p2 to p4.
            #expect(change.event.folderChange.map { [$0.added, $0.removed, $0.changed] } == [2, 1, 0], "\(change)")
            #expect(change.event.rows == 4 && change.t - mark >= 1.5, "\(change)")
            #expect(app.terminate() == 0)
        }

        @Test("Sorted by date taken (EXIF, not names or file times), changed in the menu, and remembered")
        func sortByDateTaken() throws {
            let folder = try TestPictures.makeFolder("taken")
            let state = try TestPictures.makeFolder("sort-settings")
            defer { try? FileManager.default.removeItem(at: folder); try? FileManager.default.removeItem(at: state) }
            // Taken: b 2021, c 2022, a 2023. Modified: c, then a, then b. Names: a, b, c.
            let taken = [
                "a.jpg": "2023:05:01 10:00:00", "b.jpg": "2021:05:01 10:00:00", "c.jpg": "2022:05:01 10:00:00",
            ]
            let modified = ["a.jpg": 1_600_000_000.0, "b.jpg": 1_700_000_000.0, "c.jpg": 1_500_000_000.0]
            for (name, date) in taken {
                let file = folder.appendingPathComponent(name)
                #expect(TestPictures.write(file, format: "jpeg", rgb: 0x808080))
                let tagged = try run(
                    URL(fileURLWithPath: "/usr/bin/exiftool"),
                    ["-q", "-overwrite_original", "-DateTimeOriginal=\(date)", file.path], timeout: 30)
                #expect(tagged.status == 0, "\(tagged.stderr)")
                try FileManager.default.setAttributes(
                    [.modificationDate: Date(timeIntervalSince1970: modified[name]!)],
                    ofItemAtPath: file.path)
            }
            let compiled = try run(
                URL(fileURLWithPath: "/usr/bin/glib-compile-schemas"),
                ["--strict", "--targetdir=\(state.path)", Products.packageRoot.appendingPathComponent("data").path])
            #expect(compiled.status == 0, "\(compiled.stderr)")
            let environment = [
                "GSETTINGS_SCHEMA_DIR": state.path, "GSETTINGS_BACKEND": "keyfile", "XDG_CONFIG_HOME": state.path,
            ]
            let set = try run(
                URL(fileURLWithPath: "/usr/bin/gsettings"), ["set", AppInfo.applicationID, "sort-by", "date-taken"],
                environment: environment, timeout: 30)
            #expect(set.status == 0, "\(set.stderr)")

            // GTK's animations off: the menu slides to its submenu at once, and each key reaches
            // what the one before opened.
            let first = try AppSession(
                arguments: [folder.path], environment: environment.merging(AppSession.withoutAnimations) { $1 })
            var events = try first.waitFor("rows settled") { settled($0) }
            #expect(names(events, rows: 3) == ["b.jpg", "c.jpg", "a.jpg"])

            // Main menu (F10) › Sort By › Date Modified, by their mnemonics; keys go to the
            // window under the pointer (the header bar, where a click opens nothing).
            let window = try first.windowGeometry()
            _ = try first.xdotool(["mousemove", "\(window.x + window.width / 2)", "\(window.y + 20)"])
            let before = events.last?.t ?? 0
            _ = try first.xdotool(["key", "F10", "s", "m"])
            events = try first.waitFor("sorted by date modified") { events in
                events.contains { $0.t > before && $0.event.name == .listSorted }
            }
            let sorted = try #require(self.events(events, .listSorted).last?.event)
            #expect(sorted == .listSorted(key: "date-modified", descending: false, rows: 3))
            events = try first.waitFor("rows settled in the new order") { events in
                settled(events) && names(events, rows: 3) == ["c.jpg", "a.jpg", "b.jpg"]
            }
            // Quit as the desktop asks an app to (ctrl+q would need the keyboard focus back, which
            // Xvfb, with no window manager, leaves with the closed menu).
            #expect(first.terminate() == 0)

            // The next launch shows the folder by date modified at once.
            let second = try AppSession(arguments: [folder.path], environment: environment)
            events = try second.waitFor("rows settled") { settled($0) }
            #expect(names(events, rows: 3) == ["c.jpg", "a.jpg", "b.jpg"])
            #expect(
                events.allSatisfy { $0.event.name != .listSorted }, "a small folder is read in order, not sorted after")
            #expect(second.terminate() == 0)
            let keyfile = try String(
                contentsOf: state.appendingPathComponent("glib-2.0/settings/keyfile"), encoding: .utf8)
            #expect(keyfile.contains("sort-by='date-modified'"), "\(keyfile)")
        }

        @Test(
            "A sort keeps the photo selected where it was on screen; with nothing selected at the top of the list, the view stays at the top of the new order"
        )
        func sortKeepsPlace() throws {
            let folder = try TestPictures.makeFolder("keep-place")
            defer { try? FileManager.default.removeItem(at: folder) }
            // 300 photos; by date modified, the reverse of their names' order.
            let count = 300
            try writeNewestFirst(count, in: folder) { String(format: "p%03d.jpg", $0) }
            let app = try AppSession(arguments: [folder.path], environment: AppSession.withoutAnimations)
            defer { _ = app.terminate() }
            var events = try app.waitFor("rows settled") { settled($0) }
            let window = try app.windowGeometry()

            // A photo some screens down selected by the keyboard (the list has it; keys go to the
            // window under the pointer, here its header bar).
            var before = events.last?.t ?? 0
            _ = try app.xdotool(["mousemove", "\(window.x + window.width / 2)", "\(window.y + 20)"])
            // Enter opens it in the viewer, which says which it is; Escape goes back to the list,
            // the photo still selected.
            _ = try app.xdotool([
                "key", "--delay", "60", "Home", "Page_Down", "Page_Down", "Page_Down", "Down", "Return",
            ])
            let opened = try app.waitFor(event: .viewerOpen)
            guard case .viewerOpen(let row, _, let name) = opened.event, row > 10 else {
                Issue.record("not opened some screens down: \(opened.event)")
                return
            }
            before = opened.t
            _ = try app.xdotool(["key", "Escape"])
            events = try app.waitFor("the viewer closed, the photo on screen") { events in
                events.contains { $0.t > before && $0.event.name == .viewerClose }
                    && AppSession.visibleRanges(events).last?.contains(row) == true
            }
            let range = AppSession.visibleRanges(events).last!
            let offset = row - range.lowerBound

            // Main menu (F10) › Sort By › Date Modified: the photo goes to `count - 1 - row`,
            // and stays where it was on screen.
            before = events.last?.t ?? 0
            _ = try app.xdotool(["key", "F10", "s", "m"])
            let moved = count - 1 - row
            events = try app.waitFor("the selected photo at \(moved), where it was on screen") { events in
                guard events.contains(where: { $0.t > before && $0.event.name == .listSorted }),
                    let range = AppSession.visibleRanges(events.filter { $0.t > before }).last
                else { return false }
                return range.contains(moved) && abs(moved - range.lowerBound - offset) <= 1
            }
            #expect(shown(events)[moved]?.name == name, "the row there shows the photo selected")

            // Nothing selected, the view at the top (Home, then Ctrl+Shift+A): sorted by name
            // again, it shows p000 and on.
            before = events.last?.t ?? 0
            _ = try app.xdotool(["key", "--delay", "60", "Home", "ctrl+shift+a"])
            events = try app.waitFor("nothing selected, the view at the top") { events in
                events.last { $0.t > before && $0.event.name == .selectionChanged }?.event
                    == .selectionChanged(count: 0)
                    && AppSession.visibleRanges(events.filter { $0.t > before }).last?.lowerBound == 0
            }
            before = events.last?.t ?? 0
            _ = try app.xdotool(["key", "F10", "s", "n"])
            events = try app.waitFor("sorted by name, the view at the top") { events in
                events.contains { $0.t > before && $0.event.name == .listSorted }
                    && AppSession.visibleRanges(events.filter { $0.t > before }).last?.lowerBound ?? 0 == 0
                    && names(events, rows: 3) == ["p000.jpg", "p001.jpg", "p002.jpg"]
            }
            #expect(AppSession.visibleRanges(events).last?.lowerBound == 0)
        }

        @Test("A choice in the main menu made over the viewer leaves the keys with the viewer: it pages and closes")
        func menuOverViewer() throws {
            let folder = try TestPictures.makeFolder("menu-over-viewer")
            defer { try? FileManager.default.removeItem(at: folder) }
            // By date modified, the reverse of their names' order.
            try writeNewestFirst(6, in: folder) { "p\($0).jpg" }
            let app = try AppSession(arguments: [folder.path], environment: AppSession.withoutAnimations)
            defer { _ = app.terminate() }
            _ = try app.waitFor("rows settled") { settled($0) }
            let window = try app.windowGeometry()
            _ = try app.xdotool(["mousemove", "\(window.x + window.width / 2)", "\(window.y + 20)"])
            _ = try app.xdotool(["key", "--delay", "60", "Home", "Return"])
            let opened = try app.waitFor(event: .viewerOpen)
            guard case .viewerOpen(0, _, "p0.jpg") = opened.event else {
                Issue.record("not p0 at row 0 in the viewer: \(opened.event)")
                return
            }

            // Main menu › Sort By › Date Modified, the viewer open: p0 goes last, and is still shown.
            var before = opened.t
            _ = try app.xdotool(["key", "--delay", "400", "F10", "s", "m"])
            try app.waitFor("sorted, p0 shown at its new place") { events in
                events.contains { $0.t > before && $0.event.name == .listSorted }
                    && events.contains { record in
                        guard record.t > before, case .viewerOpen(5, _, "p0.jpg") = record.event else { return false }
                        return true
                    }
            }
            // The viewer's keys still work: Left pages back to p1, Escape closes.
            before = app.events().last?.t ?? 0
            _ = try app.xdotool(["key", "Left"])
            try app.waitFor("Left paged back") { events in
                events.contains { record in
                    guard record.t > before, case .viewerOpen(4, _, "p1.jpg") = record.event else { return false }
                    return true
                }
            }
            _ = try app.xdotool(["key", "Escape"])
            try app.waitFor("Escape closed the viewer") { events in
                events.contains { $0.t > before && $0.event.name == .viewerClose }
            }
            #expect(app.terminate() == 0)
        }
    }
}
