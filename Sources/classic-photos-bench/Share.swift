// A folder of camera photos on a WebDAV share served on loopback at 40 Mbit/s (rclone), reached
// through GVfs: the app's first screen and the bytes the server sent for it, cold and warm,
// beside Eye of GNOME opening the folder's first photo from the same share; and a photo named
// in a folder of 10,000 on the share.
import Foundation
import GLibKit
import PhotoPipeline
import TestSupport

@MainActor
func benchmarkShare(_ folder: CameraFolder, rounds: Int, report: Report) throws {
    let bytesPerSecond = 5_000_000 // 40 Mbit/s
    // The share: the camera folder's photos, and a folder of 10,000 (hard links to them in
    // turn), as a NAS holding a year of photos has.
    let root = try temporaryFolder("share")
    defer { try? FileManager.default.removeItem(at: root) }
    let photos = root.appendingPathComponent("photos"), many = root.appendingPathComponent("many")
    for made in [photos, many] { try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true) }
    for photo in folder.photos {
        try FileManager.default.linkItem(at: photo.url, to: photos.appendingPathComponent(photo.url.lastPathComponent))
    }
    let manyCount = 10_000, named = 5_000
    for n in 1...manyCount {
        try FileManager.default.linkItem(
            at: folder.photos[(n - 1) % folder.photos.count].url,
            to: many.appendingPathComponent(String(format: "photo-%05d.jpg", n)))
    }
    let bus = try PrivateBus()
    let share = try LoopbackShare(serving: root, bandwidth: "\(bytesPerSecond / 1024)k", logging: false)
    let onBus = ["DBUS_SESSION_BUS_ADDRESS": bus.address]
    // Mounted first, as a share a person browses to in the file manager is.
    let mount = timed(rounds: 1) {
        _ = try? run(URL(fileURLWithPath: "/usr/bin/gio"), ["mount", share.address()], environment: onBus, timeout: 60)
    }
    let exec = timed(rounds: 3) { _ = try? run(Products.executable("classic-photos"), ["--version"], timeout: 30) }

    // The app on the folder: cold (an empty cache folder), then warm (the cache it left).
    var times: [[Double]] = [[], []], sent: [[Double]] = [[], []], rows: [ClosedRange<Int>] = []
    for _ in 0..<rounds {
        let cache = try temporaryFolder("share-cache")
        defer { try? FileManager.default.removeItem(at: cache) }
        for warm in [0, 1] {
            let display = try XvfbDisplay()
            let log = SentBytesLog { share.bytesWritten }
            defer { log.stop() }
            let before = share.bytesWritten
            let start = LoopbackServer.now()
            let (app, screen) = try launchToFirstScreen(
                share.address("photos/"), environment: onBus.merging(["XDG_CACHE_HOME": cache.path]) { $1 },
                display: display)
            times[warm].append(exec + screen.t)
            sent[warm].append(Double(log.bytes(at: start + exec + screen.t) - before))
            _ = app.terminate()
            if warm == 0 { rows.append(screen.rows) }
        }
    }
    let visible = rows.sorted { $0.count < $1.count }[rows.count / 2]
    // Row 0 is no photo when the folder has sub-folders; here it has none.
    let visibleBytes = Double(visible.reduce(0) { $0 + folder.photos[$1 % folder.photos.count].bytes })

    // A photo named in the folder of 10,000: to that photo in sepia, and to the whole listing.
    var photoTimes: [Double] = [], listedTimes: [Double] = []
    for _ in 0..<rounds {
        let cache = try temporaryFolder("share-named")
        defer { try? FileManager.default.removeItem(at: cache) }
        let display = try XvfbDisplay()
        let app = try AppSession(
            arguments: [share.address(String(format: "many/photo-%05d.jpg", named))],
            environment: onBus.merging(["XDG_CACHE_HOME": cache.path]) { $1 }, display: display)
        var shown: Double?, listed: Double?
        try app.waitFor("the named photo in sepia and the folder listed", timeout: 120) { events in
            listed = events.first { $0.event.name == .sourceLoaded }?.t
            // The photo's identity: it keeps it as the folder fills in around it.
            guard let first = events.first(where: { $0.event.name == .listSelect }),
                case .listSelect(_, let id, _) = first.event
            else { return false }
            shown =
                events.first {
                    if case .rowState(_, id, .filtered) = $0.event { true } else { false }
                }?.t
            return shown != nil && listed != nil
        }
        _ = app.terminate()
        photoTimes.append(exec + shown!)
        listedTimes.append(exec + listed!)
    }

    // Eye of GNOME given the folder's first photo, and the named one, on the same share.
    let eog = Peer.eog.isInstalled ? try eogOnShare(share, photo: "photos/photo-001.jpg", bus: onBus) : nil
    let eogNamed =
        Peer.eog.isInstalled
        ? try eogOnShare(share, photo: String(format: "many/photo-%05d.jpg", named), bus: onBus) : nil

    let cold = median(times[0]), warm = median(times[1])
    let coldSent = median(sent[0]), warmSent = median(sent[1])
    let photo = median(photoTimes), listed = median(listedTimes)
    report.heading("A folder on a network share (WebDAV through GVfs)")
    report.add(
        """
        The \(folder.photos.count) photos of the folder section on a WebDAV share that `rclone serve webdav \
        --bwlimit` serves on loopback at \(bytesPerSecond * 8 / 1_000_000) Mbit/s, reached through GVfs \
        (`gvfs-backends`) on a D-Bus session of the benchmark's own, the share mounted first with \
        `gio mount` (\(ms(mount))), as a share a person browses to in the file manager is. The app \
        started on `dav://…/photos/`, until every visible row (\(visible.count)) shows its sepia \
        thumbnail (trace clock plus a whole `classic-photos --version` run, \(ms(exec))), with an \
        empty cache folder (cold) and again with the cache that launch left (warm). Bytes are all \
        the server wrote from the launch to that moment (the kernel's count of rclone's writes: \
        bodies, headers and listings); the visible photos are \(megabytes(visibleBytes, 1)) in all. \
        Eye of GNOME was started on the folder's first photo on the same share, its gallery \
        shown, and timed to its window's title naming the photo (the photo loaded). Median of \
        \(rounds) rounds.
        """)
    var table = [
        [
            "classic-photos, cold: launch to the first screen", ms(cold), megabytes(coldSent, 2),
            format(100 * coldSent / visibleBytes, 1) + " %",
        ],
        [
            "classic-photos, warm (its cache of remote thumbnails)", ms(warm), megabytes(warmSent, 2),
            format(100 * warmSent / visibleBytes, 1) + " %",
        ],
    ]
    if let eog {
        table.append([
            "\(Peer.eog.title): launch to the first photo shown",
            eog.t.map { ms($0) } ?? "not within 30 s", megabytes(Double(eog.bytes), 2), "–",
        ])
    }
    report.table(["", "time", "bytes sent by then", "of the visible photos' size"], table)
    report.add(
        """
        A photo named in a folder of \(manyCount) on the same share (`dav://…/many/photo-\
        \(String(format: "%05d", named)).jpg`), an empty cache: the app to that photo's row in sepia, \
        and to the folder's whole listing\(eogNamed == nil ? "" : ", beside Eye of GNOME given the same photo").
        """)
    var namedTable = [
        ["classic-photos: launch to the named photo in sepia", ms(photo)],
        ["classic-photos: launch to the folder listed", ms(listed)],
    ]
    if let eogNamed {
        namedTable.append([
            "\(Peer.eog.title): launch to the named photo shown", eogNamed.t.map { ms($0) } ?? "not within 30 s",
        ])
    }
    report.table(["", "time"], namedTable)
    report.target(
        "remote folder of camera photos at 40 Mbit/s: launch → first screen", target: "≤ 1.5 s",
        measured: ms(cold), met: cold <= 1.5)
    report.target(
        "remote folder: bytes sent by the first screen", target: "≤ 10 % of the visible photos' size",
        measured: format(100 * coldSent / visibleBytes, 1) + " %", met: coldSent <= 0.1 * visibleBytes)
    report.target(
        "a named photo in a \(manyCount)-photo remote folder: launch → photo shown",
        target: "≤ 1 s, before the folder is listed",
        measured: "\(ms(photo)) (listed at \(ms(listed)))", met: photo <= 1 && photo < listed)
}

/// Eye of GNOME started on `photo` on the share, on a display of its own: the time until its
/// window's title names the photo (loaded), and the bytes the server wrote by then.
@MainActor
private func eogOnShare(
    _ share: LoopbackShare, photo: String, bus: [String: String]
) throws -> (t: Double?, bytes: Int) {
    let display = try XvfbDisplay()
    let config = try temporaryFolder("share-eog")
    defer { try? FileManager.default.removeItem(at: config) }
    let settings = config.appendingPathComponent("glib-2.0/settings", isDirectory: true)
    try FileManager.default.createDirectory(at: settings, withIntermediateDirectories: true)
    try Data(Peer.eog.settings.utf8).write(to: settings.appendingPathComponent("keyfile"))
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Peer.eog.executable)
    process.arguments = [share.address(photo)]
    var environment = ProcessInfo.processInfo.environment.merging(display.gtkEnvironment) { $1 }.merging(bus) { $1 }
    environment["GSETTINGS_BACKEND"] = "keyfile"
    environment["XDG_CONFIG_HOME"] = config.path
    environment["XDG_DATA_HOME"] = config.appendingPathComponent("data").path
    environment["XDG_CACHE_HOME"] = config.appendingPathComponent("cache").path
    environment.removeValue(forKey: "WAYLAND_DISPLAY")
    process.environment = environment
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    let name = (photo as NSString).lastPathComponent
    let before = share.bytesWritten
    let start = LoopbackServer.now()
    try process.run()
    defer { killTree(process) }
    while LoopbackServer.now() - start < 30, process.isRunning {
        let found = try? run(
            URL(fileURLWithPath: "/usr/bin/xdotool"), ["search", "--name", name],
            environment: ["DISPLAY": display.name],
            timeout: 5)
        if found?.status == 0 { return (LoopbackServer.now() - start, share.bytesWritten - before) }
        usleep(20_000)
    }
    return (nil, share.bytesWritten - before)
}
