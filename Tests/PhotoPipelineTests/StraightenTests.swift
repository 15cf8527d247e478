import CTurboJPEG
import Foundation
import GLibKit
@testable import PhotoPipeline
import Testing
import TestSupport

/// Straightening a JPEG (`StraightenedJPEG`): the rectangle kept, the quality read from the
/// file, and the result against ImageMagick's rotation of the same photo.
@Suite struct StraightenTests {
    typealias Pixels = LosslessEditTests.Pixels

    @Test("The rectangle kept is the photo's own shape, centred, and every corner of it lies inside the turned photo")
    func inscribed() {
        #expect(StraightenedJPEG.inscribed(width: 6000, height: 4000, degrees: 0).width == 6000)
        for (width, height) in [(6000, 4000), (4000, 6000), (500, 500)] {
            for degrees in [-45.0, -10, -3, 0.5, 3, 20, 45] {
                let kept = StraightenedJPEG.inscribed(width: width, height: height, degrees: degrees)
                let ratio = Double(kept.width) / Double(kept.height)
                #expect(abs(ratio - Double(width) / Double(height)) < 0.01, "\(width)×\(height) \(degrees)°: \(kept)")
                // Each corner, turned back by the angle about the centre, falls in the photo.
                let angle = -degrees * .pi / 180
                let (cx, cy) = (Double(width) / 2, Double(height) / 2)
                for (x, y) in [
                    (kept.x, kept.y), (kept.x + kept.width, kept.y), (kept.x, kept.y + kept.height),
                    (kept.x + kept.width, kept.y + kept.height),
                ] {
                    let (dx, dy) = (Double(x) - cx, Double(y) - cy)
                    let (sx, sy) = (cx + dx * cos(angle) - dy * sin(angle), cy + dx * sin(angle) + dy * cos(angle))
                    #expect(sx >= -0.5 && sx <= Double(width) + 0.5 && sy >= -0.5 && sy <= Double(height) + 0.5)
                }
                // And it is the largest: 1% more would not fit.
                let larger = Double(kept.width) * 1.01 / 2
                #expect(
                    larger * cos(abs(angle)) + Double(kept.height) * 1.01 / 2 * sin(abs(angle)) > cx - 1
                        || Double(kept.height) * 1.01 / 2 * cos(abs(angle)) + larger * sin(abs(angle)) > cy - 1)
            }
        }
    }

    @Test("The quality a JPEG was saved with is read from its tables", arguments: [50, 75, 85, 92, 98])
    func quality(_ quality: Int) async throws {
        let folder = try ScratchFolder()
        let photo = try await LosslessEditTests.noise(folder, width: 64, height: 48, sampling: "2x2", quality: quality)
        let estimate = try #require(StraightenedJPEG.quality(of: try Data(contentsOf: photo)))
        #expect(abs(estimate - quality) <= 1, "saved at \(quality), read as \(estimate)")
    }

    @Test(
        "Straightened 3° (and after a quarter turn, −7°), a photo matches ImageMagick's rotation of it, keeps its subsampling, progressive kind and metadata, and is saved as a copy marked not lossless"
    )
    func matchesImageMagick() async throws {
        let folder = try ScratchFolder()
        let photo = folder.url.appendingPathComponent("cat.jpg")
        try FileManager.default.copyItem(
            at: Products.packageRoot.appendingPathComponent("data/photos/chelsea-the-cat.jpg"), to: photo)
        let tagged = try await run(
            URL(fileURLWithPath: "/usr/bin/exiftool"),
            [
                "-q", "-overwrite_original", "-Make=Canon", "-XMP-dc:Creator=Ada Lovelace", "-n", "-Orientation=1",
                "-ICC_Profile<=/usr/share/color/icc/ghostscript/a98.icc", photo.path,
            ])
        try #require(tagged.status == 0, "\(tagged.stderr)")
        let original = try Data(contentsOf: photo)
        let source = try Pixels(original)
        for (turn, degrees) in [(PictureTurn.upright, 3.0), (PictureTurn(quarterTurns: 1), -7.0)] {
            let edit = PhotoEdit(turn: turn, straighten: degrees)
            let (edited, outcome) = try LosslessJPEG.apply(edit, to: original)
            let turned = turn.size(width: source.width, height: source.height)
            #expect(
                outcome.kept == StraightenedJPEG.inscribed(width: turned.width, height: turned.height, degrees: degrees)
            )
            let result = try Pixels(edited)
            #expect(result.width == outcome.kept.width && result.height == outcome.kept.height)
            // ImageMagick: the same turn, the rotation about the centre, bilinear, the same cut.
            let reference = folder.url.appendingPathComponent("reference.png")
            let kept = outcome.kept
            let made = try await run(
                URL(fileURLWithPath: "/usr/bin/convert"),
                [photo.path, "-rotate", "\(turn.quarterTurns * 90)", "+repage"]
                    + [
                        "-virtual-pixel", "edge", "-interpolate", "bilinear", "-filter", "point", "-distort", "SRT",
                        "\(degrees)", "+repage", "-crop", "\(kept.width)x\(kept.height)+\(kept.x)+\(kept.y)", "+repage",
                        "-depth", "8", "rgb:" + reference.path,
                    ])
            try #require(made.status == 0, "\(made.stderr)")
            let expected = [UInt8](try Data(contentsOf: reference))
            try #require(expected.count == result.rgb.count)
            let total = zip(expected, result.rgb).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
            let mean = Double(total) / Double(expected.count)
            print("straightened \(degrees)°: mean absolute difference from ImageMagick \(mean) levels")
            #expect(mean <= 2, "mean absolute difference \(mean)")
        }

        let (edited, _) = try LosslessJPEG.apply(PhotoEdit(straighten: 3), to: original)
        var width: Int32 = 0, height: Int32 = 0, sampling: Int32 = -1, colorspace: Int32 = 0
        var originalSampling: Int32 = -2
        let handle = try #require(tjInitDecompress())
        defer { tjDestroy(handle) }
        for (data, into) in [(edited, 0), (original, 1)] {
            var found: Int32 = -1
            _ = data.withUnsafeBytes {
                tjDecompressHeader3(handle, $0.cBytes, UInt($0.count), &width, &height, &found, &colorspace)
            }
            if into == 0 { sampling = found } else { originalSampling = found }
        }
        #expect(sampling == originalSampling)
        #expect(
            ProgressiveJPEG.isProgressive([UInt8](edited.prefix(4096)))
                == ProgressiveJPEG.isProgressive([UInt8](original.prefix(4096))))
        let quality = try #require(StraightenedJPEG.quality(of: original))
        #expect(abs((StraightenedJPEG.quality(of: edited) ?? 0) - quality) <= 1)
        let result = folder.url.appendingPathComponent("straightened.jpg")
        try edited.write(to: result)
        let read = try await run(
            URL(fileURLWithPath: "/usr/bin/exiftool"),
            ["-s3", "-n", "-Make", "-XMP-dc:Creator", "-EXIF:Orientation", result.path])
        #expect(read.stdout.split(separator: "\n") == ["Canon", "Ada Lovelace", "1"])
        let profile = try await run(URL(fileURLWithPath: "/usr/bin/exiftool"), ["-b", "-ICC_Profile", result.path])
        let a98 = try String(
            decoding: Data(contentsOf: URL(fileURLWithPath: "/usr/share/color/icc/ghostscript/a98.icc")), as: UTF8.self)
        #expect(profile.stdout == a98)

        let saved = try EditSaving.save(photo.path, edit: PhotoEdit(straighten: 3), mode: .copy).get()
        #expect(!saved.lossless)
        #expect(try Data(contentsOf: photo) == original)
        #expect(try Data(contentsOf: URL(fileURLWithPath: saved.path)) == edited)
    }

    @Test(
        "A PNG straightened 3° is saved as a PNG matching ImageMagick's rotation of it; a half-transparent one keeps its alpha"
    )
    func otherFormats() async throws {
        let folder = try ScratchFolder()
        let photo = folder.url.appendingPathComponent("cat.png")
        let made = try await run(
            URL(fileURLWithPath: "/usr/bin/convert"),
            [Products.packageRoot.appendingPathComponent("data/photos/chelsea-the-cat.jpg").path, photo.path])
        try #require(made.status == 0, "\(made.stderr)")
        let source = try Pixels(try Data(contentsOf: photo))
        let saved = try EditSaving.save(photo.path, edit: PhotoEdit(straighten: 3), mode: .copy).get()
        #expect(!saved.lossless && saved.path.hasSuffix("cat (edited).png"))
        let kept = saved.outcome.kept
        #expect(kept == StraightenedJPEG.inscribed(width: source.width, height: source.height, degrees: 3))
        let written = try Data(contentsOf: URL(fileURLWithPath: saved.path))
        #expect(written.starts(with: [0x89, 0x50, 0x4E, 0x47]), "not a PNG")
        let result = try Pixels(written)
        let reference = folder.url.appendingPathComponent("reference.rgb")
        let drawn = try await run(
            URL(fileURLWithPath: "/usr/bin/convert"),
            [
                photo.path, "-virtual-pixel", "edge", "-interpolate", "bilinear", "-filter", "point", "-distort", "SRT",
                "3", "+repage", "-crop", "\(kept.width)x\(kept.height)+\(kept.x)+\(kept.y)", "+repage", "-depth", "8",
                "rgb:" + reference.path,
            ])
        try #require(drawn.status == 0, "\(drawn.stderr)")
        let expected = [UInt8](try Data(contentsOf: reference))
        try #require(expected.count == result.rgb.count)
        let mean =
            Double(zip(expected, result.rgb).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(expected.count)
        print("PNG straightened 3°: mean absolute difference from ImageMagick \(mean) levels")
        #expect(mean <= 2, "mean absolute difference \(mean)")

        let clear = folder.url.appendingPathComponent("clear.png")
        let faded = try await run(
            URL(fileURLWithPath: "/usr/bin/convert"),
            [photo.path, "-alpha", "set", "-channel", "A", "-evaluate", "set", "50%", "+channel", clear.path])
        try #require(faded.status == 0, "\(faded.stderr)")
        let clearSaved = try EditSaving.save(clear.path, edit: PhotoEdit(straighten: -5), mode: .copy).get()
        let alpha = try await run(
            URL(fileURLWithPath: "/usr/bin/convert"), [clearSaved.path, "-format", "%[opaque] %[fx:mean.a]", "info:"])
        let parts = alpha.stdout.split(separator: " ")
        #expect(parts.first == "False" || parts.first == "false", "\(alpha.stdout)")
        #expect(abs((Double(parts.last ?? "") ?? 0) - 0.5) < 0.01, "\(alpha.stdout)")
    }
}
