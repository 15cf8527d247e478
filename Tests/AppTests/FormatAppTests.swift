import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension GUITests {
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
            try #require(CameraFiles.jpegWithThumbnail(width: 1600, height: 1200, rgb: Self.red, thumbWidth: 160, thumbHeight: 120,
                                                       thumbRGB: Self.blue)).write(to: folder.appendingPathComponent("a-camera.jpg"))
            // Cropped to 16:9 after the camera wrote its 4:3 thumbnail.
            try #require(CameraFiles.jpegWithThumbnail(width: 1600, height: 900, rgb: Self.red, thumbWidth: 160, thumbHeight: 120,
                                                       thumbRGB: Self.blue)).write(to: folder.appendingPathComponent("b-cropped.jpg"))
            try await FormatFiles.convert(source, to: "heic", at: folder.appendingPathComponent("c-phone.heic"), thumbnail: 240)
            try await FormatFiles.convert(source, to: "avif", at: folder.appendingPathComponent("d-picture.avif"))
            try await FormatFiles.convert(source, to: "webp", at: folder.appendingPathComponent("e-picture.webp"))
            let preview = try #require(CameraFiles.jpeg(width: 600, height: 400, rgb: Self.red))
            try CameraFiles.dng(preview: preview, previewWidth: 600, previewHeight: 400, width: 600, height: 400, orientation: 6)
                .write(to: folder.appendingPathComponent("f-raw.dng"))
            try await FormatFiles.convert(source, to: "psd", at: folder.appendingPathComponent("g-layers.psd"))
            try await FormatFiles.convert(source, to: "jxl", at: folder.appendingPathComponent("h-picture.jxl"))
            try Data("not a picture\n".utf8).write(to: folder.appendingPathComponent("i-notes.txt"))
            return (folder, ["a-camera.jpg", "b-cropped.jpg", "c-phone.heic", "d-picture.avif", "e-picture.webp", "f-raw.dng",
                             "g-layers.psd", "h-picture.jxl"])
        }

        @Test("HEIC, AVIF, WebP and RAW show sepia; embedded thumbnails serve rows; Photoshop and JPEG XL say they are not supported")
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
                    && Set(statuses).isSuperset(of: [6, 7])
            }
            var shown: [Int: String] = [:]
            for case .rowShown(let row, _, let name) in events.map(\.event) { shown[row] = name }
            #expect((0..<names.count).map { shown[$0] } == names)
            let states = AppSession.rowStates(events)
            #expect((0..<6).allSatisfy { states[$0] == .filtered }, "\(states)")
            var texts: [Int: String] = [:]
            for case .rowStatus(let row, _, let text) in events.map(\.event) { texts[row] = text }
            #expect(texts[6] == "Format not supported (Photoshop image)")
            #expect(texts[7] == "Format not supported (JPEG XL image)")
            for case .opFail(_, let row, _, _, let reason) in events.map(\.event) {
                #expect(row >= 6 && reason == .unsupported, "row \(row) failed: \(reason)")
            }

            // The camera JPEG and the HEIC were served by the thumbnails they hold; the cropped
            // photo's stale thumbnail was not trusted, so it was decoded in full.
            var previews: [Int: (source: String, covers: Bool)] = [:]
            for case .rowPreview(let row, _, let source, _, _, let covers) in events.map(\.event) { previews[row] = (source, covers) }
            #expect(previews[0]?.source == "exif" && previews[0]?.covers == true)
            #expect(previews[2]?.source == "heif" && previews[2]?.covers == true)
            #expect(previews[1] == nil)
            #expect(Set(previews.keys) == [0, 2])
            let shot = NSTemporaryDirectory() + "classic-photos-every-format.png"
            try app.screenshot(to: shot)
            #expect(app.terminate() == 0)
        }

        @Test("At scale 2 a camera's 160×120 thumbnail is too small for the row: shown at once, then replaced by the photo decoded")
        func thumbnailThenPhoto() throws {
            let folder = try TestPictures.makeFolder("small-thumbnail")
            defer { try? FileManager.default.removeItem(at: folder) }
            try #require(CameraFiles.jpegWithThumbnail(width: 1600, height: 1200, rgb: Self.red, thumbWidth: 160, thumbHeight: 120,
                                                       thumbRGB: Self.blue)).write(to: folder.appendingPathComponent("camera.jpg"))
            let app = try AppSession(source: folder.path, environment: ["GDK_SCALE": "2"])
            let events = try app.waitFor("the row filtered") { AppSession.rowStates($0)[0] == .filtered }
            var previews: [(covers: Bool, w: Int, h: Int)] = []
            for case .rowPreview(0, _, "exif", let w, let h, let covers) in events.map(\.event) { previews.append((covers, w, h)) }
            #expect(previews.count == 1 && previews.first?.covers == false && previews.first?.w == 160)
            // Shown first (downloaded, the thumbnail), then the photo itself, filtered.
            let states = events.compactMap { record -> PhotoState? in
                if case .rowState(0, _, let state) = record.event { return state } else { return nil }
            }
            #expect(states.suffix(2) == [.downloaded, .filtered], "\(states)")
            #expect(app.terminate() == 0)
        }
    }
}
