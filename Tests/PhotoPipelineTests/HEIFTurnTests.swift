import CGdkPixbuf
import Foundation
import GLibKit
@testable import PhotoPipeline
import Testing
import TestSupport

/// Turning a HEIC by its container's properties (`HEIFTurn`): libheif's own
/// reader shows every pixel where the turn puts it, the coded picture is not touched, the
/// thumbnail turns with it, and the EXIF orientation says the same.
@Suite struct HEIFTurnTests {
    /// A 64 × 48 HEIC with a 32-pixel thumbnail, white in its top-left quarter and black
    /// elsewhere (so that every turn and mirror looks different), EXIF orientation 1.
    private static func photo(in folder: ScratchFolder, avif: Bool = false) async throws -> URL {
        let source = folder.url.appendingPathComponent("source.png")
        let drawn = try await run(
            URL(fileURLWithPath: "/usr/bin/convert"),
            ["-size", "64x48", "xc:black", "-fill", "white", "-draw", "rectangle 0,0 31,23", "PNG24:" + source.path])
        try #require(drawn.status == 0, "\(drawn.stderr)")
        let photo = folder.url.appendingPathComponent(avif ? "picture.avif" : "IMG_5001.HEIC")
        let encoded = try await run(
            URL(fileURLWithPath: "/usr/bin/heif-enc"),
            (avif ? ["-A"] : []) + ["-q", "90", "-t", "32", "-o", photo.path, source.path])
        try #require(encoded.status == 0, "\(encoded.stderr)")
        let tagged = try await run(
            URL(fileURLWithPath: "/usr/bin/exiftool"),
            ["-q", "-overwrite_original", "-Make=Apple", "-Orientation#=1", photo.path])
        try #require(tagged.status == 0, "\(tagged.stderr)")
        return photo
    }

    /// The picture of the HEIF file `file` as libheif's own converter decodes it (transforms
    /// applied): its size and each pixel's grey.
    private static func decoded(_ file: Data, in folder: ScratchFolder) async throws -> (Int, Int, [UInt8]) {
        let input = folder.url.appendingPathComponent("decode.heic"),
            output = folder.url.appendingPathComponent("d.png")
        try file.write(to: input)
        let converted = try await run(URL(fileURLWithPath: "/usr/bin/heif-convert"), [input.path, output.path])
        try #require(converted.status == 0, "\(converted.stderr)")
        let pixbuf = try #require(gdk_pixbuf_new_from_file(output.path, nil))
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        let width = Int(gdk_pixbuf_get_width(pixbuf)), height = Int(gdk_pixbuf_get_height(pixbuf))
        let stride = Int(gdk_pixbuf_get_rowstride(pixbuf)), channels = Int(gdk_pixbuf_get_n_channels(pixbuf))
        let pixels = gdk_pixbuf_read_pixels(pixbuf)!
        var grey: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width { grey.append(pixels[y * stride + x * channels]) }
        }
        return (width, height, grey)
    }

    @Test(
        "Quarter turns of a HEIC are lossless: every pixel where the turn puts it, the coded picture untouched, the thumbnail and EXIF turned too; a mirror is not made"
    )
    func losslessTurns() async throws {
        let folder = try ScratchFolder()
        let photo = try await Self.photo(in: folder)
        let original = try Data(contentsOf: photo)
        #expect(HEIFTurn.canTurn(head: original.prefix(4096)))
        let (width, height, before) = try await Self.decoded(original, in: folder)
        #expect(width == 64 && height == 48)
        let turns = [PictureTurn(quarterTurns: 1), PictureTurn(quarterTurns: 3), PictureTurn(quarterTurns: 2)]
        // A mirror is left to be encoded again (readers disagree on HEIF's).
        #expect(HEIFTurn.turned(original, by: PictureTurn(mirrored: true)) == nil)
        #expect(HEIFTurn.turned(original, by: PictureTurn(mirrored: true, quarterTurns: 1)) == nil)
        for turn in turns {
            let turned = try #require(HEIFTurn.turned(original, by: turn), "\(turn)")
            // The coded picture's bytes are all there, unchanged, after the new `meta` box.
            // (Two bytes differ: the EXIF orientation, written in place.)
            let mdat = try #require(original.range(of: Data("mdat".utf8)))
            let tail = turned.suffix(original.count - mdat.lowerBound)
            #expect(zip(tail, original[mdat.lowerBound...]).filter { $0 != $1 }.count <= 2, "\(turn)")
            let (newWidth, newHeight, after) = try await Self.decoded(turned, in: folder)
            let size = turn.size(width: width, height: height)
            #expect(newWidth == size.width && newHeight == size.height, "\(turn)")
            var wrong = 0
            for y in 0..<height {
                for x in 0..<width {
                    let place = turn.place(x: x, y: y, width: width, height: height)
                    if after[place.y * newWidth + place.x] != before[y * width + x] { wrong += 1 }
                }
            }
            #expect(wrong == 0, "\(turn): \(wrong) pixels not where the turn puts them")
            let written = folder.url.appendingPathComponent("turned.heic")
            try turned.write(to: written)
            let exif = try await run(URL(fileURLWithPath: "/usr/bin/exiftool"), ["-s3", "-Orientation#", written.path])
            #expect(exif.stdout == "\(turn.exifOrientation)\n", "\(turn)")
        }
        // The thumbnail turns with the picture (libheif gives its size as shown).
        let turned = try #require(HEIFTurn.turned(original, by: PictureTurn(quarterTurns: 1)))
        let path = folder.url.appendingPathComponent("turned.heic")
        try turned.write(to: path)
        let info = try await run(URL(fileURLWithPath: "/usr/bin/heif-info"), [path.path])
        #expect(info.stdout.contains("thumbnail: 24x32"), "\(info.stdout)")
        // The app's own decoder shows it turned too: the white quarter now at the top right.
        let shown = try Decoding.picture(.bytes(turned), size: .fit(100), cancellable: Cancellable())
        let pixels = gdk_pixbuf_read_pixels(shown.pixbuf)!
        let stride = Int(gdk_pixbuf_get_rowstride(shown.pixbuf)),
            channels = Int(gdk_pixbuf_get_n_channels(shown.pixbuf))
        #expect(shown.width == 48 && shown.height == 64)
        #expect(pixels[8 * stride + 40 * channels] > 200 && pixels[8 * stride + 8 * channels] < 50)
    }

    @Test("An AVIF turns the same way, and Rotate says so")
    func avif() async throws {
        let folder = try ScratchFolder()
        let photo = try await Self.photo(in: folder, avif: true)
        let original = try Data(contentsOf: photo)
        #expect(PhotoFiles.turnKind(of: photo.path) == .losslessHEIF(format: "avif"))
        let (width, height, before) = try await Self.decoded(original, in: folder)
        _ = try PhotoFiles.turn(photo.path, clockwise: true).get()
        let (newWidth, newHeight, after) = try await Self.decoded(try Data(contentsOf: photo), in: folder)
        #expect(newWidth == height && newHeight == width)
        let turn = PictureTurn(quarterTurns: 1)
        let wrong = (0..<height).flatMap { y in (0..<width).map { x in (x, y) } }.filter { x, y in
            let place = turn.place(x: x, y: y, width: width, height: height)
            return after[place.y * newWidth + place.x] != before[y * width + x]
        }
        #expect(wrong.isEmpty, "\(wrong.count) pixels not where the turn puts them")
    }

    @Test("Turned again and again, a HEIC comes back to itself, and its file does not grow")
    func turnedAgain() async throws {
        let folder = try ScratchFolder()
        let original = try Data(contentsOf: try await Self.photo(in: folder))
        var file = original
        var sizes: [Int] = []
        for _ in 0..<12 {
            file = try #require(HEIFTurn.turned(file, by: PictureTurn(quarterTurns: 1)))
            sizes.append(file.count)
        }
        // Once an `irot` of each angle is there, they are used again: a turn more costs nothing.
        #expect(sizes[4..<8] == sizes[8..<12], "\(sizes)")
        #expect(sizes.max()! <= original.count + 3 * 9 + 2, "\(sizes) from \(original.count)")
        let (_, _, before) = try await Self.decoded(original, in: folder)
        let (_, _, after) = try await Self.decoded(file, in: folder)
        #expect(before == after)
    }

    @Test("A damaged HEIC is refused, never read past its end")
    func damaged() async throws {
        let folder = try ScratchFolder()
        let original = try Data(contentsOf: try await Self.photo(in: folder))
        #expect(HEIFTurn.turned(original.prefix(original.count / 2), by: PictureTurn(quarterTurns: 1)) == nil)
        #expect(HEIFTurn.turned(Data("not a picture".utf8), by: PictureTurn(quarterTurns: 1)) == nil)
        // Bytes of the head changed at random: a file turned or refused, nothing else.
        var generator = SplitMix(state: 52)
        var refused = 0
        for _ in 0..<2_000 {
            var bytes = [UInt8](original)
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                bytes[Int.random(in: 0..<min(bytes.count, 1_500), using: &generator)] = UInt8.random(
                    in: 0...255, using: &generator)
            }
            if HEIFTurn.turned(Data(bytes), by: PictureTurn(quarterTurns: 3)) == nil { refused += 1 }
        }
        #expect(refused > 0)
        // Cut anywhere: refused (what is there is never read past).
        for cut in stride(from: 0, to: original.count, by: 3) {
            #expect(HEIFTurn.turned(original.prefix(cut), by: PictureTurn(quarterTurns: 1)) == nil, "cut at \(cut)")
            _ = HEIFTurn.canTurn(head: original.prefix(cut))
        }
    }
}

/// A seeded generator (SplitMix64), so that a failure comes again.
private struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
