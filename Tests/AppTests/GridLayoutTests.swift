import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension GUITests {
    /// The grid on big folders, as a person reaches it: switched to from the list, started in,
    /// resized and zoomed while a folder fills, and a whole tree switched to while it loads.
    /// GTK 4.8's grid aborted the app on each of these paths while the view was changed from
    /// inside its own layout (see `PhotoListPane.settleSoon`); and a big list sorted while
    /// scrolled deep, whose place GTK 4.8 ignored while it knew none of its rows' heights.
    @Suite(.serialized) struct GridLayoutTests {
        /// A folder of `count` photos (hard links to the bundled ones, in turn).
        private static func folder(_ count: Int) throws -> URL {
            let folder = try TestPictures.makeFolder("grid-big")
            let photos = Products.packageRoot.appendingPathComponent("data/photos")
            let sources = ["coffee.jpg", "chelsea-the-cat.jpg", "astronaut.jpg"].map {
                photos.appendingPathComponent($0).path
            }
            for n in 0..<count {
                let name = folder.appendingPathComponent(String(format: "IMG_%05d.jpg", n)).path
                guard link(sources[n % sources.count], name) == 0 else { throw CocoaError(.fileWriteUnknown) }
            }
            return folder
        }

        /// A tree of 100,000 photos in 2,000 folders (`photos/YEAR/NNN`, 50 in each) under a new
        /// folder: hard links to a few copies of one photo (a file takes at most 65,000 links).
        static func tree() throws -> URL {
            let top = try TestPictures.makeFolder("grid-tree")
            let photo = Products.packageRoot.appendingPathComponent("data/photos/chelsea-the-cat.jpg")
            let copies = try (0..<4).map { n in
                let copy = top.appendingPathComponent("source-\(n).jpg")
                try FileManager.default.copyItem(at: photo, to: copy)
                return copy.path
            }
            for folder in 0..<2_000 {
                let made = top.appendingPathComponent(
                    String(format: "photos/%04d/%03d", 2000 + folder / 200, folder % 200))
                try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true)
                for n in 0..<50 {
                    let name = made.appendingPathComponent(String(format: "IMG_%04d.jpg", n)).path
                    guard link(copies[folder % copies.count], name) == 0 else { throw CocoaError(.fileWriteUnknown) }
                }
            }
            return top
        }

        private static func grid(_ events: [TraceRecord]) -> TraceRecord? {
            events.last { if case .viewMode("grid", _, _) = $0.event { true } else { false } }
        }

        /// Every cell of the last visible range traced after `since` is filtered or failed.
        private static func settled(_ events: [TraceRecord], since: Double) -> Bool {
            guard let visible = events.filter({ $0.t >= since }).compactMap(\.event.visibleRows).last else {
                return false
            }
            let states = AppSession.rowStates(events)
            return visible.allSatisfy { states[$0] == .filtered || states[$0] == .failed }
        }

        private static func key(_ app: AppSession, _ keys: String...) throws {
            let window = try app.windowGeometry()
            _ = try app.xdotool(["mousemove", "\(window.x + window.width / 2)", "\(window.y + 20)"])
            _ = try app.xdotool(["key", "--delay", "120"] + keys)
        }

        /// The app on a display large enough for a window of 1200 × 850.
        private static func launch(
            _ arguments: [String], grid: Bool = false, environment more: [String: String] = [:]
        ) throws -> AppSession {
            let environment = try privateSettings(grid ? ["view-mode": "grid"] : [:], width: 1200, height: 850)
                .merging(more) { $1 }
            return try AppSession(
                arguments: arguments, environment: environment, display: XvfbDisplay(width: 1400, height: 1000))
        }

        @Test(
            "Ctrl+2 on a folder of 3 photos, which the list and the grid both show without scrolling, traces the grid at once, its cells decoded for it"
        )
        func fewPhotosToGrid() throws {
            let folder = try Self.folder(3)
            defer { try? FileManager.default.removeItem(at: folder) }
            let app = try Self.launch([folder.path])
            try app.waitFor("the list settled") { events in
                events.contains { $0.event.name == .sourceLoaded && $0.event.rows == 3 }
                    && Self.settled(events, since: 0)
            }
            let pressed = app.events().last?.t ?? 0
            try Self.key(app, "ctrl+2")
            // (The adjustment does not change: the grid's layout was read only once something
            // else moved it, seconds later or never.)
            let events = try app.waitFor("the grid traced and its cells filtered", timeout: 10) { events in
                Self.grid(events).map { grid in
                    // Decoded again for the larger cells: each reaches "filtered" after the switch.
                    let after = events.filter { $0.t >= grid.t }
                    return (0..<3).allSatisfy { AppSession.rowStates(after)[$0] == .filtered }
                } ?? false
            }
            let grid = try #require(Self.grid(events))
            print("grid traced \(Int((grid.t - pressed) * 1000)) ms after the list's last event")
            #expect(grid.event == .viewMode(mode: "grid", columns: 6, size: 160))
            #expect(app.terminate() == 0)
        }

        @Test(
            "Ctrl+2 on a folder of 500 and of 5,000 photos in a window of 1200 × 850 shows the grid, and its first screen of cells settles",
            arguments: [500, 5_000])
        func listToGrid(count: Int) throws {
            let folder = try Self.folder(count)
            defer { try? FileManager.default.removeItem(at: folder) }
            let app = try Self.launch([folder.path])
            try app.waitFor("the list settled") { events in
                events.contains { $0.event.name == .sourceLoaded && $0.event.rows == count }
                    && Self.settled(events, since: 0)
            }
            try Self.key(app, "ctrl+2")
            let events = try app.waitFor("the grid's first screen settled") { events in
                Self.grid(events).map { Self.settled(events, since: $0.t) } ?? false
            }
            let grid = try #require(Self.grid(events))
            // 1200 pixels hold six cells of 160 + 12 pixels to a row.
            #expect(grid.event == .viewMode(mode: "grid", columns: 6, size: 160))
            #expect(app.terminate() == 0, "\(app.errorOutput.suffix(600))")
        }

        @Test(
            "Started in the grid, a tree of 100,000 photos fills while the window is resized across column counts and the cells are zoomed; the last screen settles"
        )
        func resizeAndZoomWhileFilling() throws {
            let top = try Self.tree()
            defer { try? FileManager.default.removeItem(at: top) }
            let app = try Self.launch(["--recursive", top.appendingPathComponent("photos").path], grid: true)
            try app.waitFor(event: .windowShown)
            let window =
                try app.xdotool(["search", "--sync", "--onlyvisible", "--name", "photos"])
                .split(separator: "\n").first.map(String.init) ?? ""
            for (width, height) in [(600, 500), (1300, 900), (420, 400), (1200, 850), (800, 850)] {
                _ = try app.xdotool(["windowsize", window, "\(width)", "\(height)"])
                try Self.key(app, "ctrl+plus", "ctrl+minus", "ctrl+minus")
            }
            let events = try app.waitFor("the tree read and the last screen settled", timeout: 120) { events in
                events.contains { $0.event.name == .sourceLoaded && $0.event.rows == 100_000 }
                    && (Self.grid(events).map { Self.settled(events, since: $0.t) } ?? false)
            }
            let loaded = try #require(events.first { $0.event.name == .sourceLoaded })
            let layouts = events.filter { if case .viewMode("grid", _, _) = $0.event { true } else { false } }
            // The layout changed, across column counts, while the tree was still coming in.
            let early = layouts.filter { $0.t < loaded.t }
            #expect(early.count >= 3, "\(layouts.map(\.event)), read at \(loaded.t)")
            let columns = Set(layouts.compactMap { if case .viewMode(_, let c, _) = $0.event { c } else { nil } })
            #expect(columns.count >= 3, "\(columns)")
            #expect(app.terminate() == 0, "\(app.errorOutput.suffix(600))")
        }

        @Test(
            "A tree of 100,000 photos in 2,000 folders, switched to the grid and back while it is read, shows its grid")
        func treeToGridWhileLoading() throws {
            let top = try Self.tree()
            defer { try? FileManager.default.removeItem(at: top) }
            // The rest of the tree after its first rows comes 3 s late, so the keys come while
            // it is read however fast the machine reads it.
            let app = try Self.launch(
                ["--recursive", top.appendingPathComponent("photos").path],
                environment: ["CLASSIC_PHOTOS_LIST_REST_DELAY_MS": "3000"])
            try app.waitFor(event: .windowShown)
            try Self.key(app, "ctrl+2", "ctrl+1", "ctrl+2")
            let events = try app.waitFor("the tree's grid settled", timeout: 120) { events in
                events.contains { $0.event.name == .sourceLoaded && $0.event.rows == 100_000 }
                    && (Self.grid(events).map { Self.settled(events, since: $0.t) } ?? false)
            }
            let loaded = try #require(events.first { $0.event.name == .sourceLoaded })
            let firstGrid = try #require(
                events.first { if case .viewMode("grid", _, _) = $0.event { true } else { false } })
            #expect(firstGrid.t < loaded.t, "the grid was shown before the tree was read")
            #expect(app.terminate() == 0, "\(app.errorOutput.suffix(600))")
        }

        @Test(
            "Sorted by date from the main menu while scrolled deep into 5,000 photos, the list keeps the selected photo on screen, GTK warns of nothing, and the keys reach the photos again"
        )
        func sortKeepsPlace() throws {
            let top = try TestPictures.makeFolder("sort-place")
            defer { try? FileManager.default.removeItem(at: top) }
            let folder = top.appendingPathComponent("photos")
            let dates = (1...7).map { String(format: "2021:0%d:0%d 10:00:00", $0, $0) }
            try TestPictures.linkDatedPhotos(in: folder, count: 5_000, dates: dates)
            let app = try Self.launch([folder.path])
            try app.waitFor("the list settled") { events in
                events.contains { $0.event.name == .sourceLoaded && $0.event.rows == 5_000 }
                    && Self.settled(events, since: 0)
            }
            // End selects the last photo, at the bottom of the view.
            try Self.key(app, "End")
            var events = try app.waitFor("at the end, the last photo selected") { events in
                events.last { $0.event.visibleRows != nil }?.event.visibleRows?.upperBound == 4_999
                    && events.contains { $0.event == .selectionChanged(count: 1) }
            }
            let name = "p04999.jpg"
            let before = events.count
            try Self.key(app, "F10")
            _ = try app.xdotool(["key", "--delay", "400", "s", "t"])
            events = try app.waitFor("sorted, and the view where the photo went") { events in
                guard let sorted = events.dropFirst(before).first(where: { $0.event.name == .listSorted }),
                    let moved = events.last(where: {
                        $0.t > sorted.t && $0.event.photoName == name && $0.event.name == .rowShown
                    }),
                    let visible = events.last(where: { $0.t > sorted.t && $0.event.visibleRows != nil })?.event
                        .visibleRows
                else { return false }
                return visible.contains(moved.event.row!)
            }
            #expect(!app.errorOutput.contains("failed to scroll"), "\(app.errorOutput.suffix(400))")
            // The keys reach the photos again once the menu has closed (GTK 4.8 kept them in it
            // once a sub-menu had been open): Ctrl+2 shows the grid, End goes to its end.
            let mark = events.count
            _ = try app.xdotool(["key", "--delay", "200", "ctrl+2", "End"])
            try app.waitFor("the grid, at its end") { events in
                events.dropFirst(mark).contains { if case .viewMode("grid", _, _) = $0.event { true } else { false } }
                    && events.dropFirst(mark).last { $0.event.name == .scrollEnd }?.event.visibleRows?.upperBound
                        == 4_999
            }
            #expect(app.terminate() == 0, "\(app.errorOutput.suffix(600))")
        }
    }
}
