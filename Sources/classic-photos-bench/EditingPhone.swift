// The editor's saving of what phones and cameras write beside JPEGs: a phone's 12-megapixel
// HEIC turned a quarter (by its container's turn, not encoded again) and mirrored (decoded in a
// decoder helper, encoded again by libheif's x265), against ImageMagick doing the same through
// the same libheif (which encodes both again); and a camera's
// 24-megapixel RAW file (a DNG whose preview is at the sensor's size) cropped and saved as a
// JPEG copy, against jpegtran cropping that preview once it has been taken out.
import Foundation
import PhotoPipeline
import TestSupport

@MainActor
func benchmarkPhoneEditing(rounds: Int, report: Report) throws {
    let folder = try temporaryFolder("edit-phone")
    defer { try? FileManager.default.removeItem(at: folder) }
    report.heading("Editing: a phone's HEIC, a camera's RAW")
    let source = folder.appendingPathComponent("phone.jpg")
    try cameraJPEG(width: 4032, height: 3024, seed: 53, at: source)
    let phone = folder.appendingPathComponent("IMG_0001.HEIC")
    guard tool("/usr/bin/heif-enc", ["-q", "50", "-t", "320", "-o", phone.path, source.path]) else {
        throw BenchError("heif-enc could not make the HEIC")
    }
    let heicSize = try Data(contentsOf: phone).count
    var copySizes: [Int] = [0, 0]
    var failed: String?
    var lossless: [Bool] = [false, false]
    let edits = [PhotoEdit(turn: PictureTurn(quarterTurns: 1)), PhotoEdit(turn: PictureTurn(mirrored: true))]
    let savings = edits.enumerated().map { n, edit in
        timed(rounds: rounds) {
            switch EditSaving.save(phone.path, edit: edit, mode: .copy) {
            case .success(let saved):
                copySizes[n] = (try? Data(contentsOf: URL(fileURLWithPath: saved.path)).count) ?? 0
                lossless[n] = saved.lossless
                try? FileManager.default.removeItem(atPath: saved.path)
            case .failure(let failure): failed = failure.message
            }
        }
    }
    if let failed { throw BenchError("the editor could not save the HEIC: \(failed)") }
    let magick = folder.appendingPathComponent("magick.heic")
    var ok = true
    let peers = [["-rotate", "90"], ["-flop"]].map { operation in
        timed(rounds: rounds) {
            ok = ok && tool("/usr/bin/convert", [phone.path] + operation + ["-quality", "70", magick.path])
        }
    }

    // The camera's preview at the sensor's size, in a DNG.
    let previewFile = folder.appendingPathComponent("preview.jpg")
    try cameraJPEG(width: 6000, height: 4000, seed: 54, at: previewFile)
    let preview = try Data(contentsOf: previewFile)
    let raw = folder.appendingPathComponent("IMG_0002.DNG")
    try CameraFiles.dng(
        preview: preview, previewWidth: 6000, previewHeight: 4000, width: 6000, height: 4000, orientation: 1,
        dateTime: "2024:06:01 12:00:00"
    ).write(to: raw)
    let rawSize = try Data(contentsOf: raw).count
    let crop = PhotoEdit(crop: PixelRect(x: 1001, y: 667, width: 4000, height: 2667))
    let rawSaving = timed(rounds: rounds) {
        switch EditSaving.save(raw.path, edit: crop, mode: .copy) {
        case .success(let saved): try? FileManager.default.removeItem(atPath: saved.path)
        case .failure(let failure): failed = failure.message
        }
    }
    if let failed { throw BenchError("the editor could not save the RAW file's copy: \(failed)") }
    let cropped = folder.appendingPathComponent("jpegtran.jpg")
    let jpegtran = timed(rounds: rounds) {
        ok =
            ok
            && tool(
                "/usr/bin/jpegtran",
                ["-copy", "all", "-crop", "4000x2667+1001+667", "-outfile", cropped.path, previewFile.path])
    }
    report.add(
        "A generated 4032×3024 photo made a HEIC by `heif-enc -q 50` as phones write them "
            + "(\(format(Double(heicSize) / 1_048_576)) MB, with a thumbnail). *Save as Copy* of a quarter turn gives "
            + "the picture and its thumbnail the container's turn (`irot`) and touches no pixel (\(lossless[0] ? "lossless" : "NOT lossless in this run")); "
            + "a mirror, which HEIF readers do not agree on, decodes it in a decoder helper and encodes it again with x265 "
            + "(libheif's quality 70, preset medium); both keep its EXIF and flush the file. ImageMagick encodes both "
            + "again through the same libheif (`-quality 70`, x265's slower default preset). The copies came to "
            + "\(format(Double(copySizes[0]) / 1_048_576)) MB (turned) and \(format(Double(copySizes[1]) / 1_048_576)) MB "
            + "(mirrored). The RAW file is a 6000×4000 DNG "
            + "(\(format(Double(rawSize) / 1_048_576)) MB) whose preview is at the sensor's size, as most cameras "
            + "write it: its copy is the preview cropped without decoding (the file handed to a decoder helper, which maps "
            + "it: LibRaw takes the preview out, TurboJPEG crops, Exiv2 gives it the RAW file's metadata); `jpegtran` is timed on the preview already "
            + "taken out. Median of \(rounds) rounds.")
    report.table(
        ["photo", "classic-photos: Save as Copy", "peer", "ratio"],
        [
            [
                "12 MP HEIC, quarter turn", ms(savings[0]), ok ? "ImageMagick \(ms(peers[0]))" : "not measured",
                format(savings[0] / peers[0], 3) + "×",
            ],
            [
                "12 MP HEIC, mirrored", ms(savings[1]), ok ? "ImageMagick \(ms(peers[1]))" : "not measured",
                format(savings[1] / peers[1], 2) + "×",
            ],
            [
                "24 MP DNG, crop to a JPEG", ms(rawSaving), "jpegtran (preview alone) \(ms(jpegtran))",
                format(rawSaving / jpegtran, 2) + "×",
            ],
        ])
}

/// A generated camera JPEG (`CameraPhotos.picture`, written as a camera writes it) at `url`.
func cameraJPEG(width: Int, height: Int, seed: Int, at url: URL) throws {
    let made = try run(
        URL(fileURLWithPath: "/usr/bin/convert"),
        CameraPhotos.picture(width: width, height: height, seed: seed) + CameraPhotos.cameraJPEG + [url.path],
        timeout: 300)
    guard made.status == 0 else { throw BenchError("ImageMagick could not make the photo: \(made.stderr.prefix(300))") }
}
