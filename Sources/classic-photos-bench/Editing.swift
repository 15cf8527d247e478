// The editor's saving on a 24-megapixel camera JPEG: a crop and a quarter turn, done without
// decoding (TurboJPEG's lossless transforms in a decoder helper) and saved as a copy, against
// jpegtran making the same transforms of the same file; and a straightening of 3°, decoded,
// turned and encoded again, against vips and ImageMagick making the same.
import Foundation
import PhotoPipeline
import TestSupport

@MainActor
func benchmarkEditing(rounds: Int, report: Report) throws {
    let folder = try temporaryFolder("edit")
    defer { try? FileManager.default.removeItem(at: folder) }
    let photo = folder.appendingPathComponent("camera-24mp.jpg")
    try cameraJPEG(width: 6000, height: 4000, seed: 52, at: photo)
    let bytes = try Data(contentsOf: photo)
    // A crop whose corner is not on the block grid (the editor moves it there, as jpegtran does).
    let crop = PixelRect(x: 1001, y: 667, width: 4000, height: 2667)
    let cases: [(name: String, edit: PhotoEdit, jpegtran: [String])] = [
        ("crop to 4000×2667", PhotoEdit(crop: crop), ["-crop", "4000x2667+1001+667"]),
        ("quarter turn clockwise", PhotoEdit(turn: PictureTurn(quarterTurns: 1)), ["-rotate", "90", "-trim"]),
    ]
    report.heading("Editing: lossless crop and turn")
    report.add(
        "One generated 6000×4000 camera JPEG (\(format(Double(bytes.count) / 1_048_576)) MB, quality 92, 4:2:0); "
            + "median of \(rounds) rounds each. *Save as Copy* is what the editor does: the file read, transformed "
            + "in a decoder helper, written to a temporary file beside it, flushed to the disk (`fsync`) and renamed. "
            + "`jpegtran -copy all` makes the same transform (its process started each time, its output not flushed).")
    var rows: [[String]] = []
    var cropRatio = 0.0
    for (n, item) in cases.enumerated() {
        let source = folder.appendingPathComponent("edit-\(n).jpg")
        try bytes.write(to: source)
        var failed: String?
        let saving = timed(rounds: rounds) {
            switch EditSaving.save(source.path, edit: item.edit, mode: .copy) {
            case .success(let saved): try? FileManager.default.removeItem(atPath: saved.path)
            case .failure(let failure): failed = failure.message
            }
        }
        if let failed { throw BenchError("the editor could not save: \(failed)") }
        let transform = timed(rounds: rounds) { _ = try? Decoding.editedJPEG(bytes, edit: item.edit) }
        let output = folder.appendingPathComponent("jpegtran-\(n).jpg")
        var ok = true
        let peer = timed(rounds: rounds) {
            ok =
                ok
                && tool(
                    "/usr/bin/jpegtran", ["-copy", "all"] + item.jpegtran + ["-outfile", output.path, source.path])
        }
        if n == 0 { cropRatio = saving / peer }
        rows.append([
            item.name, ms(saving), ms(transform), ok ? ms(peer) : "not measured", format(saving / peer, 2) + "×",
        ])
    }
    report.table(
        [
            "24 MP JPEG", "classic-photos: Save as Copy", "classic-photos: the transform alone", "jpegtran",
            "Save as Copy ÷ jpegtran",
        ],
        rows)
    report.target(
        "lossless crop of a 24 MP JPEG: save", target: "≤ 1.2 × `jpegtran -crop`",
        measured: format(cropRatio, 2) + " ×", met: cropRatio <= 1.2)
    try benchmarkStraightening(bytes, in: folder, rounds: rounds, report: report)
    try benchmarkStraightenFrames(bytes, rounds: rounds, report: report)
}

/// Straightening 3°: Save as Copy against `vips similarity` to a JPEG, and ImageMagick's
/// `-distort SRT` and `-crop` (one thread each, as the editor's helper has).
@MainActor
private func benchmarkStraightening(_ bytes: Data, in folder: URL, rounds: Int, report: Report) throws {
    let source = folder.appendingPathComponent("straighten.jpg")
    try bytes.write(to: source)
    let edit = PhotoEdit(straighten: 3)
    let kept = StraightenedJPEG.inscribed(width: 6000, height: 4000, degrees: 3)
    let quality = StraightenedJPEG.quality(of: bytes) ?? 92
    var failed: String?
    let saving = timed(rounds: rounds) {
        switch EditSaving.save(source.path, edit: edit, mode: .copy) {
        case .success(let saved): try? FileManager.default.removeItem(atPath: saved.path)
        case .failure(let failure): failed = failure.message
        }
    }
    if let failed { throw BenchError("the editor could not straighten: \(failed)") }
    // vips in one step, left uncut (its command line cannot chain a crop without writing the
    // whole turned picture to a file between two commands, which took longer still).
    let vipsOutput = folder.appendingPathComponent("vips.jpg")
    var vipsDone = true
    let vips = timed(rounds: rounds) {
        vipsDone =
            vipsDone
            && tool("/usr/bin/vips", ["similarity", source.path, vipsOutput.path + "[Q=\(quality)]", "--angle", "3"])
    }
    let magickOutput = folder.appendingPathComponent("magick.jpg")
    var magickDone = true
    let magick = timed(rounds: 1) {
        magickDone =
            tool(
                "/usr/bin/convert",
                [
                    source.path, "-virtual-pixel", "edge", "-interpolate", "bilinear", "-filter", "point", "-distort",
                    "SRT", "3", "+repage", "-crop", "\(kept.width)x\(kept.height)+\(kept.x)+\(kept.y)", "+repage",
                    "-quality", "\(quality)", magickOutput.path,
                ])
    }
    let ratio = saving / vips
    report.table(
        [
            "24 MP JPEG, straightened 3° (kept \(kept.width)×\(kept.height), quality \(quality))",
            "classic-photos: Save as Copy", "vips similarity (one step, uncut)", "ImageMagick -distort (1 round)",
            "Save as Copy ÷ vips",
        ],
        [
            [
                "straighten 3°", ms(saving), vipsDone ? ms(vips) : "not measured",
                magickDone ? ms(magick) : "not measured", format(ratio, 2) + "×",
            ]
        ])
    report.target(
        "straighten 3° of a 24 MP JPEG: save", target: "≤ 1.0 × `vips rotate` + `vips jpegsave`",
        measured: format(ratio, 2) + " ×", met: vipsDone && ratio <= 1.0)
}
