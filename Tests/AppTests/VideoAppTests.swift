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
            let subtitle = try app.waitFor("the subtitle with the failure") { events in
                events.last { $0.event.name == .windowSubtitle }?.event.text?.contains("failed") == true
            }
            #expect(subtitle.last { $0.event.name == .windowSubtitle }?.event.text == "1 photo, 4 videos, 1 failed")
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

        @Test(
            "A motion photo in the viewer plays its clip at once, muted and once, then rests on the photo; Space plays it again; a Live Photo's clip is not listed apart, and plays in its still"
        )
        func motionPhoto() async throws {
            let folder = try TestPictures.makeFolder("motion-app")
            defer { try? FileManager.default.removeItem(at: folder) }
            var options = TestVideos.Options()
            options.colour = "blue"
            options.seconds = 2
            options.indexFirst = true
            let mp4 = folder.appendingPathComponent(".clip.mp4") // hidden: not listed
            try await TestVideos.make(mp4, options)
            let jpeg = try #require(CameraFiles.jpeg(width: 1200, height: 900, rgb: 0xD02010))
            try TestVideos.motionPhoto(jpeg, clip: try Data(contentsOf: mp4), style: .container)
                .write(to: folder.appendingPathComponent("PXL_0001.MP.jpg"))
            // An iPhone's Live Photo: the still, and its clip beside it.
            try jpeg.write(to: folder.appendingPathComponent("IMG_0001.JPG"))
            try FileManager.default.copyItem(at: mp4, to: folder.appendingPathComponent("IMG_0001.MOV"))
            let app = try AppSession(source: folder.path)
            let loaded = try app.waitFor(event: .sourceLoaded)
            #expect(loaded.event.rows == 2, "the Live Photo's clip is not a row of its own")
            let listed = try app.waitFor("the rows filtered") { AppSession.rowStates($0)[1] == .filtered }
            var names: [Int: String] = [:]
            for case .rowShown(let row, _, let name, _) in listed.map(\.event) { names[row] = name }
            #expect(names == [0: "IMG_0001.JPG", 1: "PXL_0001.MP.jpg"])
            try app.screenshot(to: NSTemporaryDirectory() + "classic-photos-motion-rows.png")
            try app.clickRow(1)
            let events = try app.waitFor("the clip playing") { events in
                events.contains { $0.event.name == .viewerPlay }
            }
            if case .viewerPlay(_, let ms)? = events.first(where: { $0.event.name == .viewerPlay })?.event {
                print("viewer: motion photo shown → clip playing \(String(format: "%.0f", ms)) ms")
            }
            let window = try app.windowGeometry()
            let middle = (x: window.width / 3, y: window.height / 3, width: window.width / 3, height: window.height / 3)
            let clip = try app.waitForScreen(
                region: middle, keeping: NSTemporaryDirectory() + "classic-photos-motion-clip.png"
            ) {
                $0.meanColour.b > $0.meanColour.r + 60
            }
            #expect(clip.meanColour.b > clip.meanColour.r + 60, "the blue clip plays: \(clip)")
            let still = try app.waitForScreen(
                region: middle, keeping: NSTemporaryDirectory() + "classic-photos-motion-still.png"
            ) {
                $0.meanColour.r > $0.meanColour.b + 40
            }
            #expect(still.meanColour.r > still.meanColour.b + 40, "the photo again once the clip ended: \(still)")
            try app.xdotool(["key", "space"])
            try app.waitFor("the clip playing again") { events in
                events.filter { $0.event.name == .viewerPlay }.count >= 2
            }
            // Left: the Live Photo's still, which plays the clip beside it.
            try app.xdotool(["key", "Left"])
            try app.waitFor("the Live Photo's clip playing") { events in
                events.filter { $0.event.name == .viewerPlay }.count >= 3
                    && events.last { $0.event.name == .viewerPlay }?.event.viewerPhoto
                        == events.last { $0.event.name == .viewerOpen }?.event.viewerPhoto
            }
            let live = try app.waitForScreen(
                region: middle, keeping: NSTemporaryDirectory() + "classic-photos-live-clip.png"
            ) {
                $0.meanColour.b > $0.meanColour.r + 60
            }
            #expect(live.meanColour.b > live.meanColour.r + 60, "the Live Photo's clip plays: \(live)")
            #expect(app.terminate() == 0)
        }

        @Test(
            "A Live Photo's still and clip are one item: copied together, moved to the trash together and put back together (the clip not listed on its way back); a row bound again knows it moves; with the preference off, its clip plays on Space only"
        )
        func livePhotoPair() async throws {
            let folder = try TestPictures.makeFolder("live-pair")
            let dataHome = try TestPictures.makeFolder("live-pair-data")
            defer {
                try? FileManager.default.removeItem(at: folder)
                try? FileManager.default.removeItem(at: dataHome)
            }
            var options = TestVideos.Options()
            options.colour = "blue"
            options.seconds = 1
            let still = folder.appendingPathComponent("IMG_0001.JPG")
            let clip = folder.appendingPathComponent("IMG_0001.MOV")
            try await TestVideos.make(clip, options)
            let jpeg = try #require(CameraFiles.jpeg(width: 1200, height: 900, rgb: 0xD02010))
            try jpeg.write(to: still)
            try jpeg.write(to: folder.appendingPathComponent("IMG_0002.JPG"))
            let environment = try GUITests.privateSettings(["play-motion-photos": "false"])
            let app = try AppSession(
                source: folder.path, environment: environment.merging(["XDG_DATA_HOME": dataHome.path]) { $1 })
            let loaded = try app.waitFor(event: .sourceLoaded)
            #expect(loaded.event.rows == 2)
            try app.waitFor("the rows filtered") {
                AppSession.rowStates($0).values.filter { $0 == .filtered }.count == 2
            }
            // The grid binds the rows again, their thumbnails known: the Live Photo's is "motion".
            let before = app.events().count
            try app.xdotool(["key", "ctrl+2"])
            let rebound = try app.waitFor("the cells bound") { events in
                events.dropFirst(before).filter { $0.event.name == .rowShown }.count >= 2
            }
            var kinds: [String: RowKind] = [:]
            for case .rowShown(_, _, let name, let kind) in rebound.dropFirst(before).map(\.event) {
                kinds[name] = kind
            }
            #expect(kinds == ["IMG_0001.JPG": .motion, "IMG_0002.JPG": .photo], "\(kinds)")
            try app.xdotool(["key", "ctrl+1"])
            try app.waitFor("the list bound again") { events in
                events.dropFirst(rebound.count).filter { $0.event.name == .rowShown }.count >= 2
            }

            // Row 0 selected (one click), copied: the still and its clip, as files.
            let row = try app.rowPoint(0)
            try app.xdotool(["mousemove", "\(row.x)", "\(row.y)", "click", "1"])
            try app.waitFor("row 0 selected") { $0.contains { $0.event == .selectionChanged(count: 1) } }
            try app.xdotool(["key", "ctrl+c"])
            try app.waitFor("copied") { $0.contains { $0.event.name == .noticeShown } }
            let copied = try await run(
                URL(fileURLWithPath: "/usr/bin/xclip"), ["-selection", "clipboard", "-t", "text/uri-list", "-o"],
                environment: ["DISPLAY": app.display.name], timeout: 10)
            let uris = copied.stdout.split(whereSeparator: \.isNewline).map(String.init)
            #expect(uris == [still.absoluteString, clip.absoluteString], "copied \(copied.stdout) \(copied.stderr)")

            // Delete: both files in the trash, one row gone.
            try app.xdotool(["key", "Delete"])
            try app.waitFor(event: .fileTrashed)
            let trash = dataHome.appendingPathComponent("Trash")
            try app.waitFor("both files in the trash") { _ in
                !FileManager.default.fileExists(atPath: clip.path)
                    && FileManager.default.fileExists(atPath: trash.appendingPathComponent("files/IMG_0001.MOV").path)
            }
            #expect(FileManager.default.fileExists(atPath: trash.appendingPathComponent("files/IMG_0001.JPG").path))
            #expect(
                FileManager.default.fileExists(atPath: trash.appendingPathComponent("info/IMG_0001.MOV.trashinfo").path)
            )
            #expect(!FileManager.default.fileExists(atPath: still.path))

            // Ctrl+Z: both back, the still's row alone; the folder's watch does not list the clip
            // (a picture added afterwards is the first change it reports).
            try app.xdotool(["key", "ctrl+z"])
            try app.waitFor(event: .fileRestored)
            try app.waitFor("both files back") { _ in
                FileManager.default.fileExists(atPath: clip.path) && FileManager.default.fileExists(atPath: still.path)
            }
            #expect(!FileManager.default.fileExists(atPath: trash.appendingPathComponent("files/IMG_0001.MOV").path))
            #expect(
                !FileManager.default.fileExists(
                    atPath: trash.appendingPathComponent("info/IMG_0001.MOV.trashinfo").path))
            try jpeg.write(to: folder.appendingPathComponent("IMG_0003.JPG"))
            let events = try app.waitFor("the picture added reported") {
                $0.contains { $0.event.name == .sourceChanged }
            }
            let changes = events.compactMap { $0.event.folderChange.map { [$0.added, $0.removed, $0.changed] } }
            #expect(changes == [[1, 0, 0]], "the watch's changes: \(changes)")

            // The viewer on the Live Photo: its clip waits for Space, then plays once.
            try app.clickRow(0)
            try app.waitFor("the still in the viewer") { events in
                events.last { $0.event.name == .viewerOpen }?.event.photoName == "IMG_0001.JPG"
                    && events.contains { $0.event.name == .viewerImage && $0.event.row == 0 }
            }
            let window = try app.windowGeometry()
            let middle = (x: window.width / 3, y: window.height / 3, width: window.width / 3, height: window.height / 3)
            // The still on screen (a clip played at once would be over by then: it is counted).
            let shown = try app.waitForScreen(region: middle) { $0.meanColour.r > $0.meanColour.b + 40 }
            #expect(shown.meanColour.r > shown.meanColour.b + 40, "the still: \(shown)")
            try app.xdotool(["key", "space"])
            try app.waitFor("the clip playing") { $0.contains { $0.event.name == .viewerPlay } }
            let rested = try app.waitForScreen(region: middle) { $0.meanColour.r > $0.meanColour.b + 40 }
            #expect(rested.meanColour.r > rested.meanColour.b + 40, "the photo again once the clip ended: \(rested)")
            let plays = app.events().filter { $0.event.name == .viewerPlay }.count
            #expect(plays == 1, "the clip played \(plays) times: it must not play before Space")
            #expect(app.terminate() == 0)
        }

        @Test(
            "A video in a web list plays in the viewer as it streams over HTTP (loopback), its row a frame; the subtitle counts it"
        )
        func webVideoPlays() async throws {
            let folder = try TestPictures.makeFolder("web-video-app")
            defer { try? FileManager.default.removeItem(at: folder) }
            var options = TestVideos.Options()
            options.colour = "blue"
            options.seconds = 30
            options.indexFirst = true
            try await TestVideos.make(folder.appendingPathComponent("clip.mp4"), options)
            try #require(CameraFiles.jpeg(width: 800, height: 600, rgb: 0xD02010))
                .write(to: folder.appendingPathComponent("photo.jpg"))
            let server = try LoopbackServer(photos: folder)
            let list = """
                <?xml version="1.0" encoding="UTF-8"?>
                <plist version="1.0"><dict>
                <key>a photo</key><string>\(server.url("/photos/photo.jpg").absoluteString)</string>
                <key>b clip</key><string>\(server.url("/photos/clip.mp4").absoluteString)</string>
                </dict></plist>
                """
            server.setList(Data(list.utf8), for: "phone.plist")
            let app = try AppSession(source: server.url("/lists/phone.plist").absoluteString)
            let events = try app.waitFor("both rows final") { events in
                AppSession.rowStates(events).values.filter { $0 == .filtered }.count == 2
            }
            var kinds: [Int: RowKind] = [:]
            for case .rowShown(let row, _, _, let kind) in events.map(\.event) { kinds[row] = kind }
            #expect(kinds == [0: .photo, 1: .video])
            #expect(events.last { $0.event.name == .windowSubtitle }?.event.text == "1 photo, 1 video")
            try app.clickRow(1)
            let played = try app.waitFor("the web video playing") { $0.contains { $0.event.name == .viewerPlay } }
            if case .viewerPlay(_, let ms)? = played.last(where: { $0.event.name == .viewerPlay })?.event {
                print("viewer: web video opened → first frame \(String(format: "%.0f", ms)) ms")
            }
            let window = try app.windowGeometry()
            let middle = (x: window.width / 3, y: window.height / 3, width: window.width / 3, height: window.height / 3)
            let shown = try app.waitForScreen(
                region: middle, keeping: NSTemporaryDirectory() + "classic-photos-web-video.png"
            ) { $0.meanColour.b > $0.meanColour.r + 60 }
            #expect(shown.meanColour.b > shown.meanColour.r + 60, "the blue clip on screen: \(shown)")
            #expect(server.requestCount("/photos/clip.mp4") >= 2, "the row's frame and the player each asked for it")
            #expect(app.terminate() == 0)
        }
    }
}
