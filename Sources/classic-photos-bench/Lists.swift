import Foundation
import GLibKit
import PhotoPipeline
import TestSupport

// List parsing: property lists of 10,000 and 1,000,000 photos read, put in display order and
// batched by `PropertyListSource`, against Foundation's `PropertyListSerialization` and a
// `localizedStandardCompare` sort.

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
        array +=
            "\t<dict>\n\t\t<key>name</key>\n\t\t<string>\(escaped(name(n)))</string>\n"
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

@MainActor
func benchmarkListParsing(rounds: Int, report: Report) throws {
    // The app's locale, as GTK sets it from the environment: collation keys depend on it.
    setlocale(LC_ALL, "")
    let locale = String(cString: setlocale(LC_COLLATE, nil))
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("classic-photos-lists-\(getpid())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    report.heading("Reading photo lists")
    report.add(
        "`PropertyListSource.read` on a worker: read the file, parse, put names in natural order, hand "
            + "the rows over in batches of \(PhotoSources.batchSize); collation locale \(locale). Median of "
            + "\(max(rounds, 9)) rounds for 10,000 entries, \(min(rounds, 3)) for 1,000,000.")
    var table: [[String]] = []
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
            table.append([
                "classic-photos, \(label)", "\(count)", format(Double(size) / 1_048_576) + " MB",
                ms(seconds, 1), format(seconds * 1e9 / Double(count), 0),
            ])
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
            let size = (try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0
            table.append([
                "Foundation `PropertyListSerialization` + `localizedStandardCompare` sort, XML dictionary "
                    + "(the parse alone \(ms(median(parseSeconds), 1)))", "\(count)",
                format(Double(size) / 1_048_576) + " MB", ms(seconds, 1), format(seconds * 1e9 / Double(count), 0),
            ])
        }
    }
    report.table(["reader", "entries", "file", "time", "ns per entry"], table)
}
