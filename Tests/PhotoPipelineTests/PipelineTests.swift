import CGdkPixbuf
import CGLib
import Foundation
import GLibKit
@testable import PhotoPipeline
import Testing
import TestSupport

/// The download and filtration pipeline against a real HTTP server on loopback.
@Suite(.serialized) @MainActor struct PipelineTests {
    private func processor(for server: LoopbackServer, paths: [String]) -> PhotoProcessor {
        let processor = PhotoProcessor(fetcher: PhotoFetcher(), prefetchMargin: 0, maxPixelSize: 80)
        processor.setEntries(
            paths.enumerated().map { PhotoEntry(name: "Photo \($0.offset)", url: server.url($0.element)) })
        return processor
    }

    @Test("Visible rows advance new → downloaded → filtered, downloaded image shown first")
    func statesAdvance() async throws {
        let server = try LoopbackServer()
        server.photoLatencyMs.store(50, ordering: .relaxed)
        let processor = processor(
            for: server, paths: ["/photos/astronaut.jpg", "/photos/coffee.jpg", "/photos/retina.jpg"])
        var seen: [PhotoID: [PhotoState]] = [:]
        processor.observePhotos { snapshot in seen[snapshot.id, default: []].append(snapshot.state) }
        #expect(processor.records.allSatisfy { $0.state == .new })
        processor.visibleRowsChanged(0..<3)
        // Records change on the workers; the main actor hears of it a moment later.
        #expect(
            await waitUntil {
                processor.records.allSatisfy { $0.state == .filtered }
                    && processor.pendingOperations.photosInProgress.isEmpty
            })
        for record in processor.records {
            let image = try #require(record.image)
            #expect(image.width == 80 && image.height == 80)
            // Sepia: red ≥ green ≥ blue on every sampled pixel.
            let (r, g, b, _) = image.pixel(x: 40, y: 40)
            #expect(r >= g && g >= b)
        }
        // Each photo was pushed when downloaded and again when filtered (order may vary).
        for record in processor.records { #expect(Set(seen[record.id] ?? []).contains(.filtered)) }
        #expect(server.totalPhotoRequests == 3)
    }

    @Test("Each failure the server can produce ends failed with its reason code and a short reason")
    func failures() async throws {
        let server = try LoopbackServer()
        let cases: [(path: String, reason: PhotoFailure.Reason, summary: String)] = [
            ("/status/404", .http, "Not found (404)"),
            ("/status/500", .http, "Server error (500)"),
            ("/reset", .transport, "Connection failed"),
            ("/text", .notImage, "Not a picture"),
            ("/empty", .empty, "Empty file"),
        ]
        let processor = processor(for: server, paths: cases.map(\.path) + ["/photos/coffee.jpg"])
        processor.visibleRowsChanged(0..<(cases.count + 1))
        #expect(await waitUntil { processor.records.allSatisfy { $0.state == .failed || $0.state == .filtered } })
        #expect(processor.records.last?.state == .filtered)
        for (record, expected) in zip(processor.records, cases) {
            #expect(record.state == .failed, "\(expected.path)")
            #expect(
                record.failure?.reason == expected.reason, "\(expected.path): \(String(describing: record.failure))")
            #expect(
                record.failure?.summary == expected.summary, "\(expected.path): \(String(describing: record.failure))")
            #expect(record.image == nil)
        }
    }

    @Test("Local files: a missing file, a folder and an unusable address each fail with their own code")
    func localFailures() async throws {
        let server = try LoopbackServer()
        let processor = PhotoProcessor(fetcher: PhotoFetcher(), prefetchMargin: 0, maxPixelSize: 80)
        let folder = Products.packageRoot.appendingPathComponent("data/photos")
        processor.setEntries([
            PhotoEntry(name: "missing", url: folder.appendingPathComponent("no-such-photo.jpg")),
            // A folder named where a photo is expected (without the trailing "/" that makes an
            // entry a folder to open).
            PhotoEntry(name: "folder", link: "file://" + folder.path, base: nil),
            // (A scheme neither GIO nor GVfs reads: ftp and the like are network shares now.)
            PhotoEntry(name: "gopher", link: "gopher://example.org/a.jpg", base: nil),
            PhotoEntry(name: "blank", link: "  ", base: PhotoEntryBase(server.baseURL)),
        ])
        processor.visibleRowsChanged(0..<4)
        #expect(await waitUntil { processor.records.allSatisfy { $0.state == .failed } })
        #expect(processor.records.map { $0.failure?.reason } == [.missing, .notImage, .unsupported, .invalidAddress])
    }

    @Test("Retry loads a failed photo again, and a new thumbnail size decodes the shown photos again")
    func retryAndResize() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "classic-photos-retry-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let late = folder.appendingPathComponent("late.jpg")
        let coffee = Products.packageRoot.appendingPathComponent("data/photos/coffee.jpg")
        let processor = PhotoProcessor(fetcher: PhotoFetcher(), prefetchMargin: 0, maxPixelSize: 80)
        processor.setEntries([PhotoEntry(name: "late", url: late), PhotoEntry(name: "coffee", url: coffee)])
        processor.visibleRowsChanged(0..<2)
        // Settled: the failure's report has reached the main actor too (a row shows Retry then).
        #expect(
            await waitUntil { processor.records.map(\.state) == [.failed, .filtered] && !processor.hasWorkInFlight })
        #expect(processor.failedCount == 1)

        // The file turns up; Retry on its row loads it.
        try FileManager.default.copyItem(at: coffee, to: late)
        processor.retry(processor.list.id(at: 0))
        #expect(await waitUntil { processor.records.allSatisfy { $0.state == .filtered } })
        #expect(processor.failedCount == 0)
        #expect(processor.records.allSatisfy { $0.image?.width == 80 })

        // A display with another scale factor: the shown photos are decoded again at the new size.
        processor.setThumbnailSize(40)
        #expect(await waitUntil { processor.records.allSatisfy { $0.state == .filtered && $0.image?.width == 40 } })

        // One step smaller (a grid's cells): the pictures are kept and drawn smaller, no new work.
        processor.setThumbnailSize(32)
        #expect(processor.records.allSatisfy { $0.state == .filtered && $0.image?.width == 40 })
        #expect(!processor.hasWorkInFlight)
        // Larger again: decoded for the new size.
        processor.setThumbnailSize(48)
        #expect(await waitUntil { processor.records.allSatisfy { $0.state == .filtered && $0.image?.width == 48 } })
    }

    @Test("Cancelling a running download closes the connection promptly, and its filter never runs")
    func cancellationClosesConnection() async throws {
        let server = try LoopbackServer()
        let record = PhotoRecord(
            id: PhotoID(rawValue: 1), entry: PhotoEntry(name: "Endless", url: server.url("/trickle")), position: 0)
        let download = ImageDownloader(record: record, fetcher: PhotoFetcher(), maxPixelSize: 80)
        let filter = ImageFiltration(record: record)
        filter.addDependency(download)
        let queue = OperationQueue()
        queue.addOperation(download)
        queue.addOperation(filter)
        // The transfer is under way: its response is coming, and the download runs.
        #expect(await waitUntil { server.trickleTimes.started.count == 1 })
        #expect(await waitUntil { download.isExecuting })
        let cancelledAt = LoopbackServer.now()
        download.cancel()
        #expect(await waitUntil(5) { server.trickleTimes.closed.count == 1 })
        let closedAfter = (server.trickleTimes.closed.first ?? .infinity) - cancelledAt
        // Correctness bound, not a speed target: the transfer is aborted, not run to the end.
        #expect(closedAfter < 1.0, "the server saw the close \(closedAfter) s after cancel")
        #expect(await waitUntil(5) { download.isFinished && filter.isFinished })
        #expect(record.state == .new)
        #expect(record.image == nil)
    }

    @Test("Filtrations cancelled while their downloads run are released safely, once the downloads end")
    func cancelledDependentsOutliveNothing() async throws {
        let server = try LoopbackServer()
        server.photoLatencyMs.store(150, ordering: .relaxed)
        let downloads = OperationQueue(), filtrations = OperationQueue()
        downloads.maxConcurrentOperationCount = 4
        var watched: [(download: ImageDownloader, filtration: Weak<ImageFiltration>)] = []
        for n in 0..<12 {
            let record = PhotoRecord(
                id: PhotoID(rawValue: UInt64(n + 1)),
                entry: PhotoEntry(name: "\(n)", url: server.url("/photos/coffee.jpg?n=\(n)")), position: n)
            let download = ImageDownloader(record: record, fetcher: PhotoFetcher(), maxPixelSize: 40)
            let filtration = ImageFiltration(record: record)
            filtration.addDependency(download)
            downloads.addOperation(download)
            filtrations.addOperation(filtration)
            // The row leaves the screen: its filtration is cancelled and forgotten at once,
            // while its download is still queued or running.
            filtration.cancel()
            watched.append((download, Weak(filtration)))
        }
        #expect(await waitUntil { filtrations.operationCount == 0 })
        // Each filtration lives as long as its unfinished download (Foundation visits it when
        // the download finishes), and is released once that has happened.
        for pair in watched where !pair.download.isFinished { #expect(pair.filtration.object != nil) }
        #expect(await waitUntil { downloads.operationCount == 0 })
        #expect(await waitUntil { watched.allSatisfy { $0.filtration.object == nil } })
        #expect(watched.allSatisfy { $0.download.record.state == .downloaded })
    }

    @Test("A downloaded-only record is only filtered again, with no second request")
    func filterWithoutRedownload() async throws {
        let server = try LoopbackServer()
        let processor = processor(for: server, paths: ["/photos/chelsea-the-cat.jpg", "/photos/coffee.jpg"])
        processor.pendingOperations.filtrationQueue.isSuspended = true
        processor.visibleRowsChanged(0..<1)
        #expect(await waitUntil { processor.records.first?.state == .downloaded })
        // Row 0 leaves the screen before its filter ran: the filter is cancelled.
        processor.visibleRowsChanged(1..<2)
        #expect(processor.pendingOperations.filtrationsInProgress[processor.list.id(at: 0)] == nil)
        processor.pendingOperations.filtrationQueue.isSuspended = false
        #expect(await waitUntil { processor.records.last?.state == .filtered })
        #expect(processor.records[0].state == .downloaded)
        // Back on screen: filtered from the downloaded image, not fetched again.
        processor.visibleRowsChanged(0..<1)
        #expect(processor.pendingOperations.downloadsInProgress[processor.list.id(at: 0)] == nil)
        #expect(await waitUntil { processor.records[0].state == .filtered })
        #expect(server.requestCount("/photos/chelsea-the-cat.jpg") == 1)
    }

    @Test("Downloads really run in parallel")
    func downloadConcurrency() async throws {
        let server = try LoopbackServer()
        server.photoLatencyMs.store(300, ordering: .relaxed)
        let paths = (0..<8).map { "/photos/coffee.jpg?n=\($0)" }
        let processor = PhotoProcessor(
            fetcher: PhotoFetcher(maxConnections: 8),
            pendingOperations: PendingOperations(downloads: 8, filtrations: 2), prefetchMargin: 0)
        processor.setEntries(paths.enumerated().map { PhotoEntry(name: "\($0.offset)", url: server.url($0.element)) })
        processor.visibleRowsChanged(0..<8)
        #expect(await waitUntil { processor.records.allSatisfy { $0.state == .filtered } })
        // The queue's width is the number of requests open at the server at once: downloads
        // do not wait for a thread of libdispatch's (small) pool.
        print("8 downloads of 300 ms through an 8-wide queue: \(server.peakPhotosInFlight) at once at the server")
        #expect(server.peakPhotosInFlight == 8)
    }

    @Test("Downloads fetch bytes only; the filtration queue decodes them, visible rows first, top first")
    func decodeIsFiltrationWork() async throws {
        let server = try LoopbackServer()
        let paths = ["astronaut", "coffee", "retina", "grass", "gravel", "cameraman"].map { "/photos/\($0).jpg" }
        // One decode at a time, so the order is the queue's alone.
        let processor = PhotoProcessor(
            fetcher: PhotoFetcher(), pendingOperations: PendingOperations(downloads: 8, filtrations: 1),
            prefetchMargin: 2, maxPixelSize: 80)
        processor.setEntries(paths.enumerated().map { PhotoEntry(name: "\($0.offset)", url: server.url($0.element)) })
        processor.pendingOperations.filtrationQueue.isSuspended = true
        processor.visibleRowsChanged(0..<4) // rows 4 and 5 are the prefetch margin
        #expect(await waitUntil { processor.records.allSatisfy { $0.state == .downloaded } })
        // Downloaded means the bytes are in, not a picture: nothing was decoded yet.
        for record in processor.records {
            #expect(record.image == nil)
            guard case .bytes(let bytes, _)? = record.downloaded else {
                Issue.record("row \(record.position) holds no bytes")
                continue
            }
            let file = Products.packageRoot.appendingPathComponent("data" + paths[record.position])
            #expect(bytes == (try? Data(contentsOf: file)))
        }
        let filtrations = Array(processor.pendingOperations.filtrationsInProgress.values)
        #expect(filtrations.count == 6)
        processor.pendingOperations.filtrationQueue.isSuspended = false
        #expect(await waitUntil { processor.records.allSatisfy { $0.state == .filtered } })
        let started = filtrations.sorted { $0.startTime < $1.startTime }.map(\.record.position)
        #expect(started == [0, 1, 2, 3, 4, 5])
        #expect(processor.records.allSatisfy { $0.image?.width == 80 })
    }

    @Test("Rows naming the same address share one download and one decode, even when one comes later")
    func duplicatesShareWork() async throws {
        let server = try LoopbackServer()
        server.photoLatencyMs.store(100, ordering: .relaxed) // the three transfers overlap
        let processor = PhotoProcessor(fetcher: PhotoFetcher(), prefetchMargin: 0, maxPixelSize: 80)
        let url = server.url("/photos/cameraman.jpg")
        processor.setEntries((0..<3).map { PhotoEntry(name: "Same \($0)", url: url) })
        processor.visibleRowsChanged(0..<3)
        #expect(await waitUntil { processor.records.allSatisfy { $0.state == .filtered } })
        #expect(server.requestCount("/photos/cameraman.jpg") == 1)
        let pictures = processor.records.compactMap(\.image)
        #expect(pictures.count == 3 && pictures.allSatisfy { $0 === pictures[0] }, "one picture, decoded once")
        // A fourth row naming it, shown later, takes the picture at once.
        processor.append([PhotoEntry(name: "Same again", url: url)])
        processor.visibleRowsChanged(0..<4)
        #expect(processor.records[3].state == .filtered && processor.records[3].image === pictures[0])
        #expect(server.requestCount("/photos/cameraman.jpg") == 1)
    }

    @Test("Web photos the server lets clients keep are thumbnailed into the app's cache and shown from it next time")
    func remoteThumbnails() async throws {
        let server = try LoopbackServer()
        let folder = try TestPictures.makeFolder("remote-thumbnails")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = ThumbnailCache(directory: folder)
        let kept = server.url("/cacheable/retina.jpg"), plain = server.url("/photos/coffee.jpg")
        func load() async -> [PhotoRecord] {
            // A fetcher of its own each time, without an HTTP cache: only the thumbnails remain.
            let processor = PhotoProcessor(
                fetcher: PhotoFetcher(), prefetchMargin: 0, maxPixelSize: 80, remoteThumbnails: cache)
            processor.setEntries([PhotoEntry(name: "kept", url: kept), PhotoEntry(name: "plain", url: plain)])
            processor.visibleRowsChanged(0..<2)
            #expect(await waitUntil { processor.records.allSatisfy { $0.state == .filtered } })
            return processor.records
        }
        let first = await load()
        #expect(first.allSatisfy { $0.image?.width == 80 })
        let stored = try #require(cache.thumbnail(ofRemote: kept, atLeast: .normal, shorterSide: 80))
        #expect(max(stored.width, stored.height) >= 128)
        #expect(
            cache.thumbnail(ofRemote: plain, atLeast: .normal, shorterSide: 80) == nil, "no caching headers: not kept")
        // An hour later (max-age=3600) it has expired.
        #expect(
            cache.thumbnail(ofRemote: kept, atLeast: .normal, shorterSide: 80, now: Date().addingTimeInterval(3700))
                == nil)

        let second = await load()
        #expect(second.allSatisfy { $0.state == .filtered })
        #expect(server.requestCount("/cacheable/retina.jpg") == 1, "shown from the thumbnail, not fetched again")
        #expect(server.requestCount("/photos/coffee.jpg") == 2)
    }

    @Test("Pictures beyond the memory cap are let go, least recently shown first, never those on screen")
    func memoryCap() async throws {
        let folder = Products.packageRoot.appendingPathComponent("data/photos")
        let names = ["astronaut", "coffee", "retina", "grass", "gravel", "cameraman", "brick-wall", "rocket-launch"]
        let processor = PhotoProcessor(fetcher: PhotoFetcher(), prefetchMargin: 0, maxPixelSize: 80)
        // An 80-pixel RGB thumbnail holds 19,200 bytes: room for three and a bit.
        processor.memoryCap = 65_000
        processor.setEntries(names.map { PhotoEntry(name: $0, url: folder.appendingPathComponent("\($0).jpg")) })
        for first in stride(from: 0, to: names.count, by: 2) {
            processor.visibleRowsChanged(first..<(first + 2))
            // Records change on the workers; the processor counts them once it hears of it.
            #expect(
                await waitUntil {
                    processor.records[first..<(first + 2)].allSatisfy { $0.state == .filtered }
                        && processor.pendingOperations.photosInProgress.isEmpty
                })
            #expect(processor.memoryHeld <= 65_000, "\(processor.memoryHeld) bytes held")
        }
        let states = processor.records.map(\.state)
        // The last screen is kept; the first rows shown were let go, and hold nothing.
        #expect(states.suffix(2).allSatisfy { $0 == .filtered })
        #expect(states.prefix(2).allSatisfy { $0 == .new }, "\(states)")
        #expect(processor.records.prefix(2).allSatisfy { $0.image == nil })
        // Shown again, they load again.
        processor.visibleRowsChanged(0..<2)
        #expect(
            await waitUntil {
                processor.records[0..<2].allSatisfy { $0.state == .filtered }
                    && processor.pendingOperations.photosInProgress.isEmpty
            })
        #expect(processor.memoryHeld <= 65_000)
    }

    @Test("Local pictures go through the desktop's thumbnail cache: written on first sight, read (not decoded) after")
    func thumbnailCache() async throws {
        let folder = try TestPictures.makeFolder("cached")
        defer { try? FileManager.default.removeItem(at: folder) }
        // Wide and tall camera-like photos (EXIF aside), bigger than any cache size used here.
        let pictures = [("wide.jpg", "1200x500"), ("tall.jpg", "600x900")].map { name, size in
            (folder.appendingPathComponent(name), size)
        }
        #expect(TestPictures.writeGradient(pictures[0].0, width: 1200, height: 500, rgb: 0xFF0000))
        #expect(TestPictures.writeGradient(pictures[1].0, width: 600, height: 900, rgb: 0xFF0000))
        let cache = ThumbnailCache(directory: folder.appendingPathComponent("cache/thumbnails"))
        func load(side: Int) async throws -> [PhotoImage] {
            let processor = PhotoProcessor(
                fetcher: PhotoFetcher(), prefetchMargin: 0, maxPixelSize: side, thumbnails: cache)
            processor.setEntries(pictures.map { PhotoEntry(name: $0.0.lastPathComponent, url: $0.0) })
            processor.visibleRowsChanged(0..<pictures.count)
            #expect(await waitUntil { processor.records.allSatisfy { $0.state == .filtered } })
            return try processor.records.map { try #require($0.image) }
        }

        // First sight, HiDPI rows (160): thumbnails are written in the smallest size whose
        // shorter side still fills the row: large (256) for the 2:3 photo, x-large (512) for
        // the 12:5 one, each exactly the size's box on its longer side.
        for image in try await load(side: 160) { #expect(image.width == 160 && image.height == 160) }
        for ((url, _), size) in zip(pictures, [ThumbnailCache.Size.xLarge, .large]) {
            let key = try #require(cache.key(for: url))
            let stored = PhotoImage(
                taking: try #require(gdk_pixbuf_new_from_file(cache.location(of: key, size: size).path, nil)))
            #expect(
                max(stored.width, stored.height) == size.rawValue && min(stored.width, stored.height) >= 160,
                "\(stored.width)×\(stored.height)")
            // Replace it with a green one (same tags): the next run shows green only if it reads the cache.
            let green = PhotoImage.fromPixels(
                [UInt8](repeating: 0, count: 256 * 192 * 3).enumerated().map { $0.offset % 3 == 1 ? 200 : 0 },
                width: 256, height: 192, hasAlpha: false)
            #expect(cache.store(green, of: key, size: size))
        }
        for image in try await load(side: 160) {
            let (r, g, b, _) = image.pixel(x: 80, y: 80)
            // Green through sepia: green well above what the dark red original gives.
            #expect(g > 100 && r < 200 && b < 120, "\(r) \(g) \(b)")
        }
        // A changed picture is decoded again, and its thumbnail replaced.
        let (first, _) = pictures[0]
        #expect(TestPictures.writeGradient(first, width: 1200, height: 500, rgb: 0xFFFFFF))
        var times = [timespec(tv_sec: time(nil) + 10, tv_nsec: 0), timespec(tv_sec: time(nil) + 10, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, first.path, &times, 0) == 0)
        let again = try await load(side: 160)
        let (r, g, b, _) = again[0].pixel(x: 80, y: 80)
        #expect(abs(Int(r) - Int(g)) < 40 && g >= b, "sepia grey expected, got \(r) \(g) \(b)")
    }
}

extension PhotoProcessor {
    /// Every photo's record, in list order.
    var records: [PhotoRecord] {
        (0..<list.count).compactMap { list.photos.makeRecord(for: list.id(at: $0)) }
    }
}

/// Holds an object without keeping it alive.
private struct Weak<Object: AnyObject> {
    weak var object: Object?
    init(_ object: Object) { self.object = object }
}
