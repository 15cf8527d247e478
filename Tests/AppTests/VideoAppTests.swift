import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension DesktopGUITests {
    /// A phone's folder: photos and videos together in the real window, the videos' frames as
    /// their thumbnails with their length, a damaged one failing with its reason, and videos
    /// playing in the viewer as it pages.
    @Suite(.serialized) struct VideoAppTests {
        private func phoneFolder() async throws -> URL {
            let folder = try TestPictures.makeFolder("phone")
            try #require(CameraFiles.jpeg(width: 1200, height: 900, rgb: 0xD02010))
                .write(to: folder.appendingPathComponent("a-photo.jpg"))
            var clip = TestVideos.Options()
            clip.colour = nil // ffmpeg's moving test pattern: frames change as it plays
            clip.seconds = 65
            clip.audio = true
            clip.width = 480
            clip.height = 270
            try await TestVideos.make(folder.appendingPathComponent("b-clip.mp4"), clip)
            var upright = TestVideos.Options()
            upright.colour = "green"
            upright.rotation = 90
            try await TestVideos.make(folder.appendingPathComponent("c-upright.mp4"), upright)
            try Data("not a video\n".utf8).write(to: folder.appendingPathComponent("d-broken.mp4"))
            var web = TestVideos.Options()
            web.colour = "yellow"
            web.codec = "libvpx-vp9"
            try await TestVideos.make(folder.appendingPathComponent("e-web.webm"), web)
            try Data("notes\n".utf8).write(to: folder.appendingPathComponent("f-notes.txt"))
            return folder
        }

        /// A screenshot of the window, kept in the temporary folder under `name`.
        private func shoot(_ app: AppSession, _ name: String) throws -> String {
            let path = NSTemporaryDirectory() + "classic-photos-\(name).png"
            try app.screenshot(to: path)
            return path
        }

        @Test(
            "Videos are listed beside the photos with a frame, their length and kind; a damaged one says so; the viewer plays them as it pages"
        )
        func phoneFolderWhole() async throws {
            let folder = try await phoneFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let app = try AppSession(source: folder.path)
            let loaded = try app.waitFor(event: .sourceLoaded)
            #expect(loaded.event.rows == 5, "four videos and a photo; the text file not")
            var events = try app.waitFor("every row final") { events in
                let states = AppSession.rowStates(events)
                return (0..<5).allSatisfy { states[$0] == .filtered || states[$0] == .failed }
                    && events.contains { $0.event.name == .rowStatus && $0.event.row == 3 }
            }
            var kinds: [Int: RowKind] = [:]
            for case .rowShown(let row, _, _, let kind) in events.map(\.event) { kinds[row] = kind }
            #expect(kinds == [0: .photo, 1: .video, 2: .video, 3: .video, 4: .video], "\(kinds)")
            let states = AppSession.rowStates(events)
            #expect([0, 1, 2, 4].allSatisfy { states[$0] == .filtered }, "\(states)")
            var texts: [Int: (String, Bool)] = [:]
            for case .rowStatus(let row, _, let text, let retry) in events.map(\.event) { texts[row] = (text, retry) }
            #expect(texts[3]?.0 == "Damaged video" && texts[3]?.1 == false, "\(String(describing: texts[3]))")
            print("screenshot: \(try shoot(app, "phone-folder"))")

            // The viewer on the clip: it plays (its picture moves), Space pauses it (it stays).
            try app.clickRow(1)
            events = try app.waitFor("the clip playing in the viewer") { events in
                events.contains { if case .viewerPlay = $0.event { true } else { false } }
            }
            let ids = Dictionary(
                events.compactMap { record -> (Int, PhotoID)? in
                    if case .rowShown(let row, let id, _, _) = record.event { (row, id) } else { nil }
                }, uniquingKeysWith: { $1 })
            let played = events.compactMap { record -> (PhotoID, Double)? in
                if case .viewerPlay(let id, let ms) = record.event { (id, ms) } else { nil }
            }
            #expect(played.first?.0 == ids[1])
            print("viewer: clip opened → first frame \(String(format: "%.0f", played.first?.1 ?? -1)) ms")
            let window = try app.windowGeometry()
            let middle = (x: window.width / 4, y: window.height / 3, width: window.width / 2, height: window.height / 3)
            let still = try ScreenshotStats(path: try shoot(app, "video-1"), region: middle)
            let moved = try app.waitForScreen(
                region: middle, keeping: NSTemporaryDirectory() + "classic-photos-video-2.png"
            ) {
                $0.description != still.description
            }
            #expect(moved.description != still.description, "the clip's picture moves as it plays")

            // Right: the upright video plays; Right: the damaged one fails; Right: the WebM plays.
            try app.xdotool(["key", "Right"])
            try app.waitFor("the upright video playing") { events in
                events.contains { if case .viewerPlay(ids[2]!, _) = $0.event { true } else { false } }
            }
            try app.xdotool(["key", "Right"])
            events = try app.waitFor("the damaged video's reason in the viewer") { events in
                events.contains { if case .viewerStatus(3, _, _) = $0.event { true } else { false } }
            }
            try app.xdotool(["key", "Right"])
            try app.waitFor("the WebM playing") { events in
                events.contains { if case .viewerPlay(ids[4]!, _) = $0.event { true } else { false } }
            }
            let yellow = try app.waitForScreen(
                region: middle, keeping: NSTemporaryDirectory() + "classic-photos-video-webm.png"
            ) {
                $0.meanColour.r > 180 && $0.meanColour.g > 180 && $0.meanColour.b < 90
            }
            #expect(yellow.meanColour.r > 180 && yellow.meanColour.g > 180 && yellow.meanColour.b < 90, "\(yellow)")
            // Home: the photo, sharp, and no video over it.
            try app.xdotool(["key", "Home"])
            try app.waitFor("the photo sharp in the viewer") { events in
                events.contains { if case .viewerSharp(ids[0]!, _) = $0.event { true } else { false } }
            }
            let photo = try app.waitForScreen(
                region: middle, keeping: NSTemporaryDirectory() + "classic-photos-video-photo.png"
            ) {
                $0.meanColour.r > $0.meanColour.g + 30 && $0.meanColour.b < 120
            }
            #expect(
                photo.meanColour.r > photo.meanColour.g + 30 && photo.meanColour.b < 120,
                "the photo, not a video: \(photo)")
            #expect(app.terminate() == 0)
        }
    }
}
