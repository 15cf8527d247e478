// Camera-size photos made at benchmark time with ImageMagick: 12 and 24 megapixels, baseline
// and progressive JPEG, upright and turned by an EXIF Orientation tag.
import Foundation
import PhotoPipeline
import TestSupport

/// One generated photo.
struct CameraPhoto: Sendable {
    let url: URL
    let megapixels: Int
    let progressive: Bool
    /// Whether an EXIF Orientation tag (6: turn 90° clockwise) says how to show it.
    let rotated: Bool
    let bytes: Int

    /// "12 MP baseline", "24 MP progressive", …
    var kind: String { "\(megapixels) MP \(progressive ? "progressive" : "baseline")" }
}

/// The set of generated photos, in a folder removed with it.
final class CameraPhotos {
    let folder: URL
    let photos: [CameraPhoto]
    let seconds: Double

    /// The kinds, in the order tables show them.
    static let kinds = ["12 MP baseline", "12 MP progressive", "24 MP baseline", "24 MP progressive"]

    /// Makes the photos: per size one picture of fractal plasma (soft colour structure at
    /// every scale) overlaid with fine grey grain, as a sensor leaves it, saved at quality 92
    /// with 4:2:0 chroma like a camera's JPEG. The grain is what brings the files to camera
    /// sizes (flat colours would compress to almost nothing and decode unrealistically fast).
    init() throws {
        let start = LoopbackServer.now()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "classic-photos-bench-photos-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var photos: [CameraPhoto] = []
        for (megapixels, width, height, seed) in [(12, 4000, 3000, 12), (24, 6000, 4000, 24)] {
            let base = folder.appendingPathComponent("camera-\(megapixels)mp").path
            let arguments =
                Self.picture(width: width, height: height, seed: seed) + Self.cameraJPEG + [
                    "(", "+clone", "-interlace", "none", "-write", base + "-baseline.jpg", "+delete", ")",
                    "-interlace", "JPEG", base + "-progressive.jpg",
                ]
            let result = try run(URL(fileURLWithPath: "/usr/bin/convert"), arguments, timeout: 300)
            guard result.status == 0 else {
                throw BenchError("ImageMagick could not make the test photos: \(result.stderr.prefix(300))")
            }
            for progressive in [false, true] {
                let upright = URL(fileURLWithPath: base + (progressive ? "-progressive.jpg" : "-baseline.jpg"))
                let data = try Data(contentsOf: upright)
                let rotated = URL(
                    fileURLWithPath: base + (progressive ? "-progressive" : "-baseline") + "-exif-rotated.jpg")
                try Self.withOrientation(data, 6).write(to: rotated)
                photos.append(
                    CameraPhoto(
                        url: upright, megapixels: megapixels, progressive: progressive, rotated: false,
                        bytes: data.count))
                photos.append(
                    CameraPhoto(
                        url: rotated, megapixels: megapixels, progressive: progressive, rotated: true,
                        bytes: data.count + 34))
            }
        }
        self.photos = photos
        seconds = LoopbackServer.now() - start
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// ImageMagick arguments that make one picture of `width` × `height`: fractal plasma
    /// drawn at a quarter of the size and scaled up, softened, overlaid with grey grain.
    static func picture(width: Int, height: Int, seed: Int) -> [String] {
        [
            "-seed", "\(seed)", "-size", "\(width / 4)x\(height / 4)", "plasma:fractal", "-blur", "0x1",
            "-resize", "\(width)x\(height)!",
            "(", "-size", "\(width)x\(height)", "xc:gray50", "-seed", "\(seed + 1)", "-attenuate", "0.6",
            "+noise", "Gaussian", "-colorspace", "gray", ")",
            "-compose", "overlay", "-composite",
        ]
    }

    /// ImageMagick settings for writing JPEG as a camera does: quality 92, 4:2:0 chroma.
    static let cameraJPEG = ["-quality", "92", "-sampling-factor", "2x2"]

    func of(kind: String) -> [CameraPhoto] { photos.filter { $0.kind == kind } }

    /// A line describing the set, for the report.
    var summary: String {
        let sizes = Self.kinds.map { kind -> String in
            let mb = of(kind: kind).map { Double($0.bytes) / 1_048_576 }
            return "\(kind) \(format(mb.first ?? 0)) MB"
        }
        return "\(photos.count) generated JPEG photos (made in \(format(seconds)) s): " + sizes.joined(separator: ", ")
            + "; each kind once upright and once with an EXIF Orientation tag of 6 (shown turned 90°, portrait). "
            + "None carries an EXIF thumbnail: every thumbnail here is made from the whole photo."
    }

    /// `jpeg` with an EXIF APP1 segment holding only an Orientation tag, placed after the
    /// JFIF APP0 segment (or after the start-of-image marker when there is none).
    static func withOrientation(_ jpeg: Data, _ orientation: UInt16) -> Data {
        let bytes = [UInt8](jpeg)
        var insertAt = 2
        if bytes.count > 6, bytes[2] == 0xFF, bytes[3] == 0xE0 {
            insertAt = 4 + (Int(bytes[4]) << 8 | Int(bytes[5]))
        }
        var app1: [UInt8] = [0xFF, 0xE1, 0x00, 34] // marker, length (34 bytes after the marker)
        app1 += PictureSignature.exifHeader
        app1 += PictureSignature.tiffBigEndian + [0x00, 0x2A, 0x00, 0x00, 0x00, 0x08] // 42, first IFD at 8
        app1 += [0x00, 0x01] // one entry
        app1 += [0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01] // Orientation, SHORT, count 1
        app1 += [UInt8(orientation >> 8), UInt8(orientation & 0xFF), 0x00, 0x00]
        app1 += [0x00, 0x00, 0x00, 0x00] // no next IFD
        return Data(bytes[..<insertAt] + app1 + bytes[insertAt...])
    }
}
