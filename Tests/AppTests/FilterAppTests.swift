import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension DesktopGUITests {
    /// The filter on the real app: the funnel's menu (Ctrl+Shift+F) narrows the list and the
    /// viewer's paging to the photos with the marks asked for, read from sidecars other apps
    /// wrote; a mark given under the filter moves a photo out; Escape shows every photo again.
    @Suite(.serialized) struct FilterAppTests {
        private func key(_ app: AppSession, _ keys: String...) throws {
            try app.xdotool(["key", "--delay", "120"] + keys)
        }

        /// A sidecar as another app writes it: stars (−1 rejected), a label, tags.
        private func sidecar(rating: Int?, label: String? = nil, tags: [String] = []) -> Data {
            let rating = rating.map { "<xmp:Rating>\($0)</xmp:Rating>" } ?? ""
            let label = label.map { "<xmp:Label>\($0)</xmp:Label>" } ?? ""
            let subject =
                tags.isEmpty
                ? ""
                : "<dc:subject><rdf:Bag>" + tags.map { "<rdf:li>\($0)</rdf:li>" }.joined() + "</rdf:Bag></dc:subject>"
            return Data(
                """
                <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
                <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" \
                xmlns:dc="http://purl.org/dc/elements/1.1/">\(rating)\(label)\(subject)</rdf:Description>\
                </rdf:RDF></x:xmpmeta>
                """.utf8)
        }

        /// The last `filter.changed` once every photo's marks are known.
        private func waitForFilter(
            _ app: AppSession, after before: Int, shown: Int, _ what: String
        ) throws -> [TraceRecord] {
            try app.waitFor(what) { events in
                guard
                    case .filterChanged(let count, _, false, _, _) = events.dropFirst(before).last(where: {
                        $0.event.name == .filterChanged
                    })?.event
                else { return false }
                return count == shown
            }
        }

        /// The name of the photo the viewer last showed.
        private func inViewer(_ events: [TraceRecord]) -> String? {
            for record in events.reversed() {
                if case .viewerOpen(_, _, let name) = record.event { return name }
            }
            return nil
        }

        private func subtitle(_ events: [TraceRecord]) -> String? {
            events.last { $0.event.name == .windowSubtitle }?.event.text
        }

        @Test(
            "Sorted by rating, most first: stars, then none, then rejected, ties by name; a photo given stars moves to its place"
        )
        func sortByRating() throws {
            let folder = try TestPictures.makeFolder("rating-sort")
            defer { try? FileManager.default.removeItem(at: folder) }
            let photos = (1...6).map { folder.appendingPathComponent("r\($0).png") }
            for (n, photo) in photos.enumerated() {
                try #require(TestPictures.write(photo, format: "png", rgb: UInt32(0x553377 * (n + 1)), size: 300))
            }
            let ratings: [Int?] = [-1, 3, 1, 5, nil, nil]
            for (photo, rating) in zip(photos, ratings) {
                guard let rating else { continue }
                try sidecar(rating: rating).write(to: URL(fileURLWithPath: photo.path + ".xmp"))
            }
            let cache = try TestPictures.makeFolder("rating-sort-cache")
            defer { try? FileManager.default.removeItem(at: cache) }
            let environment = try GUITests.privateSettings(["sort-by": "'rating'", "sort-descending": "true"])
                .merging(["XDG_CACHE_HOME": cache.path]) { $1 }
            let app = try AppSession(arguments: [folder.path], environment: environment)
            let expected = ["r4.png", "r2.png", "r3.png", "r5.png", "r6.png", "r1.png"]
            _ = try app.waitFor("the rows by rating") { events in
                var names: [Int: String] = [:]
                for case .rowShown(let row, _, let name, _) in events.map(\.event) { names[row] = name }
                return (0..<6).map { names[$0] ?? "" } == expected
            }
            // 4 stars on r6 (row 4): it goes between r4 and r2.
            try app.clickRow(4)
            try app.waitFor("r6 in the viewer") { inViewer($0) == "r6.png" }
            let before = app.events().count
            try key(app, "4")
            _ = try app.waitFor("the list shown again") { events in
                events.dropFirst(before).contains { $0.event.name == .filterChanged }
            }
            try key(app, "Escape")
            _ = try app.waitFor(event: .viewerClose)
            try app.clickRow(1)
            try app.waitFor("r6 is second") { inViewer($0) == "r6.png" }
            try key(app, "Escape")
            _ = try app.waitFor(event: .viewerClose)
            try app.screenshot(to: NSTemporaryDirectory() + "classic-photos-sort-rating.png")
        }

        @Test(
            "Ctrl+Shift+F and 3 shows the photos of 3 stars or more (from sidecars), in the list and the viewer's paging; 0 on one moves it out; Escape shows all; rejected, labels and none left"
        )
        func filterByMarks() throws {
            let folder = try TestPictures.makeFolder("filter")
            defer { try? FileManager.default.removeItem(at: folder) }
            let photos = (1...6).map { folder.appendingPathComponent("f\($0).png") }
            for (n, photo) in photos.enumerated() {
                try #require(TestPictures.write(photo, format: "png", rgb: UInt32(0x335577 * (n + 1)), size: 600))
            }
            let marks: [Data?] = [
                sidecar(rating: -1), sidecar(rating: 3), sidecar(rating: 1, label: "Red"), sidecar(rating: 5),
                sidecar(rating: nil, tags: ["Paris"]), nil,
            ]
            for (photo, data) in zip(photos, marks) {
                try data?.write(to: URL(fileURLWithPath: photo.path + ".xmp"))
            }
            let cache = try TestPictures.makeFolder("filter-cache")
            defer { try? FileManager.default.removeItem(at: cache) }
            let app = try AppSession(source: folder.path, environment: ["XDG_CACHE_HOME": cache.path])
            try app.waitFor("rows filtered") { AppSession.rowStates($0).values.filter { $0 == .filtered }.count >= 6 }

            // 3 stars or more: f2 and f4, in their order.
            var before = app.events().count
            try key(app, "ctrl+shift+f", "3")
            var events = try waitForFilter(app, after: before, shown: 2, "3 stars or more: two photos")
            #expect(subtitle(events) == "2 of 6 photos")
            try app.screenshot(to: NSTemporaryDirectory() + "classic-photos-filter-list.png")

            // The first row is f2's; the viewer pages through those two only.
            try app.clickRow(0)
            try app.waitFor("f2 in the viewer") { inViewer($0) == "f2.png" }
            try key(app, "Right")
            try app.waitFor("f4 next") { inViewer($0) == "f4.png" }
            // f4 is the last: Right stays, Left goes back to f2 (the next photo shown).
            before = app.events().count
            try key(app, "Right", "Left")
            events = try app.waitFor("back on f2") { inViewer($0) == "f2.png" }
            let opened = events.dropFirst(before).compactMap { record -> String? in
                if case .viewerOpen(_, _, let name) = record.event { name } else { nil }
            }
            #expect(opened == ["f2.png"], "\(opened)")
            try key(app, "Right")
            try app.waitFor("f4 again") { inViewer($0) == "f4.png" }

            // No stars on f4: it no longer passes, and the viewer shows the one left.
            before = app.events().count
            try key(app, "0")
            events = try waitForFilter(app, after: before, shown: 1, "f4 moved out")
            try app.waitFor("the viewer on f2") { inViewer($0) == "f2.png" }
            try key(app, "Escape")
            _ = try app.waitFor(event: .viewerClose)

            // Escape in the list: every photo again.
            before = app.events().count
            try key(app, "Escape")
            events = try waitForFilter(app, after: before, shown: 6, "the filter cleared")
            #expect(subtitle(events) == "6 photos")

            // Hide Rejected, then Red as well: f3 alone.
            before = app.events().count
            try key(app, "ctrl+shift+f", "r")
            _ = try waitForFilter(app, after: before, shown: 5, "rejected hidden")
            before = app.events().count
            try key(app, "ctrl+shift+f", "d")
            events = try waitForFilter(app, after: before, shown: 1, "red, not rejected")
            #expect(subtitle(events) == "1 of 6 photos")

            // 5 stars and red: none; the window says so.
            before = app.events().count
            try key(app, "ctrl+shift+f", "5")
            events = try waitForFilter(app, after: before, shown: 0, "none left")
            #expect(subtitle(events) == "0 of 6 photos")
            try app.screenshot(to: NSTemporaryDirectory() + "classic-photos-filter-none.png")
        }
    }
}
