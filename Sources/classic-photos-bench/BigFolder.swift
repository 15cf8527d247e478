// Folders of 20,000 and 100,000 pictures, every one a hard link to one of the camera folder's
// photos: the app from its start to its first row, its first screen of thumbnails and the whole
// list, and its longest main-loop stall on the way, cold and warm; eog and gThumb on the same
// folders, timed by the thumbnails they write and read.
import Foundation
import PhotoPipeline
import TestSupport

/// A folder of `count` pictures named `IMG_000000.jpg`, `IMG_000001.jpg`, … (name order,
/// natural or plain, is number order), picture `n` a hard link to photo `n % photos.count`.
/// Links take no room and give every name a file of its own, with its own address and its own
/// thumbnail in a cache, as a real folder's pictures have. ext4 allows 65,000 links to one
/// file, so they are spread over all the distinct photos rather than made to one.
struct BigFolder {
    let folder: URL
    let count: Int
    /// Seconds making the links took.
    let seconds: Double

    static let linksPerFile = 65_000

    /// The first picture in name order (eog is started on it).
    var firstPicture: URL { folder.appendingPathComponent(Self.name(0)) }

    static func name(_ n: Int) -> String { String(format: "IMG_%06d.jpg", n) }

    init(count: Int, linking photos: [CameraPhoto], in parent: URL) throws {
        // Other folders may link to the same photos; past the limit, link() says so (EMLINK).
        guard !photos.isEmpty, (count + photos.count - 1) / photos.count < Self.linksPerFile else {
            throw BenchError(
                "\(count) links over \(photos.count) photos would pass ext4's \(Self.linksPerFile) links a file")
        }
        let start = LoopbackServer.now()
        folder = parent.appendingPathComponent("pictures-\(count)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for n in 0..<count {
            let target = photos[n % photos.count].url.path
            let path = folder.appendingPathComponent(Self.name(n)).path
            guard link(target, path) == 0 else {
                throw BenchError("could not link \(path) to \(target): \(String(cString: strerror(errno)))")
            }
        }
        self.count = count
        seconds = LoopbackServer.now() - start
    }
}

/// One launch of the app on a big folder, on the trace's clock (seconds since the app's `main`
/// began).
struct BigFolderAppRun {
    /// The first row bound to a picture (`row.shown`): the first name on screen.
    var firstRow: Double?
    /// The first row whose thumbnail was done (`row.state` filtered or failed).
    var firstThumbnail: Double?
    /// Every row of the first screen done, and how many rows that screen had.
    var firstScreen: Double
    var screenRows: Int
    /// The whole folder in the list (`source.loaded`), and the rows it reported.
    var listed: Double
    var rows: Int
    /// The longest main-loop stall (ms) that began before `listed` + `bigFolderStallWindow`;
    /// 0 when none passed the watchdog's 16 ms.
    var stall: Double
    /// Thumbnails in the cache folder once the app was stopped.
    var thumbnails: Int
    /// Rows whose picture came from a thumbnail the photo holds, large enough that the photo
    /// itself was not decoded (`row.preview` with `covers`).
    var coveredByPreview: Int
}

/// How long after the list is complete its stalls still count: the rows' first thumbnails,
/// and GTK measuring a list that just grew, come in that second.
let bigFolderStallWindow = 1.0

/// The app on `folder` with `cache` as its cache folder, until its first screen is done and
/// the list is complete, and then until the stall window has passed.
func runAppOnBigFolder(_ folder: BigFolder, cache: URL) throws -> BigFolderAppRun {
    let (app, screen) = try launchToFirstScreen(folder.folder.path, environment: ["XDG_CACHE_HOME": cache.path])
    let listed = try app.waitFor(event: .sourceLoaded, timeout: 120)
    // A stall is traced when the main loop answers again, so one that began inside the window
    // may be written after it: wait a second more (the trace is written every 50 ms).
    usleep(UInt32((bigFolderStallWindow + 1) * 1_000_000))
    let events = app.events()
    _ = app.terminate()
    let end = listed.t + bigFolderStallWindow
    let stalls = events.compactMap { record -> Double? in
        guard record.event.name == .mainloopStall, let ms = record.event.ms, record.t - ms / 1000 <= end else {
            return nil
        }
        return ms
    }
    let covered = events.filter { record in
        guard case .rowPreview(_, _, _, _, _, let covers) = record.event else { return false }
        return covers
    }
    let done = events.first { record in
        guard case .rowState(_, _, let state) = record.event else { return false }
        return state == .filtered || state == .failed
    }
    return BigFolderAppRun(
        firstRow: events.first { $0.event.name == .rowShown }?.t, firstThumbnail: done?.t,
        firstScreen: screen.t, screenRows: screen.rows.count, listed: listed.t, rows: listed.event.rows ?? 0,
        stall: stalls.max() ?? 0,
        thumbnails: thumbnailFiles(in: cache.appendingPathComponent("thumbnails", isDirectory: true)).count,
        coveredByPreview: Set(covered.compactMap(\.event.row)).count)
}

/// 20000 as "20,000".
func grouped(_ number: Int) -> String {
    var digits = String(number), text = ""
    while digits.count > 3 {
        text = "," + digits.suffix(3) + text
        digits.removeLast(3)
    }
    return digits + text
}

@MainActor
func benchmarkBigFolders(_ camera: CameraFolder, rounds: Int, report: Report) throws {
    let started = LoopbackServer.now()
    let scratch = try temporaryFolder("bigfolder")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let folders = try [20_000, 100_000].map { try BigFolder(count: $0, linking: camera.photos, in: scratch) }
    let peers = [Peer.eog, Peer.gthumb].filter(\.isInstalled)
    // What comes before the trace's clock starts, as in the camera folder's section.
    let exec = timed(rounds: 3) { _ = try? run(Products.executable("classic-photos"), ["--version"], timeout: 30) }
    // One launch left out of the figures, on an empty folder: the first GTK start after a
    // while reads its libraries, fonts and icons from disk, which would be charged to
    // whichever folder came first.
    do {
        let empty = scratch.appendingPathComponent("empty", isDirectory: true)
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let app = try AppSession(source: empty.path)
        try app.waitFor(event: .windowShown, timeout: 60)
        _ = app.terminate()
    }

    var ours: [Int: [(cold: BigFolderAppRun, warm: BigFolderAppRun)]] = [:]
    var theirs: [Int: [String: [(cold: PeerRun, warm: PeerRun)]]] = [:]
    for folder in folders {
        say("(bigfolder: \(grouped(folder.count)) pictures, \(rounds) round\(rounds == 1 ? "" : "s"))")
        for _ in 0..<rounds {
            do {
                let cache = try temporaryFolder("bigfolder-cache")
                defer { try? FileManager.default.removeItem(at: cache) }
                let cold = try runAppOnBigFolder(folder, cache: cache)
                let warm = try runAppOnBigFolder(folder, cache: cache)
                ours[folder.count, default: []].append((cold, warm))
            }
            for peer in peers {
                let cache = try temporaryFolder("bigfolder-\(peer.name)-cache")
                let config = try temporaryFolder("bigfolder-\(peer.name)-config")
                defer { for made in [cache, config] { try? FileManager.default.removeItem(at: made) } }
                let cold = try runPeer(
                    peer, folder: folder.folder, firstPhoto: folder.firstPicture, cache: cache, config: config)
                let warm = try runPeer(
                    peer, folder: folder.folder, firstPhoto: folder.firstPicture, cache: cache, config: config)
                theirs[folder.count, default: [:]][peer.name, default: []].append((cold, warm))
            }
        }
    }

    // Medians; a round in which something never happened counts as later than any that did,
    // so a median that lands on it reads as "not within the limit".
    func middle(_ values: [Double?]) -> Double? {
        let value = median(values.map { $0 ?? .infinity })
        return value.isFinite ? value : nil
    }
    func middle(_ values: [Int]) -> Int { values.isEmpty ? 0 : values.sorted()[values.count / 2] }
    func stallText(_ ms: Double) -> String { ms == 0 ? "none over 16 ms" : format(ms, 0) + " ms" }
    func time(_ seconds: Double?) -> String { seconds.map { ms($0) } ?? "–" }

    // The app on its own clock.
    var appTable: [[String]] = []
    for folder in folders {
        let runs = ours[folder.count] ?? []
        for warm in [false, true] {
            let chosen = runs.map { warm ? $0.warm : $0.cold }
            let stalls = chosen.map(\.stall)
            let worst = stalls.max() ?? 0
            var stall = stallText(median(stalls))
            if chosen.count > 1, worst != median(stalls) { stall += " (worst round \(stallText(worst)))" }
            let rows = middle(chosen.map(\.rows))
            appTable.append([
                "\(grouped(folder.count)) pictures, \(warm ? "warm" : "cold")", time(middle(chosen.map(\.firstRow))),
                ms(median(chosen.map(\.firstScreen))) + " (\(middle(chosen.map(\.screenRows))) rows)",
                ms(median(chosen.map(\.listed))) + (rows == folder.count ? "" : " (\(grouped(rows)) rows listed)"),
                stall,
            ])
        }
    }

    // Everyone from the process start: the peers' thumbnails, the app's rows done.
    let screenRows = middle(ours.values.flatMap { $0.map(\.cold.screenRows) })
    // A viewer's first screen: as many thumbnails as the app's first screen has rows, or, when
    // a viewer never makes that many on either folder (eog's gallery holds fewer), as many as
    // it made at most. Counted over both folders, so a viewer that ran out of time on the big
    // one is not judged on the few it managed.
    var peerScreen: [String: Int] = [:]
    for peer in peers {
        let most = theirs.values.flatMap { $0[peer.name] ?? [] }.map(\.cold.times.count).max() ?? 0
        peerScreen[peer.name] = max(1, min(screenRows, most))
    }
    var peerTable: [[String]] = []
    for folder in folders {
        let runs = ours[folder.count] ?? []
        func shifted(_ value: Double?) -> String { value.map { ms(exec + $0) } ?? "–" }
        peerTable.append([
            "classic-photos, \(grouped(folder.count)) pictures",
            shifted(middle(runs.map(\.cold.firstThumbnail))),
            shifted(median(runs.map(\.cold.firstScreen))) + " (\(middle(runs.map(\.cold.screenRows))))",
            shifted(middle(runs.map(\.warm.firstThumbnail))), shifted(median(runs.map(\.warm.firstScreen))),
            "\(middle(runs.map(\.cold.thumbnails))) (stopped \(format(bigFolderStallWindow + 1, 0)) s after the list was complete)",
        ])
        for peer in peers {
            let runs = theirs[folder.count]?[peer.name] ?? []
            let shown = peerScreen[peer.name] ?? screenRows
            let watched = median(runs.map(\.cold.watchedFor))
            // Nothing within the limit reads "> limit"; a peer that quit sooner says so.
            func when(_ runs: [PeerRun], _ count: Int) -> String {
                if let t = middle(runs.map { $0.time(of: count) }) { return ms(t) }
                let stopped = median(runs.map(\.watchedFor))
                return stopped >= peerLimit - 0.1
                    ? "> \(format(peerLimit, 0)) s" : "none (exited after \(format(stopped)) s)"
            }
            let warmRuns = runs.map(\.warm)
            // Where the cold launch cached nothing, the warm one has nothing to read: it is
            // timed by what it writes, as a cold one is.
            let uncached = runs.filter { $0.cold.written == 0 }.count
            let warmNote =
                uncached == 0
                ? ""
                : uncached == runs.count
                    ? " (nothing cached)"
                    : " (nothing cached in \(uncached) of \(runs.count) rounds)"
            peerTable.append([
                "\(peer.title), \(grouped(folder.count)) pictures",
                when(runs.map(\.cold), 1), when(runs.map(\.cold), shown) + " (\(shown))",
                when(warmRuns, 1) + warmNote, when(warmRuns, shown) + warmNote,
                "\(middle(runs.map(\.cold.written))) (stopped after \(format(watched)) s)",
            ])
        }
    }
    for missing in [Peer.eog, Peer.gthumb] where !missing.isInstalled {
        peerTable.append([
            "\(missing.name) (not installed: Debian package `\(missing.package)`)", "–", "–", "–", "–", "–",
        ])
    }

    let linking = folders.reduce(0) { $0 + $1.seconds }
    report.heading("Folders of 20,000 and 100,000 pictures")
    report.add(
        """
        Two folders, of \(folders.map { grouped($0.count) }.joined(separator: " and ")) pictures, made of hard links \
        to the \(camera.photos.count) camera photos of the section above (picture `n` links to photo `n` modulo \
        \(camera.photos.count), so no file passes ext4's limit of \(grouped(BigFolder.linksPerFile)) links), \
        named `IMG_000000.jpg`, `IMG_000001.jpg`, … in number order; making the links took \(format(linking)) s. \
        Every name is a file of its own to the programs, with its own address and its own cached thumbnail. \
        Each program is started on a folder as in the section above (a private Xvfb display, an empty cache \
        folder for the cold launch, what that left for the warm one). Cold means an empty thumbnail cache, not \
        a cold disk: the folder's entries and the photos' bytes are in the kernel's page cache, as they are for \
        a folder just copied or browsed before.
        """)
    report.add(
        """
        classic-photos (`classic-photos FOLDER`), read from its trace, on the trace's clock (from the start of \
        the app's `main`; loading the executable before that takes \(ms(exec)), a whole \
        `classic-photos --version` run): the first row bound to a picture (`row.shown`, the first name on \
        screen), every row of the first screen showing its sepia thumbnail, the whole folder in the list \
        (`source.loaded`), and the longest main-loop stall the app's watchdog traced (`mainloop.stall`, over \
        16 ms) that began between the start and \(format(bigFolderStallWindow, 0)) s after the list was \
        complete. Median of \(rounds) round\(rounds == 1 ? "" : "s").
        """)
    report.table(
        [
            "classic-photos on a folder of", "first row shown", "first screen done", "whole folder listed",
            "longest main-loop stall",
        ], appTable)
    report.add(
        """
        Beside eog (started on the first picture, gallery shown) and gThumb (started on the folder), timed as \
        in the section above from each process's start, by the thumbnails they write to the cache when cold \
        and open from it when warm: the first one, and the first screen, as many as the app's first screen \
        has rows or, for a viewer that never made that many on either folder (eog's gallery holds fewer), \
        as many as it ever made (the count is in brackets). A viewer is watched for \(format(peerLimit, 0)) s \
        at most and stopped \(format(peerQuiet, 0)) s after its last thumbnail; what it had not shown by then \
        reads "> \(format(peerLimit, 0)) s". The app's figures here are its trace's plus the \(ms(exec)) of \
        loading it, and its first thumbnail is its first row done. Median of \(rounds) round\(rounds == 1 ? "" : "s").
        """)
    report.table(
        [
            "from the process start", "cold: first thumbnail", "cold: first screen", "warm: first thumbnail",
            "warm: first screen", "thumbnails written (cold)",
        ], peerTable)
    let appRuns = ours.values.flatMap { $0.flatMap { [$0.cold, $0.warm] } }
    if !appRuns.isEmpty, appRuns.allSatisfy({ $0.thumbnails == 0 && $0.coveredByPreview >= $0.screenRows }) {
        report.add(
            """
            The app wrote no thumbnail to the cache: every row it showed took its picture from the EXIF \
            thumbnail its photo carries, large enough for a row (`row.preview` with `covers`), so no photo was \
            decoded, and a warm launch has nothing more to find than a cold one.
            """)
    }
    report.add(
        "This section took \(format(LoopbackServer.now() - started, 0)) s, of which \(format(linking)) s "
            + "making the links (the camera photos are made once, for the sections that share them).")

    for folder in folders {
        let runs = ours[folder.count] ?? []
        let limit = folder.count <= 20_000 ? 0.5 : 1.0
        let cold = median(runs.map(\.cold.firstScreen)), warm = median(runs.map(\.warm.firstScreen))
        report.target(
            "\(grouped(folder.count))-picture folder, start → first screen done",
            target: "≤ \(format(limit)) s",
            measured: "cold \(ms(cold)), warm \(ms(warm)) (trace clock; + \(ms(exec)) loading the executable)",
            met: runs.isEmpty ? nil : max(cold, warm) <= limit)
    }
    for folder in folders {
        let runs = ours[folder.count] ?? []
        let worst = runs.flatMap { [$0.cold.stall, $0.warm.stall] }.max() ?? 0
        report.target(
            "main-loop stall while a \(grouped(folder.count))-picture folder fills (worst launch)",
            target: "≤ 50 ms", measured: stallText(worst) + " (of \(runs.count * 2) launches, cold and warm)",
            met: runs.isEmpty ? nil : worst <= 50)
    }
}
