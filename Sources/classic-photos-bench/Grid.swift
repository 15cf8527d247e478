// The app's grid of photos at 1200 × 850: the camera folder cold beside gThumb's browser, End
// to the last screen, wheel-scrolling 10,000 cells beside a plain GtkGridView, memory with
// 100,000 cells scrolled end to end, and the main loop while the grid fills and zooms.
import Foundation
import PhotoPipeline
import TestSupport

/// Settings of their own for a run of the app in its grid (a GSettings keyfile with the app's
/// schema compiled beside it), at 1200 × 850, and the environment that points the app at them.
func gridSettings(in folder: URL) throws -> [String: String] {
    let compiled = try run(
        URL(fileURLWithPath: "/usr/bin/glib-compile-schemas"),
        ["--strict", "--targetdir=\(folder.path)", Products.packageRoot.appendingPathComponent("data").path])
    guard compiled.status == 0 else { throw BenchError("glib-compile-schemas: \(compiled.stderr)") }
    let settings = folder.appendingPathComponent("glib-2.0/settings", isDirectory: true)
    try FileManager.default.createDirectory(at: settings, withIntermediateDirectories: true)
    let keyfile = """
        [io/github/classicphotos/ClassicPhotos]
        view-mode='grid'
        window-width=1200
        window-height=850

        """
    try Data(keyfile.utf8).write(to: settings.appendingPathComponent("keyfile"))
    return ["GSETTINGS_SCHEMA_DIR": folder.path, "GSETTINGS_BACKEND": "keyfile", "XDG_CONFIG_HOME": folder.path]
}

/// Every cell of the visible range the last `scroll.end` after `mark` gave done (sepia or
/// failed), and when; nil until then.
func screenDone(_ events: [TraceRecord], after mark: Int) -> (t: Double, cells: ClosedRange<Int>)? {
    let later = events.dropFirst(mark)
    guard let end = later.last(where: { $0.event.name == .scrollEnd }), let visible = end.event.visibleRows else {
        return nil
    }
    var done = Set<Int>()
    for record in events {
        guard case .rowState(let row, _, let state) = record.event, visible.contains(row) else { continue }
        if state == .filtered || state == .failed { done.insert(row) } else { done.remove(row) }
        if done.count == visible.count, record.t >= end.t { return (record.t, visible) }
    }
    return done.count == visible.count ? (end.t, visible) : nil
}

struct GridRun {
    var launch = 0.0
    /// Launch until every cell of the first screen showed a picture (the photo's own small
    /// thumbnail, before its decode replaced it), on the trace's clock.
    var pictures = 0.0
    var cells = 0
    var columns = 0
    var end = 0.0
    var endCells = 0
}

/// The app on the camera folder in its grid, cold: launch to the first screen done, then End to
/// the last screen done.
func runGrid(_ folder: CameraFolder, settings: [String: String], display: XvfbDisplay) throws -> GridRun {
    let cache = try temporaryFolder("grid-cache")
    defer { try? FileManager.default.removeItem(at: cache) }
    var run = GridRun()
    let (app, screen) = try launchToFirstScreen(
        folder.folder.path, environment: settings.merging(["XDG_CACHE_HOME": cache.path]) { $1 }, display: display)
    defer { _ = app.terminate() }
    run.launch = screen.t
    run.cells = screen.rows.count
    var shown = Set<Int>()
    for record in app.events() {
        guard case .rowState(let row, _, let state) = record.event, screen.rows.contains(row), state != .new
        else { continue }
        shown.insert(row)
        if shown.count == screen.rows.count {
            run.pictures = record.t
            break
        }
    }
    run.columns =
        app.events().compactMap { record -> Int? in
            if case .viewMode("grid", let columns, _) = record.event { columns } else { nil }
        }.last ?? 0
    usleep(300_000)
    let mark = app.events().count
    // The grid has the keyboard once its first cells are in.
    try app.xdotool(["key", "End"])
    let pressed = LoopbackServer.now()
    var done: (t: Double, cells: ClosedRange<Int>)?
    try app.waitFor("the last screen done", timeout: 60) { events in
        done = screenDone(events, after: mark)
        return done != nil
    }
    let began = app.events().dropFirst(mark).first { $0.event.name == .scrollBegin }?.t
    // From the key (the scroll's first trace event, or the moment xdotool returned).
    run.end = done!.t - (began ?? (done!.t - (LoopbackServer.now() - pressed)))
    run.endCells = done!.cells.count
    return run
}

/// Wheel-scrolling a list of cells in the app's grid, or in the plain grid: the frame intervals.
func scrollGrid(list: URL, plain: Bool, settings: [String: String], display: XvfbDisplay) throws -> [Double] {
    let app: AppSession
    if plain {
        app = try AppSession(
            executable: Products.executable("classic-photos-bench"), arguments: [PlainGrid.flag, list.path],
            display: display)
        try app.waitFor(event: .windowShown, timeout: 120)
        usleep(1_500_000)
    } else {
        (app, _) = try launchToFirstScreen(
            list.path, environment: settings.merging(["CLASSIC_PHOTOS_TRACE_FRAMES": "1"]) { $1 }, display: display)
        usleep(500_000)
    }
    defer { _ = app.terminate() }
    let (mark, seconds) = try turnWheel(app)
    usleep(1_000_000)
    let events = Array(app.events().dropFirst(mark))
    let began = plain ? 0 : events.first { $0.event.name == .scrollBegin }?.t ?? 0
    return frameIntervals(events.filter { $0.event.name == .framePainted && $0.t >= began }.map(\.t), seconds: seconds)
}

struct BigGridRun {
    var peak = 0.0
    var fillStall = 0.0
    var zoomStall = 0.0
}

/// 100,000 cells in the grid: filled, scrolled to the end and back, zoomed in and out.
func runBigGrid(list: URL, settings: [String: String], display: XvfbDisplay) throws -> BigGridRun {
    var run = BigGridRun()
    let (app, _) = try launchToFirstScreen(list.path, environment: settings, display: display)
    defer { _ = app.terminate() }
    try app.waitFor(event: .sourceLoaded, timeout: 120)
    usleep(1_000_000)
    func longest(after mark: Int) -> Double {
        app.events().dropFirst(mark).filter { $0.event.name == .mainloopStall }.compactMap(\.event.ms).max() ?? 0
    }
    run.fillStall = longest(after: 0)
    try app.xdotool(["key", "End"])
    usleep(3_000_000)
    try app.xdotool(["key", "Home"])
    usleep(3_000_000)
    let zoomMark = app.events().count
    for key in ["ctrl+plus", "ctrl+plus", "ctrl+plus", "ctrl+minus", "ctrl+minus", "ctrl+minus", "ctrl+minus"] {
        try app.xdotool(["key", key])
        usleep(700_000)
    }
    usleep(1_500_000)
    run.zoomStall = longest(after: zoomMark)
    run.peak = memory(of: app.processIdentifier).peak
    return run
}

@MainActor
func benchmarkGrid(_ folder: CameraFolder, camera: CameraPhotos, rounds: Int, report: Report) throws {
    let state = try temporaryFolder("grid-settings")
    let lists = try temporaryFolder("grid-lists")
    defer { for made in [state, lists] { try? FileManager.default.removeItem(at: made) } }
    let settings = try gridSettings(in: state)
    let ten = try cameraList(camera, count: 10_000, in: lists.appendingPathComponent("ten", isDirectory: true))
    let hundred = try cameraList(
        camera, count: 100_000, in: lists.appendingPathComponent("hundred", isDirectory: true))
    let display = try XvfbDisplay(width: 1280, height: 900)
    let exec = timed(rounds: 3) { _ = try? run(Products.executable("classic-photos"), ["--version"], timeout: 30) }

    var grids: [GridRun] = [], peers: [PeerRun] = []
    var ours: [[Double]] = [], floor: [[Double]] = []
    var big: [BigGridRun] = []
    for _ in 0..<rounds {
        grids.append(try runGrid(folder, settings: settings, display: display))
        if Peer.gthumb.isInstalled {
            let cache = try temporaryFolder("gthumb-cache"), config = try temporaryFolder("gthumb-config")
            defer { for made in [cache, config] { try? FileManager.default.removeItem(at: made) } }
            peers.append(try runPeer(.gthumb, on: folder, cache: cache, config: config))
        }
        ours.append(try scrollGrid(list: ten, plain: false, settings: settings, display: display))
        floor.append(try scrollGrid(list: ten, plain: true, settings: settings, display: display))
        big.append(try runBigGrid(list: hundred, settings: settings, display: display))
    }

    func middle(_ values: [Int]) -> Int { values.isEmpty ? 0 : values.sorted()[values.count / 2] }
    let launch = exec + median(grids.map(\.launch)), end = median(grids.map(\.end))
    let cells = middle(grids.map(\.cells)), columns = middle(grids.map(\.columns))
    let peerTimes = peers.compactMap { $0.time(of: 16) }
    let peer = peerTimes.isEmpty ? nil : median(peerTimes)
    let p99 = median(ours.map { percentile($0, 0.99) }), p99Floor = median(floor.map { percentile($0, 0.99) })
    let peak = median(big.map(\.peak))
    let fillStall = median(big.map(\.fillStall)), zoomStall = median(big.map(\.zoomStall))

    report.heading("The grid: the camera folder beside gThumb, scrolling, memory")
    report.add(
        """
        The app in its grid (`view-mode` grid, in a GSettings keyfile of its own), in a window of \
        1200 × 850 on a private Xvfb display of 1280 × 900 (GTK's cairo renderer, no window \
        manager): \(columns) columns of whole photos fitted into 160-pixel squares. \(folder.summary) Cold (an empty \
        `XDG_CACHE_HOME` each round): from launch (the trace's clock plus a whole `--version` run, \
        \(ms(exec))) until every cell of the first screen shows its sepia thumbnail; gThumb's \
        browser on the same folder, cold, to the 16th thumbnail written into its cache (the \
        folder section above says how it is watched). Then End on the keyboard: from the scroll \
        it begins until every cell of the last screen is done. Wheel-scrolling: 10,000 cells (a \
        list of the camera photos, a file each), the wheel turned as in the list's section, frame \
        intervals from the frame clock; GTK's floor is a plain GtkGridView of the same pictures \
        and names in the same window (`classic-photos-bench --plain-grid`), its pictures decoded \
        once before it opens. Memory: 100,000 cells, End and Home (3 s each), then the squares \
        made larger three times and smaller four (Ctrl+plus, Ctrl+minus), peak resident memory \
        (VmHWM) after it all; the longest main-loop stall from the app's watchdog while the \
        100,000 cells filled, and while the squares changed size. Median of \(rounds) rounds.
        """)
    report.table(
        ["", "classic-photos (grid)", "beside it"],
        [
            [
                "camera folder, cold: launch → first screen done", "\(ms(launch)) (\(cells) cells)",
                peer.map { "gThumb \(ms($0)) (16 thumbnails)" } ?? "gThumb not installed or wrote fewer than 16",
            ],
            [
                "camera folder, cold: launch → a picture in every cell of the first screen (the photos' own small thumbnails, before their decodes replace them)",
                ms(exec + median(grids.map(\.pictures))), "",
            ],
            ["End → last screen done", "\(ms(end)) (\(middle(grids.map(\.endCells))) cells)", ""],
            [
                "p99 frame interval, wheel over 10,000 cells", ms(p99, 1),
                "plain GtkGridView \(ms(p99Floor, 1))",
            ],
            ["peak RSS, 100,000 cells end to end and zoomed", megabytes(peak), ""],
            [
                "longest main-loop stall: filling / zooming",
                "\(fillStall == 0 ? "none over 16 ms" : ms(fillStall / 1000)) / \(zoomStall == 0 ? "none over 16 ms" : ms(zoomStall / 1000))",
                "",
            ],
        ])
    if let peer {
        let ratio = launch / peer
        report.target(
            "grid, camera folder, cold: launch → first screen (≥ 20 cells) done",
            target: "≤ 0.2 × gThumb's 16 thumbnails",
            measured: "\(format(ratio, 2)) × (\(ms(launch)), \(cells) cells, against \(ms(peer)))",
            met: ratio <= 0.2 && cells >= 20)
    } else {
        report.target(
            "grid, camera folder, cold: launch → first screen (≥ 20 cells) done",
            target: "≤ 0.2 × gThumb's 16 thumbnails", measured: "gThumb did not run", met: nil)
    }
    report.target("grid: End → last screen done", target: "≤ 1.5 s", measured: ms(end), met: end <= 1.5)
    report.target(
        "grid: p99 frame interval, wheel over 10,000 cells", target: "≤ 1.1 × the plain GtkGridView",
        measured: "\(format(p99 / max(p99Floor, 0.000_1), 2)) × (\(ms(p99, 1)) against \(ms(p99Floor, 1)))",
        met: p99 <= 1.1 * p99Floor)
    report.target(
        "grid: peak RSS, 100,000 cells scrolled", target: "≤ 300 MB", measured: megabytes(peak),
        met: peak <= 300 * 1_048_576)
    let stall = max(fillStall, zoomStall)
    report.target(
        "grid: main-loop stall while filling or zooming", target: "< 50 ms",
        measured: stall == 0 ? "none over 16 ms" : format(stall, 1) + " ms", met: stall < 50)
}
