import CGLib
import Foundation
import GLibKit
@testable import PhotoPipeline
import Testing
import TestSupport

/// A video's frame, read in a decoder helper from the container's index and one keyframe:
/// made with ffmpeg as cameras and phones write them, and files that only pretend to be videos.
@Suite(.serialized) struct VideoFrameTests {
    /// The frame and facts of the video at `url`, read as the list reads a local file's.
    private func frame(_ url: URL, size: DecodeSize = .fit(256)) throws(PhotoFailure) -> (PhotoImage, VideoFacts) {
        let stream = try PhotoFetcher.openFile(url, cancellable: Cancellable(), byteLimit: .max)
        return try Decoding.videoFrame(.stream(stream), size: size, cancellable: Cancellable())
    }

    private func isClose(_ pixel: (UInt8, UInt8, UInt8, UInt8), to rgb: (Int, Int, Int), within: Int = 24) -> Bool {
        abs(Int(pixel.0) - rgb.0) <= within && abs(Int(pixel.1) - rgb.1) <= within
            && abs(Int(pixel.2) - rgb.2) <= within
    }

    @Test("H.264 in MP4 (index last, as cameras write it), VP9 in WebM: the frame, its length and its codec")
    func containers() async throws {
        let folder = try TestPictures.makeFolder("videos")
        defer { try? FileManager.default.removeItem(at: folder) }
        var camera = TestVideos.Options()
        camera.width = 1280
        camera.height = 720
        camera.seconds = 12
        camera.creationTime = "2024-05-01T10:20:30Z"
        camera.audio = true
        let mp4 = folder.appendingPathComponent("camera.mp4")
        try await TestVideos.make(mp4, camera)
        var web = TestVideos.Options()
        web.colour = "blue"
        web.codec = "libvpx-vp9"
        let webm = folder.appendingPathComponent("web.webm")
        try await TestVideos.make(webm, web)

        let (image, facts) = try frame(mp4)
        #expect(image.width == 256 && image.height == 144, "\(image.width) × \(image.height)")
        #expect(isClose(image.pixel(x: 128, y: 72), to: (254, 0, 0)), "\(image.pixel(x: 128, y: 72))")
        #expect(facts.codec == "H.264")
        #expect(facts.width == 1280 && facts.height == 720)
        #expect(abs((facts.duration ?? 0) - 12) < 0.1, "\(String(describing: facts.duration))")
        #expect(facts.created?.hasPrefix("2024-05-01T10:20:30") == true, "\(String(describing: facts.created))")
        #expect(image.videoSeconds == 12, "the length rides on the picture")

        let (blue, webFacts) = try frame(webm, size: .square(96))
        #expect(blue.width == 96 && blue.height == 96)
        #expect(isClose(blue.pixel(x: 48, y: 48), to: (0, 0, 254)), "\(blue.pixel(x: 48, y: 48))")
        #expect(webFacts.codec == "VP9")
        #expect(blue.videoSeconds == 4)
    }

    @Test("A phone's upright video is turned as it plays; a video that starts black stands for itself by a later frame")
    func turnedAndDark() async throws {
        let folder = try TestPictures.makeFolder("videos-turned")
        defer { try? FileManager.default.removeItem(at: folder) }
        var upright = TestVideos.Options()
        upright.rotation = 90
        upright.colour = "green"
        let turned = folder.appendingPathComponent("upright.mp4")
        try await TestVideos.make(turned, upright)
        var fading = TestVideos.Options()
        fading.blackSeconds = 3
        fading.seconds = 7
        fading.colour = "yellow"
        let dark = folder.appendingPathComponent("fade-in.mp4")
        try await TestVideos.make(dark, fading)

        let (portrait, facts) = try frame(turned)
        #expect(portrait.width == 144 && portrait.height == 256, "\(portrait.width) × \(portrait.height)")
        #expect(facts.width == 360 && facts.height == 640)
        // A tenth of the way in is black; a third of the way is yellow.
        let (shown, _) = try frame(dark)
        #expect(isClose(shown.pixel(x: 128, y: 72), to: (255, 255, 0)), "\(shown.pixel(x: 128, y: 72))")
    }

    @Test("A camera-sized clip's frame reads a few percent of it, its index at the start or the end")
    func readsLittle() async throws {
        let folder = try TestPictures.makeFolder("videos-large")
        defer { try? FileManager.default.removeItem(at: folder) }
        var clip = TestVideos.Options()
        clip.colour = nil
        clip.width = 1280
        clip.height = 720
        clip.seconds = 30
        clip.bitrate = "6M"
        clip.audio = true
        for indexFirst in [false, true] {
            clip.indexFirst = indexFirst
            let url = folder.appendingPathComponent("clip-\(indexFirst).mp4")
            try await TestVideos.make(url, clip)
            let size = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
            let (_, facts) = try frame(url)
            let share = Double(facts.bytesRead) / Double(size)
            print("video frame: read \(facts.bytesRead) of \(size) bytes (\(String(format: "%.2f", share * 100)) %)")
            #expect(size > 10 << 20)
            #expect(share < 0.05, "index first: \(indexFirst)")
        }
    }

    @Test("Sound alone, text, a cut-off file and a codec nothing here decodes each fail with their reason")
    func failures() async throws {
        let folder = try TestPictures.makeFolder("videos-bad")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sound = folder.appendingPathComponent("sound.mp4")
        try await TestVideos.soundOnly(sound)
        let text = folder.appendingPathComponent("notes.mp4")
        try Data("not a video\n".utf8).write(to: text)
        var options = TestVideos.Options()
        options.seconds = 6
        options.colour = nil
        let whole = folder.appendingPathComponent("whole.mp4")
        try await TestVideos.make(whole, options)
        let bytes = try Data(contentsOf: whole)
        let cut = folder.appendingPathComponent("cut.mp4")
        try bytes.prefix(bytes.count / 2).write(to: cut) // the index was last
        let unknown = folder.appendingPathComponent("h266.mp4")
        try TestVideos.retagged(bytes, as: "vvc1").write(to: unknown)

        for url in [sound, text, cut] {
            #expect(throws: PhotoFailure.self) { try frame(url) }
            do {
                _ = try frame(url)
            } catch {
                #expect(error.kind == .damagedVideo, "\(url.lastPathComponent): \(error)")
                #expect(!error.retryHelps)
            }
        }
        do {
            _ = try frame(unknown)
            Issue.record("a codec with no decoder gave a frame")
        } catch {
            #expect(error.kind == .codecMissing(codec: "H.266"), "\(error)")
            #expect(error.summary == "H.266 video: codec not installed")
            #expect(error.reason == .unsupported)
        }
    }

    @Test("Hostile MP4s (boxes 5,000 deep, a billion samples, an exabyte box) fail in their helper, which goes on")
    func hostile() async throws {
        let folder = try TestPictures.makeFolder("videos-hostile")
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, bytes) in TestVideos.hostile() {
            let url = folder.appendingPathComponent("\(name).mp4")
            try bytes.write(to: url)
            do {
                _ = try frame(url)
                Issue.record("\(name) gave a frame")
            } catch {
                #expect(
                    [.damagedOrUnsupported, .tooLarge].contains(error.reason),
                    "\(name): \(error.reason) \(error.detail)")
            }
        }
        // The helpers are still there for a good video.
        var options = TestVideos.Options()
        options.seconds = 2
        let good = folder.appendingPathComponent("good.mp4")
        try await TestVideos.make(good, options)
        let (image, _) = try frame(good)
        #expect(image.width == 256)
    }

    @Test(
        "Motion photos as Google (both ways) and Samsung write them: the clip found after the picture; a lying XMP and a still photo have none"
    )
    func motionPhotos() async throws {
        let folder = try TestPictures.makeFolder("motion")
        defer { try? FileManager.default.removeItem(at: folder) }
        var options = TestVideos.Options()
        options.seconds = 2
        options.indexFirst = true
        options.colour = nil
        options.bitrate = "4M" // a clip of a megabyte, as phones keep
        let mp4 = folder.appendingPathComponent("clip.mp4")
        try await TestVideos.make(mp4, options)
        let clip = try Data(contentsOf: mp4)
        #expect(clip.count > 512 << 10)
        let jpeg = try #require(CameraFiles.jpeg(width: 800, height: 600, rgb: 0xD02010))
        for style in TestVideos.MotionStyle.allCases {
            let motion = TestVideos.motionPhoto(jpeg, clip: clip, style: style)
            let info = try Decoding.info(motion)
            let start = try #require(info.motionClip?.lowerBound, "\(style)")
            #expect(motion[start..<start + clip.count] == clip, "\(style)")
            #expect(info.motionClip?.upperBound == motion.count)
            #expect(info.width == 800 && info.format == "jpeg")
        }
        let lying = TestVideos.motionPhoto(jpeg, clip: clip, style: .container, lying: true)
        #expect(try Decoding.info(lying).motionClip == nil)
        #expect(try Decoding.info(jpeg).motionClip == nil)
    }

    @Test("A video sorts by date taken as its container says it was recorded, its index first or last")
    func recordedDate() async throws {
        let folder = try TestPictures.makeFolder("video-dates")
        defer { try? FileManager.default.removeItem(at: folder) }
        var options = TestVideos.Options()
        options.seconds = 1
        options.creationTime = "2024-05-01T10:20:30Z"
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        formatter.timeZone = .current
        let expected = formatter.string(from: Date(timeIntervalSince1970: 1_714_558_830))
        for indexFirst in [false, true] {
            options.indexFirst = indexFirst
            let url = folder.appendingPathComponent("clip-\(indexFirst).mov")
            try await TestVideos.make(url, options)
            let facts = try #require(url.path.withCString { SortFacts.read(path: $0, taken: true, index: nil) })
            #expect(facts.taken == expected, "index first: \(indexFirst)")
        }
        // No time in it: the file's own, as for a photo without EXIF.
        options.creationTime = nil
        let undated = folder.appendingPathComponent("undated.mp4")
        try await TestVideos.make(undated, options)
        var times = [timespec(tv_sec: 1_500_000_000, tv_nsec: 0), timespec(tv_sec: 1_500_000_000, tv_nsec: 0)]
        _ = utimensat(AT_FDCWD, undated.path, &times, 0)
        let facts = try #require(undated.path.withCString { SortFacts.read(path: $0, taken: true, index: nil) })
        #expect(facts.taken == formatter.string(from: Date(timeIntervalSince1970: 1_500_000_000)))
    }

    @Test(
        "Where a video was recorded, as phones write it (3GPP `loci`, QuickTime `©xyz`, an iPhone's metadata key), is read for the index and the panel"
    )
    func recordedPlace() async throws {
        let folder = try TestPictures.makeFolder("video-places")
        defer { try? FileManager.default.removeItem(at: folder) }
        var options = TestVideos.Options()
        options.seconds = 1
        options.width = 160
        options.height = 120
        let cases: [(name: String, location: String, apple: Bool, expected: (Double, Double, Double?))] = [
            ("loci.mp4", "+48.1374+011.5755+520.000/", false, (48.1374, 11.5755, 520)),
            ("xyz.mov", "-33.8568+151.2153/", false, (-33.8568, 151.2153, nil)),
            ("keys.mov", "-22.9068-043.1729+010.000/", true, (-22.9068, -43.1729, 10)),
        ]
        for (name, location, apple, expected) in cases {
            options.location = location
            options.appleKeys = apple
            let url = folder.appendingPathComponent(name)
            try await TestVideos.make(url, options)
            let header = try #require(PhotoXMP.withFile(at: url.path) { VideoDate.header(file: $0, size: $1) })
            let position = try #require(header.position, "\(name)")
            // `loci` keeps 16 bits of a degree's fraction: some 10⁻⁵°.
            #expect(
                abs(position.latitude - expected.0) < 1e-4 && abs(position.longitude - expected.1) < 1e-4, "\(name)")
            #expect(position.altitude.map { abs($0 - (expected.2 ?? .nan)) < 0.01 } ?? (expected.2 == nil), "\(name)")
            let details = try #require(try VideoDetails.read(url, cancellable: Cancellable()))
            #expect(details.latitude == position.latitude && details.longitude == position.longitude, "\(name)")
        }
        // The index keeps it: a search finds the video by its town.
        let index = try PhotoIndex(path: folder.appendingPathComponent("index.sqlite").path)
        let sydney = folder.appendingPathComponent("xyz.mov").path
        _ = sydney.withCString { SortFacts.read(path: $0, taken: true, index: index) }
        index.flush()
        let facts = try #require(index.facts(ofFileAt: sydney))
        #expect(facts.latitude == -33.8568 && facts.longitude == 151.2153, "\(facts)")
        #expect(VideoDate.iso6709(Array("+91.0+000.0/".utf8)) == nil)
        #expect(VideoDate.iso6709(Array("48.1+2.3/".utf8)) == nil)
        // Degrees and minutes (ISO 6709's other form) are not taken for degrees.
        #expect(VideoDate.iso6709(Array("+0030.5+00012.3/".utf8)) == nil)
        #expect(VideoDate.iso6709(Array("+48.5-002.25".utf8)) == VideoDate.Position(latitude: 48.5, longitude: -2.25))
    }

    @Test("A video in a web list, served over loopback HTTP, gets its frame and length like a local one")
    @MainActor func webVideo() async throws {
        let folder = try TestPictures.makeFolder("web-video")
        defer { try? FileManager.default.removeItem(at: folder) }
        var options = TestVideos.Options()
        options.colour = "blue"
        options.seconds = 3
        try await TestVideos.make(folder.appendingPathComponent("clip.mp4"), options)
        let server = try LoopbackServer(photos: folder)
        let processor = PhotoProcessor(fetcher: PhotoFetcher(), prefetchMargin: 0, maxPixelSize: 80)
        processor.setEntries([PhotoEntry(name: "clip.mp4", url: server.url("/photos/clip.mp4"))])
        processor.visibleRowsChanged(0..<1)
        #expect(await waitUntil { processor.records.allSatisfy { $0.state == .filtered || $0.state == .failed } })
        let record = try #require(processor.records.first)
        #expect(record.state == .filtered, "\(String(describing: record.failure))")
        let image = try #require(record.image)
        #expect(image.videoSeconds == 3)
        // The sepia of the clip's blue.
        let (r, g, b, _) = image.pixel(x: 40, y: 40)
        let sepia = SepiaFilter().apply(r: 0, g: 0, b: 254)
        #expect(
            abs(Int(r) - Int(sepia.0)) <= 3 && abs(Int(g) - Int(sepia.1)) <= 3 && abs(Int(b) - Int(sepia.2)) <= 3,
            "\((r, g, b)) against \(sepia)")
        processor.shutDown()
    }

    @Test(
        "Hostile MP4 headers read for sorting (a box of exabytes, a movie header from beyond 2^63 s) give no date, and no crash"
    )
    func hostileDates() throws {
        let folder = try TestPictures.makeFolder("video-dates-hostile")
        defer { try? FileManager.default.removeItem(at: folder) }
        let ftyp = TestVideos.box("ftyp", Array("isom".utf8) + [0, 0, 2, 0] + Array("isomiso2".utf8))
        let huge: [UInt8] = [0, 0, 0, 1] + Array("free".utf8) + [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF0]
        let mvhd = TestVideos.box(
            "mvhd", [1, 0, 0, 0] + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF] + [0, 0, 0, 0])
        let cases: [(String, [UInt8])] = [
            ("exabyte-box.mp4", ftyp + huge + [UInt8](repeating: 0, count: 64)),
            ("far-future.mov", ftyp + TestVideos.box("moov", mvhd)),
            ("zero-size.mp4", ftyp + [0, 0, 0, 0] + Array("moov".utf8)),
        ]
        for (name, bytes) in cases {
            let url = folder.appendingPathComponent(name)
            try Data(bytes).write(to: url)
            var times = [timespec(tv_sec: 1_500_000_000, tv_nsec: 0), timespec(tv_sec: 1_500_000_000, tv_nsec: 0)]
            _ = utimensat(AT_FDCWD, url.path, &times, 0)
            let facts = try #require(url.path.withCString { SortFacts.read(path: $0, taken: true, index: nil) })
            #expect(
                facts.taken?.hasPrefix("2017-07-1") == true,
                "\(name): the file's time, \(String(describing: facts.taken))")
        }
    }
}
