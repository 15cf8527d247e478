// A folder of camera photos opened in the app and in two desktop viewers, eog and gThumb, each
// on a private Xvfb display like the app's: launch to the first screen of thumbnails, with an
// empty cache and again with the cache the first launch left.
import Foundation
import GLibKit
import PhotoPipeline
import TestSupport

/// A desktop viewer the app is compared with. Both write the shared thumbnail cache
/// (`$XDG_CACHE_HOME/thumbnails/SIZE/`), one PNG per photo they show, so the files that appear
/// there time them; with the cache already full, the files they open do.
struct Peer {
    let name: String
    let executable: String
    let package: String
    /// eog opens a photo and shows the rest of its folder in the gallery; gThumb opens the folder.
    let opensFirstPhoto: Bool
    /// What it is started with, as a GSettings keyfile (its settings live in a folder of their own).
    let settings: String

    static let eog = Peer(
        name: "eog", executable: "/usr/bin/eog", package: "eog", opensFirstPhoto: true,
        settings: "[org/gnome/eog/ui]\nimage-gallery=true\n")
    static let gthumb = Peer(
        name: "gThumb", executable: "/usr/bin/gthumb", package: "gthumb", opensFirstPhoto: false,
        settings: "")

    var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    /// "eog 43.2", "gThumb 3.12.2": the name and the upstream part of the package's version.
    var title: String {
        let version =
            (try? run(URL(fileURLWithPath: "/usr/bin/dpkg-query"), ["-W", "-f", "${Version}", package], timeout: 10))?
            .stdout ?? ""
        let upstream =
            version.split(separator: ":").last.map { $0.split(separator: "-").first.map(String.init) ?? "" } ?? ""
        return upstream.isEmpty ? name : "\(name) \(upstream)"
    }
}

/// A peer watched until it stopped: the thumbnails it wrote (cold) or opened (warm), in order.
struct PeerRun {
    /// Seconds from its start until it had written (or opened) one thumbnail, two, …
    var times: [Double] = []
    var watchedFor = 0.0
    /// Thumbnails it added to the cache while it ran.
    var written = 0

    /// When it had `count` thumbnails, if it got that far.
    func time(of count: Int) -> Double? { count > 0 && times.count >= count ? times[count - 1] : nil }
}

/// A peer is watched for 10 s at most, and stopped sooner once 2 s pass without a new thumbnail.
let peerLimit = 10.0
let peerQuiet = 2.0

/// The thumbnail PNGs under `thumbnails` (`normal/…`, `large/…`; not the failures' folder).
func thumbnailFiles(in thumbnails: URL) -> Set<String> {
    var files = Set<String>()
    for size in thumbnailSizeFolders(in: thumbnails) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: size.path)) ?? []
        for name in names where name.hasSuffix(".png") { files.insert(size.lastPathComponent + "/" + name) }
    }
    return files
}

func thumbnailSizeFolders(in thumbnails: URL) -> [URL] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: thumbnails.path)) ?? []
    return names.filter { $0 != "fail" }.map { thumbnails.appendingPathComponent($0, isDirectory: true) }
}

/// The files opened in some folders, as inotify reports them (`IN_OPEN`), by "folder/name".
final class OpenedFiles {
    private let descriptor: Int32
    private var watches: [Int32: String] = [:]
    private(set) var names = Set<String>()

    init(folders: [URL]) throws {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw BenchError("inotify: \(String(cString: strerror(errno)))") }
        for folder in folders {
            let watch = inotify_add_watch(descriptor, folder.path, UInt32(IN_OPEN))
            if watch >= 0 { watches[watch] = folder.lastPathComponent }
        }
    }

    deinit { close(descriptor) }

    /// Reads what has been reported since the last call.
    func update() {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { return }
            var offset = 0
            // struct inotify_event: wd, mask, cookie, len (4 bytes each), then len bytes of name.
            while offset + 16 <= count {
                let (watch, length) = buffer.withUnsafeBytes {
                    (
                        $0.loadUnaligned(fromByteOffset: offset, as: Int32.self),
                        Int($0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    )
                }
                let name = buffer[(offset + 16)..<min(count, offset + 16 + length)].prefix { $0 != 0 }
                if let folder = watches[watch], !name.isEmpty {
                    names.insert(folder + "/" + String(decoding: name, as: UTF8.self))
                }
                offset += 16 + length
            }
        }
    }
}

/// Kills `process`, the process group it leads if it leads one, and every process below it.
func killTree(_ process: Process) {
    let pid = process.processIdentifier
    var tree = [pid]
    var next = 0
    while next < tree.count {
        tree += AppSession.children(of: tree[next])
        next += 1
    }
    if getpgid(pid) == pid { kill(-pid, SIGKILL) }
    for member in tree { kill(member, SIGKILL) }
    process.waitUntilExit()
}

/// Starts `peer` on `folder` on a display of its own, with `cache` as its cache folder and its
/// settings in `config`, and watches its thumbnails: with an empty cache, those it writes;
/// with thumbnails already there, those of them it opens.
func runPeer(_ peer: Peer, on folder: CameraFolder, cache: URL, config: URL) throws -> PeerRun {
    try runPeer(peer, folder: folder.folder, firstPhoto: folder.photos[0].url, cache: cache, config: config)
}

/// The same for any folder: eog is given `firstPhoto` (the folder's first picture in its
/// order), gThumb `folder`.
func runPeer(_ peer: Peer, folder: URL, firstPhoto: URL, cache: URL, config: URL) throws -> PeerRun {
    let display = try XvfbDisplay()
    let thumbnails = cache.appendingPathComponent("thumbnails", isDirectory: true)
    let before = thumbnailFiles(in: thumbnails)
    let opened = before.isEmpty ? nil : try OpenedFiles(folders: thumbnailSizeFolders(in: thumbnails))
    let settings = config.appendingPathComponent("glib-2.0/settings", isDirectory: true)
    try FileManager.default.createDirectory(at: settings, withIntermediateDirectories: true)
    try Data(peer.settings.utf8).write(to: settings.appendingPathComponent("keyfile"))

    let process = Process()
    process.executableURL = URL(fileURLWithPath: peer.executable)
    process.arguments = [peer.opensFirstPhoto ? firstPhoto.path : folder.path]
    var environment = ProcessInfo.processInfo.environment.merging(display.gtkEnvironment) { $1 }
    environment["GSETTINGS_BACKEND"] = "keyfile"
    environment["XDG_CONFIG_HOME"] = config.path
    environment["XDG_DATA_HOME"] = config.appendingPathComponent("data").path
    environment["XDG_CACHE_HOME"] = cache.path
    environment.removeValue(forKey: "WAYLAND_DISPLAY")
    // Without a session bus, as the app runs: on a person's bus, a viewer already running would
    // be handed the folder and this one would exit at once.
    environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
    process.environment = environment
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice

    var result = PeerRun()
    let start = LoopbackServer.now()
    try process.run()
    var last = start
    while true {
        usleep(20_000)
        let now = LoopbackServer.now()
        let count: Int
        if let opened {
            opened.update()
            count = opened.names.intersection(before).count
        } else {
            count = thumbnailFiles(in: thumbnails).count
        }
        while result.times.count < count {
            result.times.append(now - start)
            last = now
        }
        if now - start >= peerLimit || (!result.times.isEmpty && now - last >= peerQuiet) || !process.isRunning {
            break
        }
    }
    result.watchedFor = LoopbackServer.now() - start
    killTree(process)
    result.written = thumbnailFiles(in: thumbnails).subtracting(before).count
    return result
}

/// The app on the folder with `cache` as its cache folder: to the first screen of rows done,
/// and the thumbnails it wrote in the second after.
func runAppOnFolder(_ folder: CameraFolder, cache: URL) throws -> (t: Double, rows: Int, written: Int) {
    let thumbnails = cache.appendingPathComponent("thumbnails", isDirectory: true)
    let before = thumbnailFiles(in: thumbnails)
    let (app, screen) = try launchToFirstScreen(folder.folder.path, environment: ["XDG_CACHE_HOME": cache.path])
    usleep(1_000_000)
    _ = app.terminate()
    return (screen.t, screen.rows.count, thumbnailFiles(in: thumbnails).subtracting(before).count)
}

@MainActor
func benchmarkCameraFolder(_ folder: CameraFolder, rounds: Int, report: Report) throws {
    let peers = [Peer.eog, Peer.gthumb].filter(\.isInstalled)
    // The trace's clock starts in the app's `main`; what comes before (loading the executable
    // and its libraries) is counted as a whole `--version` run, which does no more.
    let exec = timed(rounds: 3) { _ = try? run(Products.executable("classic-photos"), ["--version"], timeout: 30) }

    var ours: [(cold: Double, warm: Double, rows: Int, written: Int)] = []
    var theirs: [String: [(cold: PeerRun, warm: PeerRun)]] = [:]
    for _ in 0..<rounds {
        do {
            let cache = try temporaryFolder("folder-cache")
            defer { try? FileManager.default.removeItem(at: cache) }
            let cold = try runAppOnFolder(folder, cache: cache)
            let warm = try runAppOnFolder(folder, cache: cache)
            ours.append((exec + cold.t, exec + warm.t, cold.rows, cold.written))
        }
        for peer in peers {
            let cache = try temporaryFolder("\(peer.name)-cache"), config = try temporaryFolder("\(peer.name)-config")
            defer { for made in [cache, config] { try? FileManager.default.removeItem(at: made) } }
            let cold = try runPeer(peer, on: folder, cache: cache, config: config)
            let warm = try runPeer(peer, on: folder, cache: cache, config: config)
            theirs[peer.name, default: []].append((cold, warm))
        }
    }

    func middle(_ values: [Int]) -> Int { values.isEmpty ? 0 : values.sorted()[values.count / 2] }
    let rows = middle(ours.map(\.rows))
    let coldOurs = median(ours.map(\.cold)), warmOurs = median(ours.map(\.warm))
    var table = [
        [
            "classic-photos (\(rows) rows with sepia thumbnails)", ms(coldOurs), ms(warmOurs),
            "\(middle(ours.map(\.written))) (1 s after the first screen)",
        ]
    ]
    var bestPeer: (name: String, cold: Double)?
    for peer in peers {
        let runs = theirs[peer.name] ?? []
        // Its first screen: 8 thumbnails, or as many as it made in all if that is fewer
        // (eog's gallery holds fewer at its default window size).
        let shown = min(8, middle(runs.map(\.cold.times.count)))
        let colds = runs.compactMap { $0.cold.time(of: shown) }, warms = runs.compactMap { $0.warm.time(of: shown) }
        let cold = colds.isEmpty ? nil : median(colds), warm = warms.isEmpty ? nil : median(warms)
        if let cold, cold < bestPeer?.cold ?? .infinity { bestPeer = (peer.title, cold) }
        table.append([
            "\(peer.title) (\(shown) thumbnails)", cold.map { ms($0) } ?? "none written",
            warm.map { ms($0) } ?? "\(shown) not read",
            "\(middle(runs.map(\.cold.written))) (stopped after \(format(median(runs.map(\.cold.watchedFor)))) s)",
        ])
    }
    for missing in [Peer.eog, Peer.gthumb] where !missing.isInstalled {
        table.append(["\(missing.name) (not installed: Debian package `\(missing.package)`)", "–", "–", "–"])
    }

    report.heading("A folder of camera photos: the app, eog and gThumb")
    report.add(
        """
        \(folder.summary) Each program is started on the folder on a private Xvfb display of \
        its own (GTK's cairo renderer, no window manager, no D-Bus session) with an empty cache \
        folder (`XDG_CACHE_HOME`), cold, and then again with what that left there, warm. \
        classic-photos: `classic-photos FOLDER`, until every visible row shows its sepia \
        thumbnail, on the trace's clock plus the time a whole `classic-photos --version` run takes \
        (\(ms(exec)), what comes before the trace's clock starts). eog: `eog FIRST-PHOTO` with its \
        gallery shown (`org.gnome.eog.ui image-gallery true`, in a GSettings keyfile of its own); \
        gThumb: `gthumb FOLDER`. Both keep the thumbnails they show in the shared cache \
        (`$XDG_CACHE_HOME/thumbnails/`, a PNG per photo), so cold they are timed from their \
        process start to the 8th thumbnail written there (or their last, when they write fewer), \
        and warm to the 8th of those thumbnails they open (inotify). Each is watched for \
        \(format(peerLimit, 0)) s at most, stopped sooner \(format(peerQuiet, 0)) s after its last \
        thumbnail, and then killed with whatever it started. Median of \(rounds) rounds.
        """)
    report.table(
        [
            "launched on the folder", "cold: to the first screen", "warm: to the first screen",
            "thumbnails written (cold)",
        ], table)

    if let bestPeer {
        let ratio = coldOurs / bestPeer.cold
        report.target(
            "camera folder, cold, launch → \(rows) rows done", target: "≤ 0.2 × the best of eog and gThumb",
            measured: format(ratio, 2) + " × \(bestPeer.name) (\(ms(coldOurs)) against \(ms(bestPeer.cold)))",
            met: ratio <= 0.2)
    } else {
        report.target(
            "camera folder, cold, launch → \(rows) rows done", target: "≤ 0.2 × the best of eog and gThumb",
            measured: "no peer ran", met: nil)
    }
    report.target(
        "camera folder, warm, launch → \(rows) rows done", target: "≤ 0.3 s", measured: ms(warmOurs),
        met: warmOurs <= 0.3)
}
