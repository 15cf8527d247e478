import CGdkPixbuf
import Foundation
import GLibKit
import PhotoPipeline
import Testing
import TestSupport

/// Progressive JPEGs are decoded by libjpeg in one pass in the decoder helper, where
/// gdk-pixbuf's loader makes the whole picture again for each of its scans.
@Suite struct ProgressiveJPEGTests {
    /// A 640 × 480 picture of soft colours, written progressive by ImageMagick.
    static func progressive(in folder: ScratchFolder, orientation: Int? = nil) throws -> Data {
        let file = folder.url.appendingPathComponent("progressive-\(orientation ?? 1).jpg")
        let made = try run(
            URL(fileURLWithPath: "/usr/bin/convert"),
            [
                "-seed", "7", "-size", "160x120", "plasma:fractal", "-resize", "640x480!", "-quality", "90",
                "-interlace", "JPEG", file.path,
            ])
        try #require(made.status == 0, "convert: \(made.stderr)")
        if let orientation {
            let tagged = try run(
                URL(fileURLWithPath: "/usr/bin/exiftool"),
                ["-q", "-overwrite_original", "-Orientation#=\(orientation)", file.path])
            try #require(tagged.status == 0, "exiftool: \(tagged.stderr)")
        }
        return try Data(contentsOf: file)
    }

    static func decoded(_ bytes: Data, _ size: DecodeSize) throws -> PhotoImage {
        try Decoding.picture(.bytes(bytes), size: size, cancellable: Cancellable())
    }

    @Test("A progressive JPEG is the picture gdk-pixbuf's loader makes of it, whole and as a row's square")
    func samePicture() throws {
        let folder = try ScratchFolder()
        let bytes = try Self.progressive(in: folder)
        // A progressive frame header (SOF2), no sequential one (SOF0).
        let markers = zip(bytes, bytes.dropFirst()).filter { $0.0 == 0xFF }.map(\.1)
        #expect(markers.contains(0xC2) && !markers.contains(0xC0))
        let whole = try Self.decoded(bytes, .fit(1000))
        #expect((whole.width, whole.height) == (640, 480))
        let expected = ColorProfileTests.plainPixels(bytes)
        let pixels = ColorProfileTests.packed(whole)
        #expect(
            zip(pixels, expected).map { abs(Int($0) - Int($1)) }.max() ?? .max <= 1,
            "mean difference \(ColorProfileTests.meanDifference(pixels, expected))")
        let square = try Self.decoded(bytes, .square(80))
        #expect((square.width, square.height) == (80, 80))
        #expect(ColorProfile.name(of: whole) == nil)
    }

    @Test("A progressive JPEG turned by its EXIF orientation is shown upright")
    func upright() throws {
        let folder = try ScratchFolder()
        let image = try Self.decoded(try Self.progressive(in: folder, orientation: 6), .fit(1000))
        #expect((image.width, image.height) == (480, 640))
        let thumbnail = try Self.decoded(try Self.progressive(in: folder, orientation: 6), .fit(100))
        #expect((thumbnail.width, thumbnail.height) == (75, 100))
    }

    @Test("A progressive JPEG cut short shows what came, as a sequential one does, where it failed before")
    func cutShort() throws {
        let folder = try ScratchFolder()
        let bytes = try Self.progressive(in: folder)
        for fraction in [0.3, 0.6, 0.95] {
            let image = try Self.decoded(bytes.prefix(Int(Double(bytes.count) * fraction)), .fit(1000))
            #expect((image.width, image.height) == (640, 480), "\(fraction)")
        }
        // Bytes that are no JPEG after its header: damaged, said as such; the helper lives on.
        var mangled = [UInt8](bytes)
        for i in stride(from: 700, to: mangled.count, by: 3) { mangled[i] = 0xFF }
        do {
            _ = try Self.decoded(Data(mangled), .fit(1000))
        } catch let error as PhotoFailure {
            #expect(error.reason != .decoderCrashed, "\(error)")
        }
        #expect(try Self.decoded(bytes, .square(40)).width == 40)
    }
}
