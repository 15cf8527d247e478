// Thumbnails: the row's 160 px square made from camera photos and from the bundled photos,
// by this app's decoder and sepia filter and by vipsthumbnail, ImageMagick and
// gdk-pixbuf-thumbnailer, each on one thread, on the same files in the same run.
import Foundation
import PhotoPipeline
import TestSupport

@MainActor
func benchmarkThumbnails(camera: CameraPhotos, rounds requested: Int, report: Report) throws {
    let side = 160
    let rounds = min(requested, 3) // a round is about 15 s on two cores
    report.heading("Thumbnails")
    report.add(
        """
        Each photo turned into the row's \(side)×\(side) square (the size rows are decoded at on a \
        HiDPI screen), per photo, median of \(rounds) rounds. Everything runs on one thread \
        (`MAGICK_THREAD_LIMIT=1`, `VIPS_CONCURRENCY=1`); the app decodes a row on one thread too. \
        Camera photos: \(camera.summary) The bundled photos are the app's own samples (small \
        JPEGs), each read 8 times. The peer tools run as one process per set (vipsthumbnail, \
        ImageMagick's `mogrify`) or one per photo (`gdk-pixbuf-thumbnailer`, which takes one \
        file), so their figures include process start-up spread over the set; each set holds at \
        least 4 photos.
        """)

    var sets: [(label: String, urls: [URL])] = CameraPhotos.kinds.map { kind in
        (kind, camera.of(kind: kind).map(\.url) + camera.of(kind: kind).map(\.url)) // 4 photos a kind
    }
    let bundled = try bundledPhotos()
    sets.append(("bundled (\(bundled.count) × 8)", Array(repeating: bundled, count: 8).flatMap { $0 }))

    let output = try temporaryFolder("thumbnails")
    defer { try? FileManager.default.removeItem(at: output) }
    let fetcher = PhotoFetcher()
    let sepia = SepiaFilter()
    func perPhoto(_ seconds: Double, _ set: [URL]) -> Double { seconds / Double(set.count) }

    let magick = [
        "-path", output.path, "-format", "ppm", "-define", "jpeg:size=\(2 * side)x\(2 * side)", "-auto-orient",
        "-thumbnail", "\(side)x\(side)^", "-gravity", "center", "-extent", "\(side)x\(side)",
    ]
    let vips = ["--size", "\(side)x\(side)", "--smartcrop", "centre", "-o", output.path + "/%s.v"]
    let haveMagick = FileManager.default.isExecutableFile(atPath: "/usr/bin/mogrify")
    let haveVips = FileManager.default.isExecutableFile(atPath: "/usr/bin/vipsthumbnail")
    let haveThumbnailer = FileManager.default.isExecutableFile(atPath: "/usr/bin/gdk-pixbuf-thumbnailer")

    var rows: [String: [Double?]] = [:]
    func add(_ label: String, _ value: Double?) { rows[label, default: []].append(value) }
    var cameraOurs = 0.0, cameraVips = 0.0, cameraInApp = 0.0, cameraHelper = 0.0
    // A helper started before the clock runs, as the app keeps its helpers between photos.
    _ = try thumbnail(sets[0].urls[0], fetcher: fetcher, sepia: nil, inHelper: true)
    for (index, (_, urls)) in sets.enumerated() {
        // Ours: decode (with the EXIF turn and the square crop), then sepia; in the app's own
        // process, and in a decoder helper as the app does it.
        let inApp = try timed(rounds: rounds) {
            _ = try urls.map { try thumbnail($0, fetcher: fetcher, sepia: nil, inHelper: false) }
        }
        var images: [PhotoImage] = []
        let decode = try timed(rounds: rounds) {
            images = try urls.map { try thumbnail($0, fetcher: fetcher, sepia: nil, inHelper: true) }
        }
        let filter = timed(rounds: rounds) { for image in images { _ = sepia.apply(to: image) } }
        // (Some bundled photos are smaller than the square, and are never enlarged.)
        if index < CameraPhotos.kinds.count, let odd = images.first(where: { $0.width != side || $0.height != side }) {
            throw BenchError("a thumbnail is \(odd.width)×\(odd.height), not \(side)×\(side)")
        }
        add("classic-photos: decode + crop, in the app's process", perPhoto(inApp, urls))
        add("classic-photos: decode + crop, in a decoder helper", perPhoto(decode, urls))
        add("classic-photos: decode + crop + sepia (helper)", perPhoto(decode + filter, urls))
        let paths = urls.map(\.path)
        var vipsTime: Double?
        if haveVips, tool("/usr/bin/vipsthumbnail", vips + paths) {
            vipsTime = perPhoto(timed(rounds: rounds) { tool("/usr/bin/vipsthumbnail", vips + paths) }, urls)
        }
        add("vipsthumbnail `--smartcrop centre` (no sepia)", vipsTime)
        if haveMagick, tool("/usr/bin/mogrify", magick + paths) {
            add(
                "ImageMagick `mogrify -thumbnail … -extent`",
                perPhoto(timed(rounds: rounds) { tool("/usr/bin/mogrify", magick + paths) }, urls))
            add(
                "ImageMagick, + `-sepia-tone 80%`",
                perPhoto(
                    timed(rounds: rounds) { tool("/usr/bin/mogrify", magick + ["-sepia-tone", "80%"] + paths) }, urls))
        } else {
            add("ImageMagick `mogrify -thumbnail … -extent`", nil)
            add("ImageMagick, + `-sepia-tone 80%`", nil)
        }
        if haveThumbnailer {
            let target = output.appendingPathComponent("thumbnail.png").path
            let time = timed(rounds: rounds) {
                for path in paths { tool("/usr/bin/gdk-pixbuf-thumbnailer", ["-s", "\(side)", path, target]) }
            }
            add("`gdk-pixbuf-thumbnailer -s \(side)` (fits, no crop; no sepia)", perPhoto(time, urls))
        } else {
            add("`gdk-pixbuf-thumbnailer -s \(side)` (fits, no crop; no sepia)", nil)
        }
        if index < CameraPhotos.kinds.count {
            cameraOurs += perPhoto(decode + filter, urls)
            cameraInApp += perPhoto(inApp, urls)
            cameraHelper += perPhoto(decode, urls)
            cameraVips += vipsTime ?? .nan
        }
    }
    let order = [
        "classic-photos: decode + crop, in the app's process", "classic-photos: decode + crop, in a decoder helper",
        "classic-photos: decode + crop + sepia (helper)",
        "vipsthumbnail `--smartcrop centre` (no sepia)", "ImageMagick `mogrify -thumbnail … -extent`",
        "ImageMagick, + `-sepia-tone 80%`", "`gdk-pixbuf-thumbnailer -s \(side)` (fits, no crop; no sepia)",
    ]
    report.table(
        ["ms per photo"] + sets.map(\.label),
        order.map { label in
            [label] + (rows[label] ?? []).map { $0.map { format($0 * 1000, 1) } ?? "not installed" }
        })
    let helperRatio = cameraHelper / cameraInApp
    report.add(
        "\(DecoderPool.shared.confinementDescription) Over the four kinds of camera photo, one of each, decoding in a "
            + "helper took \(ms(cameraHelper, 1)) against \(ms(cameraInApp, 1)) in the app's own process.")
    report.target(
        "camera-photo thumbnails decoded in a decoder helper vs in the app's process", target: "≤ 1.1× time",
        measured: format(helperRatio, 2) + "×", met: helperRatio <= 1.1)
    if cameraVips.isFinite, cameraVips > 0 {
        let ratio = cameraOurs / cameraVips
        report.add(
            "Over the four kinds of camera photo, one of each: classic-photos (decode, crop and sepia) "
                + "\(ms(cameraOurs, 1)), vipsthumbnail (decode and crop) \(ms(cameraVips, 1)).")
        report.target(
            "camera-photo thumbnails, photos without an embedded thumbnail, vs vipsthumbnail", target: "≤ 1.0× time",
            measured: format(ratio, 2) + "×", met: ratio <= 1.0)
    } else {
        report.target(
            "camera-photo thumbnails, photos without an embedded thumbnail, vs vipsthumbnail", target: "≤ 1.0× time",
            measured: "vipsthumbnail missing", met: nil)
    }
}
