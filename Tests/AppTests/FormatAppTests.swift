import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension DesktopGUITests {
    /// A folder of the pictures people have, in the real window: phone HEIC, AVIF, WebP, a
    /// camera's DNG, camera JPEGs with EXIF thumbnails (one stale), and pictures of kinds
    /// nothing here decodes.
    @Suite(.serialized) struct FormatAppTests {
        private static let red: UInt32 = 0xD02010, blue: UInt32 = 0x1030E0

        /// The folder, and its files in the list's order.
        private func formatsFolder() async throws -> (folder: URL, names: [String]) {
            let folder = try TestPictures.makeFolder("every-format")
            let source = folder.appendingPathComponent(".source.jpg") // hidden: not listed
            try #require(CameraFiles.jpeg(width: 1200, height: 900, rgb: Self.red)).write(to: source)
            try #require(
                CameraFiles.jpegWithThumbnail(
                    width: 1600, height: 1200, rgb: Self.red, thumbWidth: 160, thumbHeight: 120,
                    thumbRGB: Self.blue)
            ).write(to: folder.appendingPathComponent("a-camera.jpg"))
            // Cropped to 16:9 after the camera wrote its 4:3 thumbnail.
            try #require(
                CameraFiles.jpegWithThumbnail(
                    width: 1600, height: 900, rgb: Self.red, thumbWidth: 160, thumbHeight: 120,
                    thumbRGB: Self.blue)
            ).write(to: folder.appendingPathComponent("b-cropped.jpg"))
            try await FormatFiles.convert(
                source, to: "heic", at: folder.appendingPathComponent("c-phone.heic"), thumbnail: 240)
            try await FormatFiles.convert(source, to: "avif", at: folder.appendingPathComponent("d-picture.avif"))
            try await FormatFiles.convert(source, to: "webp", at: folder.appendingPathComponent("e-picture.webp"))
            let preview = try #require(CameraFiles.jpeg(width: 600, height: 400, rgb: Self.red))
            try CameraFiles.dng(
                preview: preview, previewWidth: 600, previewHeight: 400, width: 600, height: 400, orientation: 6
            )
            .write(to: folder.appendingPathComponent("f-raw.dng"))
            try await FormatFiles.convert(source, to: "psd", at: folder.appendingPathComponent("g-layers.psd"))
            try await FormatFiles.convert(source, to: "jxl", at: folder.appendingPathComponent("h-picture.jxl"))
            try Data("not a picture\n".utf8).write(to: folder.appendingPathComponent("i-notes.txt"))
            return (
                folder,
                [
                    "a-camera.jpg", "b-cropped.jpg", "c-phone.heic", "d-picture.avif", "e-picture.webp", "f-raw.dng",
                    "g-layers.psd", "h-picture.jxl",
                ]
            )
        }

        @Test(
            "HEIC, AVIF, WebP, JPEG XL and RAW show sepia; embedded thumbnails serve rows; Photoshop says it is not supported"
        )
        func everyFormat() async throws {
            let (folder, names) = try await formatsFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let app = try AppSession(source: folder.path)
            let loaded = try app.waitFor(event: .sourceLoaded)
            #expect(loaded.event.rows == names.count, "every picture listed, the text file not")
            let events = try app.waitFor("every row final, the unsupported ones with their reason") { events in
                let states = AppSession.rowStates(events)
                let statuses = events.filter { $0.event.name == .rowStatus }.compactMap(\.event.row)
                return (0..<names.count).allSatisfy { states[$0] == .filtered || states[$0] == .failed }
                    && Set(statuses).contains(6)
            }
            var shown: [Int: String] = [:]
            for case .rowShown(let row, _, let name, _) in events.map(\.event) { shown[row] = name }
            #expect((0..<names.count).map { shown[$0] } == names)
            let states = AppSession.rowStates(events)
            #expect([0, 1, 2, 3, 4, 5, 7].allSatisfy { states[$0] == .filtered }, "\(states)")
            var texts: [Int: String] = [:]
            var retries: [Int: Bool] = [:]
            for case .rowStatus(let row, _, let text, let retry) in events.map(\.event) {
                texts[row] = text
                retries[row] = retry
            }
            #expect(texts[6] == "Format not supported (Photoshop image)")
            // Trying again would not help: no Retry on its row.
            #expect(retries[6] == false)
            #expect(texts[7] == nil, "the JPEG XL picture, decoded with libjxl")
            for case .opFail(_, let row, _, _, let reason) in events.map(\.event) {
                #expect(row == 6 && reason == .unsupported, "row \(row) failed: \(reason)")
            }

            // The camera JPEG and the HEIC were served by the thumbnails they hold; the cropped
            // photo's stale thumbnail was not trusted, so it was decoded in full.
            var previews: [Int: (source: String, covers: Bool)] = [:]
            for case .rowPreview(let row, _, let source, _, _, let covers) in events.map(\.event) {
                previews[row] = (source, covers)
            }
            #expect(previews[0]?.source == "exif" && previews[0]?.covers == true)
            #expect(previews[2]?.source == "heif" && previews[2]?.covers == true)
            #expect(previews[1] == nil)
            #expect(Set(previews.keys) == [0, 2])
            let shot = NSTemporaryDirectory() + "classic-photos-every-format.png"
            try app.screenshot(to: shot)
            #expect(app.terminate() == 0)
        }

        @Test(
            "At scale 2 a camera's 160×120 thumbnail is too small for the row: shown at once, then replaced by the photo decoded"
        )
        func thumbnailThenPhoto() throws {
            let folder = try TestPictures.makeFolder("small-thumbnail")
            defer { try? FileManager.default.removeItem(at: folder) }
            try #require(
                CameraFiles.jpegWithThumbnail(
                    width: 1600, height: 1200, rgb: Self.red, thumbWidth: 160, thumbHeight: 120,
                    thumbRGB: Self.blue)
            ).write(to: folder.appendingPathComponent("camera.jpg"))
            let app = try AppSession(source: folder.path, environment: ["GDK_SCALE": "2"])
            let events = try app.waitFor("the row filtered") { AppSession.rowStates($0)[0] == .filtered }
            var previews: [(covers: Bool, w: Int, h: Int)] = []
            for case .rowPreview(0, _, "exif", let w, let h, let covers) in events.map(\.event) {
                previews.append((covers, w, h))
            }
            #expect(previews.count == 1 && previews.first?.covers == false && previews.first?.w == 160)
            // Shown first (downloaded, the thumbnail), then the photo itself, filtered.
            let states = events.compactMap { record -> PhotoState? in
                if case .rowState(0, _, let state) = record.event { return state } else { return nil }
            }
            #expect(states.suffix(2) == [.downloaded, .filtered], "\(states)")
            #expect(app.terminate() == 0)
        }

        @Test(
            "Web photos head first: rows from the EXIF thumbnail in a 64 KB head; a server ignoring Range read once; the viewer and the next launch get the whole photo"
        )
        func webHeadFirst() throws {
            let folder = try TestPictures.makeFolder("web-head")
            defer { try? FileManager.default.removeItem(at: folder) }
            var sizes: [String: Int] = [:]
            for name in ["one", "two", "three"] {
                let photo = try #require(
                    CameraFiles.jpegWithThumbnail(
                        width: 3000, height: 2250, rgb: Self.red, thumbWidth: 160,
                        thumbHeight: 120, thumbRGB: Self.blue, progressive: true))
                try photo.write(to: folder.appendingPathComponent("\(name).jpg"))
                sizes[name] = photo.count
            }
            // Without a thumbnail, and larger than the head (grainy, as photos are).
            let plain = try run(
                URL(fileURLWithPath: "/usr/bin/convert"),
                ["-size", "1200x900", "plasma:", "-quality", "90", folder.appendingPathComponent("plain.jpg").path])
            try #require(plain.status == 0, "convert failed: \(plain.stderr)")
            let server = try LoopbackServer(photos: folder)
            let items = [
                ("Kept", "/cacheable/one.jpg"), ("Camera", "/photos/two.jpg"), ("Plain", "/photos/plain.jpg"),
                ("Whole", "/norange/three.jpg"),
            ].map { ["name": $0.0, "url": server.url($0.1).absoluteString] }
            let list = folder.appendingPathComponent("list.plist")
            try PropertyListSerialization.data(fromPropertyList: items, format: .xml, options: 0).write(to: list)
            let cache = folder.appendingPathComponent("cache")

            let app = try AppSession(source: list.path, environment: ["XDG_CACHE_HOME": cache.path])
            var events = try app.waitFor("every row filtered") { events in
                let states = AppSession.rowStates(events)
                return (0..<4).allSatisfy { states[$0] == .filtered }
            }
            var covering = Set<Int>()
            for case .rowPreview(let row, _, "exif", _, _, true) in events.map(\.event) { covering.insert(row) }
            #expect(covering == [0, 1, 3], "rows served by the photos' thumbnails")
            // The heads alone for the camera photos; the plain photo needed its whole body too.
            #expect(
                server.requestCount("/cacheable/one.jpg") == 1 && server.rangeRequestCount("/cacheable/one.jpg") == 1)
            #expect(server.requestCount("/photos/two.jpg") == 1)
            #expect(server.requestCount("/photos/plain.jpg") == 2)
            #expect(server.requestCount("/norange/three.jpg") == 1, "read whole once, with no second request")
            let camera = sizes["one"]! + sizes["two"]!
            print(
                "web head first: \(server.photoBytesSent) bytes sent for photos of \(camera + sizes["three"]!) bytes (+ the plain one)"
            )

            // The viewer gets the whole photo, not the head (whose EXIF thumbnail it may show first).
            try app.clickRow(0)
            events = try app.waitFor("the kept photo in the viewer", timeout: 60) { events in
                events.contains {
                    $0.event.name == .viewerImage && $0.event.row == 0 && $0.event.viewerState != .preview
                }
            }
            let shown = try #require(
                events.last { $0.event.name == .viewerImage && $0.event.row == 0 && $0.event.viewerState != .preview }?
                    .event.imageSize)
            #expect(shown.0 > 160 && shown.1 > 120, "\(shown)")
            let requests = server.requestCount("/cacheable/one.jpg")
            #expect(requests == 2, "the whole photo was fetched for the viewer")
            #expect(app.terminate() == 0)

            // The next launch: the row from the app's thumbnail cache, the viewer's photo from the
            // disk cache, whole.
            let again = try AppSession(source: list.path, environment: ["XDG_CACHE_HOME": cache.path])
            try again.waitFor("row 0 filtered") { AppSession.rowStates($0)[0] == .filtered }
            try again.clickRow(0)
            events = try again.waitFor("the kept photo in the viewer again", timeout: 60) { events in
                events.contains {
                    $0.event.name == .viewerImage && $0.event.row == 0 && $0.event.viewerState != .preview
                }
            }
            let shownAgain = try #require(
                events.last { $0.event.name == .viewerImage && $0.event.row == 0 && $0.event.viewerState != .preview }?
                    .event.imageSize)
            #expect(shownAgain == shown)
            #expect(
                server.requestCount("/cacheable/one.jpg") == requests, "neither the row nor the viewer asked the server"
            )
            #expect(again.terminate() == 0)
        }
    }
}
