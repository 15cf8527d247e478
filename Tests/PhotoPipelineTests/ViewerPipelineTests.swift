import CGdkPixbuf
import CGLib
import Foundation
import GLibKit
@testable import PhotoPipeline
import Testing
import TestSupport

@Suite struct ViewerPipelineTests {
    @Test("EXIF camera, date and orientation are read, in both byte orders", arguments: [true, false])
    func exif(little: Bool) throws {
        let data = try TestPictures.jpegWithExif(
            make: "Canon", model: "Canon EOS 5D", original: "2021:07:04 18:30:05", orientation: 6, little: little)
        let tags = ExifReader.read(data)
        #expect(tags.camera == "Canon EOS 5D")
        #expect(tags.date == "2021-07-04 18:30:05")
        #expect(tags.orientation == 6)
        // Orientation 6 turns the 600×400 photo a quarter: shown 400×600.
        let info = try ImageInfo.read(data)
        #expect(info.width == 400 && info.height == 600 && info.format == "jpeg" && info.fileSize == data.count)
        #expect(info.camera == "Canon EOS 5D")
    }

    @Test("A photo without EXIF has none; bytes that are not a picture are not-image")
    func noExif() throws {
        let data = try Data(contentsOf: Products.packageRoot.appendingPathComponent("data/photos/rocket-launch.jpg"))
        let info = try ImageInfo.read(data)
        #expect(info.width == 640 && info.height == 427 && info.camera == nil && info.orientation == 1)
        // A tiny file (1.5 kB) whose header the loader reads only when closed.
        let tiny = try ImageInfo.read(
            Data(contentsOf: Products.packageRoot.appendingPathComponent("data/photos/retina-microaneurysms.jpg")))
        #expect(tiny.width == 102 && tiny.height == 102)
        #expect(ExifReader.read(Data([0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x04, 0x45, 0x78])) == ExifReader.Tags())
        #expect(throws: PhotoFailure.self) { try ImageInfo.read(Data("no pixels here".utf8)) }
    }

    @Test("Decode sizes stop at the image and at the pixel limit")
    func decodeSides() {
        #expect(ViewerLimits.decodeSide(width: 4000, height: 3000, wanted: 1000) == 1000)
        #expect(ViewerLimits.decodeSide(width: 4000, height: 3000, wanted: 9000) == 4000)
        #expect(ViewerLimits.decodeSide(width: 4000, height: 3000, wanted: 0) == 4000)
        // 20000 × 20000 is 400 MP: whole, it would be 8000 × 8000 at most.
        let side = ViewerLimits.decodeSide(width: 20000, height: 20000, wanted: 0)
        #expect(side * side <= ViewerLimits.maxDecodedPixels && side > 7990)
    }

    @Test("Zooming in decodes again only past the decoded sharpness, at least twice as large, up to the image")
    func largerDecodes() {
        // 4000 × 3000 decoded at 1000: fit zoom 0.25 is sharp; 0.26 is within 5 %.
        #expect(ViewerLimits.largerDecodeSide(width: 4000, height: 3000, decoded: 1000, zoom: 0.25) == nil)
        #expect(ViewerLimits.largerDecodeSide(width: 4000, height: 3000, decoded: 1000, zoom: 0.26) == nil)
        // A little more: twice as large at once; far more: what is needed.
        #expect(ViewerLimits.largerDecodeSide(width: 4000, height: 3000, decoded: 1000, zoom: 0.3) == 2000)
        #expect(ViewerLimits.largerDecodeSide(width: 4000, height: 3000, decoded: 1000, zoom: 0.8) == 3200)
        // Past 100 % the whole image is enough; once it is decoded whole, nothing more.
        #expect(ViewerLimits.largerDecodeSide(width: 4000, height: 3000, decoded: 3200, zoom: 4) == 4000)
        #expect(ViewerLimits.largerDecodeSide(width: 4000, height: 3000, decoded: 4000, zoom: 8) == nil)
        // A huge image stops at the pixel limit.
        let side = ViewerLimits.largerDecodeSide(width: 20000, height: 20000, decoded: 2000, zoom: 1)
        #expect(side.map { $0 * $0 <= ViewerLimits.maxDecodedPixels } == true)
        #expect(ViewerLimits.largerDecodeSide(width: 20000, height: 20000, decoded: side ?? 0, zoom: 1) == nil)
    }

    @Test("The viewer's load decodes at the size asked, filters, and shares a running row download's bytes")
    @MainActor func loadAndShare() async throws {
        let server = try LoopbackServer()
        // The row's download stays running until the viewer's load has been asked for.
        server.holdPhotos()
        defer { server.releasePhotos() }
        // A held response has no answer: past the standard 15 s the download fails as a
        // timeout, and a main actor kept from this test that long by the suites beside it (seen
        // once in a run of them all) then finds it finished. The wait's own bound (below) is
        // what may end the test.
        var limits = PhotoLimits.standard
        limits.connectSeconds = 120
        limits.silenceSeconds = 120
        let fetcher = PhotoFetcher(limits: limits)
        let pending = PendingOperations()
        let record = PhotoRecord(
            id: PhotoID(rawValue: 1),
            entry: PhotoEntry(name: "hubble", url: server.url("/photos/hubble-deep-field.jpg")), position: 0)
        let pipeline = ViewerPipeline(fetcher: fetcher, pendingOperations: pending) { $0 == record.id ? record : nil }
        // The row's download, running (the server holds its response).
        let download = ImageDownloader(record: record, fetcher: fetcher, maxPixelSize: 80)
        pending.downloadsInProgress[record.id] = download
        pending.downloadQueue.addOperation(download)
        // Running once the server holds its request. Bounded, generously: while the suites
        // beside this one compute on both cores an operation can wait seconds for a thread,
        // but a download that never starts must fail the test, not hang it.
        let started = Date().addingTimeInterval(60)
        while server.heldCount == 0, !download.isFinished, Date() < started {
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        try #require(download.isExecuting && server.heldCount == 1, "the row's download is not running")

        var decoded: ViewerPicture?
        var sepia: PhotoImage?
        var facts: ImageInfo?
        #expect(pipeline.load(PhotoID(rawValue: 2), wantedSide: 400, known: nil, urgent: true) { _ in } == nil)
        let request = try #require(
            pipeline.load(record.id, wantedSide: 400, known: nil, urgent: true) { event in
                switch event {
                case .decoded(let picture): decoded = picture
                case .filtered(let filtered): sepia = filtered.image
                case .failed(let failure): Issue.record("failed: \(failure)")
                case .preview: Issue.record("a photo of 800 × 698 pixels decodes too fast to need a preview")
                case .motionClip: Issue.record("a still photo has no clip")
                case .facts(let info):
                    if decoded != nil { Issue.record("the facts came after the picture") }
                    facts = info
                }
            })
        #expect(request.sharesRowDownload)
        server.releasePhotos()
        let deadline = Date().addingTimeInterval(20)
        while sepia == nil, Date() < deadline { await MainLoop.turn(milliseconds: 10) }
        let picture = try #require(decoded)
        #expect(picture.info.width == 800 && picture.info.height == 698)
        #expect(facts == picture.info, "the facts, before the picture, are the picture's")
        #expect(picture.original.width == 400 && picture.original.height == 349)
        #expect(sepia?.width == 400)
        // One request for the whole photo (the row's, after its head showed no thumbnail): the
        // viewer took the row's bytes.
        let path = "/photos/hubble-deep-field.jpg"
        #expect(server.requestCount(path) - server.rangeRequestCount(path) == 1)
        #expect(record.state == .downloaded || record.state == .filtered)
    }

    @Test(
        "A large camera JPEG's EXIF thumbnail comes first, with its sepia and the photo's size; a small photo's does not",
        arguments: [(2400, 1800, true), (1200, 900, false)])
    @MainActor func previewFirst(width: Int, height: Int, expected: Bool) async throws {
        let folder = try TestPictures.makeFolder("viewer-preview-\(width)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("camera.jpg")
        // Orientation 6: the photo and its thumbnail are shown turned, portrait.
        let bytes = try #require(
            CameraFiles.jpegWithThumbnail(
                width: Int32(width), height: Int32(height), rgb: 0x3060A0, thumbWidth: 160, thumbHeight: 120,
                thumbRGB: 0xE04020, orientation: 6))
        try bytes.write(to: file)
        let record = PhotoRecord(
            id: PhotoID(rawValue: 7), entry: PhotoEntry(name: "camera.jpg", url: file), position: 0)
        let pipeline = ViewerPipeline(fetcher: PhotoFetcher(), pendingOperations: PendingOperations()) {
            $0 == record.id ? record : nil
        }
        var events: [String] = []
        var preview: ViewerPreview?
        var done = false
        let request = try #require(
            pipeline.load(record.id, wantedSide: 600, known: nil, urgent: true) { event in
                switch event {
                case .preview(let given):
                    events.append("preview")
                    preview = given
                case .decoded: events.append("decoded")
                case .motionClip: events.append("clip")
                case .facts: events.append("facts")
                case .filtered:
                    events.append("filtered")
                    done = true
                case .failed(let failure):
                    Issue.record("failed: \(failure)")
                    done = true
                }
            })
        let deadline = Date().addingTimeInterval(30)
        while !done, Date() < deadline { await MainLoop.turn(milliseconds: 10) }
        // What the photo says comes first, before any picture of it.
        #expect(events == (expected ? ["facts", "preview", "decoded", "filtered"] : ["facts", "decoded", "filtered"]))
        #expect(!request.isBusy)
        guard expected else { return }
        let shown = try #require(preview)
        #expect(shown.info.width == height && shown.info.height == width)
        #expect(shown.original.width == 120 && shown.original.height == 160)
        #expect(shown.sepia.width == 120 && shown.sepia.height == 160)
        // The thumbnail's own colour (red), not the photo's (blue); its sepia is no longer red.
        let original = shown.original.pixel(x: 60, y: 80)
        let sepia = shown.sepia.pixel(x: 60, y: 80)
        #expect(original.0 > 180 && original.2 < 90, "\(original)")
        #expect(sepia.0 != original.0 || sepia.1 != original.1 || sepia.2 != original.2)
    }

    @Test(
        "A held decode waits for decode() when a preview shows meanwhile, starts by itself when none does, and a cancelled one reports nothing",
        arguments: [(2400, 1800, true), (1200, 900, false)])
    @MainActor func heldDecode(width: Int, height: Int, hasPreview: Bool) async throws {
        let folder = try TestPictures.makeFolder("viewer-held-\(width)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var records: [PhotoRecord] = []
        for n in 0..<2 {
            let file = folder.appendingPathComponent("camera-\(n).jpg")
            try #require(
                CameraFiles.jpegWithThumbnail(
                    width: Int32(width), height: Int32(height), rgb: 0x3060A0, thumbWidth: 160, thumbHeight: 120,
                    thumbRGB: 0xE04020)
            ).write(to: file)
            records.append(
                PhotoRecord(
                    id: PhotoID(rawValue: UInt64(10 + n)), entry: PhotoEntry(name: "c\(n)", url: file), position: n))
        }
        let pipeline = ViewerPipeline(fetcher: PhotoFetcher(), pendingOperations: PendingOperations()) { id in
            records.first { $0.id == id }
        }
        var events: [String] = []
        var facts = 0
        let held = try #require(
            pipeline.load(records[0].id, wantedSide: 600, known: nil, urgent: true, holdingDecode: true) { event in
                switch event {
                case .preview: events.append("preview")
                case .motionClip: events.append("clip")
                case .facts: facts += 1
                case .decoded: events.append("decoded")
                case .filtered: events.append("filtered")
                case .failed(let failure): events.append("failed \(failure)")
                }
            })
        var cancelledEvents = 0
        let cancelled = try #require(
            pipeline.load(records[1].id, wantedSide: 600, known: nil, urgent: true, holdingDecode: true) { _ in
                cancelledEvents += 1
            })
        cancelled.cancel()
        // The preview (or, with none, the photo filtered) however loaded the machine is; then,
        // with a preview, a moment more in which the decode would have come were it not held.
        var deadline = Date().addingTimeInterval(30)
        let first = hasPreview ? "preview" : "filtered"
        while Date() < deadline, !events.contains(first) { await MainLoop.turn(milliseconds: 10) }
        deadline = Date().addingTimeInterval(hasPreview ? 1 : 0)
        while Date() < deadline, !events.contains("filtered") { await MainLoop.turn(milliseconds: 10) }
        if hasPreview {
            #expect(events == ["preview"], "held: \(events)")
            #expect(held.isDecodeHeld && held.isBusy)
            held.decode()
            deadline = Date().addingTimeInterval(30)
            while Date() < deadline, !events.contains("filtered") { await MainLoop.turn(milliseconds: 10) }
            #expect(events == ["preview", "decoded", "filtered"])
        } else {
            // No preview to show: decoded at once, held or not.
            #expect(events == ["decoded", "filtered"])
        }
        #expect(!held.isBusy && !held.isDecodeHeld)
        #expect(facts == 1, "the facts, told once, held decode or not")
        #expect(cancelledEvents == 0)
    }
}
