// Measures Classic Photos and prints the figures, as Markdown, next to peer tools and plain
// baselines run on the same input in the same run; `--write FILE` also writes them out as a
// whole document (BENCHMARKS.md). Photos of camera size are generated at the start of the run.
//
// Sections (all by default; `--only a,b` for some):
//   thumbnails  row thumbnails: this app vs vipsthumbnail, ImageMagick, gdk-pixbuf-thumbnailer
//   sepia       sepia on a 12 MP image vs a plain copy and ImageMagick
//   visible     first and last visible thumbnail: the app's queues vs a plain per-core pool
//   pipeline    the pipeline vs curl on a loopback HTTP server at several delays
//   lists       reading photo lists of 10,000 and 1,000,000 entries
//   launch      the app from launch to its first screen of rows, vs a lower bound
//   scroll      the app while wheel-scrolling 10,000 rows (frame intervals, operations,
//               End / Home stalls, peak memory) vs the tutorial's synchronous list
//   cache       cold vs warm launch against a loopback server with a delay
//   folder      a folder of 120 camera photos opened cold and warm, vs eog and gThumb
//   bigfolder   folders of 20,000 and 100,000 pictures (hard links to those photos), cold and
//               warm: first row, first screen, whole list, main-loop stalls; vs eog and gThumb
//   burst       2,000 and then 10,000 pictures arriving in an open folder of 20,000: time until
//               the list holds them, main-loop stalls
//   web         the same photos as a web list over a paced link: first screen and bytes sent
//   grid        the grid at 1200 × 850: the camera folder cold vs gThumb's browser, End to the
//               last screen, wheel over 10,000 cells vs a plain GtkGridView, 100,000 cells' memory
//   many        list → grid on folders of 500 to 100,000 pictures (aborts, three tries each), and
//               10,000 pictures to the trash and back vs `gio trash` on the same files
//   marks       stars on one photo and on 10,000 (on screen, sidecars synced) vs exiftool
//   filter      the filter by stars over 100,000 photos (index warm), and 10,000 cold vs exiftool
//   search      Ctrl+F over 100,000 photos: each key typed until the list shows what it finds
//   details     the details panel (F9) over a camera JPEG, a HEIC and a DNG, in the list and the
//               viewer; 1,000 photos' metadata read cold vs exiftool -fast; a public corpus of
//               camera files read by the panel's reader vs exiftool
//   culling     the viewer paging through camera photos, one Right a second and Right held, vs
//               a plain decode of the same photos
//   app         big lists (10,000 and 1,000,000 rows) opened in the app
//   edit        the editor's lossless crop and turn of a 24 MP JPEG, saved, vs jpegtran
//   edit-phone  a phone's 12 MP HEIC turned and saved again (vs ImageMagick), a 24 MP RAW file cropped to a JPEG
//   videos      a video's thumbnail vs ffmpegthumbnailer, the bytes it reads, a phone's folder of
//               photos and videos cold vs the photos alone, the viewer's open → first frame
//
// Usage: classic-photos-bench [--write FILE] [--rounds N] [--rows N] [--latency MS] [--only SECTIONS]
import CGLib
import Foundation
import GLibKit
import PhotoPipeline
import TestSupport

struct Options {
    static let allSections = [
        "thumbnails", "sepia", "visible", "pipeline", "lists", "launch", "scroll", "cache", "folder", "bigfolder",
        "burst", "web", "grid", "tree", "share", "colour", "many", "marks", "filter", "search", "culling", "app",
        "edit", "edit-phone",
        "videos", "details",
    ]
    var rounds = 5
    var rows = 64
    var latencies = [0, 30, 100]
    var sections = Set(Options.allSections)
    var write: String?

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--only":
                let names = (rest.popFirst() ?? "").split(separator: ",").map(String.init)
                guard !names.isEmpty, names.allSatisfy(Options.allSections.contains) else {
                    throw BenchError("--only needs some of: \(Options.allSections.joined(separator: ","))")
                }
                sections = Set(names)
            case "--write":
                guard let path = rest.popFirst() else { throw BenchError("--write needs a file") }
                write = path
            default:
                guard let value = rest.popFirst().flatMap(Int.init), value >= 0 else {
                    throw BenchError("\(argument) needs a number")
                }
                switch argument {
                case "--rounds": rounds = max(1, value)
                case "--rows": rows = max(1, value)
                case "--latency": latencies = [value]
                default: throw BenchError("unknown option \(argument)")
                }
            }
        }
    }

    /// Rounds for the sections that run the app under Xvfb (each round is several seconds).
    var appRounds: Int { min(rounds, 3) }
}

@MainActor
func runBenchmarks(_ arguments: [String]) async -> Int32 {
    do {
        let options = try Options(arguments)
        let started = LoopbackServer.now()
        let startLoad = loadAverage()
        let machine = Machine.describe()
        let report = Report()
        say("classic-photos-bench \(AppInfo.version): \(machine.cpu), \(machine.cores) cores, \(machine.memory)\n")
        let wants = { (name: String) in options.sections.contains(name) }
        let camera =
            ["thumbnails", "visible", "launch", "scroll", "cache", "grid", "colour"].contains(where: wants)
            ? try CameraPhotos() : nil

        if wants("thumbnails"), let camera {
            try benchmarkThumbnails(camera: camera, rounds: options.rounds, report: report)
        }
        if wants("sepia") { try benchmarkSepia(rounds: options.rounds, report: report) }
        if wants("colour"), let camera {
            try benchmarkColour(camera: camera, rounds: options.rounds, report: report)
        }
        if wants("visible"), let camera {
            try await benchmarkVisibleRows(camera: camera, rounds: options.rounds, report: report)
        }
        if wants("pipeline") {
            try await benchmarkPipeline(
                rows: options.rows, latencies: options.latencies, rounds: options.rounds, report: report)
        }
        if wants("lists") { try benchmarkListParsing(rounds: options.rounds, report: report) }
        if wants("launch"), let camera {
            try benchmarkLaunch(camera: camera, rounds: options.appRounds, report: report)
        }
        if wants("scroll"), let camera {
            try benchmarkScrolling(camera: camera, rounds: options.appRounds, report: report)
        }
        if wants("cache"), let camera {
            try benchmarkColdWarm(camera: camera, rounds: options.appRounds, report: report)
        }
        if [
            "folder", "bigfolder", "burst", "web", "grid", "tree", "share", "many", "marks", "filter", "culling",
            "videos", "search", "details",
        ].contains(
            where: wants)
        {
            let folder = try CameraFolder()
            if wants("folder") { try benchmarkCameraFolder(folder, rounds: options.appRounds, report: report) }
            if wants("bigfolder") { try benchmarkBigFolders(folder, rounds: options.appRounds, report: report) }
            if wants("burst") { try benchmarkFolderBursts(folder, rounds: options.appRounds, report: report) }
            if wants("web") { try benchmarkWebList(folder, rounds: options.appRounds, report: report) }
            if wants("grid"), let camera {
                try benchmarkGrid(folder, camera: camera, rounds: options.appRounds, report: report)
            }
            if wants("tree") { try benchmarkPictureTree(folder, rounds: options.appRounds, report: report) }
            if wants("share") { try benchmarkShare(folder, rounds: options.appRounds, report: report) }
            if wants("many") { try benchmarkManyAtOnce(folder, rounds: options.appRounds, report: report) }
            if wants("marks") { try benchmarkMarks(folder, rounds: min(options.appRounds, 3), report: report) }
            if wants("filter") { try benchmarkFilter(folder, rounds: options.appRounds, report: report) }
            if wants("search") { try benchmarkSearch(folder, rounds: options.appRounds, report: report) }
            if wants("culling") { try benchmarkCulling(folder, rounds: options.appRounds, report: report) }
            if wants("videos") { try await benchmarkVideos(folder, rounds: options.appRounds, report: report) }
            if wants("details") { try benchmarkDetails(folder, rounds: options.appRounds, report: report) }
        }
        if wants("app") { try benchmarkBigListsInApp(rounds: options.appRounds, report: report) }
        if wants("edit") { try benchmarkEditing(rounds: options.rounds, report: report) }
        if wants("edit-phone") { try benchmarkPhoneEditing(rounds: options.rounds, report: report) }

        let seconds = LoopbackServer.now() - started
        say("## Targets\n\n" + report.targetTable)
        if let path = options.write {
            let command = "meson-helpers/run-bench.sh " + arguments.joined(separator: " ")
            let document = report.document(
                command: command, machine: machine, startLoad: startLoad,
                endLoad: loadAverage(), seconds: seconds)
            try Data(document.utf8).write(to: URL(fileURLWithPath: path))
            say("Wrote \(path) (\(Int(seconds.rounded())) s).")
        }
        return 0
    } catch {
        FileHandle.standardError.write(Data("classic-photos-bench: \(error)\n".utf8))
        return 1
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains(PlainGrid.flag) {
    // A child run by the "grid" section: a plain grid of pictures, under Xvfb.
    exit(PlainGrid.main(arguments))
}
if arguments.contains(SynchronousList.flag) || arguments.contains(SynchronousList.plainFlag) {
    // A child run by the "scroll" section: the tutorial's first, synchronous list (or the plain
    // list of names), under Xvfb.
    exit(SynchronousList.main(arguments))
}
// As in the app, the main thread runs the GLib main loop and Swift's main actor inside it, so
// what the pipeline sends back to the main actor (`MainLoop.onMainActor`) arrives as it does
// in the app.
MainActorLoop.install()
let loop = g_main_loop_new(nil, 0)
final class ExitStatus: @unchecked Sendable { var value: Int32 = 1 }
let status = ExitStatus()
Task { @MainActor in
    status.value = await runBenchmarks(arguments)
    g_main_loop_quit(loop)
}
g_main_loop_run(loop)
exit(status.value)
