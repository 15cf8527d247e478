import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension DesktopGUITests {
    /// The search on the real app: Ctrl+F, words typed narrow the list to the photos whose
    /// names or tags hold them; Enter goes to the first found; Escape shows every photo again
    /// with the one chosen still in view; a search that finds nothing says so.
    @Suite(.serialized) struct SearchAppTests {
        /// A tag in a sidecar as another app writes it.
        private func sidecar(tag: String) -> Data {
            Data(
                """
                <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
                <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">\
                <dc:subject><rdf:Bag><rdf:li>\(tag)</rdf:li></rdf:Bag></dc:subject></rdf:Description>\
                </rdf:RDF></x:xmpmeta>
                """.utf8)
        }

        private func search(_ event: TraceEvent) -> (query: String, shown: Int, total: Int)? {
            if case .searchChanged(let query, let shown, let total, _) = event { (query, shown, total) } else { nil }
        }

        /// The last `search.changed` after `before` events, once it is for `query`: how many
        /// photos it shows, of how many.
        private func searched(
            _ app: AppSession, after before: Int, _ query: String
        ) throws -> (shown: Int, total: Int) {
            let events = try app.waitFor("the search for “\(query)”") { events in
                events.dropFirst(before).compactMap { search($0.event) }.last?.query == query
            }
            let found = try #require(events.compactMap { search($0.event) }.last)
            return (found.shown, found.total)
        }

        /// Ctrl+F, and the search bar's entry on screen to take the keys.
        private func openSearch(_ app: AppSession) throws {
            let before = app.events().count
            try app.xdotool(["key", "ctrl+f"])
            try app.waitFor("the search bar open") { $0.dropFirst(before).contains { $0.event.name == .searchOpen } }
        }

        /// Types `query` into what has the keys, a word at a time.
        private func type(_ app: AppSession, _ query: String) throws {
            for (index, word) in query.split(separator: " ", omittingEmptySubsequences: false).enumerated() {
                if index > 0 { try app.xdotool(["key", "space"]) }
                if !word.isEmpty { try app.xdotool(["type", "--delay", "60", String(word)]) }
            }
        }

        @Test(
            "Ctrl+F and words narrow the list to the names and tags that hold them (accents aside); Enter selects the first; Escape brings every photo back with it in view; nothing found says so"
        )
        func searchTheList() throws {
            let folder = try TestPictures.makeFolder("search")
            defer { try? FileManager.default.removeItem(at: folder) }
            var names = (1...30).map { String(format: "IMG_%04d.jpg", $0) }
            names += ["Beach day 1.png", "Beach day 2.png", "Café.png", "city.png"]
            for name in names {
                try #require(TestPictures.write(folder.appendingPathComponent(name), format: "png", rgb: 0x4080C0))
            }
            try sidecar(tag: "Places|France|Nice").write(to: folder.appendingPathComponent("city.png.xmp"))
            let app = try AppSession(source: folder.path)
            try app.waitFor("the first rows final") { AppSession.rowStates($0).values.contains(.filtered) }

            var before = app.events().count
            try openSearch(app)
            try type(app, "beach")
            var found = try searched(app, after: before, "beach")
            #expect(found == (2, 34), "\(found)")
            try app.waitFor("the subtitle") { events in
                events.last { $0.event.name == .windowSubtitle }?.event.text == "2 of 34 photos"
            }
            try app.screenshot(to: NSTemporaryDirectory() + "classic-photos-search.png")
            // A second word narrows further.
            before = app.events().count
            try type(app, " 2")
            found = try searched(app, after: before, "beach 2")
            #expect(found.shown == 1)
            // The viewer opened on the photo found, and closed: the search stays (GTK empties
            // the bar's entry as it hides: the words come back with it), the keys on the list.
            before = app.events().count
            try app.xdotool(["key", "Return"])
            try app.xdotool(["key", "Return"])
            try app.waitFor("the viewer open") { $0.dropFirst(before).contains { $0.event.name == .viewerOpen } }
            try app.xdotool(["key", "Escape"])
            let closed = try app.waitFor("the viewer closed") {
                $0.dropFirst(before).contains { $0.event.name == .viewerClose }
            }
            #expect(!closed.dropFirst(before).contains { search($0.event)?.query == "" }, "the search ended")
            #expect(closed.last { $0.event.name == .windowSubtitle }?.event.text == "1 of 34 photos")
            // Escape on the list ends the search.
            try app.xdotool(["key", "Escape"])
            _ = try searched(app, after: before, "")

            // Enter selects the one found (IMG_0029, row 32 of the whole list, out of view);
            // Escape brings every photo back with it selected and in view.
            before = app.events().count
            try openSearch(app)
            try type(app, "0029")
            found = try searched(app, after: before, "0029")
            #expect(found.shown == 1)
            try app.xdotool(["key", "Return"])
            try app.waitFor("the photo found selected") { events in
                events.dropFirst(before).contains { $0.event == .selectionChanged(count: 1) }
            }
            before = app.events().count
            try app.xdotool(["key", "Escape"])
            found = try searched(app, after: before, "")
            #expect(found.shown == 34)
            let back = try app.waitFor("the chosen photo in view") { events in
                events.dropFirst(before).contains {
                    if case .rowShown(let row, _, "IMG_0029.jpg", _) = $0.event { row == 32 } else { false }
                }
            }
            #expect(back.last { $0.event.name == .windowSubtitle }?.event.text == "34 photos")

            // A tag's word, and an accent left out.
            for query in ["nice", "cafe", "france city"] {
                before = app.events().count
                try openSearch(app)
                try type(app, query)
                found = try searched(app, after: before, query)
                #expect(found.shown == 1, "“\(query)”: \(found)")
                try app.xdotool(["key", "Escape"])
                _ = try searched(app, after: before, "")
            }

            // Nothing found: the status page says so.
            before = app.events().count
            try openSearch(app)
            try type(app, "zzz")
            found = try searched(app, after: before, "zzz")
            #expect(found.shown == 0)
            try app.waitFor("the count") { events in
                events.last { $0.event.name == .windowSubtitle }?.event.text == "0 of 34 photos"
            }
            try app.screenshot(to: NSTemporaryDirectory() + "classic-photos-search-none.png")
            #expect(app.terminate() == 0)
        }

        @Test(
            "All Folders (Alt+A) finds photos in every folder the index knows, by place and camera, the latest first; Escape brings the list back with its photo"
        )
        func searchEveryFolder() async throws {
            let folder = try TestPictures.makeFolder("search-everywhere")
            defer { try? FileManager.default.removeItem(at: folder) }
            let (shown, cache) = try await Self.foldersSeenBefore(in: folder)
            let app = try AppSession(source: shown.path, environment: ["XDG_CACHE_HOME": cache.path])
            try app.waitFor("the first rows final") { AppSession.rowStates($0).values.contains(.filtered) }
            // a-3 chosen (found, Enter, Escape).
            var before = app.events().count
            try openSearch(app)
            try type(app, "3")
            _ = try searched(app, after: before, "3")
            try app.xdotool(["key", "Return"])
            try app.waitFor("a-3 selected") {
                $0.dropFirst(before).contains { $0.event == .selectionChanged(count: 1) }
            }
            try app.xdotool(["key", "Escape"])
            _ = try searched(app, after: before, "")

            // The list's own search finds nothing of Munich here; All Folders finds both.
            before = app.events().count
            try openSearch(app)
            try type(app, "munich")
            #expect(try searched(app, after: before, "munich").shown == 0)
            before = app.events().count
            try app.xdotool(["key", "alt+a"])
            var found = try searched(app, after: before, "munich")
            #expect(found.shown == 2 && found.total >= 3, "\(found)")
            let rows = try app.waitFor("the photos found") { events in
                Set(
                    events.dropFirst(before).compactMap {
                        if case .rowShown(_, _, let name, _) = $0.event { name } else { nil }
                    }
                )
                .isSuperset(of: ["DSC_1.jpg", "DSC_2.jpg"])
            }
            let order = rows.dropFirst(before).compactMap {
                if case .rowShown(let row, _, let name, _) = $0.event { (row, name) } else { nil }
            }
            #expect(order.first { $0.1 == "DSC_2.jpg" }?.0 == 0, "the latest first: \(order)")
            try app.waitFor("the subtitle") { events in
                events.last { $0.event.name == .windowSubtitle }?.event.text == "2 photos"
            }
            try app.screenshot(to: NSTemporaryDirectory() + "classic-photos-search-everywhere.png")
            // Other words: another search over every folder.
            before = app.events().count
            try app.xdotool(["key", "ctrl+a"])
            try type(app, "canon")
            found = try searched(app, after: before, "canon")
            #expect(found.shown == 1, "\(found)")

            // Escape: the folder from before, with a-3 still chosen.
            before = app.events().count
            try app.xdotool(["key", "Escape"])
            try app.waitFor("the folder back") { events in
                events.dropFirst(before).contains {
                    if case .sourceLoaded(let url, 5, _) = $0.event {
                        url.hasSuffix("Garden") || url.hasSuffix("Garden/")
                    } else {
                        false
                    }
                }
            }
            try app.waitFor("the subtitle") { events in
                events.last { $0.event.name == .windowSubtitle }?.event.text == "5 photos"
            }
            // The keys are on a-3's row too: Return opens it (GTK moves the row the keys act from
            // only as a row takes the focus).
            before = app.events().count
            try app.xdotool(["key", "Return"])
            let viewed = try app.waitFor("the viewer open") {
                $0.dropFirst(before).contains { $0.event.name == .viewerOpen }
            }
            let name = viewed.dropFirst(before).compactMap {
                if case .viewerOpen(_, _, let name) = $0.event { name } else { nil }
            }.first
            #expect(name == "a-3.png", "\(name ?? "none")")
            try app.xdotool(["key", "Escape"])
            try app.waitFor("the viewer closed") { $0.dropFirst(before).contains { $0.event.name == .viewerClose } }
            // a-3 selected: the details panel shows it.
            before = app.events().count
            try app.xdotool(["key", "F9"])
            try app.waitFor("a-3 in the panel") { events in
                events.dropFirst(before).contains { $0.event.viewerInfo?.info.name == "a-3.png" }
            }

            // Back (Alt+Left) from the results is the folder the search began from.
            before = app.events().count
            try openSearch(app)
            try app.xdotool(["key", "alt+a"])
            try type(app, "munich")
            #expect(try searched(app, after: before, "munich").shown == 2)
            before = app.events().count
            try app.xdotool(["key", "alt+Left"])
            try app.waitFor("the folder back") { events in
                events.dropFirst(before).contains {
                    if case .sourceLoaded(let url, 5, _) = $0.event { url.contains("Garden") } else { false }
                }
            }
            #expect(app.terminate() == 0)
        }

        @Test(
            "The photos All Folders finds act as any list's: the viewer pages through them, Delete moves one to the trash, Ctrl+Z puts it back"
        )
        func actOnPhotosFound() async throws {
            let folder = try TestPictures.makeFolder("search-everywhere-act")
            defer { try? FileManager.default.removeItem(at: folder) }
            let (shown, cache) = try await Self.foldersSeenBefore(in: folder)
            let data = folder.appendingPathComponent("data")
            let app = try AppSession(
                source: shown.path, environment: ["XDG_CACHE_HOME": cache.path, "XDG_DATA_HOME": data.path])
            try app.waitFor("the first rows final") { AppSession.rowStates($0).values.contains(.filtered) }
            var before = app.events().count
            try openSearch(app)
            try app.xdotool(["key", "alt+a"])
            try type(app, "munich")
            #expect(try searched(app, after: before, "munich").shown == 2)
            // Enter: the first found selected, the keys on the list; Enter again opens it; Right pages.
            try app.xdotool(["key", "Return"])
            before = app.events().count
            try app.xdotool(["key", "Return"])
            let opened = try app.waitFor("the viewer open") {
                $0.dropFirst(before).contains { $0.event.name == .viewerOpen }
            }
            let first = opened.dropFirst(before).compactMap {
                if case .viewerOpen(let row, _, let name) = $0.event { (row, name) } else { nil }
            }.first
            #expect(first?.0 == 0 && first?.1 == "DSC_2.jpg", "\(String(describing: first))")
            try app.xdotool(["key", "Right"])
            try app.waitFor("the second photo found") { events in
                events.dropFirst(before).contains {
                    if case .viewerImage(1, _, _, _, _, _, _) = $0.event { true } else { false }
                }
            }
            try app.xdotool(["key", "Escape"])
            // Delete: the photo shown last (DSC_1) to the trash, its row gone; Ctrl+Z: back.
            before = app.events().count
            try app.xdotool(["key", "Delete"])
            try app.waitFor("DSC_1 in the trash") { events in
                events.dropFirst(before).contains {
                    if case .fileTrashed(_, _, "DSC_1.jpg") = $0.event { true } else { false }
                }
            }
            let trip = folder.appendingPathComponent("2019 Trip")
            #expect(!FileManager.default.fileExists(atPath: trip.appendingPathComponent("DSC_1.jpg").path))
            try app.waitFor("one left") { $0.last { $0.event.name == .windowSubtitle }?.event.text == "1 photo" }
            before = app.events().count
            try app.xdotool(["key", "ctrl+z"])
            try app.waitFor("DSC_1 back") { events in
                events.dropFirst(before).contains {
                    if case .fileRestored(_, _, "DSC_1.jpg") = $0.event { true } else { false }
                }
            }
            #expect(FileManager.default.fileExists(atPath: trip.appendingPathComponent("DSC_1.jpg").path))
            #expect(app.terminate() == 0, "\(app.errorOutput.suffix(600))")
        }

        /// A folder of five photos ("Garden", the one opened) and, beside it, photos of folders
        /// opened before, which the index of the cache returned knows: two taken in Munich in
        /// 2019 ("2019 Trip"), one by a Canon in 2021 ("Other").
        private static func foldersSeenBefore(in folder: URL) async throws -> (shown: URL, cache: URL) {
            let shown = folder.appendingPathComponent("Garden")
            try FileManager.default.createDirectory(at: shown, withIntermediateDirectories: true)
            for number in 1...5 {
                try #require(
                    TestPictures.write(shown.appendingPathComponent("a-\(number).png"), format: "png", rgb: 0x4080C0))
            }
            let cache = folder.appendingPathComponent("cache")
            let others: [(path: String, tags: [String])] = [
                ("2019 Trip/DSC_1.jpg", ["-DateTimeOriginal=2019:05:01 12:00:00"] + Self.munich),
                ("2019 Trip/DSC_2.jpg", ["-DateTimeOriginal=2019:05:02 12:00:00"] + Self.munich),
                ("Other/IMG_9.jpg", ["-DateTimeOriginal=2021:01:01 12:00:00", "-Make=Canon", "-Model=Canon EOS R6"]),
            ]
            let index = try PhotoIndex(path: cache.appendingPathComponent("classic-photos/index.sqlite").path)
            for (path, tags) in others {
                let photo = folder.appendingPathComponent(path)
                try await CameraFiles.writeTagged(photo, tags: tags)
                _ = photo.path.withCString { SortFacts.read(path: $0, taken: true, index: index) }
            }
            index.flush()
            return (shown, cache)
        }

        private static let munich = [
            "-GPSLatitude=48.13743", "-GPSLatitudeRef=N", "-GPSLongitude=11.57549", "-GPSLongitudeRef=E",
        ]
    }
}
