// Colour profiles: camera photos carrying a Display P3 and an Adobe RGB profile, turned into
// sRGB as they are decoded, against the same photos without a profile: the row's thumbnail and
// the viewer's full-size decode, in a decoder helper; and how far the pixels are from Little
// CMS's own transform of the whole picture.
import CGdkPixbuf
import CGLib
import CLcms2
import Foundation
import GLibKit
import PhotoPipeline
import TestSupport

/// An RGB profile of D65 white with these primaries (CIE xy) and a gamma of 2.2, as ICC bytes.
private func rgbProfile(red: (Double, Double), green: (Double, Double), blue: (Double, Double)) -> Data {
    ColourDescription.rgbProfile(red: red, green: green, blue: blue, gamma: 2.2) ?? Data()
}

/// The picture's pixels as gdk-pixbuf decodes it (no profile used), turned into sRGB by one
/// Little CMS transform of the whole picture, packed RGB; and the decoded size.
private func referencePixels(_ url: URL, profile: Data) throws -> (pixels: [UInt8], width: Int, height: Int) {
    guard let loaded = gdk_pixbuf_new_from_file(url.path, nil) else { throw BenchError("gdk-pixbuf read no \(url)") }
    let plain = PhotoImage(taking: gdk_pixbuf_apply_embedded_orientation(loaded)!)
    g_object_unref(UnsafeMutableRawPointer(loaded))
    var packed = packedPixels(plain)
    let source = profile.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count))! }
    let srgb = cmsCreate_sRGBProfile()!
    defer {
        cmsCloseProfile(source)
        cmsCloseProfile(srgb)
    }
    let format = cmsUInt32Number(PT_RGB) << 16 | 3 << 3 | 1
    let transform = cmsCreateTransform(source, format, srgb, format, cmsUInt32Number(INTENT_PERCEPTUAL), 0)!
    defer { cmsDeleteTransform(transform) }
    let input = packed
    cmsDoTransform(transform, input, &packed, cmsUInt32Number(packed.count / 3))
    return (packed, plain.width, plain.height)
}

private func packedPixels(_ image: PhotoImage) -> [UInt8] {
    let stride = Int(gdk_pixbuf_get_rowstride(image.pixbuf))
    let channels = Int(gdk_pixbuf_get_n_channels(image.pixbuf))
    let base = gdk_pixbuf_read_pixels(image.pixbuf)!
    var out: [UInt8] = []
    out.reserveCapacity(image.width * image.height * 3)
    for y in 0..<image.height {
        let row = base + y * stride
        for x in 0..<image.width {
            out += [row[x * channels], row[x * channels + 1], row[x * channels + 2]]
        }
    }
    return out
}

@MainActor
func benchmarkColour(camera: CameraPhotos, rounds requested: Int, report: Report) throws {
    let rounds = min(requested, 3)
    let folder = try temporaryFolder("colour")
    defer { try? FileManager.default.removeItem(at: folder) }
    let profiles = [
        ("Display P3", rgbProfile(red: (0.680, 0.320), green: (0.265, 0.690), blue: (0.150, 0.060))),
        ("Adobe RGB", rgbProfile(red: (0.64, 0.33), green: (0.21, 0.71), blue: (0.15, 0.06))),
    ]
    // The 12 MP photos, baseline and progressive, with each profile embedded by exiftool (as
    // a camera writes it: APP2 ICC_PROFILE segments).
    let plain = camera.of(kind: "12 MP baseline") + camera.of(kind: "12 MP progressive")
    var profiled: [String: [URL]] = [:]
    for (name, profile) in profiles {
        let icc = folder.appendingPathComponent("\(name).icc")
        try profile.write(to: icc)
        for photo in plain {
            let copy = folder.appendingPathComponent("\(name)-\(photo.url.lastPathComponent)")
            try FileManager.default.copyItem(at: photo.url, to: copy)
            let tagged = try run(
                URL(fileURLWithPath: CameraFolder.exiftool),
                ["-q", "-overwrite_original", "-icc_profile<=\(icc.path)", copy.path],
                timeout: 60)
            guard tagged.status == 0 else { throw BenchError("exiftool: \(tagged.stderr)") }
            profiled[name, default: []].append(copy)
        }
    }
    let fetcher = PhotoFetcher()
    func decode(_ url: URL, _ size: DecodeSize) throws -> PhotoImage {
        let cancellable = Cancellable()
        return try Decoding.picture(
            .stream(try fetcher.open(url, cancellable: cancellable)), size: size, cancellable: cancellable)
    }
    // A helper started before the clock runs.
    _ = try decode(plain[0].url, .square(160))
    // Each round decodes every photo as it is and with each profile, one after the other, so
    // that a slow spell of the machine weighs on all three alike; per photo, median of rounds.
    let full = DecodeSize.fit(8192)
    let variants = [("no profile", plain.map(\.url))] + profiles.map { ($0.0, profiled[$0.0] ?? []) }
    var perRound: [String: [Double]] = [:]
    for _ in 0..<rounds {
        for size in [DecodeSize.square(160), full] {
            var spent = [Double](repeating: 0, count: variants.count)
            for index in plain.indices {
                for (n, variant) in variants.enumerated() {
                    let start = LoopbackServer.now()
                    _ = try decode(variant.1[index], size)
                    spent[n] += LoopbackServer.now() - start
                }
            }
            for (n, variant) in variants.enumerated() {
                perRound["\(variant.0) \(size == full ? "full" : "square")", default: []].append(
                    spent[n] / Double(plain.count))
            }
        }
    }
    func time(_ name: String, full isFull: Bool) -> Double {
        median(perRound["\(name) \(isFull ? "full" : "square")"] ?? [])
    }
    let plainThumbnail = time("no profile", full: false)
    let plainFull = time("no profile", full: true)
    var rows: [[String]] = [["no profile (sRGB assumed)", ms(plainThumbnail, 1), ms(plainFull), "–"]]
    var thumbnailRatio = 0.0, fullRatio = 0.0, worstDifference = 0.0
    for (name, profile) in profiles {
        let urls = profiled[name] ?? []
        let thumbnail = time(name, full: false)
        let whole = time(name, full: true)
        // Accuracy: one photo at full size against Little CMS's transform of the whole picture.
        let decoded = packedPixels(try decode(urls[0], full))
        let reference = try referencePixels(urls[0], profile: profile)
        let difference =
            decoded.count == reference.pixels.count
            ? Double(zip(decoded, reference.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) })
                / Double(decoded.count)
            : .infinity
        thumbnailRatio = max(thumbnailRatio, thumbnail / plainThumbnail)
        fullRatio = max(fullRatio, whole / plainFull)
        worstDifference = max(worstDifference, difference)
        rows.append([
            name, "\(ms(thumbnail, 1)) (\(format(thumbnail / plainThumbnail, 2)) ×)",
            "\(ms(whole)) (\(format(whole / plainFull, 2)) ×)", format(difference, 2),
        ])
    }

    report.heading("Colour profiles: camera photos in Display P3 and Adobe RGB")
    report.add(
        """
        The 12 MP camera photos of the thumbnails section (\(plain.count): baseline and progressive), \
        as they are and with a Display P3 and an Adobe RGB profile (built by Little CMS, D65, gamma \
        2.2) embedded by exiftool as cameras write them (APP2 `ICC_PROFILE`). Each decoded in a \
        decoder helper, one at a time, as the app does: the row's 160 px square (the colours turned \
        after the loader's scaling) and the viewer's full-size decode (4000 × 3000), per photo, \
        median of \(rounds) rounds, each of which decodes every photo as it is and with each \
        profile in turn. Accuracy: the mean absolute difference per channel between the \
        app's full-size decode of the first photo and gdk-pixbuf's decode of it turned into sRGB by \
        one Little CMS transform of the whole picture (perceptual intent).
        """)
    report.table(["", "thumbnail (160 px square)", "full-size decode", "difference from Little CMS's own"], rows)
    report.target(
        "thumbnails of profiled camera photos, converted vs not", target: "≤ 1.1 × time",
        measured: "\(format(thumbnailRatio, 2)) × (the slower profile)", met: thumbnailRatio <= 1.1)
    report.target(
        "viewer's full-size decode, converted vs not", target: "≤ 1.2 × time",
        measured: "\(format(fullRatio, 2)) × (the slower profile)", met: fullRatio <= 1.2)
    report.target(
        "converted pixels vs Little CMS's transform of the whole picture", target: "mean absolute difference ≤ 3.1",
        measured: format(worstDifference, 2), met: worstDifference <= 3.1)

    try deepHEIF(from: plain[0].url, profile: profiles[0].1, in: folder, rounds: rounds, decode: decode, report: report)
}

/// A phone's kind of photo: the first camera photo as a HEIC of 10 bits in Display P3 (x265,
/// quality 90, the profile carried from a 16-bit PNG by heif-enc), shown whole, which the app
/// decodes at its 10 bits and turns from 16; against the same HEIC written with 8 bits, which
/// takes gdk-pixbuf's loader and is turned from its 8 bits. And the row's square of each.
@MainActor
private func deepHEIF(
    from photo: URL, profile: Data, in folder: URL, rounds: Int,
    decode: (URL, DecodeSize) throws -> PhotoImage, report: Report
) throws {
    let icc = folder.appendingPathComponent("heif-p3.icc")
    try profile.write(to: icc)
    // heif-enc writes 8 bits from an 8-bit PNG (asked for 8 bits from a 16-bit one, it crashes).
    var files: [(bits: Int, url: URL)] = []
    for bits in [8, 10] {
        let png = folder.appendingPathComponent("deep-\(bits).png")
        let written = try run(
            URL(fileURLWithPath: "/usr/bin/convert"),
            [
                photo.path, "-auto-orient", "-depth", bits == 8 ? "8" : "16", "-profile", icc.path,
                "\(bits == 8 ? "PNG24" : "PNG48"):\(png.path)",
            ], timeout: 300)
        guard written.status == 0 else { throw BenchError("convert: \(written.stderr)") }
        let heic = folder.appendingPathComponent("p3-\(bits).heic")
        let made = try run(
            URL(fileURLWithPath: "/usr/bin/heif-enc"),
            ["-q", "90"] + (bits == 8 ? [] : ["-b", "\(bits)"]) + [png.path, "-o", heic.path], timeout: 600)
        guard made.status == 0 else { throw BenchError("heif-enc: \(made.stderr) \(made.stdout)") }
        try? FileManager.default.removeItem(at: png)
        files.append((bits, heic))
    }
    var rows: [[String]] = []
    var times: [Int: (square: Double, whole: Double)] = [:]
    for (bits, url) in files {
        let image = try decode(url, .fit(8192))
        guard ColorProfile.name(of: image) != nil else { throw BenchError("the \(bits)-bit HEIC was not turned") }
        let square = try timed(rounds: rounds) { _ = try decode(url, .square(160)) }
        let full = try timed(rounds: rounds) { _ = try decode(url, .fit(8192)) }
        times[bits] = (square, full)
        rows.append(["\(bits) bits", "\(image.width) × \(image.height)", ms(square, 1), ms(full)])
    }
    if let eight = times[8], let ten = times[10] {
        rows.append([
            "10 against 8 bits", "", "\(format(ten.square / eight.square, 2)) ×",
            "\(format(ten.whole / eight.whole, 2)) ×",
        ])
    }
    report.add(
        """
        A phone's HEIC: the first of those photos written by heif-enc (x265, quality 90) with the \
        Display P3 profile, once with 8 bits and once with 10. Shown whole, the 10-bit one is \
        decoded by libheif at its depth in the helper and turned from 16 bits; the 8-bit one goes \
        through gdk-pixbuf's loader and is turned from its 8 bits. The row's square of either is \
        made from 8 bits (scaled, then turned). Median of \(rounds) rounds.
        """)
    report.table(["HEIC in Display P3", "size", "thumbnail (160 px square)", "full-size decode"], rows)
}
