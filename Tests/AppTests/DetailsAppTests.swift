import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension DesktopGUITests {
    /// The details panel in the real window: F9 shows it beside the list with the selected
    /// photo's facts (read from the file), or under the photos in a narrow window; the viewer
    /// opened on a photo tells of it; F9 again hides it.
    @Suite(.serialized) struct DetailsAppTests {
        private static let exiftool = URL(fileURLWithPath: "/usr/bin/exiftool")

        /// The facts the panel shows of `id` once it shows `name`'s, after `before` events.
        private func facts(
            _ app: AppSession, after before: Int, _ name: String, until done: ([String]) -> Bool = { _ in true }
        ) throws -> (fields: [String], info: ViewerInfoText, sheet: Bool) {
            let events = try app.waitFor("the panel shows \(name)") { events in
                let recent = events.dropFirst(before)
                guard let info = recent.last(where: { $0.event.viewerInfo != nil })?.event.viewerInfo,
                    info.shown, info.info.name == name,
                    let details = recent.last(where: { $0.event.viewerDetails != nil })?.event.viewerDetails
                else { return false }
                return done(details.fields)
            }
            let recent = events.dropFirst(before)
            let details = try #require(recent.last { $0.event.viewerDetails != nil }?.event.viewerDetails)
            let info = try #require(recent.last { $0.event.viewerInfo != nil }?.event.viewerInfo)
            return (details.fields, info.info, details.sheet)
        }

        @Test(
            "F9 beside the list: a camera JPEG's date with its zone, camera, lens, exposure, place (town), author; a HEIC's and a DNG's camera from their own metadata; a PNG's size and format only; under the photos when narrow; the viewer's photo; F9 hides it"
        )
        func panelForTheSelection() async throws {
            let folder = try TestPictures.makeFolder("details")
            defer { try? FileManager.default.removeItem(at: folder) }
            // A camera JPEG with everything a camera and a person write, by the Eiffel Tower.
            let camera = folder.appendingPathComponent("a-camera.jpg")
            try #require(CameraFiles.jpeg(width: 1200, height: 800, rgb: 0xC08040)).write(to: camera)
            let tagged = try await run(
                Self.exiftool,
                [
                    "-q", "-overwrite_original", "-Make=Canon", "-Model=Canon EOS 5D Mark IV",
                    "-LensModel=EF24-105mm f/4L IS USM", "-ExposureTime=1/250", "-FNumber=8", "-ISO=200",
                    "-FocalLength=50", "-DateTimeOriginal=2021:07:04 18:30:05", "-OffsetTimeOriginal=+02:00",
                    "-GPSLatitude=48.8584", "-GPSLatitudeRef=N", "-GPSLongitude=2.2945", "-GPSLongitudeRef=E",
                    "-Artist=Ada Lovelace", "-Copyright=CC BY 4.0", "-ImageDescription=The tower at dusk",
                    camera.path,
                ])
            try #require(tagged.status == 0, "\(tagged.stderr)")
            // A phone's HEIC with its Exif item.
            let phoneSource = folder.appendingPathComponent(".phone.jpg") // hidden: not listed
            try #require(CameraFiles.jpeg(width: 800, height: 600, rgb: 0x4080C0)).write(to: phoneSource)
            let phone = folder.appendingPathComponent("b-phone.heic")
            try await FormatFiles.convert(phoneSource, to: "heic", at: phone)
            let phoneTagged = try await run(
                Self.exiftool,
                ["-q", "-overwrite_original", "-Make=Apple", "-Model=iPhone 13", "-FNumber=1.6", phone.path])
            try #require(phoneTagged.status == 0, "\(phoneTagged.stderr)")
            // A camera's DNG: its own IFD0 names the camera, its preview nothing.
            let preview = try #require(CameraFiles.jpeg(width: 600, height: 400, rgb: 0x20A040))
            try CameraFiles.dng(
                preview: preview, previewWidth: 600, previewHeight: 400, width: 600, height: 400, orientation: 1,
                dateTime: "2020:02:03 04:05:06"
            ).write(to: folder.appendingPathComponent("c-raw.dng"))
            // A picture that says nothing of itself.
            try #require(TestPictures.write(folder.appendingPathComponent("d-plain.png"), format: "png", rgb: 0x33AA66))

            let app = try AppSession(
                arguments: [folder.path],
                environment: AppSession.withoutAnimations.merging(AppSession.tracingFrames) { $1 })
            try app.waitFor("the rows shown") { events in (0...3).allSatisfy { AppSession.rowStates(events)[$0] != nil }
            }
            let keep = ProcessInfo.processInfo.environment["CLASSIC_PHOTOS_KEEP_SCREENSHOTS"] != nil
            let screenshots = try TestPictures.makeFolder("details-screens")
            defer { if !keep { try? FileManager.default.removeItem(at: screenshots) } }

            // A window wide enough for the panel beside the list.
            let window =
                try app.xdotool(["search", "--sync", "--onlyvisible", "--name", "Classic Photos"])
                .split(separator: "\n").first.map(String.init) ?? ""
            try app.xdotool(["windowsize", window, "1000", "760"])
            #expect(await waitUntil { (try? app.windowGeometry().width) == 1000 })

            // The first photo selected, F9: its facts beside the list, the town found.
            try app.xdotool(["key", "Down", "Up"])
            var before = app.events().count
            try app.xdotool(["key", "F9"])
            let full = try facts(app, after: before, "a-camera.jpg") { $0.contains("place") }
            #expect(
                full.fields == [
                    "date", "camera", "lens", "exposure", "focal-length", "size", "file-size", "format", "folder",
                    "source", "place", "author", "copyright", "description",
                ], "\(full.fields)")
            #expect(!full.sheet)
            #expect(full.info.camera == "Canon EOS 5D Mark IV" && full.info.date == "2021-07-04 18:30:05 (UTC+02:00)")
            #expect(full.info.width == 1200 && full.info.height == 800 && full.info.format == "JPEG")
            #expect(full.info.source == camera.path)
            let town = try app.waitFor("the town") { events in
                events.contains { $0.event.viewerInfo?.info.place?.hasPrefix("Paris, France\n") == true }
            }
            try app.waitForFrame(after: try #require(town.last).t)
            try app.screenshot(to: screenshots.appendingPathComponent("beside.png").path)

            // The HEIC and the DNG: their cameras from their own metadata.
            before = app.events().count
            try app.xdotool(["key", "Down"])
            let heic = try facts(app, after: before, "b-phone.heic") { $0.contains("size") }
            #expect(heic.info.camera == "Apple iPhone 13" && heic.info.format == "HEIF image", "\(heic.info)")
            #expect(heic.fields.contains("exposure"), "\(heic.fields)")
            before = app.events().count
            try app.xdotool(["key", "Down"])
            let dng = try facts(app, after: before, "c-raw.dng") { $0.contains("size") }
            #expect(dng.info.camera == "Test Camera" && dng.info.date == "2020-02-03 04:05:06", "\(dng.info)")
            #expect(dng.info.format == "DNG camera RAW" && dng.info.width == 600, "\(dng.info)")
            #expect(
                dng.info.bytes
                    == (try FileManager.default.attributesOfItem(
                        atPath: folder.appendingPathComponent("c-raw.dng").path)[.size] as? Int))

            // The PNG: no facts but its own.
            before = app.events().count
            try app.xdotool(["key", "Down"])
            let plain = try facts(app, after: before, "d-plain.png") { $0.contains("size") }
            #expect(plain.fields == ["size", "file-size", "format", "folder", "source"], "\(plain.fields)")

            // A narrow window: the panel under the photos.
            before = app.events().count
            try app.xdotool(["windowsize", window, "560", "820"])
            let sheet = try app.waitFor("the panel under the photos") { events in
                events.dropFirst(before).contains { $0.event.viewerDetails?.sheet == true }
            }
            try app.waitForFrame(after: try #require(sheet.last).t)
            try app.screenshot(to: screenshots.appendingPathComponent("under.png").path)
            before = app.events().count
            try app.xdotool(["windowsize", window, "1000", "760"])
            try app.waitFor("the panel beside again") { events in
                events.dropFirst(before).contains { $0.event.viewerDetails?.sheet == false }
            }

            // Enter opens the viewer on the PNG: the panel tells of it, with its colours' profile.
            before = app.events().count
            try app.xdotool(["key", "Return"])
            let viewed = try facts(app, after: before, "d-plain.png") { $0.contains("profile") }
            #expect(viewed.info.profile != nil)
            // Left: the DNG in the viewer, its camera still its own.
            before = app.events().count
            try app.xdotool(["key", "Left"])
            let viewedRaw = try facts(app, after: before, "c-raw.dng") { $0.contains("camera") }
            #expect(viewedRaw.info.camera == "Test Camera", "\(viewedRaw.info)")
            try app.screenshot(to: screenshots.appendingPathComponent("viewer.png").path)

            // F9 hides it; the viewer stays.
            before = app.events().count
            try app.xdotool(["key", "F9"])
            let hidden = try app.waitFor("the panel hidden") { events in
                events.dropFirst(before).contains { $0.event.viewerInfo?.shown == false }
            }
            #expect(!hidden.dropFirst(before).contains { $0.event.name == .viewerClose })
            if keep { print("screenshots in \(screenshots.path)") }
            #expect(app.terminate() == 0, "\(app.errorOutput.suffix(600))")
        }

        @Test(
            "A video's details: when it was recorded, its length, its picture's size, its file and its codec; in the viewer too"
        )
        func videoDetails() async throws {
            let folder = try TestPictures.makeFolder("details-video")
            defer { try? FileManager.default.removeItem(at: folder) }
            var clip = TestVideos.Options()
            clip.seconds = 65
            clip.width = 480
            clip.height = 270
            clip.creationTime = "2021-07-04T16:30:05Z"
            clip.location = "+48.8584+002.2945+035.000/"
            let video = folder.appendingPathComponent("a-clip.mp4")
            try await TestVideos.make(video, clip)
            let app = try AppSession(source: folder.path, environment: ["TZ": "Europe/Paris"])
            try app.waitFor("the row filtered") { AppSession.rowStates($0).values.contains(.filtered) }
            try app.xdotool(["key", "Down", "Up"])
            var before = app.events().count
            try app.xdotool(["key", "F9"])
            let shown = try facts(app, after: before, "a-clip.mp4") { $0.contains("length") }
            #expect(
                shown.fields == ["date", "length", "size", "file-size", "format", "folder", "source", "place"],
                "\(shown.fields)")
            // Where it was recorded: the town, then the coordinates.
            let placed = try app.waitFor("the town") { events in
                events.dropFirst(before).contains { $0.event.viewerInfo?.info.place?.hasPrefix("Paris") == true }
            }
            let place = placed.last { $0.event.viewerInfo?.info.place != nil }?.event.viewerInfo?.info.place
            #expect(place?.contains("48.8584") == true && place?.contains("35 m") == true, "\(place ?? "none")")
            // Wide: the panel beside the list, the place in view.
            let window =
                try app.xdotool(["search", "--sync", "--onlyvisible", "--name", "Classic Photos"])
                .split(separator: "\n").first.map(String.init) ?? ""
            try app.xdotool(["windowsize", window, "1000", "760"])
            #expect(await waitUntil { (try? app.windowGeometry().width) == 1000 })
            try app.screenshot(
                to: FileManager.default.temporaryDirectory.appendingPathComponent("details-video.png").path)
            #expect(shown.info.width == 0 && shown.info.format == "Video (H.264)", "\(shown.info)")
            #expect(shown.info.date == "2021-07-04 18:30:05", "\(shown.info)")
            // The viewer opened on it, playing it: the same facts beside it (the panel traces
            // a change only, and there is none).
            before = app.events().count
            try app.xdotool(["key", "Return"])
            let played = try app.waitFor("the video playing") { events in
                events.dropFirst(before).contains { $0.event.name == .viewerPlay }
            }
            let last = try #require(played.last { $0.event.viewerDetails != nil }?.event.viewerDetails)
            #expect(last.fields == shown.fields, "\(last.fields)")
        }
    }
}
