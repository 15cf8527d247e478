import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension DesktopGUITests {
    /// Opening folders, single pictures and several sources, as a person would from the
    /// command line; and every failure kind shown on its row with a short reason.
    @Suite(.serialized) struct SourceTests {
        private func events(_ events: [TraceRecord], _ name: TraceEvent.Name) -> [TraceRecord] {
            events.filter { $0.event.name == name }
        }

        /// Names shown per row (from `row.shown`), latest first wins.
        private func shownNames(_ events: [TraceRecord]) -> [Int: String] {
            var names: [Int: String] = [:]
            for case .rowShown(let row, _, let name, _) in self.events(events, .rowShown).map(\.event) {
                names[row] = name
            }
            return names
        }

        private func settled(_ events: [TraceRecord]) -> Bool {
            guard let range = AppSession.visibleRanges(events).last else { return false }
            let states = AppSession.rowStates(events)
            var folders = Set<Int>()
            for case .rowShown(let row, _, _, .folder) in self.events(events, .rowShown).map(\.event) {
                folders.insert(row)
            }
            return range.allSatisfy { states[$0] == .filtered || states[$0] == .failed || folders.contains($0) }
        }

        /// A folder of pictures in several formats with names that sort naturally, plus a text
        /// file, a text file named like a JPEG, and a sub-folder holding a picture (listed first,
        /// as a folder).
        private func mixedFolder() throws -> (folder: URL, pictures: [String]) {
            let folder = try TestPictures.makeFolder("mixed")
            var pictures: [String] = []
            for (name, format) in [
                ("img10.png", "png"), ("img2.jpg", "jpeg"), ("IMG3.bmp", "bmp"), ("img1.tiff", "tiff"),
            ] {
                if TestPictures.write(folder.appendingPathComponent(name), format: format) { pictures.append(name) }
            }
            // A JPEG without an extension is still a picture: content decides.
            try FileManager.default.copyItem(
                at: Products.packageRoot.appendingPathComponent("data/photos/coffee.jpg"),
                to: folder.appendingPathComponent("img4"))
            pictures.append("img4")
            try Data("not a picture\n".utf8).write(to: folder.appendingPathComponent("notes.txt"))
            try Data("not a picture either\n".utf8).write(to: folder.appendingPathComponent("fake.jpg"))
            let sub = folder.appendingPathComponent("img5-folder")
            try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
            TestPictures.write(sub.appendingPathComponent("img6.png"), format: "png")
            // Text named like a JPEG is listed by its name, and says what it is when loaded.
            pictures.append("fake.jpg")
            // File-manager order: numbers compare as numbers, case aside.
            let order = ["fake.jpg", "img1.tiff", "img2.jpg", "IMG3.bmp", "img4", "img10.png"]
            return (folder, order.filter(pictures.contains))
        }

        @Test(
            "A folder shows its sub-folder first, then its pictures by name, of every format, in natural order, and turns them sepia"
        )
        func folder() throws {
            let (folder, pictures) = try mixedFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            #expect(pictures.count >= 5, "gdk-pixbuf saved too few formats: \(pictures)")
            let app = try AppSession(source: folder.path)
            let loaded = try app.waitFor(event: .sourceLoaded)
            #expect(loaded.event.rows == pictures.count + 1)
            let events = try app.waitFor("folder rows settled") { settled($0) }
            let names = shownNames(events)
            #expect((0...pictures.count).map { names[$0] } == ["img5-folder"] + pictures)
            let folderRow = events.first {
                if case .rowShown(0, _, _, let kind) = $0.event { kind == .folder } else { false }
            }
            #expect(folderRow != nil, "the sub-folder is shown as a folder")
            let states = AppSession.rowStates(events)
            #expect(states[0] == nil, "a folder has no work: \(states)")
            #expect(states[1] == .failed, "\(states)")
            #expect(self.events(events, .opFail).first { $0.event.row == 1 }?.event.reason == .notImage)
            #expect((2...pictures.count).allSatisfy { states[$0] == .filtered }, "\(states)")
            #expect(app.terminate() == 0)
        }

        @Test("A single picture opens its folder with that picture selected and scrolled into view")
        func singlePicture() throws {
            let folder = try TestPictures.makeFolder("single")
            defer { try? FileManager.default.removeItem(at: folder) }
            for n in 1...60 {
                TestPictures.write(
                    folder.appendingPathComponent("photo\(n).png"), format: "png", rgb: UInt32(n * 0x040302))
            }
            let app = try AppSession(source: folder.appendingPathComponent("photo47.png").path)
            let loaded = try app.waitFor(event: .sourceLoaded)
            #expect(loaded.event.rows == 60)
            let selected = try app.waitFor(event: .listSelect)
            #expect(selected.event.row == 46)
            #expect(selected.event.photoName == "photo47.png")
            let events = try app.waitFor("selected row on screen and settled") { events in
                guard let range = AppSession.visibleRanges(events).last, range.contains(46) else { return false }
                return settled(events)
            }
            #expect(shownNames(events)[46] == "photo47.png")
            #expect(app.terminate() == 0)
        }

        @Test("Two folders on the command line show as one list, the first folder's pictures first")
        func twoFolders() throws {
            let first = try TestPictures.makeFolder("first"), second = try TestPictures.makeFolder("second")
            defer { try? FileManager.default.removeItem(at: first); try? FileManager.default.removeItem(at: second) }
            for n in 1...3 { TestPictures.write(first.appendingPathComponent("b\(n).png"), format: "png") }
            for n in 1...2 { TestPictures.write(second.appendingPathComponent("a\(n).jpg"), format: "jpeg") }
            let session = try AppSession(arguments: [first.path, second.path])
            let loaded = try session.waitFor("both sources loaded") { self.events($0, .sourceLoaded).count == 2 }
            #expect(self.events(loaded, .sourceLoaded).compactMap(\.event.rows) == [3, 2])
            let settledEvents = try session.waitFor("rows settled") { settled($0) }
            let names = shownNames(settledEvents)
            #expect((0..<5).map { names[$0] } == ["b1.png", "b2.png", "b3.png", "a1.jpg", "a2.jpg"])
            #expect(session.terminate() == 0)
        }

        @Test("Each failure kind ends its row failed, with its reason code in the trace and a short reason on the row")
        func failureReasons() throws {
            let server = try LoopbackServer()
            // Each with whether its row offers Retry (where trying again may help).
            let cases: [(path: String, reason: PhotoFailure.Reason, text: String, retry: Bool)] = [
                ("/status/404", .http, "Not found (404)", false),
                ("/status/503", .http, "Server error (503)", true),
                ("/reset", .transport, "Connection failed", true),
                ("/text", .notImage, "Not a picture", false),
                ("/empty", .empty, "Empty file", true),
            ]
            let list = try TestPictures.makeFolder("failures").appendingPathComponent("list.plist")
            defer { try? FileManager.default.removeItem(at: list.deletingLastPathComponent()) }
            let items =
                cases.enumerated().map {
                    ["name": "Case \($0.offset)", "url": server.url($0.element.path).absoluteString]
                }
                + [["name": "Missing", "url": "no-such-file.jpg"]]
            try PropertyListSerialization.data(fromPropertyList: items, format: .xml, options: 0).write(to: list)
            let app = try AppSession(source: list.path)
            let events = try app.waitFor("every row failed with a status shown") { events in
                Set(self.events(events, .rowStatus).compactMap(\.event.row)).count == cases.count + 1
            }
            let fails = self.events(events, .opFail)
            let statuses = self.events(events, .rowStatus)
            let expected =
                cases.map { ($0.reason, $0.text, $0.retry) } + [(PhotoFailure.Reason.missing, "File not found", true)]
            for (row, (reason, text, retry)) in expected.enumerated() {
                #expect(fails.first { $0.event.row == row }?.event.reason == reason, "row \(row)")
                let status = statuses.last { $0.event.row == row }?.event
                #expect(status?.text == text, "row \(row)")
                guard case .rowStatus(_, _, _, let offered) = status else { continue }
                #expect(offered == retry, "row \(row): Retry offered \(offered)")
            }
            #expect(AppSession.rowStates(events).values.allSatisfy { $0 == .failed })
            #expect(app.terminate() == 0)
        }
    }
}
