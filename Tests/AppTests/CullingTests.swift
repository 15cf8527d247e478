import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension GUITests {
    /// Paging fast through camera photos in the viewer: a held arrow key shows every photo it
    /// passes by its EXIF thumbnail, decodes only where it stops, and that photo turns sharp.
    @Suite(.serialized) struct CullingTests {
        /// `count` camera JPEGs of 2400 × 1800 (4.3 megapixels: large enough to show a preview
        /// first), each with a 160×120 EXIF thumbnail, named c01.jpg, c02.jpg…
        private func cameraFolder(_ name: String, count: Int) throws -> URL {
            let folder = try TestPictures.makeFolder(name)
            for n in 1...count {
                let bytes = try #require(
                    CameraFiles.jpegWithThumbnail(
                        width: 2400, height: 1800, rgb: UInt32(n * 0x3F6A91 % 0xFFFFFF), thumbWidth: 160,
                        thumbHeight: 120, thumbRGB: UInt32(n * 0x1F3A55 % 0xFFFFFF)))
                try bytes.write(to: folder.appendingPathComponent(String(format: "c%02d.jpg", n)))
            }
            return folder
        }

        @Test("Right held: every photo passed shows its EXIF thumbnail, and only where the key stops is decoded, sharp")
        func heldKey() throws {
            let folder = try cameraFolder("culling-held", count: 40)
            defer { try? FileManager.default.removeItem(at: folder) }
            let app = try AppSession(arguments: [folder.path])
            defer { _ = app.terminate() }
            try app.waitFor(event: .sourceLoaded)
            try app.waitFor("first rows shown") { $0.contains { $0.event.name == .rowShown && $0.event.row == 2 } }
            try app.clickRow(0)
            try app.waitFor("the first photo sharp") { $0.contains { $0.event.name == .viewerSharp } }
            let mark = app.events().count
            // Held down: the X server repeats the key (25 a second after 660 ms) until let go.
            _ = try app.xdotool(["keydown", "Right", "sleep", "1.5", "keyup", "Right"])
            let events = try app.waitFor("the photo where the key stopped sharp") { events in
                let after = events.dropFirst(mark)
                guard let last = after.last(where: { $0.event.name == .viewerOpen })?.event.viewerPhoto else {
                    return false
                }
                return after.contains { $0.event.name == .viewerSharp && $0.event.viewerPhoto == last }
            }
            let after = Array(events.dropFirst(mark))
            let opened = after.filter { $0.event.name == .viewerOpen }.compactMap(\.event.viewerPhoto)
            let stop = try #require(opened.last)
            #expect(opened.count >= 10, "the key repeated only \(opened.count) times")
            // Each photo passed showed a picture of itself before the next key moved on.
            var blank: [PhotoID] = []
            for (n, id) in opened.dropLast().enumerated() {
                let from = after.firstIndex { $0.event.name == .viewerOpen && $0.event.viewerPhoto == id }!
                let until = after.firstIndex { $0.event.name == .viewerOpen && $0.event.viewerPhoto == opened[n + 1] }!
                if !after[from..<until].contains(where: { $0.event.name == .viewerImage && $0.event.viewerPhoto == id })
                {
                    blank.append(id)
                }
            }
            // (The benchmark counts them on camera photos; here, beside other tests on a busy
            // machine, a photo or two may go by before its preview comes.)
            #expect(
                blank.count <= opened.count / 10,
                "\(blank.count) of \(opened.count - 1) photos passed with nothing shown")
            // By their previews: the first few, before the key repeats (after 660 ms), may be sharp.
            let previews = after.filter { $0.event.viewerState == .preview }.count
            #expect(previews >= opened.count / 2, "\(previews) previews for \(opened.count) photos")
            // The photos passed were not decoded, one by one, as the key went over them.
            let decodes = after.filter { $0.event.name == .opStart && $0.event.kind == .viewFilter }.count
            #expect(decodes <= opened.count / 2, "\(decodes) decodes for \(opened.count) photos passed")
            // Where it stopped: the photo decoded at the viewer's size (its preview is 160 wide).
            let sharp = after.filter {
                $0.event.viewerPhoto == stop && ($0.event.viewerState == .original || $0.event.viewerState == .filtered)
            }
            #expect(sharp.contains { ($0.event.imageSize?.w ?? 0) > 160 })
            let ms = after.first { $0.event.name == .viewerSharp && $0.event.viewerPhoto == stop }?.event.ms ?? 0
            print(
                "held Right: \(opened.count) photos, \(previews) previews, \(decodes) decodes, stop → sharp \(Int(ms)) ms"
            )
            try app.screenshot(to: NSTemporaryDirectory() + "classic-photos-culling-held.png")
            #expect(app.terminate() == 0)
        }
    }
}
