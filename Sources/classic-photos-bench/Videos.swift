// Videos: a video's thumbnail (its frame, read in a decoder helper) beside ffmpegthumbnailer on
// the same file, the bytes it reads, a phone-like folder of photos and videos opened cold beside
// the same folder without the videos, and the viewer's time from opening a video to its first
// frame.
import Foundation
import GLibKit
import PhotoPipeline
import TestSupport

/// One-minute 1080p clips made with ffmpeg (H.264 at 8 Mbit/s with AAC sound, a keyframe every
/// 2 s), two with their index at the end as Android phones write it, two at the start.
private func makeClips(in folder: URL) async throws -> [URL] {
    var clips: [URL] = []
    for n in 0..<4 {
        var options = TestVideos.Options()
        options.colour = nil
        options.width = 1920
        options.height = 1080
        options.seconds = 60
        options.bitrate = "8M"
        options.audio = true
        options.indexFirst = n % 2 == 1
        options.preset = "ultrafast"
        options.gop = 60
        options.creationTime = "2024-05-0\(n + 1)T10:20:30Z"
        let url = folder.appendingPathComponent("clip-\(n).mp4")
        try await TestVideos.make(url, options)
        clips.append(url)
    }
    return clips
}

@MainActor
func benchmarkVideos(_ folder: CameraFolder, rounds: Int, report: Report) async throws {
    let root = try temporaryFolder("videos")
    defer { try? FileManager.default.removeItem(at: root) }
    let made = LoopbackServer.now()
    let clips = try await makeClips(in: root)
    let madeSeconds = LoopbackServer.now() - made
    let sizes = clips.map { (try? FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? Int) ?? 0 }
    let side = 256

    // The thumbnail, one video at a time: ours in a decoder helper (started before the clock
    // runs, as the app keeps its helpers), ffmpegthumbnailer as a process on the same file.
    func ours(_ url: URL) throws -> VideoFacts {
        let stream = try PhotoFetcher.openFile(url, cancellable: Cancellable(), byteLimit: .max)
        return try Decoding.videoFrame(.stream(stream), size: .fit(side), cancellable: Cancellable()).1
    }
    _ = try ours(clips[0])
    var facts: [VideoFacts] = []
    let oursSeconds = try timed(rounds: rounds) { facts = try clips.map(ours) }
    let output = root.appendingPathComponent("thumbnail.png")
    let thumbnailer = "/usr/bin/ffmpegthumbnailer"
    let hasThumbnailer = FileManager.default.isExecutableFile(atPath: thumbnailer)
    let theirsSeconds =
        hasThumbnailer
        ? timed(rounds: rounds) {
            for clip in clips { _ = tool(thumbnailer, ["-i", clip.path, "-o", output.path, "-s", String(side)]) }
        } : nil
    let perOurs = oursSeconds / Double(clips.count)
    let perTheirs = theirsSeconds.map { $0 / Double(clips.count) }
    let shares = zip(facts, sizes).map { Double($0.bytesRead) / Double(max(1, $1)) }

    // A phone's folder: the camera photos, and one video after every fifth photo (hard links
    // to the clips), against the same photos alone; each launched with an empty cache.
    let photosOnly = root.appendingPathComponent("photos", isDirectory: true)
    let phone = root.appendingPathComponent("phone", isDirectory: true)
    for made in [photosOnly, phone] {
        try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true)
    }
    var videoCount = 0
    for (n, photo) in folder.photos.enumerated() {
        let name = String(format: "PXL_%04d.jpg", n * 2)
        for target in [photosOnly, phone] {
            guard link(photo.url.path, target.appendingPathComponent(name).path) == 0 else {
                throw BenchError("could not link \(name): \(String(cString: strerror(errno)))")
            }
        }
        if n % 5 == 2 {
            let clip = clips[videoCount % clips.count]
            videoCount += 1
            guard link(clip.path, phone.appendingPathComponent(String(format: "PXL_%04d.mp4", n * 2 + 1)).path) == 0
            else { throw BenchError("could not link a clip: \(String(cString: strerror(errno)))") }
        }
    }
    var withVideos: [Double] = [], without: [Double] = []
    var rows = 0
    for _ in 0..<rounds {
        for (target, into) in [(photosOnly, 0), (phone, 1)] {
            let cache = try temporaryFolder("video-cache")
            defer { try? FileManager.default.removeItem(at: cache) }
            let (app, screen) = try launchToFirstScreen(target.path, environment: ["XDG_CACHE_HOME": cache.path])
            _ = app.terminate()
            if into == 0 { without.append(screen.t) } else { withVideos.append(screen.t) }
            rows = screen.rows.count
        }
    }
    let ratio = median(withVideos) / median(without)

    // The viewer: a folder of the clips, each opened in turn (a click, then Right).
    let viewerFolder = root.appendingPathComponent("viewer", isDirectory: true)
    try FileManager.default.createDirectory(at: viewerFolder, withIntermediateDirectories: true)
    for (n, clip) in clips.enumerated() {
        _ = link(clip.path, viewerFolder.appendingPathComponent("clip-\(n).mp4").path)
    }
    // GStreamer keeps a registry of its plugins in the cache folder, made on its first start
    // there (half a second) and read in milliseconds afterwards, as on a person's desktop:
    // the launches share one cache folder, the first launch (which makes it) reported apart.
    let playerCache = try temporaryFolder("video-player-cache")
    defer { try? FileManager.default.removeItem(at: playerCache) }
    /// Opens the first item of `folder` with a click and each next one with Right: from each
    /// move to its `viewer.play`, in seconds.
    func pageThrough(_ folder: URL, count: Int) throws -> [Double] {
        let (app, _) = try launchToFirstScreen(folder.path, environment: ["XDG_CACHE_HOME": playerCache.path])
        defer { _ = app.terminate() }
        try app.clickRow(0)
        var times: [Double] = []
        for n in 0..<count {
            if n > 0 { _ = try app.xdotool(["key", "Right"]) }
            let events = try app.waitFor("item \(n) playing", timeout: 30) { events in
                events.filter { $0.event.name == .viewerPlay }.count > n
            }
            if case .viewerPlay(_, let ms)? = events.filter({ $0.event.name == .viewerPlay }).last?.event {
                times.append(ms / 1000)
            }
        }
        return times
    }
    let registryMade = try pageThrough(viewerFolder, count: 1).first ?? 0
    var firstFrames: [Double] = [], firstOpens: [Double] = []
    for _ in 0..<rounds {
        let times = try pageThrough(viewerFolder, count: clips.count)
        firstOpens += times.prefix(1)
        firstFrames += times
    }
    let firstFrame = median(firstFrames)

    // Motion photos: four of the camera photos, each with a 3-second 1080p clip after it as a
    // Pixel writes one, paged through in the viewer as the clips were.
    var short = TestVideos.Options()
    short.colour = nil
    short.width = 1920
    short.height = 1080
    short.seconds = 3
    short.indexFirst = true
    let shortClip = root.appendingPathComponent("short.mp4")
    try await TestVideos.make(shortClip, short)
    let clipBytes = try Data(contentsOf: shortClip)
    let motionFolder = root.appendingPathComponent("motion", isDirectory: true)
    try FileManager.default.createDirectory(at: motionFolder, withIntermediateDirectories: true)
    for (n, photo) in folder.photos.prefix(4).enumerated() {
        try TestVideos.motionPhoto(try Data(contentsOf: photo.url), clip: clipBytes, style: .container)
            .write(to: motionFolder.appendingPathComponent(String(format: "PXL_%04d.MP.jpg", n)))
    }
    var clipStarts: [Double] = [], firstClipStarts: [Double] = []
    for _ in 0..<rounds {
        let times = try pageThrough(motionFolder, count: 4)
        firstClipStarts += times.prefix(1)
        clipStarts += times.dropFirst()
    }
    let clipStart = median(clipStarts)

    report.heading("Videos")
    let totalMB = Double(sizes.reduce(0, +)) / 1_048_576
    report.add(
        """
        \(clips.count) one-minute 1920×1080 clips made with ffmpeg (H.264 at 8 Mbit/s, a keyframe \
        every 2 s, AAC sound; two with their index at the end as Android phones write it, two at \
        the start; \(format(totalMB, 0)) MB in all, made in \(format(madeSeconds, 0)) s). \
        **Thumbnail**: the frame that stands for each (a tenth of the way in), \(side) px on its \
        longer side, one at a time, median of \(rounds) rounds over the \(clips.count): ours \
        through a decoder helper as the list reads a local video (the frame found through the \
        container's index, one keyframe decoded; the helper started before the clock runs), \
        `ffmpegthumbnailer -s \(side)` as one process per clip on the same file (its start-up and \
        its PNG included, which ours does not have to do). **Phone folder**: \
        \(folder.photos.count) camera photos with a clip (hard links to the four) after every \
        fifth, \(videoCount) in all, named as a Pixel names them so that videos are on the first \
        screen, launched with an empty cache (`XDG_CACHE_HOME`) to the first screen of \
        \(rows) rows done, against the same photos without the videos, median of \(rounds) \
        rounds. **Viewer**: the app on a folder of the clips, the first opened with a click and \
        each next one with Right; from the move to GStreamer's first frame shown (`viewer.play`), \
        median of the \(firstFrames.count) opens, the first of each launch also apart. GStreamer \
        makes a registry of its plugins in the cache folder the first time it starts there (and \
        again when plugins change), which takes half a second; the launches share one cache \
        folder, as a person's desktop has, and the very first open, which made it, is reported \
        apart. **Motion photos**: four of the camera photos, \
        each with a 3-second 1080p clip after it as a Pixel writes one (XMP container directory), \
        paged through the same way: from the move to the clip's first frame (the photo's info \
        read in a decoder helper first, where its clip is found); the first of each launch apart.
        """)
    report.table(
        ["figure", "classic-photos", "beside"],
        [
            [
                "a clip's thumbnail", ms(perOurs, 1),
                perTheirs.map { "ffmpegthumbnailer \(ms($0, 1))" } ?? "ffmpegthumbnailer not installed",
            ],
            [
                "bytes read for it", shares.map { format($0 * 100, 2) + " %" }.joined(separator: ", "),
                "of each clip (\(facts.map { "\($0.bytesRead >> 10) KB" }.joined(separator: ", ")))",
            ],
            [
                "phone folder, cold: first screen", ms(median(withVideos)),
                "the photos alone: \(ms(median(without)))",
            ],
            [
                "viewer: open a clip → first frame", ms(firstFrame),
                "the first of a launch: \(ms(median(firstOpens))); the very first, GStreamer's registry made: \(ms(registryMade))",
            ],
            [
                "viewer: motion photo shown → clip playing", ms(clipStart),
                "the first of a launch: \(ms(median(firstClipStarts)))",
            ],
        ])
    report.target(
        "phone-like folder, cold: first screen", target: "≤ 1.2 × without the videos",
        measured: format(ratio, 2) + " × (\(ms(median(withVideos))) against \(ms(median(without))))",
        met: ratio <= 1.2)
    if let perTheirs {
        report.target(
            "a video's thumbnail beside ffmpegthumbnailer", target: "≤ 1.0 × its time",
            measured: format(perOurs / perTheirs, 2) + " × (\(ms(perOurs, 1)) against \(ms(perTheirs, 1)))",
            met: perOurs <= perTheirs)
    }
    report.target(
        "bytes read for a video's thumbnail", target: "≤ 5 % of the file",
        measured: "at most " + format((shares.max() ?? 0) * 100, 2) + " %", met: (shares.max() ?? 1) <= 0.05)
    report.target(
        "viewer: open a 1080p video → first frame", target: "≤ 300 ms",
        measured: "\(ms(firstFrame)) (the first of a launch: \(ms(median(firstOpens))))",
        met: firstFrame <= 0.3 && median(firstOpens) <= 0.3)
    report.target(
        "motion photo: shown → clip playing", target: "≤ 300 ms",
        measured: "\(ms(clipStart)) (the first of a launch: \(ms(median(firstClipStarts))))",
        met: clipStart <= 0.3 && median(firstClipStarts) <= 0.3)
}
