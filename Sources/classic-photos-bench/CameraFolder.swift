// A folder of distinct camera photos as a camera's card holds them: 12 megapixels, half of
// them progressive, some turned by an EXIF Orientation tag, and each carrying the 160×120
// JPEG thumbnail cameras embed in EXIF IFD1, made from the photo itself.
import Dispatch
import Foundation
import GLibKit
import PhotoPipeline
import TestSupport

/// The generated folder, removed with the value.
final class CameraFolder {
    /// The photos, and nothing else: a folder the app and the desktop viewers can open.
    let folder: URL
    /// In the order of their names (the order a viewer lists them in).
    let photos: [CameraPhoto]
    let seconds: Double
    private let root: URL

    static let exiftool = "/usr/bin/exiftool"

    /// Makes `count` photos. The grain-on-plasma pictures of `CameraPhotos` take about 3 s
    /// each to draw here, so two are drawn (one per core) and every photo is cut from one of
    /// them differently: rolled by its own offset (the picture wraps round) and stamped with
    /// its number, so no two photos, and no two embedded thumbnails, have the same pixels.
    /// Each of the two ImageMagick processes then writes half the photos, each photo's
    /// thumbnail scaled from the same pixels as it goes; exiftool puts the thumbnails into
    /// EXIF IFD1 and the Orientation tags into IFD0 of every file in two runs.
    init(count: Int = 120) throws {
        let start = LoopbackServer.now()
        guard FileManager.default.isExecutableFile(atPath: Self.exiftool) else {
            throw BenchError("exiftool is needed to embed EXIF thumbnails (Debian: libimage-exiftool-perl)")
        }
        let root = try temporaryFolder("camera-folder")
        let folder = root.appendingPathComponent("photos", isDirectory: true)
        var made = false
        defer { if !made { try? FileManager.default.removeItem(at: root) } }
        let making = root.appendingPathComponent("making", isDirectory: true)
        let thumbnails = making.appendingPathComponent("thumbnails", isDirectory: true)
        for made in [folder, thumbnails] {
            try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true)
        }

        let (width, height) = (4000, 3000)
        let pictures = (0..<2).map { making.appendingPathComponent("picture-\($0).mpc").path }
        try Self.inParallel(
            pictures.enumerated().map { n, picture in
                CameraPhotos.picture(width: width, height: height, seed: 101 + 100 * n) + [picture]
            })

        let photos = (0..<count).map { (n: Int) -> CameraPhoto in
            let url = folder.appendingPathComponent(String(format: "photo-%03d.jpg", n + 1))
            return CameraPhoto(url: url, megapixels: 12, progressive: n / 2 % 2 == 1, rotated: n % 3 == 2, bytes: 0)
        }
        // Cantarell is installed with the app's own dependencies; without it the photos are
        // told apart by their offsets alone.
        let font = "/usr/share/fonts/opentype/cantarell/Cantarell-Bold.otf"
        let stamp =
            FileManager.default.fileExists(atPath: font)
            ? ["-font", font, "-pointsize", "240", "-fill", "white", "-gravity", "southeast"] : []
        try Self.inParallel(
            pictures.indices.map { half in
                var arguments = [pictures[half]] + CameraPhotos.cameraJPEG + stamp
                for (n, photo) in photos.enumerated() where n % pictures.count == half {
                    arguments += ["(", "+clone", "-roll", "+\(n * 1237 % width)+\(n * 743 % height)"]
                    if !stamp.isEmpty { arguments += ["-annotate", "+120+90", "No. \(n + 1)"] }
                    arguments += [
                        "-interlace", photo.progressive ? "JPEG" : "none", "-write", photo.url.path,
                        "-interlace", "none", "-thumbnail", "\(width / 25)x\(height / 25)", "-strip",
                        "-write", thumbnails.appendingPathComponent(photo.url.lastPathComponent).path, "+delete", ")",
                    ]
                }
                return arguments + ["null:"]
            })

        // Dates taken a day apart, in an order unlike the names' (7,919 is prime, so each photo
        // gets a day of its own): set as the files' times, copied into EXIF with the thumbnails.
        for (n, photo) in photos.enumerated() {
            let day = 1_500_000_000 + (n * 7_919 % photos.count) * 86_400
            var times = [timespec(tv_sec: day, tv_nsec: 0), timespec(tv_sec: day, tv_nsec: 0)]
            _ = utimensat(AT_FDCWD, photo.url.path, &times, 0)
        }
        try Self.exiftool([
            "-ThumbnailImage<=" + thumbnails.path + "/%f.jpg", "-DateTimeOriginal<FileModifyDate", folder.path,
        ])
        try Self.exiftool(["-Orientation#=6"] + photos.filter { $0.rotated }.map { $0.url.path })
        try? FileManager.default.removeItem(at: making)
        self.root = root
        self.folder = folder
        self.photos = try photos.map { photo in
            let size = try FileManager.default.attributesOfItem(atPath: photo.url.path)[.size] as? Int ?? 0
            let handle = try FileHandle(forReadingFrom: photo.url)
            defer { try? handle.close() }
            guard Self.hasEXIFThumbnail(try handle.read(upToCount: 64 * 1024) ?? Data()) else {
                throw BenchError("exiftool left \(photo.url.lastPathComponent) without an EXIF thumbnail")
            }
            return CameraPhoto(
                url: photo.url, megapixels: photo.megapixels, progressive: photo.progressive,
                rotated: photo.rotated, bytes: size)
        }
        seconds = LoopbackServer.now() - start
        made = true
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    var totalBytes: Int { photos.reduce(0) { $0 + $1.bytes } }

    /// A line describing the folder, for the report.
    var summary: String {
        let mb = Double(totalBytes) / 1_048_576
        return
            "\(photos.count) generated 12-megapixel JPEG photos, all different (\(format(mb / Double(photos.count))) MB "
            + "each on average, \(format(mb, 0)) MB in all; made in \(format(seconds)) s), named in order: "
            + "\(photos.filter(\.progressive).count) progressive, \(photos.filter(\.rotated).count) "
            + "with an EXIF Orientation tag of 6, and every one carrying a 160×120 EXIF thumbnail made from its own pixels, "
            + "as cameras write them, and a date taken of its own."
    }

    /// Whether `head`, a JPEG file's start, has an EXIF segment (APP1) holding a JPEG of its own.
    static func hasEXIFThumbnail(_ head: Data) -> Bool {
        let bytes = [UInt8](head)
        var at = 2
        while at + 4 <= bytes.count, bytes[at] == 0xFF, bytes[at + 1] != 0xDA {
            let end = at + 2 + (Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]))
            if bytes[at + 1] == 0xE1, end <= bytes.count,
                bytes[(at + 4)..<min(end, at + 10)].elementsEqual(PictureSignature.exifHeader)
            {
                // A start-of-image marker inside it: IFD1's thumbnail.
                guard end - 2 > at + 10 else { return false }
                return ((at + 10)..<(end - 2)).contains {
                    bytes[$0...].starts(with: PictureSignature.jpeg)
                }
            }
            at = end
        }
        return false
    }

    /// Runs ImageMagick once for each argument list, all at once, each on one thread.
    private static func inParallel(_ runs: [[String]]) throws {
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: runs.count) { n in
            let result = try? run(
                URL(fileURLWithPath: "/usr/bin/convert"), runs[n],
                environment: ["MAGICK_THREAD_LIMIT": "1", "OMP_NUM_THREADS": "1"], timeout: 600)
            if result?.status != 0 {
                failures.withLock { $0.append(String(result?.stderr.prefix(300) ?? "did not run")) }
            }
        }
        if let failure = failures.withLock({ $0.first }) {
            throw BenchError("ImageMagick could not make the camera folder: \(failure)")
        }
    }

    private static func exiftool(_ arguments: [String]) throws {
        let result = try run(URL(fileURLWithPath: exiftool), ["-q", "-overwrite_original"] + arguments, timeout: 600)
        guard result.status == 0 else { throw BenchError("exiftool failed: \(result.stderr.prefix(300))") }
    }
}
