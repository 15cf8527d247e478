// A web list of the camera folder's photos over a paced link: the app's first screen and the
// bytes the server sent for it, beside curl fetching the same photos whole.
import Foundation
import GLibKit
import PhotoPipeline
import TestSupport

/// A server's count of bytes sent, read every 5 ms on a thread of its own, so the count at a
/// moment read from the app's trace can be looked up afterwards.
final class SentBytesLog: Sendable {
    private let samples = Locked<[(t: Double, bytes: Int)]>([])
    private let running = Locked(true)

    /// The loopback server's photo bytes (response bodies).
    convenience init(_ server: LoopbackServer) { self.init { server.photoBytesSent } }

    init(counting count: @escaping @Sendable () -> Int) {
        let thread = Thread { [self] in
            while running.withLock({ $0 }) {
                let sample = (t: LoopbackServer.now(), bytes: count())
                samples.withLock { $0.append(sample) }
                usleep(5_000)
            }
        }
        thread.name = "sent-bytes-log"
        thread.start()
    }

    func stop() { running.withLock { $0 = false } }

    /// The count read last at or before `t` (monotonic seconds).
    func bytes(at t: Double) -> Int {
        samples.withLock { $0.last { $0.t <= t }?.bytes ?? 0 }
    }
}

@MainActor
func benchmarkWebList(_ folder: CameraFolder, rounds: Int, report: Report) throws {
    let (bitsPerSecond, latency) = (40_000_000, 30)
    let server = try LoopbackServer(photos: folder.folder)
    server.setLink(bitsPerSecond: bitsPerSecond, latencyMs: latency)
    let list = server.url("/list.plist?rows=\(folder.photos.count)").absoluteString
    let exec = timed(rounds: 3) { _ = try? run(Products.executable("classic-photos"), ["--version"], timeout: 30) }

    var times: [Double] = [], byFirstScreen: [Double] = [], bySecondAfter: [Double] = [], visibleSizes: [Double] = []
    var rows: [ClosedRange<Int>] = []
    for _ in 0..<rounds {
        let cache = try temporaryFolder("web-cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        // The display first: its start is no part of the app's.
        let display = try XvfbDisplay()
        let log = SentBytesLog(server)
        defer { log.stop() }
        let before = server.photoBytesSent
        let start = LoopbackServer.now()
        let (app, screen) = try launchToFirstScreen(list, environment: ["XDG_CACHE_HOME": cache.path], display: display)
        // The trace's clock starts in the app's `main`: the whole `--version` run stands for
        // what comes before it, so the moment may be a little late, never early.
        times.append(exec + screen.t)
        byFirstScreen.append(Double(log.bytes(at: start + exec + screen.t) - before))
        usleep(1_000_000)
        bySecondAfter.append(Double(server.photoBytesSent - before))
        _ = app.terminate()
        visibleSizes.append(Double(screen.rows.reduce(0) { $0 + folder.photos[$1 % folder.photos.count].bytes }))
        rows.append(screen.rows)
    }
    let visible = rows.sorted { $0.count < $1.count }[rows.count / 2]

    // curl fetching the same visible photos whole, 10 at once, over the same link.
    var curlLine: [String]?
    if FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") {
        let before = server.photoBytesSent
        var arguments = ["-s", "--parallel", "--parallel-max", "10"]
        for row in visible {
            arguments += [
                "-o", "/dev/null",
                server.url("/photos/\(folder.photos[row].url.lastPathComponent)?n=\(row)").absoluteString,
            ]
        }
        let seconds = timed(rounds: 1) { _ = try? run(URL(fileURLWithPath: "/usr/bin/curl"), arguments, timeout: 300) }
        let sent = Double(server.photoBytesSent - before)
        let whole = Double(visible.reduce(0) { $0 + folder.photos[$1].bytes })
        curlLine = [
            "curl `--parallel-max 10`: the \(visible.count) visible photos, whole", ms(seconds),
            megabytes(sent, 2), format(100 * sent / whole, 1) + " %", "–",
        ]
    }

    let time = median(times), sent = median(byFirstScreen), after = median(bySecondAfter), size = median(visibleSizes)
    report.heading("A web list of camera photos over a paced link")
    report.add(
        """
        The app started on an `http://` list of the \(folder.photos.count) photos of the folder \
        section (the same files, each with its EXIF thumbnail) served by the loopback HTTP server through one shared link of \
        \(bitsPerSecond / 1_000_000) Mbit/s with \(latency) ms latency, with an empty cache folder, \
        until every visible row shows its sepia thumbnail (trace clock plus a whole \
        `classic-photos --version` run, \(ms(exec)), as above). Bytes are the photo bytes the \
        server sent (response bodies), counted from the launch to that moment, and to a second \
        after it (the rows prefetched beyond the screen); the visible photos are \
        \(visible.count), \(megabytes(size, 1)) in all. Median of \(rounds) rounds.
        """)
    var table = [
        [
            "classic-photos: launch to the first screen of \(visible.count) sepia thumbnails", ms(time),
            megabytes(sent, 2),
            format(100 * sent / size, 1) + " %", megabytes(after, 2),
        ]
    ]
    if let curlLine { table.append(curlLine) }
    report.table(["", "time", "photo bytes sent by then", "of the visible photos' size", "a second later"], table)
    report.target(
        "web list of camera photos, \(bitsPerSecond / 1_000_000) Mbit/s and \(latency) ms: launch → first screen",
        target: "≤ 1 s", measured: ms(time), met: time <= 1)
    report.target(
        "web list of camera photos: bytes by the first screen", target: "≤ 5 % of the visible photos' size",
        measured: format(100 * sent / size, 1) + " %", met: sent <= 0.05 * size)
}
