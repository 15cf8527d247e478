import CGdkPixbuf
import CGLib
import Foundation
import GLibKit
import PhotoPipeline
import Testing
import TestSupport

/// The EXIF orientation writer, checked against gdk-pixbuf's own reading of the files it writes.
@Suite struct ExifOrientationTests {
    /// How gdk-pixbuf's JPEG loader reads `jpeg`: its size, and the orientation it found.
    private func loaded(_ jpeg: Data) throws -> (width: Int, height: Int, orientation: String?) {
        let path = NSTemporaryDirectory() + "classic-photos-exif-\(UUID().uuidString).jpg"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try jpeg.write(to: URL(fileURLWithPath: path))
        var error: UnsafeMutablePointer<GError>?
        let pixbuf = try #require(gdk_pixbuf_new_from_file(path, &error), "gdk-pixbuf could not read the JPEG")
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        return (
            Int(gdk_pixbuf_get_width(pixbuf)), Int(gdk_pixbuf_get_height(pixbuf)),
            gdk_pixbuf_get_option(pixbuf, "orientation").map { String(cString: $0) }
        )
    }

    /// A 48×32 JPEG as gdk-pixbuf saves it: a JFIF APP0 and no EXIF.
    private func plainJPEG() throws -> Data {
        let path = NSTemporaryDirectory() + "classic-photos-plain-\(UUID().uuidString).jpg"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try #require(TestPictures.writeGradient(URL(fileURLWithPath: path), width: 48, height: 32, rgb: 0x3366CC))
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// A JPEG whose EXIF block has IFD0 with Make and Model and the EXIF sub-IFD (with
    /// DateTimeOriginal), but no Orientation; little- or big-endian.
    private func jpegWithoutOrientation(little: Bool) throws -> Data {
        func u16(_ v: Int) -> [UInt8] {
            little ? [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] : [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
        }
        func u32(_ v: Int) -> [UInt8] {
            let bytes = (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) }
            return little ? bytes : bytes.reversed()
        }
        let make = Array("Camera Co".utf8) + [0], model = Array("Model 7".utf8) + [0]
        let date = Array("2021:07:04 18:30:05".utf8) + [0]
        // Header (8) | IFD0: 3 entries (2 + 36 + 4) | EXIF IFD: 1 entry (2 + 12 + 4) | strings
        let ifd0 = 8, exif = ifd0 + 2 + 3 * 12 + 4, strings = exif + 2 + 12 + 4
        var tiff: [UInt8] = (little ? [0x49, 0x49] : [0x4D, 0x4D]) + u16(42) + u32(ifd0)
        tiff += u16(3)
        tiff += u16(0x010F) + u16(2) + u32(make.count) + u32(strings)
        tiff += u16(0x0110) + u16(2) + u32(model.count) + u32(strings + make.count)
        tiff += u16(0x8769) + u16(4) + u32(1) + u32(exif)
        tiff += u32(0)
        tiff += u16(1) + u16(0x9003) + u16(2) + u32(date.count) + u32(strings + make.count + model.count) + u32(0)
        tiff += make + model + date
        let app1 = Array("Exif".utf8) + [0, 0] + tiff
        let plain = try plainJPEG()
        return Data([0xFF, 0xD8, 0xFF, 0xE1, UInt8((app1.count + 2) >> 8), UInt8((app1.count + 2) & 0xFF)] + app1)
            + plain.dropFirst(2)
    }

    @Test("A quarter turn of each orientation is the orientation gdk-pixbuf shows turned", arguments: 1...8)
    func turning(orientation: Int) throws {
        // A 3×2 picture with every pixel different, shown with `orientation`, then turned.
        let pixbuf = gdk_pixbuf_new(GDK_COLORSPACE_RGB, 0, 8, 3, 2)!
        let stride = Int(gdk_pixbuf_get_rowstride(pixbuf)), pixels = gdk_pixbuf_get_pixels(pixbuf)!
        for y in 0..<2 {
            for x in 0..<3 {
                (pixels + y * stride + x * 3).initialize(repeating: UInt8(40 * (y * 3 + x) + 10), count: 3)
            }
        }
        let picture = PhotoImage(taking: pixbuf)
        func shown(_ o: Int) -> [UInt8] {
            let image = picture.oriented(o)
            let stride = Int(gdk_pixbuf_get_rowstride(image.pixbuf)), pixels = gdk_pixbuf_read_pixels(image.pixbuf)!
            return (0..<image.height).flatMap { y in (0..<image.width).map { x in pixels[y * stride + x * 3] } }
                + [UInt8(image.width)]
        }
        for clockwise in [true, false] {
            let oriented = picture.oriented(orientation)
            let turned = withExtendedLifetime(oriented) {
                gdk_pixbuf_rotate_simple(
                    oriented.pixbuf, clockwise ? GDK_PIXBUF_ROTATE_CLOCKWISE : GDK_PIXBUF_ROTATE_COUNTERCLOCKWISE)!
            }
            let expected = PhotoImage(taking: turned)
            let stride = Int(gdk_pixbuf_get_rowstride(turned)), pixels = gdk_pixbuf_read_pixels(turned)!
            let seen =
                (0..<expected.height).flatMap { y in (0..<expected.width).map { x in pixels[y * stride + x * 3] } }
                + [UInt8(expected.width)]
            let next = ExifOrientation.turned(orientation, clockwise: clockwise)
            #expect(
                shown(next) == seen, "orientation \(orientation) turned \(clockwise ? "clockwise" : "back") → \(next)")
        }
        #expect(
            ExifOrientation.turned(ExifOrientation.turned(orientation, clockwise: true), clockwise: false)
                == orientation)
    }

    @Test("A JPEG without EXIF gets an EXIF block holding the orientation, after its JFIF header")
    func noExif() throws {
        let plain = try plainJPEG()
        #expect(ExifOrientation.orientation(of: plain) == 1)
        guard case .rewrite(let turned) = try ExifOrientation.change(plain, to: 6) else {
            Issue.record("a JPEG without EXIF must be rewritten")
            return
        }
        #expect(ExifOrientation.orientation(of: turned) == 6)
        #expect(turned.count == plain.count + 36)
        // SOI, the JFIF APP0 as it was, then the new APP1.
        let app0Length = Int(plain[4]) << 8 | Int(plain[5])
        #expect(Array(plain[2...3]) == [0xFF, 0xE0])
        #expect(turned.prefix(4 + app0Length) == plain.prefix(4 + app0Length))
        #expect(Array(turned[(4 + app0Length)...(5 + app0Length)]) == [0xFF, 0xE1])
        let read = try loaded(turned)
        #expect(read.orientation == "6" && read.width == 48 && read.height == 32, "\(read)")
        // Turned again: now the tag is there, and only its value changes.
        guard case .patch(_, let bytes) = try ExifOrientation.change(turned, to: 3) else {
            Issue.record("a JPEG with the tag must be patched")
            return
        }
        #expect(bytes == [3, 0])
        #expect(try loaded(ExifOrientation.setting(turned, to: 3)).orientation == "3")
    }

    @Test("An existing tag changes in place, two bytes, in either byte order", arguments: [true, false])
    func existingTag(little: Bool) throws {
        let jpeg = try TestPictures.jpegWithExif(
            make: "Canon", model: "Canon EOS 5D", original: "2020:01:02 03:04:05", orientation: 1, little: little)
        let change = try ExifOrientation.change(jpeg, to: 8)
        guard case .patch(let offset, let bytes) = change else {
            Issue.record("expected a patch, got \(change)")
            return
        }
        #expect(bytes == (little ? [8, 0] : [0, 8]))
        let turned = try ExifOrientation.setting(jpeg, to: 8)
        #expect(turned.count == jpeg.count)
        let differing = zip(jpeg, turned).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        #expect(Set(differing).isSubset(of: [offset, offset + 1]) && !differing.isEmpty)
        let tags = ExifReader.read(turned)
        #expect(tags.orientation == 8 && tags.camera == "Canon EOS 5D" && tags.date == "2020-01-02 03:04:05")
        #expect(try loaded(turned).orientation == "8")
    }

    @Test(
        "EXIF without the tag: IFD0 is copied with the tag added, the rest kept, in either byte order",
        arguments: [true, false])
    func addedTag(little: Bool) throws {
        let jpeg = try jpegWithoutOrientation(little: little)
        let before = ExifReader.read(jpeg)
        #expect(before.orientation == 1 && before.camera == "Camera Co Model 7" && before.date == "2021-07-04 18:30:05")
        let change = try ExifOrientation.change(jpeg, to: 5)
        guard case .rewrite(let turned) = change else {
            Issue.record("expected a rewrite, got \(change)")
            return
        }
        let after = ExifReader.read(turned)
        #expect(after.orientation == 5 && after.camera == before.camera && after.date == before.date, "\(after)")
        let read = try loaded(turned)
        #expect(read.orientation == "5" && read.width == 48 && read.height == 32, "\(read)")
        // The image data after the EXIF block is unchanged.
        #expect(turned.suffix(jpeg.count - 200) == jpeg.suffix(jpeg.count - 200))
        // And a second turn patches the tag now there.
        guard case .patch = try ExifOrientation.change(turned, to: 6) else {
            Issue.record("the added tag must be found again")
            return
        }
    }

    @Test("What is not a whole JPEG is refused, not guessed at")
    func refused() throws {
        #expect(throws: PhotoFileFailure.self) { try ExifOrientation.change(Data("GIF89a".utf8), to: 6) }
        let jpeg = try TestPictures.jpegWithExif(make: "A", model: "B", original: "", orientation: 1, little: true)
        // Cut inside the EXIF segment.
        #expect(throws: PhotoFileFailure.self) { try ExifOrientation.change(jpeg.prefix(40), to: 6) }
        #expect(throws: PhotoFileFailure.self) { try ExifOrientation.change(jpeg, to: 9) }
    }

    @Test("Turning a JPEG file four times brings it back, and a PNG is saved again, turned")
    func turningFiles() throws {
        let folder = try TestPictures.makeFolder("turn")
        defer { try? FileManager.default.removeItem(at: folder) }
        let jpeg = folder.appendingPathComponent("photo.jpg")
        try TestPictures.jpegWithExif(make: "A", model: "B", original: "", orientation: 1, little: false).write(
            to: jpeg)
        let original = try Data(contentsOf: jpeg)
        var seen: [Int?] = []
        for _ in 0..<4 {
            let turned = PhotoFiles.turn(jpeg.path, clockwise: true)
            seen.append(try turned.get().orientation)
        }
        #expect(seen == [6, 3, 8, 1])
        #expect(try Data(contentsOf: jpeg) == original)
        #expect(try PhotoFiles.turn(jpeg.path, clockwise: false).get().orientation == 8)

        let png = folder.appendingPathComponent("wide.png")
        let pixbuf = gdk_pixbuf_new(GDK_COLORSPACE_RGB, 0, 8, 40, 20)!
        gdk_pixbuf_fill(pixbuf, 0x3366_99FF)
        #expect(gdk_pixbuf_savev(pixbuf, png.path, "png", nil, nil, nil) != 0)
        g_object_unref(UnsafeMutableRawPointer(pixbuf))
        #expect(PhotoFiles.turnKind(of: png.path) == .reencode(format: "png"))
        #expect(try PhotoFiles.turn(png.path, clockwise: true).get().kind == .reencode(format: "png"))
        var width: Int32 = 0, height: Int32 = 0
        #expect(gdk_pixbuf_get_file_info(png.path, &width, &height) != nil)
        #expect(width == 20 && height == 40)
    }

    @Test("A RAW file is never turned or edited by writing it again: it is left as it was, with a reason")
    func rawLeftAlone() throws {
        let folder = try TestPictures.makeFolder("turn-raw")
        defer { try? FileManager.default.removeItem(at: folder) }
        let preview = try #require(CameraFiles.jpeg(width: 60, height: 40, rgb: 0x3366CC))
        let dng = folder.appendingPathComponent("IMG_0001.DNG")
        let bytes = CameraFiles.dng(
            preview: preview, previewWidth: 60, previewHeight: 40, width: 60, height: 40, orientation: 1)
        try bytes.write(to: dng)
        #expect(PhotoFiles.turnKind(of: dng.path) == .unsupported)
        #expect(throws: PhotoFileFailure.self) { try PhotoFiles.turn(dng.path, clockwise: true).get() }
        let edit = PhotoEdit(turn: PictureTurn(quarterTurns: 1))
        #expect(throws: PhotoFileFailure.self) {
            try EditSaving.save(
                dng.path, edit: edit, mode: .replace, trashes: [folder.appendingPathComponent("trash").path]
            ).get()
        }
        #expect(try Data(contentsOf: dng) == bytes, "the RAW file as it was")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["IMG_0001.DNG"])
    }
}
