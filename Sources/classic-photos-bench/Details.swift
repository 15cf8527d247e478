// The details panel and the metadata it shows: F9 over a camera JPEG, a HEIC and a DNG, each
// selected in the list and then paged to in the viewer, timed by the app's trace from the photo
// asked for until its facts are shown (`viewer.details`); the metadata of 1,000 camera photos
// read cold by the panel's reader and by the index's, beside `exiftool -fast`; and what the
// panel's reader makes of a public corpus of camera files (Exiv2's own test files, from
// Debian's archive) beside what exiftool makes of them.
import Foundation
import GLibKit
import PhotoPipeline
import TestSupport

@MainActor
func benchmarkDetails(_ camera: CameraFolder, rounds: Int, report: Report) throws {
    report.heading("Details")
    try benchmarkPanel(camera, rounds: rounds, report: report)
    try benchmarkMetadataRead(camera, report: report)
    try benchmarkCorpus(report: report)
}

// MARK: The panel

/// One photo's times in one run: from the photo asked for (a selection moved, the viewer
/// paged) until its facts are shown, and (in the viewer) until its picture is.
private struct PanelTimes {
    var facts: [Double] = []
    var shown: [Double] = []
}

/// The folder: a camera JPEG, the same picture as a phone's HEIC and as a DNG, each with what a
/// camera writes (by exiftool).
private func panelFolder(_ camera: CameraFolder, in scratch: URL) throws -> (folder: URL, names: [String]) {
    let folder = scratch.appendingPathComponent("details", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let names = ["a-camera.jpg", "b-phone.heic", "c-raw.dng"]
    let jpeg = folder.appendingPathComponent(names[0])
    try FileManager.default.copyItem(at: camera.photos[0].url, to: jpeg)
    let heic = folder.appendingPathComponent(names[1])
    guard tool("/usr/bin/heif-enc", ["-q", "70", "-o", heic.path, camera.photos[1].url.path]) else {
        throw BenchError("heif-enc could not make the HEIC")
    }
    let preview = try Data(contentsOf: camera.photos[2].url)
    try CameraFiles.dng(
        preview: preview, previewWidth: 4000, previewHeight: 3000, width: 4000, height: 3000, orientation: 1
    ).write(to: folder.appendingPathComponent(names[2]))
    let tags = [
        "-Make=Canon", "-Model=Canon EOS 5D Mark IV", "-LensModel=EF24-105mm f/4L IS USM", "-ExposureTime=1/250",
        "-FNumber=8", "-ISO=200", "-FocalLength=50", "-DateTimeOriginal=2021:07:04 18:30:05",
        "-OffsetTimeOriginal=+02:00", "-GPSLatitude=48.8584", "-GPSLatitudeRef=N", "-GPSLongitude=2.2945",
        "-GPSLongitudeRef=E", "-Artist=Ada Lovelace",
    ]
    guard
        tool(
            CameraFolder.exiftool,
            ["-q", "-overwrite_original"] + tags + names.map { folder.appendingPathComponent($0).path })
    else { throw BenchError("exiftool could not tag the panel's photos") }
    return (folder, names)
}

/// The facts shown of the photo `id` once they are those read from its file: the trace's
/// milliseconds since it was asked for, and that record's time.
private func factsShown(
    _ app: AppSession, after before: Int, name: String
) throws -> (ms: Double, t: Double, id: PhotoID?) {
    let events = try app.waitFor("the facts of \(name)", timeout: 60) { events in
        events.dropFirst(before).contains { record in
            guard case .viewerDetails(_, let fields, _, _) = record.event else { return false }
            return fields.contains("size") && fields.contains("camera")
        }
    }
    let record = try benchRequire(
        events.dropFirst(before).first { record in
            guard case .viewerDetails(_, let fields, _, _) = record.event else { return false }
            return fields.contains("size") && fields.contains("camera")
        }, "no facts for \(name)")
    guard case .viewerDetails(let id, _, _, let ms) = record.event else { throw BenchError("not details") }
    return (ms, record.t, id)
}

private func benchRequire<T>(_ value: T?, _ message: String) throws -> T {
    guard let value else { throw BenchError(message) }
    return value
}

@MainActor
private func benchmarkPanel(_ camera: CameraFolder, rounds: Int, report: Report) throws {
    let scratch = try temporaryFolder("details")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let (folder, names) = try panelFolder(camera, in: scratch)
    let display = try XvfbDisplay(width: 1280, height: 900)
    var inList: [String: PanelTimes] = [:]
    var inViewer: [String: PanelTimes] = [:]
    for round in 0..<rounds {
        // A cache of its own each time: nothing the app keeps of the photos (thumbnails, the
        // index) is there at the start.
        let cache = scratch.appendingPathComponent("cache-\(round)", isDirectory: true)
        let (app, _) = try launchToFirstScreen(
            arguments: [folder.path], environment: ["XDG_CACHE_HOME": cache.path], display: display)
        defer { _ = app.terminate() }
        usleep(500_000)
        try app.xdotool(["key", "Down", "Up"])
        usleep(300_000)
        // The list: F9 on the first (not timed: the panel slides in), then Down to each of the
        // others, and Home back to the first.
        var before = app.events().count
        try app.xdotool(["key", "F9"])
        _ = try factsShown(app, after: before, name: names[0])
        usleep(400_000)
        for (key, name) in [("Down", names[1]), ("Down", names[2]), ("Home", names[0])] {
            before = app.events().count
            try app.xdotool(["key", key])
            let facts = try factsShown(app, after: before, name: name)
            inList[name, default: PanelTimes()].facts.append(facts.ms)
            usleep(400_000)
        }
        try app.xdotool(["key", "End"])
        usleep(400_000)
        // The viewer, opened on the DNG selected (its facts known already: not timed), then Left
        // to the HEIC and the JPEG, and End back to the DNG.
        try app.xdotool(["key", "Return"])
        usleep(1_000_000)
        for (key, name) in [("Left", names[1]), ("Left", names[0]), ("End", names[2])] {
            let before = app.events().count
            try app.xdotool(["key", key])
            let facts = try factsShown(app, after: before, name: name)
            let id = try benchRequire(facts.id, "no photo for the facts of \(name)")
            let asked = facts.t - facts.ms / 1000
            let isShown: (TraceRecord) -> Bool = {
                if case .viewerImage(_, id, _, _, _, _, _) = $0.event { true } else { false }
            }
            let events = try app.waitFor("\(name) shown", timeout: 60) { $0.dropFirst(before).contains(where: isShown) }
            let shown = try benchRequire(events.dropFirst(before).first(where: isShown), "\(name) never shown")
            inViewer[name, default: PanelTimes()].facts.append(facts.ms)
            inViewer[name, default: PanelTimes()].shown.append((shown.t - asked) * 1000)
            usleep(600_000)
        }
        say("(details: round \(round + 1): \(names.map { "\($0) \(format(inList[$0]?.facts.last ?? 0, 1)) ms" }))")
    }
    report.add(
        """
        The details panel (F9) in the app at 1200 × 850 over a camera JPEG (12 MP, EXIF written by \
        exiftool: camera, lens, exposure, date and zone, GPS, author), the same picture as a HEIC \
        (heif-enc) and as a DNG (the 12 MP JPEG as its preview, 24 MB of sensor data), tagged alike. \
        In the list, each photo selected (F9 on the first, then Down, Down and Home): from the selection \
        until the panel shows the facts read from its file (the JPEG and the HEIC read whole, the DNG's \
        descriptor handed to a decoder helper, which maps it and reads its metadata and preview alone; the \
        metadata read with gexiv2 in the helper; `viewer.details`'s `ms`). In the viewer, opened on the DNG, then Left, Left and End: from the page \
        until the facts are shown, and until the photo is (its first picture: the camera's preview \
        enlarged, or the decode). Median of \(rounds) launch\(rounds == 1 ? "" : "es"), each with a \
        fresh cache.
        """)
    let kinds = ["camera JPEG", "HEIC", "DNG"]
    report.table(
        ["photo", "list: selected → facts", "viewer: paged → facts", "viewer: paged → photo shown"],
        names.enumerated().map { n, name in
            [
                kinds[n], ms(median(inList[name]?.facts ?? [0]) / 1000, 1),
                ms(median(inViewer[name]?.facts ?? [0]) / 1000, 1),
                ms(median(inViewer[name]?.shown ?? [0]) / 1000, 1),
            ]
        })
    // After the photo is shown: in the viewer the facts come with its header, before its pixels.
    let lag =
        names.map { name in
            median(inViewer[name]?.facts ?? [0]) - median(inViewer[name]?.shown ?? [0])
        }.max() ?? 0
    let listWorst = names.map { median(inList[$0]?.facts ?? [0]) }.max() ?? 0
    report.target(
        "details panel: key → panel filled, camera JPEG / HEIC / RAW", target: "≤ 50 ms after the photo is shown",
        measured: "viewer: \(format(max(lag, 0), 1)) ms after (facts \(format(-lag, 1)) ms before the photo); "
            + "list: \(format(listWorst, 1)) ms from the key (slowest)",
        met: lag <= 50 && listWorst <= 50)
}

// MARK: Reading many

/// Drops the page cache's copy of the file at `path` (as if not read since the machine started).
private func evict(_ path: String) {
    let file = open(path, O_RDONLY | O_CLOEXEC)
    guard file >= 0 else { return }
    _ = posix_fadvise(file, 0, 0, Int32(POSIX_FADV_DONTNEED))
    close(file)
}

/// A file's first `count` bytes.
private func head(_ path: String, _ count: Int) -> Data? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    return try? handle.read(upToCount: count)
}

@MainActor
private func benchmarkMetadataRead(_ camera: CameraFolder, report: Report) throws {
    let scratch = try temporaryFolder("metadata")
    defer { try? FileManager.default.removeItem(at: scratch) }
    // 1,000 files: each camera photo, copied with its EXIF completed by exiftool, then hard
    // links to those copies (a link's pages are its file's: evicting one evicts them all).
    let tagged = scratch.appendingPathComponent("tagged", isDirectory: true)
    try FileManager.default.createDirectory(at: tagged, withIntermediateDirectories: true)
    var originals: [String] = []
    for photo in camera.photos {
        let copy = tagged.appendingPathComponent(photo.url.lastPathComponent)
        try FileManager.default.copyItem(at: photo.url, to: copy)
        originals.append(copy.path)
    }
    guard
        tool(
            CameraFolder.exiftool,
            [
                "-q", "-overwrite_original", "-Make=Canon", "-Model=Canon EOS 5D Mark IV",
                "-LensModel=EF24-105mm f/4L IS USM", "-ExposureTime=1/250", "-FNumber=8", "-ISO=200",
                "-DateTimeOriginal=2021:07:04 18:30:05", "-GPSLatitude=48.8584", "-GPSLatitudeRef=N",
                "-GPSLongitude=2.2945", "-GPSLongitudeRef=E", tagged.path,
            ])
    else { throw BenchError("exiftool could not tag the photos") }
    let links = scratch.appendingPathComponent("links", isDirectory: true)
    try FileManager.default.createDirectory(at: links, withIntermediateDirectories: true)
    let paths = try (0..<1000).map { n -> String in
        let path = links.appendingPathComponent(String(format: "IMG_%04d.jpg", n)).path
        try FileManager.default.linkItem(atPath: originals[n % originals.count], toPath: path)
        return path
    }
    func cold<T>(_ body: () throws -> T) rethrows -> (T, Double) {
        for path in originals { evict(path) }
        let start = LoopbackServer.now()
        let value = try body()
        return (value, LoopbackServer.now() - start)
    }
    // The panel's reader: a JPEG's metadata lies before its pixels (its first 256 KB here),
    // read with gexiv2 in a decoder helper; one photo at a time.
    let (panelRead, panelSeconds) = cold {
        paths.filter { path in head(path, 256 << 10).flatMap { Decoding.details($0) }?.camera != nil }.count
    }
    // The index's reader (sorting by date taken, the search's dates and cameras): the app's
    // own EXIF reader on the first 16 KB, in this process.
    let (indexRead, indexSeconds) = cold {
        paths.filter { path in
            path.withCString { SortFacts.read(path: $0, taken: true, index: nil)?.taken?.hasPrefix("2021") == true }
        }.count
    }
    let fields = ["-DateTimeOriginal", "-Make", "-Model", "-LensModel", "-ExposureTime", "-FNumber", "-ISO"]
    let (exiftoolResult, exiftoolSeconds) = try cold {
        try run(
            URL(fileURLWithPath: CameraFolder.exiftool),
            ["-fast", "-json", "-n"] + fields + ["-GPSPosition", links.path],
            timeout: 600)
    }
    let exiftoolRead = exiftoolResult.stdout.components(separatedBy: "\"Make\"").count - 1
    guard panelRead == paths.count, exiftoolRead == paths.count else {
        throw BenchError("read \(panelRead) (panel) and \(exiftoolRead) (exiftool) of \(paths.count)")
    }
    report.add(
        """
        The metadata of \(paths.count) camera photos (12 MP JPEGs, EXIF completed by exiftool; \(originals.count) \
        files, the rest hard links to them) read with an empty page cache (each file evicted with \
        `posix_fadvise` first), one photo at a time: by the details panel's reader (the file's first 256 KB, \
        gexiv2 in a decoder helper: camera, lens, exposure, date and zone, GPS, author, …), by the index's \
        (the app's own EXIF reader on the first 16 KB, in the app: date, camera, orientation, size; what \
        sorting by date and the search use), and by `exiftool -fast -json -n` asked for the same fields.
        """)
    report.table(
        ["reader", "\(paths.count) photos", "per photo", "× exiftool"],
        [
            ("details panel (gexiv2, helper)", panelSeconds), ("index (own reader)", indexSeconds),
            ("exiftool -fast", exiftoolSeconds),
        ].map { name, seconds in
            [name, ms(seconds), ms(seconds / Double(paths.count), 2), format(seconds / exiftoolSeconds, 2) + " ×"]
        })
    report.target(
        "metadata read for a folder of 1,000 camera photos (cold), beside `exiftool -fast` on the same files",
        target: "≤ 0.5 × exiftool's time",
        measured: "\(ms(panelSeconds)) (panel's reader, \(format(panelSeconds / exiftoolSeconds, 2)) ×), "
            + "\(ms(indexSeconds)) (index's, \(format(indexSeconds / exiftoolSeconds, 2)) ×) vs \(ms(exiftoolSeconds))",
        met: panelSeconds <= 0.5 * exiftoolSeconds)
    _ = indexRead
}
