import CGdkPixbuf
import CGLib
import Foundation
import GLibKit
@testable import PhotoPipeline
import Testing
import TestSupport

/// The formats beyond gdk-pixbuf's own (HEIF, AVIF, WebP, camera RAW), the thumbnails photos
/// carry, and pictures of kinds nothing here decodes, on real files made by Debian's encoders
/// or written byte by byte as cameras write them.
@Suite struct FormatTests {
    private static let red: UInt32 = 0xD02010, blue: UInt32 = 0x1030E0

    private func isBlue(_ image: PhotoImage) -> Bool {
        let (r, _, b, _) = image.pixel(x: image.width / 2, y: image.height / 2)
        return b > 150 && r < 80
    }

    private func isRed(_ image: PhotoImage) -> Bool {
        let (r, _, b, _) = image.pixel(x: image.width / 2, y: image.height / 2)
        return r > 150 && b < 80
    }

    @Test("A camera JPEG's EXIF thumbnail is found, decoded and turned with the photo")
    func exifThumbnail() async throws {
        let upright = try #require(
            CameraFiles.jpegWithThumbnail(
                width: 1600, height: 1200, rgb: Self.red,
                thumbWidth: 160, thumbHeight: 120, thumbRGB: Self.blue))
        let preview = try #require(EmbeddedPreview.read(upright, squareSide: 80))
        #expect(preview.origin == .exif)
        #expect((preview.image.width, preview.image.height) == (160, 120))
        #expect((preview.photoWidth, preview.photoHeight) == (1600, 1200))
        #expect(isBlue(preview.image), "the thumbnail, not the photo, is what was read")
        #expect(preview.covers(squareSide: 80))
        #expect(!preview.covers(squareSide: 160), "at scale 2 the row needs more than 120 pixels")

        let turned = try #require(
            CameraFiles.jpegWithThumbnail(
                width: 1600, height: 1200, rgb: Self.red, thumbWidth: 160,
                thumbHeight: 120, thumbRGB: Self.blue, orientation: 6))
        let upright6 = try #require(EmbeddedPreview.read(turned, squareSide: 80))
        #expect((upright6.image.width, upright6.image.height) == (120, 160))
        #expect((upright6.photoWidth, upright6.photoHeight) == (1200, 1600))
        // Only the first 128 KB are needed: what a row's download reads.
        #expect(EmbeddedPreview.read(turned.prefix(128 << 10), squareSide: 80) != nil)
    }

    @Test("A thumbnail whose shape is not the photo's (an edited photo's stale one) is not trusted")
    func staleThumbnail() async throws {
        let cropped = try #require(
            CameraFiles.jpegWithThumbnail(
                width: 1600, height: 900, rgb: Self.red,
                thumbWidth: 160, thumbHeight: 120, thumbRGB: Self.blue))
        #expect(EmbeddedPreview.read(cropped, squareSide: 80) == nil)
        // One pixel of rounding is not a different shape.
        let rounded = try #require(
            CameraFiles.jpegWithThumbnail(
                width: 4000, height: 2667, rgb: Self.red,
                thumbWidth: 160, thumbHeight: 107, thumbRGB: Self.blue))
        #expect(EmbeddedPreview.read(rounded, squareSide: 80) != nil)
        // A plain JPEG has none.
        let plain = try #require(CameraFiles.jpeg(width: 320, height: 240, rgb: Self.red))
        #expect(EmbeddedPreview.read(plain, squareSide: 80) == nil)
    }

    @Test("HEIC, AVIF and WebP decode through their loaders, at the row's size")
    func loaderFormats() async throws {
        let folder = try TestPictures.makeFolder("formats")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("source.jpg")
        try #require(CameraFiles.jpeg(width: 1200, height: 900, rgb: Self.red)).write(to: source)
        for kind in ["heic", "avif", "webp"] {
            let file = folder.appendingPathComponent("photo.\(kind)")
            try await FormatFiles.convert(source, to: kind, at: file)
            let image = try ImageDecoder.decode(Data(contentsOf: file), size: .square(80), cancellable: Cancellable())
            #expect((image.width, image.height) == (80, 80), "\(kind)")
            #expect(isRed(image), "\(kind)")
        }
    }

    @Test("A HEIC file's thumbnail item is read without decoding the photo")
    func heifThumbnail() async throws {
        let folder = try TestPictures.makeFolder("heif-thumbnail")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("source.jpg")
        try #require(CameraFiles.jpeg(width: 1200, height: 900, rgb: Self.red)).write(to: source)
        let file = folder.appendingPathComponent("phone.heic")
        try await FormatFiles.convert(source, to: "heic", at: file, thumbnail: 240)
        let preview = try #require(EmbeddedPreview.read(Data(contentsOf: file), squareSide: 80))
        #expect(preview.origin == .heif)
        #expect((preview.image.width, preview.image.height) == (240, 180))
        #expect((preview.photoWidth, preview.photoHeight) == (1200, 900))
        #expect(isRed(preview.image))

        let plain = folder.appendingPathComponent("plain.heic")
        try await FormatFiles.convert(source, to: "heic", at: plain)
        #expect(EmbeddedPreview.read(try Data(contentsOf: plain), squareSide: 80) == nil)
    }

    @Test("A DNG shows through the camera's preview, turned as the camera recorded")
    func rawPreview() async throws {
        let preview = try #require(CameraFiles.jpeg(width: 600, height: 400, rgb: Self.blue))
        let dng = CameraFiles.dng(
            preview: preview, previewWidth: 600, previewHeight: 400, width: 600, height: 400, orientation: 6)
        #expect(RawPhoto.isRaw(URL(fileURLWithPath: "/photos/IMG_0001.DNG")))
        let picture = try RawPhoto.preview(of: dng)
        #expect(ExifReader.read(picture).orientation == 6)
        let image = try ImageDecoder.decode(picture, size: .fit(300), cancellable: Cancellable())
        #expect((image.width, image.height) == (200, 300), "upright: the camera was held on its side")
        #expect(isBlue(image))

        // Not a RAW file at all: a clear failure, not a crash.
        #expect(throws: PhotoFailure.self) { try RawPhoto.preview(of: Data("not a raw file".utf8)) }
    }

    @Test(
        "The details panel's facts of a DNG, read in one trip to a decoder helper, are those the viewer reads in three"
    )
    func rawFactsInOneTrip() throws {
        let preview = try #require(CameraFiles.jpeg(width: 600, height: 400, rgb: Self.blue))
        let dng = CameraFiles.dng(
            preview: preview, previewWidth: 600, previewHeight: 400, width: 600, height: 400, orientation: 6,
            dateTime: "2021:07:04 18:30:05")
        let url = URL(fileURLWithPath: "/photos/IMG_0001.DNG")
        let viewer = try PhotoFacts.read(dng, at: url, cancellable: Cancellable()).info
        let panel = try PhotoFacts.facts(dng, at: url, cancellable: Cancellable())
        #expect(panel == viewer)
        #expect(panel.formatDescription == "DNG camera RAW" && panel.fileSize == dng.count)
        // A file on this computer: its descriptor handed to the helper, which maps it and reads
        // only what it needs; the same facts. A JPEG under a RAW file's name is left to the
        // whole-file path.
        let folder = try ScratchFolder()
        let file = folder.url.appendingPathComponent("IMG_0001.DNG")
        try dng.write(to: file)
        #expect(try PhotoFacts.facts(ofLocalRaw: file, cancellable: Cancellable()) == panel)
        let local = try #require(try PhotoFacts.read(localRaw: file, cancellable: Cancellable()))
        let whole = try PhotoFacts.read(dng, at: file, cancellable: Cancellable())
        #expect(local.info == whole.info && local.picture == whole.picture)
        let disguised = folder.url.appendingPathComponent("IMG_0002.DNG")
        try preview.write(to: disguised)
        #expect(try PhotoFacts.facts(ofLocalRaw: disguised, cancellable: Cancellable()) == nil)
        #expect(
            try PhotoFacts.facts(ofLocalRaw: URL(fileURLWithPath: "/nowhere/IMG_3.DNG"), cancellable: Cancellable())
                == nil)
        #expect(panel.details?.dateTaken == "2021:07:04 18:30:05" && panel.details?.model == "Camera")
        #expect(throws: PhotoFailure.self) {
            try PhotoFacts.facts(Data("not a raw file".utf8), at: url, cancellable: Cancellable())
        }
    }

    @Test("Pictures nothing here decodes fail as “Format not supported”, naming the kind")
    func unsupportedKinds() async throws {
        let folder = try TestPictures.makeFolder("unsupported")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("source.jpg")
        try #require(CameraFiles.jpeg(width: 64, height: 48, rgb: Self.red)).write(to: source)
        for (kind, words) in [("psd", "Photoshop")] {
            let file = folder.appendingPathComponent("picture.\(kind)")
            try await FormatFiles.convert(source, to: kind, at: file)
            let bytes = try Data(contentsOf: file)
            do throws(PhotoFailure) {
                _ = try ImageDecoder.decode(bytes, size: .square(80), cancellable: Cancellable())
                Issue.record("\(kind) decoded")
            } catch {
                #expect(error.reason == .unsupported, "\(kind): \(error)")
                #expect(
                    error.summary.hasPrefix("Format not supported (") && error.summary.contains(words),
                    "\(error.summary)")
            }
        }
        // Text stays "not a picture".
        do throws(PhotoFailure) {
            _ = try ImageDecoder.decode(Data("hello, world\n".utf8), size: .square(80), cancellable: Cancellable())
        } catch {
            #expect(error.reason == .notImage)
        }
    }

    @Test("JPEG XL is decoded with libjxl in the helper: scaled, within the limits, its profile honoured")
    func jpegXL() async throws {
        let folder = try TestPictures.makeFolder("jxl")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("source.jpg")
        try #require(CameraFiles.jpeg(width: 640, height: 480, rgb: Self.red)).write(to: source)
        let file = folder.appendingPathComponent("photo.jxl")
        try await FormatFiles.convert(source, to: "jxl", at: file)
        let bytes = try Data(contentsOf: file)
        #expect(JXLDecoder.isJXL(bytes))
        let square = try Decoding.picture(.bytes(bytes), size: .square(80), cancellable: Cancellable())
        #expect((square.width, square.height) == (80, 80))
        #expect(isRed(square))
        let whole = try Decoding.picture(.bytes(bytes), size: .fit(4000), cancellable: Cancellable())
        #expect((whole.width, whole.height) == (640, 480))
        let info = try ImageInfo.read(bytes)
        #expect((info.width, info.height, info.format) == (640, 480, "jxl"))

        // Over the pixel limit: refused from the header.
        do throws(PhotoFailure) {
            _ = try ImageDecoder.decode(
                bytes, size: .square(80), limits: DecodeLimits(maxBytes: 1 << 20, maxPixels: 100_000),
                cancellable: Cancellable())
            Issue.record("decoded over the limit")
        } catch {
            #expect(error.reason == .tooManyPixels, "\(error)")
        }
        // Cut short: damaged, said as such.
        do throws(PhotoFailure) {
            _ = try Decoding.picture(
                .bytes(bytes.prefix(bytes.count / 2)), size: .square(80), cancellable: Cancellable())
            Issue.record("a half file decoded")
        } catch {
            #expect(error.summary == "Damaged or unsupported JPEG XL image", "\(error)")
        }

        // Bytes changed all over: each decodes or fails with a reason; no helper dies.
        var generator = SystemRandomNumberGenerator()
        for round in 0..<32 {
            var mutant = [UInt8](bytes)
            let at =
                round < 8
                ? Int.random(in: 0..<64, using: &generator) : Int.random(in: 0..<mutant.count, using: &generator)
            mutant[at] = .random(in: 0...255, using: &generator)
            do throws(PhotoFailure) {
                _ = try Decoding.picture(.bytes(Data(mutant)), size: .square(80), cancellable: Cancellable())
            } catch {
                #expect(error.reason != .decoderCrashed, "byte \(at): \(error)")
            }
        }

        // A lossless JPEG XL of a Display P3 picture keeps its profile: turned into sRGB.
        let png = try ColorProfileTests.picture("png", profile: ColorProfileTests.displayP3)
        let pngFile = folder.appendingPathComponent("p3.png")
        try png.write(to: pngFile)
        let p3File = folder.appendingPathComponent("p3.jxl")
        let made = try await run(URL(fileURLWithPath: "/usr/bin/cjxl"), [pngFile.path, p3File.path, "-d", "0"])
        #expect(made.status == 0, "\(made.stderr)")
        let p3 = try Decoding.picture(
            .bytes(try Data(contentsOf: p3File)), size: .fit(100), cancellable: Cancellable())
        let reference = ColorProfileTests.reference(png, profile: ColorProfileTests.displayP3)
        let difference = ColorProfileTests.meanDifference(ColorProfileTests.packed(p3), reference)
        #expect(difference <= 3.1, "mean difference \(difference)")
        #expect(ColorProfileTests.meanDifference(ColorProfileTests.packed(p3), ColorProfileTests.plainPixels(png)) > 1)
        #expect(ColorProfile.name(of: p3) != nil)
    }

    @Test("Pictures of a known kind that their loader refuses say so, naming the kind, and offer no Retry")
    func refusedVariants() async throws {
        let folder = try TestPictures.makeFolder("refused")
        defer { try? FileManager.default.removeItem(at: folder) }
        func made(_ name: String, _ arguments: [String]) async throws -> Data {
            let file = folder.appendingPathComponent(name)
            // ImageMagick's TIFF writer complains of a tag libtiff does not know, and exits
            // with 1 having written the file: the file is what counts.
            _ = await AnimatedPictures.convert(arguments + [file.path])
            return try Data(contentsOf: file)
        }
        // A 32-bit floating-point TIFF; an icon whose picture is PNG-compressed (as every
        // 256-pixel icon is); a BMP whose header says its pixels are a JPEG.
        let float = try await made(
            "float.tif", ["-size", "64x48", "xc:blue", "-define", "quantum:format=floating-point", "-depth", "32"])
        let icon = try await made("icon.ico", ["-size", "256x256", "xc:red"])
        var bmp = [UInt8](try await made("plain.bmp", ["-size", "64x48", "xc:green"]))
        bmp[30] = 4 // biCompression: BI_JPEG
        for (bytes, kind) in [(float, "TIFF"), (icon, "Windows icon"), (Data(bmp), "BMP")] {
            do throws(PhotoFailure) {
                _ = try Decoding.picture(.bytes(bytes), size: .square(80), cancellable: Cancellable())
                Issue.record("\(kind) decoded")
            } catch {
                #expect(error.reason == .damagedOrUnsupported, "\(kind): \(error)")
                #expect(error.summary == "Damaged or unsupported \(kind) image")
                #expect(!error.retryHelps)
            }
        }
    }

    @Test("Retry is offered where trying again can help, and not where the same failure would come back")
    func retryHelps() {
        let helps: [PhotoFailure.Kind] = [
            .plain(.transport), .plain(.timeout), .plain(.decoderCrashed), .plain(.missing), .plain(.unreadable),
            .http(status: 503), .http(status: 429), .wrongPart,
        ]
        let useless: [PhotoFailure.Kind] = [
            .plain(.notImage), .plain(.tooLarge), .plain(.tooManyPixels), .plain(.blockedAddress),
            .plain(.blockedScheme), .plain(.invalidAddress), .http(status: 404), .damaged(format: "BMP"),
            .formatNotSupported(name: "QOI"), .unsupportedPicture, .unsupportedAddress, .folder,
        ]
        for kind in helps { #expect(PhotoFailure(kind, detail: "").retryHelps, "\(kind)") }
        for kind in useless { #expect(!PhotoFailure(kind, detail: "").retryHelps, "\(kind)") }
    }

    @Test("A WebP claiming a huge canvas is refused from its header, before its loader allocates it")
    func webPBomb() async throws {
        // RIFF / WEBP / VP8X with a 16384×16384 canvas, and nothing after.
        var bytes = Array("RIFF".utf8) + [0x30, 0, 0, 0] + Array("WEBPVP8X".utf8) + [10, 0, 0, 0]
        bytes += [0, 0, 0, 0] + [0xFF, 0x3F, 0x00] + [0xFF, 0x3F, 0x00]
        bytes += [UInt8](repeating: 0, count: 32)
        let limits = DecodeLimits(maxBytes: 1 << 20, maxPixels: 4_000_000)
        do throws(PhotoFailure) {
            _ = try ImageDecoder.decode(Data(bytes), size: .square(80), limits: limits, cancellable: Cancellable())
            Issue.record("decoded")
        } catch {
            #expect(error.reason == .tooManyPixels, "\(error)")
        }
    }

    @Test(
        "A row decodes an animated WebP's first frame; one whose frames together exceed the pixel limit is refused before its loader decodes them"
    )
    func animatedWebPInRow() async throws {
        let folder = try TestPictures.makeFolder("animated-webp")
        defer { try? FileManager.default.removeItem(at: folder) }
        let small = folder.appendingPathComponent("small.webp")
        try #require(await AnimatedPictures.write(small, colours: ["red", "lime", "blue"], width: 200, height: 150))
        try #require(AnimatedPictures.isAnimatedWebP(small), "ImageMagick here writes no animated WebP")
        let image = try ImageDecoder.decode(Data(contentsOf: small), size: .square(80), cancellable: Cancellable())
        #expect((image.width, image.height) == (80, 80))
        #expect(isRed(image), "the first frame")

        // 12 frames of 1000×1000: 13 megapixels composited, over a 10-megapixel limit.
        let many = folder.appendingPathComponent("many.webp")
        try #require(
            await AnimatedPictures.write(
                many, colours: Array(repeating: ["red", "blue"], count: 6).flatMap { $0 },
                width: 1000, height: 1000))
        let limits = DecodeLimits(maxBytes: 20 << 20, maxPixels: 10_000_000)
        let bytes = try Data(contentsOf: many)
        do throws(PhotoFailure) {
            _ = try ImageDecoder.decode(bytes, size: .square(80), limits: limits, cancellable: Cancellable())
            Issue.record("decoded")
        } catch {
            #expect(error.reason == .tooManyPixels, "\(error)")
        }
        // Within the limit, the same file decodes.
        let roomy = DecodeLimits(maxBytes: 20 << 20, maxPixels: 20_000_000)
        #expect((try? ImageDecoder.decode(bytes, size: .square(80), limits: roomy, cancellable: Cancellable())) != nil)
    }
}
