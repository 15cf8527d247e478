import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension GUITests {
    /// A Pictures folder kept as cameras leave it (years holding months): its sub-folders are
    /// items, opened in place, with Back and Up.
    @Suite(.serialized) struct FolderTreeTests {
        /// 2023/01-jan (two photos), 2023/02-feb (one), 2023/loose.jpg, 2024/05-may (one),
        /// and a hidden folder; nothing loose at the top.
        private func tree() throws -> URL {
            let top = try TestPictures.makeFolder("tree")
            let photos = [
                "2023/01-jan/a.png", "2023/01-jan/b.png", "2023/02-feb/c.png", "2023/loose.png",
                "2024/05-may/d.png", ".hidden/e.png",
            ]
            for photo in photos {
                let file = top.appendingPathComponent(photo)
                try FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                #expect(TestPictures.write(file, format: "png"))
            }
            return top
        }

        private func shown(_ events: [TraceRecord], after t: Double) -> [String: RowKind] {
            var shown: [String: RowKind] = [:]
            for record in events where record.t > t {
                if case .rowShown(_, _, let name, let kind) = record.event { shown[name] = kind }
            }
            return shown
        }

        private func key(_ app: AppSession, _ keys: String...) throws {
            try app.xdotool(["key", "--delay", "200"] + keys)
        }

        @Test(
            "The top of a year/month tree shows its year folders; Enter opens one, Alt+Up goes back up, Alt+Left back")
        func browseTheTree() throws {
            let top = try tree()
            defer { try? FileManager.default.removeItem(at: top) }
            let app = try AppSession(source: top.path)
            var events = try app.waitFor("the years shown") { events in
                shown(events, after: 0).count >= 2 && events.contains { $0.event.name == .sourceLoaded }
            }
            let loaded = try #require(events.first { $0.event.name == .sourceLoaded })
            #expect(loaded.event.rows == 2, "two folders, no photos, nothing hidden")
            #expect(shown(events, after: 0) == ["2023": .folder, "2024": .folder])
            #expect(!events.contains { $0.event.name == .opStart }, "a folder has no work")

            // The list has the keyboard: Home, Enter opens 2023 in its place.
            let window = try app.windowGeometry()
            try app.xdotool(["mousemove", "\(window.x + window.width / 2)", "\(window.y + 20)"])
            func opened(_ events: [TraceRecord], _ suffix: String, after mark: Double) -> Double? {
                events.first {
                    if case .sourceStart(let url, _) = $0.event { $0.t > mark && url.hasSuffix(suffix) } else { false }
                }?.t
            }
            var mark = events.last?.t ?? 0
            try key(app, "Home", "Return")
            func subtitles(_ events: [TraceRecord]) -> [String] {
                events.compactMap { if case .windowSubtitle(let text) = $0.event { text } else { nil } }
            }
            events = try app.waitFor("2023 opened and counted") { events in
                (opened(events, "/2023/", after: mark).map { shown(events, after: $0).count >= 3 } ?? false)
                    && subtitles(events).last == "2 folders, 1 photo"
            }
            let year = try #require(opened(events, "/2023/", after: mark))
            #expect(shown(events, after: year) == ["01-jan": .folder, "02-feb": .folder, "loose.png": .photo])

            // Into January, then up again: 2023, with January selected.
            mark = events.last?.t ?? 0
            try key(app, "Home", "Return")
            events = try app.waitFor("January opened") { events in
                opened(events, "/01-jan/", after: mark).map { shown(events, after: $0).keys.contains("a.png") } ?? false
            }
            mark = events.last?.t ?? 0
            try key(app, "alt+Up")
            events = try app.waitFor("up to 2023, January selected") { events in
                opened(events, "/2023/", after: mark) != nil
                    && events.contains { $0.t > mark && $0.event == .selectionChanged(count: 1) }
            }
            // Back: January again.
            mark = events.last?.t ?? 0
            try key(app, "alt+Left")
            events = try app.waitFor("back in January") { opened($0, "/01-jan/", after: mark) != nil }
            #expect(app.terminate() == 0)
        }

        @Test(
            "--recursive shows every picture beneath with its folder, one two folders down arrives live; the menu's Include Sub-folders goes back to folders and is remembered"
        )
        func everyPhotoBeneath() throws {
            let top = try tree()
            defer { try? FileManager.default.removeItem(at: top) }
            let environment = try privateSettings()
            // GTK's animations off: the menu takes its mnemonic as soon as the F10 has opened it.
            let app = try AppSession(
                arguments: ["--recursive", top.path],
                environment: environment.merging(AppSession.withoutAnimations) { $1 })
            let address = top.standardizedFileURL.absoluteString
            let link = address.hasSuffix("/") ? address : address + "/"
            var events = try app.waitFor("the whole tree shown") { events in
                shown(events, after: 0).count >= 5 && events.contains { $0.event.name == .sourceLoaded }
            }
            #expect(events.contains { $0.event == .sourceStart(url: link, recursive: true) })
            #expect(events.contains { $0.event == .sourceLoaded(url: link, rows: 5, recursive: true) })
            // Each folder's pictures together, in natural order; the hidden folder left out.
            #expect(
                shown(events, after: 0) == [
                    "2023/loose.png": .photo, "2023/01-jan/a.png": .photo, "2023/01-jan/b.png": .photo,
                    "2023/02-feb/c.png": .photo, "2024/05-may/d.png": .photo,
                ])
            var rows: [Int: String] = [:]
            for case .rowShown(let row, _, let name, _) in events.map(\.event) { rows[row] = name }
            #expect(rows[0] == "2023/loose.png" && rows[4] == "2024/05-may/d.png")

            // A picture made two folders down is shown where its folder's pictures are.
            var mark = events.last?.t ?? 0
            #expect(TestPictures.write(top.appendingPathComponent("2024/05-may/c.png"), format: "png"))
            events = try app.waitFor("the new picture shown") { events in
                events.contains { record in
                    guard record.t > mark, case .sourceChanged(_, let added, _, _, let rows) = record.event else {
                        return false
                    }
                    return added == 1 && rows == 6
                }
            }
            // A folder made with a picture in it, and the folder renamed: both followed.
            mark = events.last?.t ?? 0
            let made = top.appendingPathComponent("2025/01-jan")
            try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true)
            #expect(TestPictures.write(made.appendingPathComponent("e.png"), format: "png"))
            events = try app.waitFor("the new folder's picture shown") { events in
                events.contains { record in
                    if case .sourceChanged(_, _, _, _, 7) = record.event { record.t > mark } else { false }
                }
            }
            mark = events.last?.t ?? 0
            try FileManager.default.removeItem(at: top.appendingPathComponent("2023"))
            events = try app.waitFor("a folder removed takes its pictures") { events in
                events.contains { record in
                    if case .sourceChanged(_, _, _, _, 3) = record.event { record.t > mark } else { false }
                }
            }

            // Main menu (F10) › Include Sub-folders (its mnemonic): the folders again.
            let window = try app.windowGeometry()
            try app.xdotool(["mousemove", "\(window.x + window.width / 2)", "\(window.y + 20)"])
            mark = events.last?.t ?? 0
            try app.xdotool(["key", "F10", "f"])
            events = try app.waitFor("the folders again") { events in
                events.contains { $0.t > mark && $0.event == .sourceLoaded(url: link, rows: 2, recursive: false) }
            }
            #expect(app.terminate() == 0)
            let keyfile = try String(
                contentsOf: URL(fileURLWithPath: environment["XDG_CONFIG_HOME"]!)
                    .appendingPathComponent("glib-2.0/settings/keyfile"),
                encoding: .utf8)
            #expect(keyfile.contains("include-subfolders=false"), "\(keyfile)")
        }

        @Test("A tree with more folders than may be watched says so once, and shows every picture all the same")
        func watchLimit() throws {
            let top = try tree()
            defer { try? FileManager.default.removeItem(at: top) }
            let app = try AppSession(
                arguments: ["--recursive", top.path], environment: ["CLASSIC_PHOTOS_WATCH_LIMIT": "2"])
            let events = try app.waitFor("the tree shown and the limit said") { events in
                events.contains { $0.event.name == .sourceLoaded } && events.contains { $0.event.name == .noticeShown }
            }
            let notices = events.compactMap { if case .noticeShown(let text) = $0.event { text } else { nil } }
            #expect(
                notices == ["Only 2 of 6 folders are watched for changes: the system's limit is reached"], "\(notices)")
            #expect(events.contains { $0.event.rows == 5 })
            #expect(app.terminate() == 0)
        }

        @Test(
            "A picture made, one removed and a folder made between the tree's reading and its watches' beginning are found once they begin"
        )
        func changedBeforeWatched() throws {
            let top = try tree()
            defer { try? FileManager.default.removeItem(at: top) }
            // Each folder's watch begins 2 s after it is asked for: the changes below are made
            // before, so no watch can tell of them.
            let app = try AppSession(
                arguments: ["--recursive", top.path], environment: ["CLASSIC_PHOTOS_WATCH_DELAY_MS": "2000"])
            var events = try app.waitFor("the tree listed") { events in
                events.contains { $0.event.name == .sourceLoaded }
            }
            let mark = events.last?.t ?? 0
            let began = Date()
            #expect(TestPictures.write(top.appendingPathComponent("2024/05-may/c.png"), format: "png"))
            try FileManager.default.removeItem(at: top.appendingPathComponent("2023/loose.png"))
            let made = top.appendingPathComponent("2024/06-jun")
            try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true)
            #expect(TestPictures.write(made.appendingPathComponent("f.png"), format: "png"))
            let madeIn = Date().timeIntervalSince(began)
            func changes(_ events: [TraceRecord]) -> [(added: Int, removed: Int, changed: Int, rows: Int)] {
                events.compactMap { record in
                    guard record.t > mark,
                        case .sourceChanged(_, let added, let removed, let changed, let rows) =
                            record.event
                    else { return nil }
                    return (added, removed, changed, rows)
                }
            }
            events = try app.waitFor("the changes found") { events in
                let found = changes(events)
                return found.reduce(0) { $0 + $1.added } >= 2 && found.reduce(0) { $0 + $1.removed } >= 1
            }
            let found = changes(events)
            #expect(found.last?.rows == 6, "\(found)")
            #expect(found.reduce(0) { $0 + $1.added } == 2 && found.reduce(0) { $0 + $1.removed } == 1, "\(found)")
            #expect(found.allSatisfy { $0.changed == 0 }, "nothing shown was read again: \(found)")
            // Found by reading the changed folders again as their watches began, not told by them.
            let first = try #require(events.first { $0.t > mark && $0.event.name == .sourceChanged })
            #expect(madeIn < 1.5 && first.t - mark >= 1.5, "made in \(madeIn) s; found \(first.t - mark) s after")
            var names: Set<String> = []
            for case .rowShown(_, _, let name, _) in events.filter({ $0.t > mark }).map(\.event) { names.insert(name) }
            #expect(names.isSuperset(of: ["2024/05-may/c.png", "2024/06-jun/f.png"]), "\(names)")
            #expect(app.terminate() == 0)
        }

        @Test("While a long tree scrolls, the folder of the photo at the top floats over it, folder after folder")
        func whereYouAre() throws {
            // 12 folders of 10 pictures (hard links to one), 120 rows: many screens.
            let top = try TestPictures.makeFolder("long-tree")
            defer { try? FileManager.default.removeItem(at: top) }
            let picture = top.appendingPathComponent("picture.png")
            #expect(TestPictures.write(picture, format: "png"))
            let folders = (1...12).map { String(format: "2024/%02d", $0) }
            for folder in folders {
                let made = top.appendingPathComponent(folder)
                try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true)
                for n in 0..<10 {
                    try FileManager.default.linkItem(at: picture, to: made.appendingPathComponent("img\(n).png"))
                }
            }
            try FileManager.default.removeItem(at: picture)
            let app = try AppSession(arguments: ["--recursive", top.path])
            _ = try app.waitFor("the tree listed") { events in
                events.contains { $0.event.name == .sourceLoaded && $0.event.rows == 120 }
            }
            let window = try app.windowGeometry()
            try app.xdotool(["mousemove", "\(window.x + window.width / 2)", "\(window.y + window.height / 2)"])
            try app.xdotool(["click", "--repeat", "25", "--delay", "40", "5"])
            let events = try app.waitFor("the places shown while scrolling") { events in
                events.filter { $0.event.name == .viewPlace }.count >= 3
                    && events.contains { $0.event.name == .scrollEnd }
            }
            let places = events.compactMap { if case .viewPlace(let text) = $0.event { text } else { nil } }
            #expect(places.allSatisfy(folders.contains), "\(places)")
            // Scrolling down, the folders come in their order, each once.
            let positions = places.compactMap(folders.firstIndex(of:))
            #expect(positions == positions.sorted() && Set(positions).count == positions.count, "\(places)")
            #expect(app.terminate() == 0)
        }
    }
}
