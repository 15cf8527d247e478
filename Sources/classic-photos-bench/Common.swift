import Foundation
import GLibKit
import PhotoPipeline
import TestSupport

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

/// The value below which `fraction` of `values` lie (nearest rank).
func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(sorted.count - 1, max(0, rank))]
}

func format(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }

/// Milliseconds from seconds, as text.
func ms(_ seconds: Double, _ digits: Int = 0) -> String { format(seconds * 1000, digits) + " ms" }

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
@discardableResult
func tool(_ path: String, _ arguments: [String]) -> Bool {
    let oneThread = ["MAGICK_THREAD_LIMIT": "1", "OMP_NUM_THREADS": "1", "VIPS_CONCURRENCY": "1"]
    guard FileManager.default.isExecutableFile(atPath: path),
        let result = try? run(URL(fileURLWithPath: path), arguments, environment: oneThread, timeout: 300)
    else { return false }
    if result.status != 0 { say("(\(path) failed: \(result.stderr.prefix(200)))") }
    return result.status == 0
}

/// Decodes the photo at `url` as a list row does (160 px square, EXIF orientation applied),
/// optionally with sepia: in a decoder helper, as the app does (`inHelper`), or in this process.
func thumbnail(
    _ url: URL, fetcher: PhotoFetcher, sepia: SepiaFilter?, side: Int = 160, inHelper: Bool
) throws -> PhotoImage {
    let cancellable = Cancellable()
    let stream = try fetcher.open(url, cancellable: cancellable)
    let image =
        inHelper
        ? try Decoding.picture(.stream(stream), size: .square(side), cancellable: cancellable)
        : try ImageDecoder.decode(stream, size: .square(side), cancellable: cancellable)
    guard let sepia else { return image }
    guard let filtered = sepia.apply(to: image) else { throw BenchError("sepia was cancelled") }
    return filtered
}

/// The bundled sample photos.
func bundledPhotos() throws -> [URL] {
    let folder = Products.packageRoot.appendingPathComponent("data/photos")
    return try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: [.fileSizeKey])
        .filter { $0.pathExtension == "jpg" }
        .sorted { $0.path < $1.path }
}

/// A fresh temporary folder.
func temporaryFolder(_ name: String) throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "classic-photos-bench-\(name)-\(getpid())")
    try? FileManager.default.removeItem(at: folder)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

/// A property list (array form) of photos named in order, for the app to open.
func writePhotoList(_ links: [String], to url: URL) throws {
    var body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<array>\n"
    for (n, link) in links.enumerated() {
        body +=
            "<dict><key>name</key><string>\(String(format: "Photo %05d", n))</string>"
            + "<key>url</key><string>\(link.replacingOccurrences(of: "&", with: "&amp;"))</string></dict>\n"
    }
    body += "</array>\n</plist>\n"
    try Data(body.utf8).write(to: url)
}

/// Prints a line at once (unbuffered, so it stays in order with the report's output).
func say(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}
