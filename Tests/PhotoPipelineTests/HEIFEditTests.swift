import CGdkPixbuf
import Foundation
import GLibKit
@testable import PhotoPipeline
import Testing
import TestSupport

/// Editing and turning a HEIC (phones' photos): turned by its container's turn where that is
/// all (`HEIFTurn`), else decoded in a decoder helper, turned and cut here, and written again
/// as a HEIC by libheif's HEVC encoder (`PictureWriter`), keeping its EXIF (orientation
/// upright) and carrying a thumbnail, as phones write them.
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
        #expect(PhotoFiles.turnKind(of: photo.path) == .losslessHEIF(format: "heif"))
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
        // A turn alone is the container's (lossless); a flip is encoded again.
        try FileManager.default.removeItem(atPath: saved.path)
        let turned = try EditSaving.save(photo.path, edit: PhotoEdit(turn: PictureTurn(quarterTurns: 1)), mode: .copy)
            .get()
        #expect(turned.lossless && turned.outcome.kept == PixelRect(x: 0, y: 0, width: 480, height: 640))
        let turnedCopy = try Data(contentsOf: URL(fileURLWithPath: turned.path))
        #expect(abs(turnedCopy.count - before.count) < 64, "\(turnedCopy.count) from \(before.count)")
        try FileManager.default.removeItem(atPath: turned.path)
        let flipped = try EditSaving.save(photo.path, edit: PhotoEdit(turn: PictureTurn(mirrored: true)), mode: .copy)
            .get()
        #expect(!flipped.lossless)
        #expect(try Self.look(flipped.path, x: 40, y: 40).grey > 215, "the white top stays at the top")
    }

    @Test("Rotate turns a HEIC by its container's turn (not encoded again), its EXIF kept and turned too")
    func rotated() async throws {
        let folder = try ScratchFolder()
        let photo = try await Self.phonePhoto(in: folder)
        let turned = try PhotoFiles.turn(photo.path, clockwise: false).get()
        #expect(turned == PhotoFiles.Turned(kind: .losslessHEIF(format: "heif"), orientation: nil))
        // Counter-clockwise: the white top goes to the left.
        let left = try Self.look(photo.path, x: 40, y: 320), right = try Self.look(photo.path, x: 440, y: 320)
        #expect(left.width == 480 && left.height == 640 && left.grey > 215 && right.grey < 40)
        let read = try await run(Self.exiftool, ["-s3", "-Make", "-Orientation#", photo.path])
        #expect(read.stdout == "Apple\n8\n", "\(read.stdout)")
    }

    @Test(
        "A HEIC's EXIF is made true to the picture saved: upright, its new pixel size, no thumbnail of the picture before; a damaged block is dropped"
    )
    func uprightExif() throws {
        let block = Self.exifBlock()
        let upright = try #require(ExifOrientation.uprightTIFF(block, width: 480, height: 640))
        #expect(upright.count == block.count)
        let bytes = [UInt8](upright)
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        #expect(u16(18) == 1, "orientation")
        #expect(u32(34) == 0, "IFD1 let go")
        #expect(u32(48) == 480 && u16(60) == 640, "pixel size \(u32(48)) × \(u16(60))")
        // The rest as it was.
        let before = [UInt8](block)
        #expect(bytes[0..<18] == before[0..<18] && bytes[38..<48] == before[38..<48])
        #expect(ExifOrientation.uprightTIFF(block.prefix(12), width: 1, height: 1) == nil)
    }

    /// A little-endian TIFF block as a phone's EXIF: IFD0 with orientation 6 and the EXIF
    /// directory (pixel size 640 × 480: a LONG and a SHORT), and an empty IFD1 after it.
    private static func exifBlock() -> Data {
        func le(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8((value >> (8 * $0)) & 0xFF) } }
        func entry(_ tag: Int, _ type: Int, _ value: Int) -> [UInt8] {
            le(tag, 2) + le(type, 2) + le(1, 4) + le(value, type == 3 ? 2 : 4) + (type == 3 ? [0, 0] : [])
        }
        var bytes: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + le(8, 4)
        bytes += le(2, 2) + entry(0x0112, 3, 6) + entry(0x8769, 4, 38) + le(68, 4) // IFD0 at 8, IFD1 at 68
        bytes += le(2, 2) + entry(0xA002, 4, 640) + entry(0xA003, 3, 480) + le(0, 4) // EXIF at 38
        bytes += le(0, 2) + le(0, 4) // IFD1 at 68
        return Data(bytes)
    }
}
