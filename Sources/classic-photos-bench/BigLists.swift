import Foundation
import PhotoPipeline
import TestSupport

/// Opens array lists of `count` photos (the bundled ones, by absolute address) in the real app
/// and reports what a person would feel: how long until the list is there, whether the window
/// froze on the way, and what the rows cost in memory.
@MainActor
func benchmarkBigListsInApp(rounds: Int, report: Report) throws {
    let photos = Products.packageRoot.appendingPathComponent("data/photos")
    let files = try FileManager.default.contentsOfDirectory(atPath: photos.path).filter { $0.hasSuffix(".jpg") }
        .sorted()
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("classic-photos-app-lists-\(getpid())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    report.heading("Big lists in the app")
    report.add(
        "The real app (release build) under Xvfb with GTK's cairo renderer opens an array list of the "
            + "bundled photos by absolute address; median of \(rounds) rounds. Resident memory is read "
            + "2.5 s after the list was shown.")
    var table: [[String]] = []
    var resident: [Int: Double] = [:]
    var textPerRow: [Int: Double] = [:]
    var worstStall: [Int: Double] = [:]
    for count in [10_000, 100_000, 1_000_000] {
        var body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<array>\n"
        var text = 0
        for n in 0..<count {
            let name = String(format: "Photo %07d", n)
            let link = photos.appendingPathComponent(files[n % files.count]).absoluteString
            text += name.utf8.count + link.utf8.count
            body += "<dict><key>name</key><string>\(name)</string><key>url</key><string>\(link)</string></dict>\n"
        }
        body += "</array>\n</plist>\n"
        let list = folder.appendingPathComponent("list-\(count).plist")
        try Data(body.utf8).write(to: list)
        textPerRow[count] = Double(text) / Double(count)

        var shown: [Double] = [], stalls: [Double] = [], memory: [Double] = []
        for _ in 0..<rounds {
            let app = try AppSession(source: list.path)
            let loaded = try app.waitFor(event: .sourceLoaded, timeout: 120)
            guard loaded.event.rows == count else {
                throw BenchError("the app showed \(loaded.event.rows.map(String.init) ?? "?") rows")
            }
            // Settle: visible photos decoded, freed parse memory handed back.
            usleep(2_500_000)
            memory.append(Double(app.residentBytes ?? 0))
            let events = app.events()
            let start = events.first { $0.event.name == .sourceStart }?.t ?? 0
            shown.append(loaded.t - start)
            stalls.append(events.filter { $0.event.name == .mainloopStall }.compactMap(\.event.ms).max() ?? 0)
            _ = app.terminate()
        }
        resident[count] = median(memory)
        let worst = stalls.max() ?? 0
        worstStall[count] = worst
        let stall =
            worst == 0 ? "none over 16 ms" : "\(format(median(stalls), 0)) ms (worst round \(format(worst, 0)) ms)"
        table.append(["\(count)", ms(median(shown)), stall, format(median(memory) / 1_048_576, 0) + " MB"])
    }
    report.table(
        ["rows", "`source.start` to `source.loaded`", "longest main-loop stall while loading", "resident memory"], table
    )
    if let stall = worstStall[100_000] {
        report.target(
            "main-loop stall showing a 100,000-row list (worst round)", target: "< 50 ms",
            measured: stall == 0 ? "none over 16 ms" : format(stall, 1) + " ms", met: stall < 50)
    }
    if let small = resident[10_000], let big = resident[1_000_000], let text = textPerRow[1_000_000] {
        let perRow = (big - small) / Double(1_000_000 - 10_000)
        report.add(
            "Memory per row: \(format(perRow, 0)) bytes, of which the list's own text (names and addresses) "
                + "\(format(text, 0)) bytes: \(format(perRow - text, 0)) bytes a row beyond the text.")
    }
}
