// Culling in the viewer: paging through a folder of camera photos one Right a second, and with
// Right held down (the X server repeats it, 25 keys a second) over about 100 of them: which photos went past with nothing shown,
// how soon the photo where the keys stop is sharp, and the main loop's longest stall; beside
// a plain decode of the same photos at the same size, the floor of a decode's cost.
import Foundation
import GLibKit
import PhotoPipeline
import TestSupport

/// What one round of culling showed.
private struct CullingRun {
    /// Key → sharp screen-size picture, per photo paged to at a person's pace.
    var paced: [Double] = []
    /// Photos passed while the key was held, and those of them the viewer showed nothing of.
    var passed = 0
    var blank = 0
    /// Of those shown, how many showed their embedded preview first, and how many were sharp.
    var previews = 0
    var sharpWhileHeld = 0
    /// Keys a second while held.
    var rate = 0.0
    /// Where the keys stopped: the last key → sharp, and whether that photo is progressive.
    var stop = 0.0
    var stopProgressive = false
    var stopName = ""
    var stall = 0.0
    /// The viewer's decoded size (the longest side) of the photos paged to.
    var side = 0
}

/// Pages through `camera` in the app on `display`: opens the first photo, 10 Rights a second
/// apart, then Right held down for `seconds`.
private func cullingRound(_ camera: CameraFolder, seconds: Double, display: XvfbDisplay) throws -> CullingRun {
    let cache = try temporaryFolder("culling-cache")
    defer { try? FileManager.default.removeItem(at: cache) }
    let (app, _) = try launchToFirstScreen(
        arguments: [camera.folder.path], environment: ["XDG_CACHE_HOME": cache.path], display: display)
    defer { _ = app.terminate() }
    var run = CullingRun()
    try app.clickRow(0)
    _ = try app.waitFor("the first photo sharp", timeout: 60) { $0.contains { $0.event.name == .viewerSharp } }
    usleep(1_000_000)
    for _ in 0..<10 {
        let mark = app.events().count
        try app.xdotool(["key", "Right"])
        let events = try app.waitFor("the photo sharp", timeout: 60) {
            $0.dropFirst(mark).contains { $0.event.name == .viewerSharp }
        }
        if let sharp = events.dropFirst(mark).first(where: { $0.event.name == .viewerSharp })?.event.ms {
            run.paced.append(sharp)
        }
        run.side = max(
            run.side,
            events.dropFirst(mark).compactMap { $0.event.viewerState == .filtered ? $0.event.imageSize : nil }
                .map { max($0.w, $0.h) }.max() ?? 0)
        usleep(1_000_000)
    }

    let mark = app.events().count
    // Held down: the X server repeats it (after 660 ms, 25 a second by default) until it is let go.
    try app.xdotool(["keydown", "Right", "sleep", format(seconds, 2), "keyup", "Right"])
    let events = try app.waitFor("the last photo sharp", timeout: 60) { events in
        guard let last = events.dropFirst(mark).last(where: { $0.event.name == .viewerOpen })?.event.viewerPhoto
        else { return false }
        return events.dropFirst(mark).contains { $0.event.name == .viewerSharp && $0.event.viewerPhoto == last }
    }
    let after = Array(events.dropFirst(mark))
    // Each photo moved to, and whether anything of it was shown before the next move.
    var current: PhotoID?
    var shown = false
    var sawPreview = false, sawSharp = false
    func leave() {
        guard current != nil else { return }
        run.passed += 1
        if !shown { run.blank += 1 }
        if sawPreview { run.previews += 1 }
        if sawSharp { run.sharpWhileHeld += 1 }
    }
    let lastOpen = after.lastIndex { $0.event.name == .viewerOpen } ?? after.count
    let opens = after.filter { $0.event.name == .viewerOpen }.map(\.t)
    if let first = opens.dropFirst().first, let last = opens.last, opens.count > 2 {
        // From the first repeat: the first key is followed by the repeat delay.
        run.rate = Double(opens.count - 2) / (last - first)
    }
    for (n, record) in after.enumerated() where n < lastOpen || record.event.name != .viewerOpen {
        switch record.event {
        case .viewerOpen(_, let id, _):
            leave()
            (current, shown, sawPreview, sawSharp) = (id, false, false, false)
        case .viewerImage(_, let id, _, _, let state, _, _) where id == current && state != .failed:
            shown = true
            if state == .preview { sawPreview = true } else { sawSharp = true }
        case .mainloopStall(let ms) where n < lastOpen:
            run.stall = max(run.stall, ms)
        case .viewerSharp(let id, let ms) where n > lastOpen && id == after[lastOpen].event.viewerPhoto:
            run.stop = ms
            let name = after[lastOpen].event.photoName ?? ""
            run.stopName = name
            run.stopProgressive = camera.photos.first { $0.url.lastPathComponent == name }?.progressive ?? false
        default: break
        }
    }
    return run
}

@MainActor
func benchmarkCulling(_ camera: CameraFolder, rounds: Int, report: Report) throws {
    let display = try XvfbDisplay(width: 1280, height: 900)
    // About 100 photos at 25 a second after the 660 ms delay; a little longer every other round,
    // so that the keys stop on photos of both kinds.
    let seconds = 0.66 + Double(min(100, camera.photos.count - 16)) / 25
    var runs: [CullingRun] = []
    for round in 0..<rounds {
        let run = try cullingRound(camera, seconds: seconds + 0.12 * Double(round % 2), display: display)
        runs.append(run)
        say(
            "(culling: round \(round + 1): paced \(format(median(run.paced), 0)) ms, held \(run.blank) of "
                + "\(run.passed) blank, stop \(format(run.stop, 0)) ms on \(run.stopName)\(run.stopProgressive ? " (progressive)" : ""), stall \(format(run.stall, 0)) ms)"
        )
    }
    // The floor: the same photos decoded at the viewer's size in a decoder helper, one at a time.
    let side = runs.map(\.side).max() ?? 1200
    var plain: [String: [Double]] = ["baseline": [], "progressive": []]
    for photo in camera.photos.prefix(8) {
        let bytes = try Data(contentsOf: photo.url)
        let start = LoopbackServer.now()
        _ = try Decoding.picture(.bytes(bytes), size: .fit(side), cancellable: Cancellable())
        plain[photo.progressive ? "progressive" : "baseline", default: []].append(LoopbackServer.now() - start)
    }
    func m(_ value: (CullingRun) -> Double) -> Double { median(runs.map(value)) }
    let paced = m { median($0.paced) }, stall = m(\.stall)
    let held = Int(m { Double($0.passed) })
    let stop = median(runs.map(\.stop))
    func stops(progressive: Bool) -> String {
        let kind = runs.filter { $0.stopProgressive == progressive }.map(\.stop)
        return kind.isEmpty ? "" : format(median(kind), 0) + " ms"
    }
    let blank = Int(m { Double($0.blank) }), passed = Int(m { Double($0.passed) })
    report.heading("Culling in the viewer")
    report.add(
        """
        The camera folder above (12-megapixel JPEGs, half of them progressive, each with its \
        160×120 EXIF thumbnail) in the app's list at its default size on a 1280 × 900 Xvfb \
        display; the first photo clicked open in the viewer (decoded at \(side) pixels on its \
        longest side, the viewer's size). Then Right once a second, ten times: from each key \
        to the photo sharp at that size (`viewer.sharp`). Then Right held down for \
        \(format(seconds, 1)) s (xdotool `keydown`, `keyup`; the X server repeats it, here \
        \(format(m(\.rate), 0)) keys a second, and the app sees a held key, presses without \
        releases): each photo moved to (`viewer.open`) counts \
        as shown if the viewer showed any picture of it (`viewer.image`: its EXIF thumbnail \
        enlarged, or the photo) before the next key moved on; where the keys stop, the key to \
        the photo sharp (the keys are held a little longer every other round, to stop on \
        photos of both kinds: the row gives each); and the main loop's longest stall while the keys came (the app's \
        watchdog traces stalls over 16 ms). A fresh cache folder each round. Beside it, the \
        floor: the same photos decoded at the same size in a decoder helper, one at a time, \
        nothing else running (the first 8 photos; the median per kind). Median of \(rounds) rounds.
        """)
    let floor = (median(plain["baseline"] ?? []), median(plain["progressive"] ?? []))
    report.table(
        ["", "classic-photos"],
        [
            ["one Right a second: key → sharp (median)", format(paced, 1) + " ms"],
            ["Right held: photos passed with no picture shown", "\(blank) of \(passed)"],
            [
                "… shown by their EXIF thumbnail first; shown sharp before the next key",
                format(m { Double($0.previews) }, 0) + "; " + format(m { Double($0.sharpWhileHeld) }, 0),
            ],
            [
                "… where the keys stop: key → sharp (all rounds; on a baseline photo; on a progressive one)",
                format(stop, 0) + " ms; " + stops(progressive: false) + "; " + stops(progressive: true),
            ],
            ["… longest main-loop stall while held", stall == 0 ? "none over 16 ms" : format(stall, 0) + " ms"],
            [
                "the floor: one photo decoded at \(side) px alone (baseline; progressive)",
                ms(floor.0, 1) + "; " + ms(floor.1, 1),
            ],
        ])
    report.target(
        "viewer, one Right a second: key → sharp (median)", target: "≤ 50 ms", measured: format(paced, 1) + " ms",
        met: paced <= 50)
    report.target(
        "Right held over \(held) camera photos: passed with no picture", target: "0", measured: "\(blank)",
        met: blank == 0)
    report.target(
        "Right held: where it stops → sharp; longest stall", target: "≤ 300 ms; < 50 ms",
        measured: format(stop, 0) + " ms; " + format(stall, 0) + " ms", met: stop <= 300 && stall < 50)
}
