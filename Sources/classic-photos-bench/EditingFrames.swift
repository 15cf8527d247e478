// The editor's straightening slider dragged across a 24-megapixel photo, against the same photo
// panned in the viewer (one zoom step in) by the same drag: the intervals between painted
// frames while the pointer moves. The editor redraws from a picture the size it is shown,
// turned as it is drawn, so the full resolution costs nothing until it is saved.
import Foundation
import GLibKit
import PhotoPipeline
import TestSupport

/// One drag: the pointer held down at (`x`, `y`) and moved `steps` times by `dx`, one move a
/// frame (16 ms) apart, turning back every `leg` moves (0: never); returns the frame
/// intervals painted meanwhile.
private func drag(_ app: AppSession, x: Int, y: Int, dx: Int, steps: Int, leg: Int = 0) throws -> [Double] {
    // Pressed (before a tooltip shows, 500 ms) and moved past GTK's drag threshold (8 px),
    // under which nothing moves and nothing is painted.
    try app.xdotool([
        "mousemove", "\(x)", "\(y)", "mousedown", "1", "mousemove_relative", "--", "\(9 * dx.signum())", "0",
    ])
    usleep(300_000) // the trace flushed
    let mark = app.events().count
    let moves = (0..<steps).flatMap { step in
        let back = leg > 0 && (step / leg) % 2 == 1
        return ["mousemove_relative", "--", "\(back ? -dx : dx)", "0", "sleep", "0.016"]
    }
    let start = LoopbackServer.now()
    try app.xdotool(moves + ["mouseup", "1"])
    let seconds = LoopbackServer.now() - start
    usleep(500_000)
    let frames = app.events().dropFirst(mark).filter { $0.event.name == .framePainted }.map(\.t)
    return frameIntervals(frames, seconds: seconds)
}

/// Frame intervals while panning the zoomed photo and while dragging the straightening
/// slider, in one run of the app on `folder` (a single 24 MP photo).
private func straightenRound(_ folder: URL, display: XvfbDisplay) throws -> (pan: [Double], slider: [Double]) {
    let cache = try temporaryFolder("straighten-cache")
    defer { try? FileManager.default.removeItem(at: cache) }
    let (app, _) = try launchToFirstScreen(
        arguments: [folder.path], environment: ["XDG_CACHE_HOME": cache.path, "CLASSIC_PHOTOS_TRACE_FRAMES": "1"],
        display: display)
    defer { _ = app.terminate() }
    try app.clickRow(0)
    _ = try app.waitFor("the photo sharp", timeout: 60) { $0.contains { $0.event.name == .viewerSharp } }
    let window = try app.windowGeometry()
    let (middleX, middleY) = (window.x + window.width / 2, window.y + window.height / 2)
    var mark = app.events().count
    try app.xdotool(["key", "e"])
    _ = try app.waitFor("the editor open") { $0.dropFirst(mark).contains { $0.event.name == .editBegin } }
    usleep(500_000)
    // The slider's knob at 0°: 30 px left of the middle (the bar is centred, Level at its right),
    // 93 px above the window's bottom edge.
    let slider = try drag(app, x: middleX - 30, y: window.y + window.height - 93, dx: 1, steps: 90)
    // Reset (nothing left to lose), and leave the editor.
    try app.xdotool(["key", "--delay", "200", "ctrl+r", "Escape"])
    usleep(500_000)
    // One zoom step in: the photo is larger than the view, and a drag pans it, to and fro
    // within its room.
    mark = app.events().count
    try app.xdotool(["key", "plus"])
    _ = try app.waitFor("zoomed in") { $0.dropFirst(mark).contains { $0.event.name == .viewerZoom } }
    usleep(500_000)
    let pan = try drag(app, x: middleX, y: middleY, dx: 3, steps: 90, leg: 15)
    return (pan, slider)
}

/// Runs `rounds` rounds, adds the table and the target to `report`.
@MainActor
func benchmarkStraightenFrames(_ photo: Data, rounds: Int, report: Report) throws {
    let folder = try temporaryFolder("straighten-frames")
    defer { try? FileManager.default.removeItem(at: folder) }
    try photo.write(to: folder.appendingPathComponent("camera-24mp.jpg"))
    let display = try XvfbDisplay(width: 1280, height: 900)
    // Each interval of every round pooled: one round's p99 is about its longest frame, and a
    // single hitch of Xvfb or xdotool, which either drag can meet, would decide it.
    let count = max(3, rounds / 2)
    var pans: [Double] = [], sliders: [Double] = []
    var panFrames: [Double] = [], sliderFrames: [Double] = []
    for _ in 0..<count {
        let (pan, slider) = try straightenRound(folder, display: display)
        pans += pan
        sliders += slider
        panFrames.append(Double(pan.count))
        sliderFrames.append(Double(slider.count))
    }
    let pan = percentile(pans, 0.99), slider = percentile(sliders, 0.99)
    let measured = median(sliderFrames) >= 20 && median(panFrames) >= 20
    report.add(
        """
        The same photo in the app on Xvfb (1280×900, GTK's cairo renderer): the editor's straightening \
        slider dragged (the photo fitted, as the editor opens on it), then, the editor left, the photo panned \
        in the viewer one zoom step in (to and fro), each by a pointer moved 90 times, 16 ms apart (xdotool); \
        intervals between painted frames (`frame.painted`) while it moves, in \(count) rounds, pooled.
        """)
    report.table(
        ["24 MP JPEG, pointer dragged", "frames a round", "median frame interval", "p99 frame interval"],
        [
            ["viewer: the zoomed photo panned", format(median(panFrames), 0), ms(median(pans), 1), ms(pan, 1)],
            [
                "editor: the straightening slider", format(median(sliderFrames), 0), ms(median(sliders), 1),
                ms(slider, 1),
            ],
        ])
    let ratio = slider / max(pan, 1e-6)
    report.target(
        "p99 frame interval dragging the straighten slider on a 24 MP photo", target: "≤ 1.1 × the same photo panned",
        measured: measured ? format(ratio, 2) + " ×" : "not measured (too few frames)", met: measured && ratio <= 1.1)
}
