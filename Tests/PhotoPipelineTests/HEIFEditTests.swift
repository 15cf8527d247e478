import CGdkPixbuf
import Foundation
import GLibKit
@testable import PhotoPipeline
import Testing
import TestSupport

/// Editing and turning a HEIC (phones' photos): decoded in a decoder helper, turned and cut
/// here, and written again as a HEIC by libheif's HEVC encoder (`PictureWriter`), keeping its
/// EXIF (orientation upright) and carrying a thumbnail, as phones write them.
@Suite struct HEIFEditTests {
    private static let exiftool = URL(fileURLWithPath: "/usr/bin/exiftool")

    /// A 640 × 480 HEIC in `folder`, white above black, with a camera's EXIF.
    private static func phonePhoto(in folder: ScratchFolder) async throws -> URL {
        let source = folder.url.appendingPathComponent("source.jpg")
        let drawn = try await run(
            URL(fileURLWithPath: "/usr/bin/convert"),
            [
                "-size", "640x480", "xc:white", "-fill", "black", "-draw", "rectangle 0,240 639,479", "-quality", "95",
                source.path,
            ])
        try #require(drawn.status == 0, "\(drawn.stderr)")
        let photo = folder.url.appendingPathComponent("IMG_4001.HEIC")
        try await FormatFiles.convert(source, to: "heic", at: photo)
        try FileManager.default.removeItem(at: source)
        let tagged = try await run(
            exiftool,
            [
                "-q", "-overwrite_original", "-Make=Apple", "-Model=iPhone 13", "-DateTimeOriginal=2023:05:06 07:08:09",
                "-Orientation#=1", photo.path,
            ])
        try #require(tagged.status == 0, "\(tagged.stderr)")
        return photo
    }

    /// The photo at `path` decoded (upright), and the grey at (`x`, `y`).
    private static func look(_ path: String, x: Int, y: Int) throws -> (width: Int, height: Int, grey: Int) {
        let image = try Decoding.picture(
            .bytes(Data(contentsOf: URL(fileURLWithPath: path))), size: .fit(4000), cancellable: Cancellable())
        let pixels = gdk_pixbuf_read_pixels(image.pixbuf)!
        let at = y * Int(gdk_pixbuf_get_rowstride(image.pixbuf)) + x * Int(gdk_pixbuf_get_n_channels(image.pixbuf))
        return (image.width, image.height, (Int(pixels[at]) + Int(pixels[at + 1]) + Int(pixels[at + 2])) / 3)
    }

    @Test("A HEIC is edited and saved as a HEIC, with its EXIF and a thumbnail; the photo untouched")
    func editedAsHEIC() async throws {
        try #require(PictureWriter.canWriteHEIF, "libheif has an HEVC encoder")
        let folder = try ScratchFolder()
        let photo = try await Self.phonePhoto(in: folder)
        let before = try Data(contentsOf: photo)
        #expect(PhotoFiles.turnKind(of: photo.path) == .reencode(format: "heif"))
        #expect(ReencodedEdit.formats.contains("heif"))
        // A quarter turn clockwise: the white top goes to the right; then the left 80 columns cut.
        let edit = PhotoEdit(turn: PictureTurn(quarterTurns: 1), crop: PixelRect(x: 80, y: 0, width: 400, height: 640))
        let saved = try EditSaving.save(photo.path, edit: edit, mode: .copy).get()
        #expect(saved.path == folder.url.appendingPathComponent("IMG_4001 (edited).HEIC").path)
        #expect(!saved.lossless && saved.outcome.kept == edit.crop)
        #expect(try Data(contentsOf: photo) == before, "the photo itself is untouched")
        let file = try Data(contentsOf: URL(fileURLWithPath: saved.path))
        #expect(PictureSignature.isHEIF(file.prefix(32)))
        let left = try Self.look(saved.path, x: 40, y: 320), right = try Self.look(saved.path, x: 360, y: 320)
        #expect(left.width == 400 && left.height == 640, "\(left.width)×\(left.height)")
        #expect(left.grey < 40 && right.grey > 215, "left \(left.grey), right \(right.grey)")
        let read = try await run(
            Self.exiftool, ["-s3", "-Make", "-Model", "-DateTimeOriginal", "-Orientation#", saved.path])
        #expect(
            read.stdout.split(separator: "\n") == ["Apple", "iPhone 13", "2023:05:06 07:08:09", "1"], "\(read.stdout)")
        // The thumbnail item the list's rows are read from, as a phone's HEIC has one.
        let info = try await run(URL(fileURLWithPath: "/usr/bin/heif-info"), [saved.path])
        #expect(info.stdout.contains("thumbnail"), "\(info.stdout)")
    }

    @Test("Rotate turns a HEIC by saving it again as a HEIC, its EXIF kept")
    func rotated() async throws {
        try #require(PictureWriter.canWriteHEIF, "libheif has an HEVC encoder")
        let folder = try ScratchFolder()
        let photo = try await Self.phonePhoto(in: folder)
        let turned = try PhotoFiles.turn(photo.path, clockwise: false).get()
        #expect(turned == PhotoFiles.Turned(kind: .reencode(format: "heif"), orientation: nil))
        // Counter-clockwise: the white top goes to the left.
        let left = try Self.look(photo.path, x: 40, y: 320), right = try Self.look(photo.path, x: 440, y: 320)
        #expect(left.width == 480 && left.height == 640 && left.grey > 215 && right.grey < 40)
        let read = try await run(Self.exiftool, ["-s3", "-Make", photo.path])
        #expect(read.stdout == "Apple\n")
    }

    @Test(
        "A HEIC's EXIF is set upright for the turned pixels; a damaged block is dropped, one without an orientation kept"
    )
    func uprightExif() throws {
        let tiff = TIFFBytes()
        let turned = tiff.block(orientation: 6)
        let upright = try #require(ExifOrientation.uprightTIFF(turned))
        #expect(upright.count == turned.count)
        #expect(ExifOrientation.uprightTIFF(Data(turned.prefix(12))) == nil)
        let none = tiff.block(orientation: nil)
        #expect(ExifOrientation.uprightTIFF(none) == none)
        #expect(upright[upright.startIndex + 18] == 1 && turned[turned.startIndex + 18] == 6)
    }

    /// A little-endian TIFF block with one IFD0 entry (orientation) or none.
    private struct TIFFBytes {
        func block(orientation: UInt16?) -> Data {
            var bytes: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00]
            if let orientation {
                bytes += [0x01, 0x00, 0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00]
                bytes += [UInt8(orientation & 0xFF), UInt8(orientation >> 8), 0x00, 0x00]
            } else {
                bytes += [0x00, 0x00]
            }
            return Data(bytes + [0, 0, 0, 0])
        }
    }
}
