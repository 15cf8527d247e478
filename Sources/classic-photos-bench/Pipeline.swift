// The pipeline over HTTP: photos fetched from a loopback server with a set delay per response,
// through `PhotoProcessor` and its two operation queues at several download widths, against
// curl fetching the same addresses in parallel.
import Foundation
import GLibKit
import PhotoPipeline
import TestSupport

@MainActor
func benchmarkPipeline(rows: Int, latencies: [Int], rounds: Int, report: Report) async throws {
    report.heading("The pipeline against curl, over loopback HTTP")
    let names = [
        "astronaut.jpg", "coffee.jpg", "chelsea-the-cat.jpg", "rocket-launch.jpg", "retina.jpg", "cameraman.jpg",
    ]
    report.add(
        """
        \(rows) of the bundled photos (\(names.joined(separator: ", ")), one address per row) served \
        by a real HTTP server on 127.0.0.1 that answers each photo after a set delay. \
        classic-photos fetches, decodes to the row's size and turns sepia every row through \
        `PhotoProcessor` and its two operation queues; curl only fetches, \
        \(PendingOperations.defaultDownloadConcurrency) at once. Median of \(rounds) rounds \
        (one download at a time: \(min(rounds, 3))).
        """)
    let server = try LoopbackServer()
    let urls = (0..<rows).map { server.url("/photos/\(names[$0 % names.count])?row=\($0)") }
    var table: [[String]] = []
    for latencyMs in latencies {
        server.photoLatencyMs.store(latencyMs, ordering: .relaxed)
        for width in [1, 4, PendingOperations.defaultDownloadConcurrency] {
            var times: [Double] = []
            for _ in 0..<(width == 1 ? min(rounds, 3) : rounds) {
                let fetcher = PhotoFetcher(maxConnections: max(width, 2))
                let feed = PhotoListFeed(loader: PhotoSourceLoader(fetcher: fetcher))
                let processor = PhotoProcessor(
                    list: feed.list, fetcher: fetcher, pendingOperations: PendingOperations(downloads: width),
                    prefetchMargin: 0)
                feed.show(urls.enumerated().map { PhotoEntry(name: "\($0.offset)", url: $0.element) })
                let start = LoopbackServer.now()
                processor.visibleRowsChanged(0..<rows)
                let ids = (0..<rows).map { processor.list.id(at: $0) }
                var photos = ids.compactMap { processor.snapshot(of: $0) }
                while photos.contains(where: { $0.state == .new || $0.state == .downloaded })
                    || processor.hasWorkInFlight
                {
                    await MainLoop.turn(milliseconds: 2)
                    photos = ids.compactMap { processor.snapshot(of: $0) }
                }
                times.append(LoopbackServer.now() - start)
                if let failed = photos.firstIndex(where: { $0.state == .failed }) {
                    throw BenchError("row \(failed) failed: \(photos[failed].failure?.detail ?? "?")")
                }
            }
            let seconds = median(times)
            let label = width == PendingOperations.defaultDownloadConcurrency ? " (the app's default)" : ""
            table.append([
                "\(latencyMs) ms",
                "classic-photos, \(width) download\(width == 1 ? "" : "s") at once\(label): fetch, decode, sepia",
                ms(seconds), format(Double(rows) / seconds),
            ])
        }
        let curl =
            ["--silent", "--fail", "--parallel", "--parallel-max", "\(PendingOperations.defaultDownloadConcurrency)"]
            + urls.flatMap { ["--output", "/dev/null", $0.absoluteString] }
        if tool("/usr/bin/curl", curl) {
            let seconds = timed(rounds: rounds) { tool("/usr/bin/curl", curl) }
            table.append([
                "\(latencyMs) ms", "curl `--parallel-max \(PendingOperations.defaultDownloadConcurrency)`: fetch only",
                ms(seconds), format(Double(rows) / seconds),
            ])
        } else {
            table.append(["\(latencyMs) ms", "curl: not installed", "", ""])
        }
    }
    report.table(["server delay", "\(rows) photos", "time", "photos/s"], table)
}
