// The filter: a tree of 100,000 pictures whose marks the index holds (as once read from their
// sidecars), filtered by stars from the funnel's menu: from the choice until the list shows the
// photos that pass; and a folder of 10,000 with sidecars the app has never read, filtered
// cold, beside exiftool picking the same photos from the same sidecars.
import Foundation
import PhotoPipeline
import TestSupport

/// The marks photo `n` is given: about a quarter starred (1 to 5), one in twenty rejected.
private func benchMarks(_ n: Int) -> PhotoMarks {
    let draw = (n &* 2_654_435_761) % 100
    return switch draw {
    case 0..<5: PhotoMarks(rating: -1)
    case 5..<30: PhotoMarks(rating: draw % 5 + 1, label: draw % 3 == 0 ? "Red" : nil)
    default: .none
    }
}

/// How many of `count` photos have `minimum` stars or more.
private func passing(_ count: Int, minimum: Int) -> Int {
    (0..<count).filter { benchMarks($0).stars >= minimum }.count
}

/// Presses `keys` in `app` and waits for the filter to settle at `shown` photos: the
/// milliseconds from the choice until then (`filter.changed`'s `elapsed`), and the main
/// thread's longest refilter.
private func filterRun(
    _ app: AppSession, keys: [String], shown: Int, delay: Int = 150
) throws -> (elapsed: Double, ms: Double) {
    let before = app.events().count
    try app.xdotool(["key", "--delay", "\(delay)"] + keys)
    let events = try app.waitFor("the filter at \(shown)", timeout: 300) { events in
        events.dropFirst(before).contains {
            if case .filterChanged(shown, _, false, _, _) = $0.event { true } else { false }
        }
    }
    var elapsed = 0.0, longest = 0.0
    for case .filterChanged(let count, _, let reading, let ms, let time) in events.dropFirst(before).map(\.event) {
        longest = max(longest, ms)
        if count == shown, !reading { elapsed = time }
    }
    return (elapsed, longest)
}

/// Keeps the marks of every picture under `top` in the index at `cache`, as read from files of
/// their size and time (what a launch that read their sidecars would have left).
private func seedIndex(_ paths: [String], cache: URL) throws {
    let folder = cache.appendingPathComponent("classic-photos", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let index = try PhotoIndex(path: folder.appendingPathComponent("index.sqlite").path)
    var held: [(path: String, marks: PhotoIndex.HeldMarks)] = []
    for (n, path) in paths.enumerated() {
        var status = stat()
        guard stat(path, &status) == 0 else { throw BenchError("no \(path)") }
        let modified = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
        held.append((path, .init(source: path, size: Int64(status.st_size), modified: modified, marks: benchMarks(n))))
    }
    index.remember(marks: held)
}

@MainActor
func benchmarkFilter(_ camera: CameraFolder, rounds: Int, report: Report) throws {
    let scratch = try temporaryFolder("filter")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let display = try XvfbDisplay(width: 1280, height: 900)

    // 100,000 pictures in a tree, their marks in the index.
    let tree = try PictureTree(linking: camera.photos, in: scratch)
    let treeCache = scratch.appendingPathComponent("tree-cache", isDirectory: true)
    let paths = try FileManager.default.subpathsOfDirectory(atPath: tree.top.path).filter { $0.hasSuffix(".jpg") }
        .sorted().map { tree.top.path + "/" + $0 }
    try seedIndex(paths, cache: treeCache)
    // The photos' own order is their names' in the tree: the marks follow the sorted paths.
    let three = passing(paths.count, minimum: 3), four = passing(paths.count, minimum: 4)
    var first: [Double] = [], again: [Double] = [], cleared: [Double] = [], longest = 0.0
    var ranked: [Double] = [], rankedMark: [Double] = []
    for round in 0..<rounds {
        let (app, _) = try launchToFirstScreen(
            arguments: ["--recursive", tree.top.path], environment: ["XDG_CACHE_HOME": treeCache.path],
            display: display)
        defer { _ = app.terminate() }
        _ = try app.waitFor(event: .sourceLoaded, timeout: 300)
        usleep(1_000_000)
        let byThree = try filterRun(app, keys: ["ctrl+shift+f", "3"], shown: three)
        let byFour = try filterRun(app, keys: ["ctrl+shift+f", "4"], shown: four)
        let none = try filterRun(app, keys: ["Escape"], shown: tree.count)
        // Sort By → Rating (the menu's letters, a moment for each menu to open), then a mark
        // given to the photo selected, which moves it.
        let byRating = try filterRun(app, keys: ["F10", "s", "r"], shown: tree.count, delay: 400)
        try app.clickRow(0)
        try app.xdotool(["key", "Escape"])
        // X: rejected, or no longer, whatever it was, so it always moves.
        let marked = try filterRun(app, keys: ["x"], shown: tree.count)
        // Ctrl+Z gives it its marks back (written, so that the next launch finds the same).
        let undone = app.events().count
        _ = try filterRun(app, keys: ["ctrl+z"], shown: tree.count)
        _ = try app.waitFor("the marks written back", timeout: 60) { events in
            events.dropFirst(undone).contains { $0.event.batchEnded?.kind == .mark }
        }
        ranked.append(byRating.elapsed)
        rankedMark.append(marked.ms)
        first.append(byThree.elapsed)
        again.append(byFour.elapsed)
        cleared.append(none.elapsed)
        longest = max(longest, byThree.ms, byFour.ms, none.ms)
        say("(filter: round \(round + 1): \(format(byThree.elapsed, 0)) ms, then \(format(byFour.elapsed, 0)) ms)")
    }

    // 10,000 pictures with sidecars never read, filtered cold; exiftool picking the same.
    let folder = try BigFolder(count: 10_000, linking: camera.photos, in: scratch)
    for n in 0..<folder.count {
        let marks = benchMarks(n)
        guard !marks.isEmpty else { continue }
        let rating = "<xmp:Rating>\(marks.rating)</xmp:Rating>"
        let label = marks.label.map { "<xmp:Label>\($0)</xmp:Label>" } ?? ""
        let sidecar = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/">\(rating)\(label)\
            </rdf:Description></rdf:RDF></x:xmpmeta>
            """
        try Data(sidecar.utf8).write(to: folder.folder.appendingPathComponent(BigFolder.name(n) + ".xmp"))
    }
    let sidecars = (0..<folder.count).filter { !benchMarks($0).isEmpty }.count
    let coldThree = passing(folder.count, minimum: 3)
    var cold: [Double] = [], peer: [Double] = []
    for _ in 0..<rounds {
        let cache = try temporaryFolder("filter-cold")
        defer { try? FileManager.default.removeItem(at: cache) }
        let (app, _) = try launchToFirstScreen(
            arguments: [folder.folder.path], environment: ["XDG_CACHE_HOME": cache.path], display: display)
        defer { _ = app.terminate() }
        _ = try app.waitFor(event: .sourceLoaded, timeout: 120)
        usleep(1_000_000)
        cold.append(try filterRun(app, keys: ["ctrl+shift+f", "3"], shown: coldThree).elapsed)
        let start = LoopbackServer.now()
        let picked = try run(
            URL(fileURLWithPath: CameraFolder.exiftool),
            ["-q", "-ext", "xmp", "-if", "$XMP-xmp:Rating >= 3", "-p", "$FileName", folder.folder.path], timeout: 900)
        peer.append(LoopbackServer.now() - start)
        let names = picked.stdout.split(separator: "\n").count
        guard names == coldThree else { throw BenchError("exiftool picked \(names), not \(coldThree)") }
    }

    report.heading("Filter")
    report.add(
        """
        The funnel's menu in the app at 1200 × 850 (Ctrl+Shift+F, then 3: three stars or more), timed by its \
        trace: from the choice until the list shows every photo that passes (`filter.changed`'s `elapsed` once \
        no marks are being read). A tree of \(tree.count) pictures in \(tree.folders) folders (`--recursive`), \
        whose marks the index holds (a quarter starred, one in twenty rejected, as a launch that read their \
        sidecars leaves them): the first filter of a launch (the index read), then 4 (the marks known), then \
        Escape (all again); median of \(rounds) launch\(rounds == 1 ? "" : "es"), and the main thread's longest \
        refilter. Then a folder of \(folder.count) pictures with \(sidecars) sidecars the app has never read \
        (a fresh cache), filtered by 3 stars, beside exiftool picking the same photos from the same sidecars \
        (`-ext xmp -if '$XMP-xmp:Rating >= 3'`).
        """)
    report.table(
        ["", "photos shown", "choice → list shown"],
        [
            ["\(tree.count) photos, index warm: 3 stars or more", "\(three)", ms(median(first) / 1000, 1)],
            ["… then 4 stars or more", "\(four)", ms(median(again) / 1000, 1)],
            ["… then Escape (every photo)", "\(tree.count)", ms(median(cleared) / 1000, 1)],
            ["… then Sort By → Rating", "\(tree.count)", ms(median(ranked) / 1000, 1)],
            ["… then X on the photo selected (it moves)", "\(tree.count)", ms(median(rankedMark) / 1000, 1)],
            ["\(folder.count) photos, sidecars not read yet: 3 stars", "\(coldThree)", ms(median(cold) / 1000)],
            ["exiftool, the same sidecars", "\(coldThree)", ms(median(peer))],
        ])
    report.add("Longest refilter on the main thread: \(format(longest, 1)) ms.")
    report.target(
        "filter by stars over 100,000 photos (index warm): change → list shown", target: "≤ 100 ms",
        measured: ms(median(first) / 1000, 1) + " (then " + ms(median(again) / 1000, 1) + ")",
        met: median(first) <= 100 && median(again) <= 100)
}
