import CGdkPixbuf
import CGLib
import Foundation
import GLibKit
@testable import PhotoPipeline
import Testing
import TestSupport

@Suite struct ViewerPipelineTests {
    /// A JPEG with an EXIF block holding `tags` (tag, ASCII value) in IFD0, an orientation, and
    /// DateTimeOriginal in the EXIF sub-IFD; little- or big-endian.
    static func jpegWithExif(make: String, model: String, original: String, orientation: UInt16, little: Bool) throws -> Data {
        func u16(_ v: UInt16) -> [UInt8] { little ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func u32(_ v: UInt32) -> [UInt8] { little ? (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } : (0..<4).reversed().map { UInt8((v >> (8 * $0)) & 0xFF) } }
        let makeBytes = Array(make.utf8) + [0], modelBytes = Array(model.utf8) + [0], dateBytes = Array(original.utf8) + [0]
        // Layout: header (8) | IFD0: 4 entries (2 + 48 + 4) | EXIF IFD: 1 entry (2 + 12 + 4) | strings
        let ifd0 = 8, exifIFD = ifd0 + 2 + 4 * 12 + 4, strings = exifIFD + 2 + 12 + 4
        var tiff: [UInt8] = (little ? [0x49, 0x49] : [0x4D, 0x4D]) + u16(42) + u32(UInt32(ifd0))
        tiff += u16(4)
        tiff += u16(0x010F) + u16(2) + u32(UInt32(makeBytes.count)) + u32(UInt32(strings))
        tiff += u16(0x0110) + u16(2) + u32(UInt32(modelBytes.count)) + u32(UInt32(strings + makeBytes.count))
        tiff += u16(0x0112) + u16(3) + u32(1) + u16(orientation) + [0, 0]
        tiff += u16(0x8769) + u16(4) + u32(1) + u32(UInt32(exifIFD))
        tiff += u32(0)
        tiff += u16(1)
        tiff += u16(0x9003) + u16(2) + u32(UInt32(dateBytes.count)) + u32(UInt32(strings + makeBytes.count + modelBytes.count))
        tiff += u32(0)
        tiff += makeBytes + modelBytes + dateBytes
        let app1 = Array("Exif".utf8) + [0, 0] + tiff
        let length = app1.count + 2
        let jpeg = try Data(contentsOf: Products.packageRoot.appendingPathComponent("data/photos/coffee.jpg"))
        // SOI, then our APP1 before the file's own segments.
        return Data([0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + app1) + jpeg.dropFirst(2)
    }

    @Test("EXIF camera, date and orientation are read, in both byte orders", arguments: [true, false])
    func exif(little: Bool) throws {
        let data = try Self.jpegWithExif(make: "Canon", model: "Canon EOS 5D", original: "2021:07:04 18:30:05", orientation: 6, little: little)
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
        let tiny = try ImageInfo.read(Data(contentsOf: Products.packageRoot.appendingPathComponent("data/photos/retina-microaneurysms.jpg")))
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

    @Test("The viewer's load decodes at the size asked, filters, and shares a running row download's bytes")
    @MainActor func loadAndShare() async throws {
        let server = try LoopbackServer()
        // The row's download stays running until the viewer's load has been asked for.
        server.holdPhotos()
        defer { server.releasePhotos() }
        let fetcher = PhotoFetcher()
        let pending = PendingOperations()
        let pipeline = ViewerPipeline(fetcher: fetcher, pendingOperations: pending)
        let record = PhotoRecord(id: PhotoID(rawValue: 1), entry: PhotoEntry(name: "hubble", url: server.url("/photos/hubble-deep-field.jpg")), position: 0)
        // The row's download, running (the server holds its response).
        let download = ImageDownloader(record: record, fetcher: fetcher, maxPixelSize: 80)
        pending.downloadsInProgress[record.id] = download
        pending.downloadQueue.addOperation(download)
        // Bounded: a download that never starts must fail the test, not hang it.
        let started = Date().addingTimeInterval(10)
        while !download.isExecuting, !download.isFinished, Date() < started { try await Task.sleep(nanoseconds: 5_000_000) }
        try #require(download.isExecuting, "the row's download is not running")

        var decoded: ViewerPicture?
        var sepia: PhotoImage?
        let request = pipeline.load(record, wantedSide: 400, bytes: nil, urgent: true) { event in
            switch event {
            case .decoded(let picture): decoded = picture
            case .filtered(let image): sepia = image
            case .failed(let failure): Issue.record("failed: \(failure)")
            }
        }
        #expect(request.sharesRowDownload)
        server.releasePhotos()
        let deadline = Date().addingTimeInterval(20)
        while sepia == nil, Date() < deadline { try await Task.sleep(nanoseconds: 10_000_000) }
        let picture = try #require(decoded)
        #expect(picture.info.width == 800 && picture.info.height == 698)
        #expect(picture.original.width == 400 && picture.original.height == 349)
        #expect(sepia?.width == 400)
        // One request for the photo: the viewer took the row's bytes.
        #expect(server.requestCount("/photos/hubble-deep-field.jpg") == 1)
        #expect(record.state == .downloaded || record.state == .filtered)
    }
}
