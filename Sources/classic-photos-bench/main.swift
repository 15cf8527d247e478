// Measures Classic Photos' photo work and prints the figures next to peer tools run on the
// same input in the same run:
//
// 1. Thumbnails: the bundled photos decoded to the row's square (160 px, the HiDPI size) and
//    turned sepia, by this app's decoder and filter, by ImageMagick, and by vipsthumbnail.
// 2. The pipeline: a list of photos fetched from a loopback HTTP server with a set delay per
//    response, through `PhotoProcessor` and its two operation queues at several download
//    widths, against curl fetching the same addresses in parallel.
// 3. List parsing: property lists of 10,000 and 1,000,000 photos read, put in display order
//    and batched by `PropertyListSource`, against Foundation's `PropertyListSerialization`
//    and a `localizedStandardCompare` sort.
//
// 4. Big lists in the app: the real app under Xvfb opening lists of 10,000 and 1,000,000
//    photos: time until the list is shown, the longest main-loop stall, and resident memory
//    per row beyond the list's own text.
//
// 5. Sepia on a camera-size image: a 12-megapixel RGB image turned sepia by this app's filter,
//    against a plain copy of the same pixels and ImageMagick's -sepia-tone 80%.
//
// Usage: classic-photos-bench [--rounds N] [--rows N] [--latency MS] [--only thumbnails|pipeline|lists|app|sepia]
import CGdkPixbuf
import Foundation
import GLibKit
import PhotoPipeline
import TestSupport

struct Options {
    var rounds = 5
    var rows = 64
    var latencies = [0, 100]
    var sections: Set<String> = ["thumbnails", "pipeline", "lists", "app", "sepia"]

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            if argument == "--only" {
                guard let section = rest.popFirst(), sections.contains(section) else {
                    throw BenchError("--only needs one of: \(sections.sorted().joined(separator: ", "))")
                }
                sections = [section]
                continue
            }
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

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

func format(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }

/// Runs `body` `rounds` times and returns the median duration in seconds.
func timed(rounds: Int, _ body: () throws -> Void) rethrows -> Double {
    var times: [Double] = []
    for _ in 0..<rounds {
        let start = LoopbackServer.now()
        try body()
        times.append(LoopbackServer.now() - start)
    }
    return median(times)
}

/// Runs a command line tool; false if it is not installed or fails. The image tools are held
/// to one thread, as the figures they are compared with are.
func tool(_ path: String, _ arguments: [String]) -> Bool {
    let oneThread = ["MAGICK_THREAD_LIMIT": "1", "OMP_NUM_THREADS": "1", "VIPS_CONCURRENCY": "1"]
    guard FileManager.default.isExecutableFile(atPath: path),
          let result = try? run(URL(fileURLWithPath: path), arguments, environment: oneThread, timeout: 300)
    else { return false }
    if result.status != 0 { print("  (\(path) failed: \(result.stderr.prefix(200)))") }
    return result.status == 0
}

// MARK: 1. Thumbnails

func benchmarkThumbnails(rounds: Int) throws {
    let folder = Products.packageRoot.appendingPathComponent("data/photos")
    let photos = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: [.fileSizeKey])
        .filter { $0.pathExtension == "jpg" }
        .sorted { $0.path < $1.path }
    let bytes = photos.compactMap { try? $0.resourceValues(forKeys: [.fileSizeKey]).fileSize }.reduce(0, +)
    let side = 160
    // Each photo several times over, so the peer tools' start-up is spread thin.
    let repeats = 8
    let inputs = Array(repeating: photos, count: repeats).flatMap { $0 }
    print("Thumbnails: \(photos.count) JPEG photos (\(bytes / 1024) KB) × \(repeats) to \(side)×\(side), square crop; "
          + "median of \(rounds) rounds, one thread")

    let fetcher = PhotoFetcher()
    let sepia = SepiaFilter()
    var decoded: [PhotoImage] = []
    let decodeTime = try timed(rounds: rounds) {
        decoded = try inputs.map { url throws(PhotoFailure) in
            let cancellable = Cancellable()
            return try ImageDecoder.decode(fetcher.open(url, cancellable: cancellable), size: .square(side),
                                           cancellable: cancellable)
        }
    }
    let filterTime = timed(rounds: rounds) {
        for image in decoded { _ = sepia.apply(to: image) }
    }
    let perPhoto = { (seconds: Double) in format(seconds * 1000 / Double(inputs.count), 2) + " ms" }
    print("  classic-photos  decode + crop          \(perPhoto(decodeTime)) per photo")
    print("  classic-photos  sepia on the thumbnail \(perPhoto(filterTime)) per photo")
    print("  classic-photos  both                   \(perPhoto(decodeTime + filterTime)) per photo")

    let output = FileManager.default.temporaryDirectory.appendingPathComponent("classic-photos-bench-\(getpid())")
    try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: output) }
    let paths = inputs.map(\.path)
    // One process for all photos; PPM output costs little.
    let magick = ["-path", output.path, "-format", "ppm", "-define", "jpeg:size=\(2 * side)x\(2 * side)",
                  "-thumbnail", "\(side)x\(side)^", "-gravity", "center", "-extent", "\(side)x\(side)"]
    if tool("/usr/bin/mogrify", magick + paths) {
        let crop = timed(rounds: rounds) { _ = tool("/usr/bin/mogrify", magick + paths) }
        let both = timed(rounds: rounds) { _ = tool("/usr/bin/mogrify", magick + ["-sepia-tone", "80%"] + paths) }
        print("  ImageMagick     decode + crop          \(perPhoto(crop)) per photo (mogrify, one process)")
        print("  ImageMagick     both (-sepia-tone 80%) \(perPhoto(both)) per photo")
    } else {
        print("  ImageMagick     not installed (apt-get install imagemagick)")
    }
    let vips = ["--size", "\(side)x\(side)", "--smartcrop", "centre", "-o", output.path + "/%s.v"]
    if tool("/usr/bin/vipsthumbnail", vips + paths) {
        let crop = timed(rounds: rounds) { _ = tool("/usr/bin/vipsthumbnail", vips + paths) }
        print("  vipsthumbnail   decode + crop          \(perPhoto(crop)) per photo (one process; it has no sepia)")
    } else {
        print("  vipsthumbnail   not installed (apt-get install libvips-tools)")
    }
}

// MARK: 2. The pipeline over HTTP

@MainActor
func benchmarkPipeline(rows: Int, latencyMs: Int, rounds: Int) async throws {
    let server = try LoopbackServer()
    server.photoLatencyMs.store(latencyMs, ordering: .relaxed)
    let names = ["astronaut.jpg", "coffee.jpg", "chelsea-the-cat.jpg", "rocket-launch.jpg", "retina.jpg", "cameraman.jpg"]
    // A query per row, so every row is its own request.
    let urls = (0..<rows).map { server.url("/photos/\(names[$0 % names.count])?row=\($0)") }
    print("Pipeline: \(rows) photos from a loopback HTTP server answering after \(latencyMs) ms; median of \(rounds) rounds")

    for width in [1, 4, PendingOperations.defaultDownloadConcurrency] {
        var times: [Double] = []
        for _ in 0..<rounds {
            let processor = PhotoProcessor(
                fetcher: PhotoFetcher(maxConnections: max(width, 2)),
                pendingOperations: PendingOperations(downloads: width), prefetchMargin: 0)
            processor.setEntries(urls.enumerated().map { PhotoEntry(name: "\($0.offset)", url: $0.element) })
            let start = LoopbackServer.now()
            processor.visibleRowsChanged(0..<rows)
            let records = (0..<rows).compactMap { processor.photos.record(for: processor.photos.id(at: $0)) }
            while records.contains(where: \.needsWork) || !processor.pendingOperations.photosInProgress.isEmpty {
                try await Task.sleep(for: .milliseconds(2))
            }
            times.append(LoopbackServer.now() - start)
            if let failed = records.first(where: { $0.state == .failed }) {
                throw BenchError("row \(failed.position) failed: \(failed.failure?.detail ?? "?")")
            }
        }
        let seconds = median(times)
        let label = width == PendingOperations.defaultDownloadConcurrency ? " (the default)" : ""
        print("  classic-photos  \(width) download(s) at once\(label): \(format(seconds * 1000, 0)) ms, "
              + "\(format(Double(rows) / seconds)) photos/s, fetched, decoded and sepia-toned")
    }

    let curl = ["--silent", "--fail", "--parallel", "--parallel-max", "\(PendingOperations.defaultDownloadConcurrency)"]
        + urls.flatMap { ["--output", "/dev/null", $0.absoluteString] }
    if tool("/usr/bin/curl", curl) {
        let seconds = timed(rounds: rounds) { _ = tool("/usr/bin/curl", curl) }
        print("  curl            \(PendingOperations.defaultDownloadConcurrency) at once: \(format(seconds * 1000, 0)) ms, "
              + "\(format(Double(rows) / seconds)) photos/s, fetched only")
    } else {
        print("  curl            not installed (apt-get install curl)")
    }
}

// MARK: 3. List parsing

/// Writes the lists measured: `count` photos, as an XML dictionary and an XML array, and as
/// binary ones when `binary`. Names mix words and numbers (natural order has work to do) and
/// are written out of order.
func writeLists(count: Int, binary: Bool, to folder: URL) throws -> [(label: String, url: URL)] {
    func name(_ n: Int) -> String { "Holiday \(n % 97) – photo \(n)" }
    func link(_ n: Int) -> String { "photos/\(n % 97)/img\(n).jpg" }
    let order = (0..<count).map { ($0 * 7919) % count } // a fixed shuffle (7919 is prime)
    func escaped(_ text: String) -> String { text.replacingOccurrences(of: "&", with: "&amp;") }
    let header = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """
    var dictionary = header + "<dict>\n", array = header + "<array>\n"
    for n in order {
        dictionary += "\t<key>\(escaped(name(n)))</key>\n\t<string>\(escaped(link(n)))</string>\n"
        array += "\t<dict>\n\t\t<key>name</key>\n\t\t<string>\(escaped(name(n)))</string>\n"
            + "\t\t<key>url</key>\n\t\t<string>\(escaped(link(n)))</string>\n\t</dict>\n"
    }
    dictionary += "</dict>\n</plist>\n"
    array += "</array>\n</plist>\n"
    var lists: [(String, URL)] = []
    let dictionaryURL = folder.appendingPathComponent("dict-\(count).plist")
    let arrayURL = folder.appendingPathComponent("array-\(count).plist")
    try Data(dictionary.utf8).write(to: dictionaryURL)
    try Data(array.utf8).write(to: arrayURL)
    lists += [("XML dictionary", dictionaryURL), ("XML array", arrayURL)]
    if binary {
        let binaryDictionary = Dictionary(uniqueKeysWithValues: order.map { (name($0), link($0)) })
        let binaryArray = order.map { ["name": name($0), "url": link($0)] }
        let binaryDictionaryURL = folder.appendingPathComponent("dict-\(count).bplist")
        let binaryArrayURL = folder.appendingPathComponent("array-\(count).bplist")
        try PropertyListSerialization.data(fromPropertyList: binaryDictionary, format: .binary, options: 0)
            .write(to: binaryDictionaryURL)
        try PropertyListSerialization.data(fromPropertyList: binaryArray, format: .binary, options: 0)
            .write(to: binaryArrayURL)
        lists += [("binary dictionary", binaryDictionaryURL), ("binary array", binaryArrayURL)]
    }
    return lists
}

func benchmarkListParsing(rounds: Int) throws {
    // The app's locale, as GTK sets it from the environment: collation keys depend on it.
    setlocale(LC_ALL, "")
    let locale = String(cString: setlocale(LC_COLLATE, nil))
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("classic-photos-lists-\(getpid())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    print("List parsing: PropertyListSource.read (read the file, parse, natural order, batches of "
          + "\(PhotoSources.batchSize)); collation locale \(locale); median of rounds")
    let fetcher = PhotoFetcher()
    for (count, listRounds) in [(10_000, max(rounds, 9)), (1_000_000, min(rounds, 3))] {
        for (label, url) in try writeLists(count: count, binary: count <= 10_000, to: folder) {
            let size = (try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0
            var rows = 0
            let seconds = try timed(rounds: listRounds) {
                rows = 0
                try PropertyListSource(location: url).read(using: fetcher, cancellable: Cancellable()) {
                    rows += $0.entries.count
                }
            }
            guard rows == count else { throw BenchError("\(url.lastPathComponent): \(rows) rows, not \(count)") }
            print("  classic-photos  \(label.padding(toLength: 17, withPad: " ", startingAt: 0)) "
                  + "\(String(count).padding(toLength: 7, withPad: " ", startingAt: 0)) entries "
                  + "(\(format(Double(size) / 1_048_576)) MB): \(format(seconds * 1000)) ms, "
                  + "\(format(seconds * 1e9 / Double(count), 0)) ns/entry (\(listRounds) rounds)")
        }
        if count == 10_000 {
            // The way lists were read before: Foundation's parser, then a locale-aware sort.
            let url = folder.appendingPathComponent("dict-\(count).plist")
            var parseSeconds: [Double] = []
            let seconds = try timed(rounds: listRounds) {
                let start = LoopbackServer.now()
                let root = try PropertyListSerialization.propertyList(from: Data(contentsOf: url), format: nil)
                guard let dictionary = root as? [String: Any] else { throw BenchError("not a dictionary") }
                parseSeconds.append(LoopbackServer.now() - start)
                let sorted = dictionary.sorted { $0.key.localizedStandardCompare($1.key) == .orderedAscending }
                guard sorted.count == count else { throw BenchError("\(sorted.count) rows") }
            }
            print("  Foundation      XML dictionary    \(count)   entries: \(format(seconds * 1000)) ms, "
                  + "\(format(seconds * 1e9 / Double(count), 0)) ns/entry (PropertyListSerialization + "
                  + "localizedStandardCompare sort; the parse alone \(format(median(parseSeconds) * 1000)) ms)")
        }
    }
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    print("  peak memory of the whole benchmark process (making the lists included): \(usage.ru_maxrss / 1024) MB")
}

// MARK: 4. Big lists in the app

/// Opens array lists of `count` photos (the bundled ones, by absolute address) in the real app
/// and reports what a person would feel: how long until the list is there, whether the window
/// froze on the way, and what the rows cost in memory.
func benchmarkBigListsInApp(rounds: Int) throws {
    let photos = Products.packageRoot.appendingPathComponent("data/photos")
    let files = try FileManager.default.contentsOfDirectory(atPath: photos.path).filter { $0.hasSuffix(".jpg") }.sorted()
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("classic-photos-app-lists-\(getpid())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    print("Big lists in the app (release build, Xvfb, cairo renderer): an array list of the bundled photos by "
          + "absolute address; median of \(rounds) rounds")
    var resident: [Int: Double] = [:]
    var textPerRow: [Int: Double] = [:]
    for count in [10_000, 1_000_000] {
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
            guard loaded.event.rows == count else { throw BenchError("the app showed \(loaded.event.rows.map(String.init) ?? "?") rows") }
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
        let stall = (stalls.max() ?? 0) == 0 ? "no main-loop stall over 16 ms"
            : "longest main-loop stall \(format(median(stalls), 0)) ms (worst round \(format(stalls.max() ?? 0, 0)) ms)"
        print("  classic-photos  \(String(count).padding(toLength: 9, withPad: " ", startingAt: 0)) rows: shown after "
              + "\(format(median(shown) * 1000, 0)) ms, \(stall), resident \(format(median(memory) / 1_048_576, 0)) MB")
    }
    if let small = resident[10_000], let big = resident[1_000_000], let text = textPerRow[1_000_000] {
        let perRow = (big - small) / Double(1_000_000 - 10_000)
        print("  memory per row: \(format(perRow, 0)) bytes, of which the list's own text \(format(text, 0)) bytes: "
              + "\(format(perRow - text, 0)) bytes beyond the text")
    }
}

// MARK: 5. Sepia at full size

func benchmarkSepia(rounds: Int) throws {
    let (width, height) = (4000, 3000)
    var state: UInt32 = 0x2545_F491
    let bytes = (0..<(width * height * 3)).map { _ -> UInt8 in
        state ^= state << 13; state ^= state >> 17; state ^= state << 5
        return UInt8(truncatingIfNeeded: state)
    }
    let image = PhotoImage.fromPixels(bytes, width: width, height: height, hasAlpha: false)
    let filter = SepiaFilter()
    let cores = ProcessInfo.processInfo.activeProcessorCount
    print("Sepia: one \(width)×\(height) RGB image (12 megapixels, \(bytes.count >> 20) MB); median of \(rounds) rounds")
    let copy = timed(rounds: rounds) { _ = PhotoImage(taking: gdk_pixbuf_copy(image.pixbuf)!) }
    let scratch = UnsafeMutableRawPointer.allocate(byteCount: bytes.count, alignment: 64)
    defer { scratch.deallocate() }
    let source = UnsafeRawPointer(gdk_pixbuf_read_pixels(image.pixbuf)!)
    memcpy(scratch, source, bytes.count) // touched once, so the copy below pays no page faults
    let memcpyTime = timed(rounds: rounds) { memcpy(scratch, source, bytes.count) }
    let ours = timed(rounds: rounds) { _ = filter.apply(to: image) }
    let oneThread = timed(rounds: rounds) {
        let copy = PhotoImage(taking: gdk_pixbuf_copy(image.pixbuf)!)
        _ = filter.applyInPlace(copy, threads: 1)
    }
    func ms(_ seconds: Double) -> String { format(seconds * 1000) + " ms" }
    print("  plain copy      gdk_pixbuf_copy (a new buffer) \(ms(copy)); memcpy into a warm buffer \(ms(memcpyTime))")
    print("  classic-photos  copy + sepia, \(cores) threads  \(ms(ours)) (\(format(ours / copy))× the copy); one thread \(ms(oneThread))")

    let ppm = FileManager.default.temporaryDirectory.appendingPathComponent("classic-photos-bench-12mp.ppm")
    var file = Data("P6\n\(width) \(height)\n255\n".utf8)
    file.append(contentsOf: bytes)
    try file.write(to: ppm)
    defer { try? FileManager.default.removeItem(at: ppm) }
    let magick = "/usr/bin/convert"
    var readOnly = 0.0, withSepia = 0.0
    var ok = true
    readOnly = timed(rounds: rounds) { ok = ok && tool(magick, [ppm.path, "null:"]) }
    withSepia = timed(rounds: rounds) { ok = ok && tool(magick, [ppm.path, "-sepia-tone", "80%", "null:"]) }
    if ok {
        print("  ImageMagick     -sepia-tone 80%, one thread   \(ms(withSepia - readOnly)) (its run with sepia minus its run without)")
    } else {
        print("  ImageMagick     not measured (convert is missing or failed)")
    }
}

// MARK: Main

@MainActor
func runBenchmarks() async -> Int32 {
    do {
        let options = try Options(Array(CommandLine.arguments.dropFirst()))
        print("classic-photos-bench \(AppInfo.version), \(ProcessInfo.processInfo.activeProcessorCount) cores\n")
        if options.sections.contains("thumbnails") {
            try benchmarkThumbnails(rounds: options.rounds)
            print()
        }
        if options.sections.contains("pipeline") {
            for latency in options.latencies {
                try await benchmarkPipeline(rows: options.rows, latencyMs: latency, rounds: options.rounds)
                print()
            }
        }
        if options.sections.contains("lists") {
            try benchmarkListParsing(rounds: options.rounds)
            print()
        }
        if options.sections.contains("sepia") {
            try benchmarkSepia(rounds: options.rounds)
            print()
        }
        if options.sections.contains("app") {
            try benchmarkBigListsInApp(rounds: min(options.rounds, 3))
        }
        return 0
    } catch {
        FileHandle.standardError.write(Data("classic-photos-bench: \(error)\n".utf8))
        return 1
    }
}

exit(await runBenchmarks())
