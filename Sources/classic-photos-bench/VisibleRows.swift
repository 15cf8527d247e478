// First and last visible thumbnail: a screenful of camera photos through `PhotoProcessor` and
// its operation queues (as the app runs them, decoding in its confined helpers), against a
// plain pool of one thread per core decoding (in its own process) and filtering the same files
// with the same decoder and filter.
import Dispatch
import Foundation
import GLibKit
import PhotoPipeline
import Synchronization
import TestSupport

/// When each photo of a batch was done, in seconds from the batch's start.
struct BatchTimes {
    var first: Double
    var last: Double
}

/// Decodes and filters `urls` on `threads` threads taking the next photo as they go
/// (`concurrentPerform`), timing each photo's end.
func plainPool(_ urls: [URL], threads: Int) throws -> BatchTimes {
    let fetcher = PhotoFetcher()
    let sepia = SepiaFilter()
    let done = Locked<[Double]>([])
    let failures = Atomic<Int>(0)
    let next = Atomic<Int>(0)
    let start = LoopbackServer.now()
    DispatchQueue.concurrentPerform(iterations: threads) { _ in
        while true {
            let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
            guard index < urls.count else { return }
            if (try? thumbnail(urls[index], fetcher: fetcher, sepia: sepia, inHelper: false)) == nil {
                failures.add(1, ordering: .relaxed)
            }
            let end = LoopbackServer.now() - start
            done.withLock { $0.append(end) }
        }
    }
    guard failures.load(ordering: .relaxed) == 0 else { throw BenchError("the pool could not decode a photo") }
    let times = done.withLock { $0 }
    return BatchTimes(first: times.min() ?? 0, last: times.max() ?? 0)
}

/// Shows `urls` as the visible rows of a longer list (the same photos again below them, as
/// more rows of a list would be) and times the first and last visible row to reach its sepia
/// thumbnail.
@MainActor
func processorRun(_ urls: [URL]) async throws -> BatchTimes {
    let fetcher = PhotoFetcher()
    let feed = PhotoListFeed(loader: PhotoSourceLoader(fetcher: fetcher))
    let processor = PhotoProcessor(list: feed.list, fetcher: fetcher) // the app's queues, widths and prefetch margin
    let visible = 0..<urls.count
    let entries = (urls + urls).enumerated().map { PhotoEntry(name: "\($0.offset)", url: $0.element) }
    feed.show(entries)
    var filteredAt: [Int: Double] = [:]
    var failed = false
    let start = LoopbackServer.now()
    processor.observePhotos { snapshot in
        guard let position = processor.list.position(of: snapshot.id), visible.contains(position) else { return }
        let now = LoopbackServer.now() - start
        if snapshot.state == .filtered, filteredAt[position] == nil { filteredAt[position] = now }
        if snapshot.state == .failed { failed = true }
    }
    processor.visibleRowsChanged(visible)
    let deadline = start + 120
    while filteredAt.count < urls.count, !failed, LoopbackServer.now() < deadline {
        await MainLoop.turn(milliseconds: 1)
    }
    // Let the prefetched rows finish too, so the next round starts on idle cores.
    while processor.hasWorkInFlight, LoopbackServer.now() < deadline {
        await MainLoop.turn(milliseconds: 5)
    }
    processor.shutDown()
    guard !failed, filteredAt.count == urls.count else {
        throw BenchError("a visible row did not reach its sepia thumbnail")
    }
    return BatchTimes(first: filteredAt.values.min() ?? 0, last: filteredAt.values.max() ?? 0)
}

@MainActor
func benchmarkVisibleRows(camera: CameraPhotos, rounds: Int, report: Report) async throws {
    let cores = ProcessInfo.processInfo.activeProcessorCount
    let urls = camera.photos.map(\.url)
    report.heading("First and last visible thumbnail")
    report.add(
        """
        \(urls.count) visible rows, one of each generated camera photo (12 and 24 MP, baseline and \
        progressive, upright and EXIF-turned), in a list of \(2 * urls.count) rows. classic-photos: \
        `PhotoProcessor` as the app configures it (its download queue of \
        \(PendingOperations.defaultDownloadConcurrency), filtration queue of \
        \(PendingOperations.defaultFiltrationConcurrency), prefetch of 2 rows beyond the visible \
        ones, results delivered on the main actor), from the visible rows being set to each \
        visible row's sepia thumbnail. The plain pool: \(cores) threads (one per core, \
        `DispatchQueue.concurrentPerform`) taking the same files in turn through the same decoder \
        and filter, nothing else. Times from the start; median of \(rounds) rounds, the two \
        alternating. The app's downloads only check the local files (up to \
        \(PendingOperations.defaultDownloadConcurrency) at once); its filtrations decode and filter \
        them, \(PendingOperations.defaultFiltrationConcurrency) at a time, visible rows before the \
        prefetched ones, top first; the pool decodes \(cores) at a time, in list order.
        """)
    var ours: [BatchTimes] = [], pool: [BatchTimes] = []
    for _ in 0..<rounds {
        ours.append(try await processorRun(urls))
        pool.append(try plainPool(urls, threads: cores))
    }
    let oursFirst = median(ours.map(\.first)), oursLast = median(ours.map(\.last))
    let poolFirst = median(pool.map(\.first)), poolLast = median(pool.map(\.last))
    report.table(
        ["\(urls.count) visible camera photos", "first visible thumbnail", "last visible thumbnail"],
        [
            ["classic-photos (sepia thumbnail)", ms(oursFirst), ms(oursLast)],
            ["plain pool of \(cores) threads (decode + sepia)", ms(poolFirst), ms(poolLast)],
            ["ratio", format(oursFirst / poolFirst, 2) + "×", format(oursLast / poolLast, 2) + "×"],
        ])
    report.target(
        "first visible thumbnail vs a plain per-core pool", target: "≤ 1.5×",
        measured: format(oursFirst / poolFirst, 2) + "×", met: oursFirst / poolFirst <= 1.5)
    report.target(
        "last visible thumbnail vs the same pool", target: "≤ 1.1×",
        measured: format(oursLast / poolLast, 2) + "×", met: oursLast / poolLast <= 1.1)
}
