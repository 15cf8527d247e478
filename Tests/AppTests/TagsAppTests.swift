import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension DesktopGUITests {
    /// Tags given from the popover (Ctrl+T) on the real app: added to every photo selected and
    /// taken away from them, written to sidecars other apps read, shown in the rows.
    @Suite(.serialized) struct TagsAppTests {
        private func key(_ app: AppSession, _ keys: String...) throws {
            try app.xdotool(["key", "--delay", "80"] + keys)
        }

        /// What exiftool reads of the photo's sidecar: `dc:subject` and `lr:hierarchicalSubject`.
        private func sidecarTags(_ photo: URL) throws -> (subjects: String, paths: String) {
            let read = try run(
                URL(fileURLWithPath: "/usr/bin/exiftool"),
                ["-s3", "-f", "-XMP-dc:Subject", "-XMP-lr:HierarchicalSubject", photo.path + ".xmp"], timeout: 60)
            try #require(read.status == 0, "\(read.stderr)")
            let lines = read.stdout.split(separator: "\n").map(String.init)
            return (lines.first ?? "", lines.dropFirst().first ?? "")
        }

        /// The tags each row shows, as last traced.
        private func rowTags(_ events: [TraceRecord]) -> [Int: [String]] {
            var shown: [Int: [String]] = [:]
            for case .rowMarks(let row, _, _, _, let tags) in events.map(\.event) { shown[row] = tags }
            return shown
        }

        /// The tags traced by the `photo.marked` events after the first `before` events.
        private func markedTags(_ events: [TraceRecord], after before: Int) -> [(count: Int, tags: [String]?)] {
            events.dropFirst(before).compactMap {
                if case .photoMarked(let count, _, _, let tags, _) = $0.event { (count, tags) } else { nil }
            }
        }

        private func waitForWritten(_ app: AppSession, after before: Int) throws -> [TraceRecord] {
            try app.waitFor("marks written") { events in
                events.dropFirst(before).contains {
                    if case .batchEnd(.mark, _, _, _, _) = $0.event { true } else { false }
                }
            }
        }

        @Test(
            "Ctrl+T on three photos shows the tag one has; a tag typed goes to all three (exiftool reads it, and a path's levels), the one only some had is taken away from them; rows show the tags"
        )
        func addAndTakeAway() throws {
            let folder = try TestPictures.makeFolder("tags")
            defer { try? FileManager.default.removeItem(at: folder) }
            let photos = (1...3).map { folder.appendingPathComponent("t\($0).png") }
            for (n, photo) in photos.enumerated() {
                try #require(TestPictures.write(photo, format: "png", rgb: UInt32(0x447755 * (n + 1))))
            }
            // t1 comes with a tag another app gave it.
            let sidecar = """
                <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
                <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">\
                <dc:subject><rdf:Bag><rdf:li>Family</rdf:li></rdf:Bag></dc:subject>\
                </rdf:Description></rdf:RDF></x:xmpmeta>
                """
            try Data(sidecar.utf8).write(to: URL(fileURLWithPath: photos[0].path + ".xmp"))
            let cache = try TestPictures.makeFolder("tags-cache")
            defer { try? FileManager.default.removeItem(at: cache) }
            let app = try AppSession(source: folder.path, environment: ["XDG_CACHE_HOME": cache.path])
            try app.waitFor("row 0 shows its tag") { rowTags($0)[0] == ["Family"] }
            let first = try app.rowPoint(0)
            _ = try app.xdotool(["mousemove", "\(first.x)", "\(first.y)", "click", "1"])
            try key(app, "shift+Down", "shift+Down")
            try app.waitFor("three selected") {
                $0.last { $0.event.name == .selectionChanged }?.event == .selectionChanged(count: 3)
            }

            try key(app, "ctrl+t")
            try app.waitFor("the popover open with the tag t1 has") {
                $0.last { $0.event.name == .tagsPopover }?.event == .tagsPopover(shown: true, tags: ["Family"])
            }
            var before = app.events().count
            _ = try app.xdotool(["type", "--delay", "40", "Paris"])
            try key(app, "Return")
            var events = try waitForWritten(app, after: before)
            #expect(markedTags(events, after: before).first.map { $0.count == 3 && $0.tags == ["Paris"] } == true)
            before = events.count
            _ = try app.xdotool(["type", "--delay", "40", "Places|France"])
            try key(app, "Return")
            events = try waitForWritten(app, after: before)
            try app.screenshot(to: NSTemporaryDirectory() + "classic-photos-tags-popover.png")
            let t1 = try sidecarTags(photos[0])
            #expect(t1.subjects == "Family, Paris, Places, France", "\(t1)")
            #expect(t1.paths == "Places|France", "\(t1)")
            #expect(try sidecarTags(photos[2]).subjects == "Paris, Places, France")

            // Back from the entry to the first row's button (Family, on one of the three), then
            // Space: it goes from t1.
            before = app.events().count
            try key(app, "shift+Tab", "shift+Tab", "shift+Tab", "space")
            events = try waitForWritten(app, after: before)
            #expect(
                markedTags(events, after: before).first.map { $0.count == 3 && $0.tags == ["Paris", "Places|France"] }
                    == true, "\(markedTags(events, after: before))")
            #expect(try sidecarTags(photos[0]).subjects == "Paris, Places, France")
            try key(app, "Escape")
            try app.waitFor("the popover closed") {
                $0.last { $0.event.name == .tagsPopover }?.event
                    == .tagsPopover(shown: false, tags: ["Paris", "Places|France"])
            }
            try app.waitFor("rows show the tags") { events in
                let shown = rowTags(events)
                return (0...2).allSatisfy { shown[$0] == ["Paris", "Places|France"] }
            }
            try app.screenshot(to: NSTemporaryDirectory() + "classic-photos-tags-list.png")

            // Ctrl+Z takes back the last change: Family is on t1 again.
            before = app.events().count
            try key(app, "ctrl+z")
            _ = try waitForWritten(app, after: before)
            #expect(try sidecarTags(photos[0]).subjects == "Family, Paris, Places, France")
        }

        @Test(
            "In the viewer, the tags popover's entry takes the keys the viewer would: a tag with − and + typed, the caret moved with the arrows, Escape closes the popover and not the viewer"
        )
        func typedOverTheViewer() throws {
            let folder = try TestPictures.makeFolder("tags-viewer")
            defer { try? FileManager.default.removeItem(at: folder) }
            for n in 1...3 {
                try #require(
                    TestPictures.write(
                        folder.appendingPathComponent("v\(n).png"), format: "png", rgb: UInt32(0x336699 * n)))
            }
            let cache = try TestPictures.makeFolder("tags-viewer-cache")
            defer { try? FileManager.default.removeItem(at: cache) }
            let app = try AppSession(source: folder.path, environment: ["XDG_CACHE_HOME": cache.path])
            _ = try app.waitFor(event: .sourceLoaded)
            let first = try app.rowPoint(0)
            _ = try app.xdotool(["mousemove", "\(first.x)", "\(first.y)", "click", "1"])
            try key(app, "Return")
            try app.waitFor("the viewer open") { $0.contains { $0.event.name == .viewerOpen } }
            try key(app, "ctrl+t")
            try app.waitFor("the popover open") {
                $0.last { $0.event.name == .tagsPopover }?.event == .tagsPopover(shown: true, tags: [])
            }
            let before = app.events().count
            // "-" and "+" zoom the viewer and the arrows page it, unless the entry has them.
            _ = try app.xdotool(["type", "--delay", "40", "new-york+x"])
            try key(app, "Left", "Left", "Right", "Right", "Return")
            let events = try waitForWritten(app, after: before)
            #expect(markedTags(events, after: before).first.map { $0.count == 1 && $0.tags == ["new-york+x"] } == true)
            #expect(
                !events.dropFirst(before).contains { [.viewerZoom, .viewerOpen].contains($0.event.name) },
                "the viewer took keys typed into the entry")
            try key(app, "Escape")
            try app.waitFor("the popover closed") {
                $0.last { $0.event.name == .tagsPopover }?.event == .tagsPopover(shown: false, tags: ["new-york+x"])
            }
            #expect(!app.events().contains { $0.event.name == .viewerClose }, "Escape closed the viewer")
            try key(app, "Escape")
            try app.waitFor("the viewer closed") { $0.contains { $0.event.name == .viewerClose } }
        }
    }
}
