// The details panel's reader on a public corpus of camera files (Exiv2's own test files, from
// Debian's archive) beside what exiftool makes of the same files (see Details.swift).
import Foundation
import GLibKit
import PhotoPipeline
import TestSupport

// MARK: A public corpus

/// Exiv2's own test files: the release's source from Debian's archive (which holds every
/// source package it builds from), the files under `test/data`, kept in the user's cache.
private let corpusArchive = "http://deb.debian.org/debian/pool/main/e/exiv2/exiv2_0.27.6.orig.tar.gz"

/// The kinds of picture file people have (Exiv2's test data also holds metadata-only files
/// and formats of its own, left out).
private let corpusKinds: Set<String> = [
    "jpg", "jpeg", "tif", "tiff", "png", "webp", "heic", "heif", "avif", "crw", "cr2", "cr3", "nef", "nrw", "dng",
    "orf", "pef", "arw", "srw", "rw2", "raf", "mrw",
]

/// The corpus's files, fetched and unpacked once; nil where the archive cannot be fetched.
private func corpusFiles() throws -> [URL]? {
    let cache =
        ProcessInfo.processInfo.environment["XDG_CACHE_HOME"].map { URL(fileURLWithPath: $0) }
        ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache")
    let home = cache.appendingPathComponent("classic-photos-bench", isDirectory: true)
    let folder = home.appendingPathComponent("exiv2-test-data", isDirectory: true)
    if !FileManager.default.fileExists(atPath: folder.path) {
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let archive = home.appendingPathComponent("exiv2.orig.tar.gz")
        let unpacked = home.appendingPathComponent("unpacking", isDirectory: true)
        try? FileManager.default.removeItem(at: unpacked)
        try FileManager.default.createDirectory(at: unpacked, withIntermediateDirectories: true)
        guard tool("/usr/bin/curl", ["-sSf", "--max-time", "300", "-o", archive.path, corpusArchive]),
            tool("/usr/bin/tar", ["-xzf", archive.path, "-C", unpacked.path, "--wildcards", "*/test/data/*"])
        else { return nil }
        let top = try FileManager.default.contentsOfDirectory(atPath: unpacked.path).first ?? ""
        try FileManager.default.moveItem(
            at: unpacked.appendingPathComponent(top).appendingPathComponent("test/data"), to: folder)
        try? FileManager.default.removeItem(at: unpacked)
        try? FileManager.default.removeItem(at: archive)
    }
    // Files made to crash readers (proofs of concept of reported flaws, fuzzers' findings) are
    // not camera files: the hostile-input tests and the fuzzer have their own.
    let crafted = ["poc", "ghsa", "coverage", "crash", "fuzz"]
    return try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
        .filter { corpusKinds.contains($0.pathExtension.lowercased()) }
        .filter { file in !crafted.contains { file.lastPathComponent.lowercased().contains($0) } }
        .sorted { $0.lastPathComponent < $1.lastPathComponent }
}

/// A field both readers are asked for: how exiftool's value (its JSON with `-n`) and the
/// panel's agree.
private struct CorpusField: Sendable {
    let name: String
    let exiftool: [String]
    /// Whether what exiftool read is a value at all (an ISO of 0 is none).
    var counts: @Sendable ([String: Any]) -> Bool = { _ in true }
    let agrees: @Sendable (PhotoDetails?, [String: Any]) -> Bool
}

/// An exposure time as cameras show it: a whole fraction of a second below a quarter, else
/// tenths ("1/15" for 0.0653 s and 0.0667 s alike, as both readers print them).
private func shownExposure(_ seconds: Double) -> Double {
    seconds < 0.25 ? 1 / (1 / seconds).rounded() : (seconds * 10).rounded() / 10
}

private func number(_ value: Any?) -> Double? {
    switch value {
    case let number as NSNumber: number.doubleValue
    case let text as String: Double(text)
    default: nil
    }
}

private func text(_ value: Any?) -> String? {
    switch value {
    case let text as String: text.trimmingCharacters(in: .whitespaces)
    case let number as NSNumber: number.stringValue
    default: nil
    }
}

private let corpusFields: [CorpusField] = [
    CorpusField(name: "date taken", exiftool: ["DateTimeOriginal"]) { ours, theirs in
        ours?.dateTaken.map { String($0.prefix(19)) } == text(theirs["DateTimeOriginal"]).map { String($0.prefix(19)) }
    },
    CorpusField(name: "camera (make, model)", exiftool: ["Make", "Model"]) { ours, theirs in
        ours?.make == text(theirs["Make"]) && ours?.model == text(theirs["Model"])
    },
    CorpusField(name: "lens", exiftool: ["LensModel"]) { ours, theirs in
        ours?.lens == text(theirs["LensModel"])
    },
    CorpusField(name: "exposure time", exiftool: ["ExposureTime"]) { ours, theirs in
        guard let mine = ours?.exposure?.seconds, let theirs = number(theirs["ExposureTime"]) else { return false }
        return abs(shownExposure(mine) - shownExposure(theirs)) <= shownExposure(theirs) * 0.01
    },
    CorpusField(name: "aperture", exiftool: ["FNumber"]) { ours, theirs in
        guard let mine = ours?.fNumber, let theirs = number(theirs["FNumber"]) else { return false }
        return abs(mine - theirs) < 0.05
    },
    CorpusField(
        name: "ISO", exiftool: ["ISO"], counts: { number($0["ISO"]).map { $0 > 0 } ?? true },
        agrees: { ours, theirs in
            guard let mine = ours?.iso, let theirs = number(theirs["ISO"]) else { return false }
            return Double(mine) == theirs
        }),
    CorpusField(name: "GPS position", exiftool: ["GPSLatitude", "GPSLongitude"]) { ours, theirs in
        guard let latitude = ours?.latitude, let longitude = ours?.longitude,
            let north = number(theirs["GPSLatitude"]), let east = number(theirs["GPSLongitude"])
        else { return false }
        return abs(latitude - north) < 1e-5 && abs(longitude - east) < 1e-5
    },
]

@MainActor
func benchmarkCorpus(report: Report) throws {
    guard let files = try corpusFiles(), !files.isEmpty else {
        report.add("The corpus check did not run: Exiv2's source could not be fetched from \(corpusArchive).")
        return
    }
    // exiftool once over every file; the panel's reader on each whole file, in a decoder helper
    // (bounded as pictures are: a test file made to break readers ends there, read as nothing).
    // Numbers as the files hold them (`#`), but the ISO as exiftool spells it out: a maker
    // note's own code (Pentax's 9 for ISO 200) is no sensitivity.
    let asked = corpusFields.flatMap(\.exiftool).map { tag in
        tag.hasPrefix("GPS") ? "-Composite:\(tag)#" : tag == "ISO" ? "-ISO" : "-\(tag)#"
    }
    let result = try run(
        URL(fileURLWithPath: CameraFolder.exiftool), ["-json", "-q", "-q"] + asked + files.map(\.path),
        timeout: 600)
    let parsed = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8))) as? [[String: Any]] ?? []
    var theirs: [String: [String: Any]] = [:]
    for entry in parsed { if let file = entry["SourceFile"] as? String { theirs[file] = entry } }
    let start = LoopbackServer.now()
    var ours: [String: PhotoDetails] = [:]
    for file in files {
        guard let bytes = try? Data(contentsOf: file), bytes.count <= 64 << 20 else { continue }
        ours[file.path] = Decoding.details(bytes)
    }
    let seconds = LoopbackServer.now() - start
    var rows: [[String]] = []
    var misses: [String] = []
    var allAgree = true
    for field in corpusFields {
        let read = files.filter { file in
            field.exiftool.allSatisfy { theirs[file.path]?[$0] != nil } && field.counts(theirs[file.path] ?? [:])
        }
        let agreeing = read.filter { field.agrees(ours[$0.path], theirs[$0.path] ?? [:]) }
        allAgree = allAgree && agreeing.count == read.count
        for file in read where !agreeing.contains(file) {
            let said = field.exiftool.map { "\(theirs[file.path]?[$0] ?? "")" }.joined(separator: " ")
            let mine = ours[file.path].map(\.summary) ?? "nothing read"
            misses.append("\(file.lastPathComponent) (\(field.name): exiftool “\(said)”, the panel's reader \(mine))")
        }
        let share = read.isEmpty ? 100 : 100 * Double(agreeing.count) / Double(read.count)
        rows.append([field.name, "\(read.count)", "\(agreeing.count)", format(share, 1) + " %"])
    }
    report.add(
        """
        A public corpus of camera files: Exiv2's own test files (`test/data` of its \(corpusArchive.split(separator: "/").last ?? "") \
        in Debian's archive), the \(files.count) of them in the kinds of file people have (JPEG, TIFF, PNG, WebP, \
        HEIC, the RAW formats), read by the details panel's reader (each whole file, gexiv2 in a decoder helper: \
        \(ms(seconds)) in all) and by exiftool (`-json`, the same fields, numbers as held but the ISO spelt out). \
        Files made to crash readers (proofs of concept, fuzzers' findings: \"poc\", \"ghsa\" … in their names) are left out. For each field, the files \
        exiftool reads it in, and how many of those the panel's reader gives the same value (a date to the \
        second, make and model exactly, exposure as cameras show it (a whole fraction of a second below a quarter), aperture within 0.05, GPS within 10⁻⁵°).
        """)
    report.table(["field", "exiftool reads it in", "the panel's reader agrees", "share"], rows)
    if !misses.isEmpty {
        report.add(
            "Where they differ: " + misses.prefix(40).joined(separator: "; ") + (misses.count > 40 ? "; …" : "") + ".")
    }
    let index = indexReaderRows(files, theirs: theirs, panel: ours)
    report.add(
        """
        The index's reader (the date taken, camera and GPS position that sorting, the filter and the search use, read from a \
        photo's first 16–64 KB in the app, for 100,000 photos at a time, and by the panel's reader on the whole \
        file where those do not settle them) on the same files: how many of those \
        exiftool reads it agrees with, and how many of those the panel's reader also reads it disagrees with the \
        panel on (the two readers must not tell a person two dates for one photo).
        """)
    report.table(
        ["field", "exiftool reads it in", "the index's reader agrees", "differs from the panel's"], index.rows)
    if !index.misses.isEmpty {
        report.add(
            "Where the index's reader differs: " + index.misses.prefix(40).joined(separator: "; ")
                + (index.misses.count > 40 ? "; …" : "") + ".")
    }
    let total = rows.reduce(into: (read: 0, agree: 0)) {
        $0.read += Int($1[1]) ?? 0; $0.agree += Int($1[2]) ?? 0
    }
    report.target(
        "fields that agree with exiftool on the public corpus (date, camera, lens, exposure, GPS)",
        target: "100 % of those exiftool reads",
        measured:
            "\(total.agree) of \(total.read) (\(format(100 * Double(total.agree) / Double(max(total.read, 1)), 1)) %) over \(files.count) files",
        met: allAgree)
}

/// A field the index keeps: how the index's reader, exiftool and the panel's reader give it.
private struct IndexField {
    let name: String
    let tags: [String]
    let index: (String) -> String?
    let theirs: ([String: Any]) -> String?
    let panel: (PhotoDetails) -> String?
}

/// A position as the index's check compares it: to 10⁻⁵° (about a metre).
private func position(_ latitude: Double?, _ longitude: Double?) -> String? {
    guard let latitude, let longitude else { return nil }
    return String(format: "%.5f, %.5f", latitude, longitude)
}

/// The index's reader's date taken, camera and position beside exiftool's and the panel reader's, for the
/// files exiftool reads each in.
private func indexReaderRows(
    _ files: [URL], theirs: [String: [String: Any]], panel: [String: PhotoDetails]
) -> (rows: [[String]], misses: [String]) {
    func sortable(_ exif: String) -> String {
        String(exif.prefix(10).replacingOccurrences(of: ":", with: "-") + exif.dropFirst(10).prefix(9))
    }
    let read = Dictionary(uniqueKeysWithValues: files.map { ($0.path, SortFacts.indexedTags(path: $0.path)) })
    var rows: [[String]] = []
    var misses: [String] = []
    let fields = [
        IndexField(
            name: "date taken", tags: ["DateTimeOriginal"], index: { read[$0]?.date },
            theirs: { text($0["DateTimeOriginal"]).map(sortable) },
            panel: { $0.dateTaken.map { sortable(String($0.prefix(19))) } }),
        IndexField(
            name: "camera", tags: ["Make", "Model"], index: { read[$0]?.camera },
            theirs: { PhotoDetails.camera(make: text($0["Make"]), model: text($0["Model"])) }, panel: { $0.camera }),
        IndexField(
            name: "GPS position", tags: ["GPSLatitude", "GPSLongitude"],
            index: { path in read[path]?.position.flatMap { position($0.latitude, $0.longitude) } },
            theirs: { position(number($0["GPSLatitude"]), number($0["GPSLongitude"])) },
            panel: { position($0.latitude, $0.longitude) }),
    ]
    for field in fields {
        let known = files.filter { file in field.tags.allSatisfy { theirs[file.path]?[$0] != nil } }
        var agree = 0
        var differ = 0
        for file in known {
            let mine = field.index(file.path)
            let exiftool = theirs[file.path].flatMap(field.theirs)
            if mine == exiftool { agree += 1 }
            let panelSays = panel[file.path].flatMap(field.panel)
            if let panelSays, panelSays != mine { differ += 1 }
            if mine != exiftool || (panelSays != nil && panelSays != mine) {
                misses.append(
                    "\(file.lastPathComponent) (\(field.name): exiftool “\(exiftool ?? "")”, the index “\(mine ?? "nothing")”, "
                        + "the panel “\(panelSays ?? "nothing")”)")
            }
        }
        let share = known.isEmpty ? 100 : 100 * Double(agree) / Double(known.count)
        rows.append([field.name, "\(known.count)", "\(agree) (\(format(share, 1)) %)", "\(differ)"])
    }
    return (rows, misses)
}

extension PhotoDetails {
    /// What was read, in a few words, for a disagreement's note.
    fileprivate var summary: String {
        let parts: [String?] = [
            dateTaken, [make, model].compactMap { $0 }.joined(separator: " / "), lens,
            exposure.map { "\($0.numerator)/\($0.denominator) s" }, fNumber.map { "f/\($0)" }, iso.map { "ISO \($0)" },
            latitude.map { "\($0), \(longitude ?? 0)" },
        ]
        return "“" + parts.compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: "; ") + "”"
    }
}
