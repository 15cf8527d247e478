import CGLib
import Foundation

/// How the photos of a folder are ordered: by name (the file manager's natural order), date
/// taken, date modified or size, ascending or descending. Photos that tie stay in name order.
public struct PhotoOrder: Sendable, Equatable {
    public enum Key: String, Sendable, CaseIterable {
        case name
        case dateTaken = "date-taken"
        case dateModified = "date-modified"
        case size
    }

    public var key: Key
    public var descending: Bool

    public init(key: Key, descending: Bool = false) {
        self.key = key
        self.descending = descending
    }

    public static let byName = PhotoOrder(key: .name)

    /// Whether ordering needs more than the names (something read from each file).
    public var needsFacts: Bool { key != .name }
}

/// What a photo is sorted by besides its name, read from its file.
public struct SortFacts: Sendable, Equatable {
    /// Modification time, in nanoseconds since 1970.
    public var modified: Int64
    public var size: Int64
    /// When it was taken ("2021-07-04 18:30:05", local time as cameras write it); nil until
    /// read, and where the file says nothing, its modification time in the same form.
    public var taken: String?

    /// Reads the modification time and size of the file at `path` (following links), and with
    /// `taken` the date the photo was taken (from `known`, what `index` held for the folder,
    /// where given; else from `index`; else from the file); nil if it cannot be read.
    public static func read(
        path: UnsafePointer<CChar>, taken: Bool, index: PhotoIndex? = PhotoIndex.shared,
        known: [String: PhotoIndex.Facts]? = nil
    ) -> SortFacts? {
        MainThreadIO.check(.stat)
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        var facts = SortFacts(status)
        if taken { facts.fillDateTaken(path: path, index: index, known: known) }
        return facts
    }

    /// The same for a `file:` address.
    public static func read(
        link: String, taken: Bool, index: PhotoIndex? = PhotoIndex.shared, known: [String: PhotoIndex.Facts]? = nil
    ) -> SortFacts? {
        guard let path = g_filename_from_uri(link, nil, nil) else { return nil }
        defer { g_free(path) }
        return read(path: path, taken: taken, index: index, known: known)
    }

    /// Fills in the date taken of the photo at `path`, whose size and time these facts hold:
    /// from `known` or `index` where they have it, else read from the file (its modification
    /// time where the file says nothing) and given to the index. Says whether the index had it.
    @discardableResult
    mutating func fillDateTaken(
        path: UnsafePointer<CChar>, index: PhotoIndex?, known: [String: PhotoIndex.Facts]? = nil
    ) -> Bool {
        let key = String(cString: path)
        if let known {
            if let held = known[key], held.size == size, held.modified == modified {
                taken = held.taken
                return true
            }
        } else if let held = index?.dateTaken(path: key, size: size, modified: modified) {
            taken = held
            return true
        }
        let read = Self.headFacts(path: path)
        let date = read.date ?? Self.localTime(seconds: modified / 1_000_000_000)
        taken = date
        let stored = read.storedSize
        index?.remember(
            path: key,
            PhotoIndex.Facts(
                size: size, modified: modified, taken: date, width: stored?.width ?? read.pixelWidth,
                height: stored?.height ?? read.pixelHeight, orientation: read.orientation, camera: read.camera,
                lens: read.lens, latitude: read.position?.latitude, longitude: read.position?.longitude))
        return false
    }

    /// The date taken, the camera and the position the index and the sorts read of the photo
    /// at `path` (nil where its first bytes hold none), as they are kept: for the check of this
    /// reader against the details panel's and exiftool on a public corpus.
    public static func indexedTags(
        path: String
    ) -> (date: String?, camera: String?, position: (latitude: Double, longitude: Double)?) {
        let facts = headFacts(path: path)
        return (facts.date, facts.camera, facts.position)
    }

    /// What the index keeps of a photo, from its first bytes: its EXIF tags, and the size its
    /// header gives where the header lies among them.
    private struct HeadFacts {
        var date: String?
        var camera: String?
        var lens: String?
        var position: (latitude: Double, longitude: Double)?
        var orientation: Int?
        var pixelWidth: Int?
        var pixelHeight: Int?
        var storedSize: (width: Int, height: Int)?
    }

    private static func headFacts(path: UnsafePointer<CChar>) -> HeadFacts {
        var facts = HeadFacts()
        if let dot = strrchr(path, 0x2E), VideoFile.isVideo(extension: String(cString: dot + 1)) {
            // A video: when its container says it was recorded, in the viewer's zone (phones
            // write UTC there), and where.
            let header = PhotoXMP.withFile(at: String(cString: path)) { file, size in
                VideoDate.header(file: file, size: size)
            }
            facts.date = header?.created.map { localTime(seconds: $0) }
            facts.position = header?.position.map { ($0.latitude, $0.longitude) }
            return facts
        }
        let (tags, settled) = headTags(path: path) { head in
            if facts.storedSize == nil { facts.storedSize = ExifReader.storedSize(head) }
        }
        if let tags {
            facts.date = tags.date
            facts.camera = tags.camera
            facts.lens = tags.lens
            if let latitude = tags.latitude, let longitude = tags.longitude { facts.position = (latitude, longitude) }
            facts.orientation = tags.orientation
            facts.pixelWidth = tags.pixelWidth
            facts.pixelHeight = tags.pixelHeight
        }
        // Where the first bytes do not settle it, the details panel's reader (Exiv2, in a
        // decoder helper) reads the whole file: the two readers do not give two dates.
        if !settled, let details = wholeFileDetails(path: path) {
            if let date = details.dateTaken { facts.date = ExifReader.readableDate(String(date.prefix(19))) }
            if let camera = details.camera { facts.camera = camera }
            if let lens = details.lens { facts.lens = lens }
            if let latitude = details.latitude, let longitude = details.longitude {
                facts.position = (latitude, longitude)
            }
        }
        return facts
    }

    /// The photo's EXIF tags, from its first 16 KB (64 KB when its EXIF block is long and the
    /// date was not in the first part); for a HEIF photo, from its `Exif` item, wherever its
    /// item locations put it. `seen` is given each head read. Settled: the tags hold the date
    /// the photo was taken (`DateTimeOriginal`), or the file holds no EXIF at all; not where
    /// the head says nothing of a format it is not read for (WebP, Canon's CR3 and CRW), where
    /// EXIF lies beyond it (a PNG's text chunks, a TIFF's EXIF directory past 64 KB), or where
    /// it has only the file's `DateTime`.
    private static func headTags(
        path: UnsafePointer<CChar>, seen: (Data) -> Void
    ) -> (tags: ExifReader.Tags?, settled: Bool) {
        let file = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard file >= 0 else { return (nil, true) }
        defer { close(file) }
        func read(_ range: Range<Int>) -> Data? {
            var bytes = Data(count: range.count)
            let count = bytes.withUnsafeMutableBytes {
                pread(file, $0.baseAddress, range.count, off_t(range.lowerBound))
            }
            return count > 0 ? bytes.prefix(count) : nil
        }
        var found: ExifReader.Tags?
        var last = Data()
        for length in [16 << 10, 64 << 10] {
            guard let head = read(0..<length), head.count > 4 else { break }
            last = head
            seen(head)
            if let tags = ExifReader.tags(head) {
                found = tags
                if tags.dateIsOriginal { break }
            }
            if let item = HEIFExif.itemRange(in: head) {
                return (read(item).flatMap(HEIFExif.tiffBlock(ofItem:)).flatMap(ExifReader.tags), true)
            }
            if head.count < length { break }
        }
        let settled = found?.dateIsOriginal == true || ExifReader.holdsNone(last) || PictureSignature.isHEIF(last)
        return (found, settled || last.isEmpty)
    }

    /// The most a file may have for the details panel's reader to read it for the index.
    private static let wholeFileLimit = 64 << 20

    /// What the details panel's reader makes of the whole file at `path` (nil where it is
    /// larger than `wholeFileLimit` or cannot be read).
    private static func wholeFileDetails(path: UnsafePointer<CChar>) -> PhotoDetails? {
        let file = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard file >= 0 else { return nil }
        defer { close(file) }
        var status = stat()
        guard fstat(file, &status) == 0, status.st_size > 0, status.st_size <= wholeFileLimit else { return nil }
        var bytes = Data(count: Int(status.st_size))
        let count = bytes.withUnsafeMutableBytes { pread(file, $0.baseAddress, $0.count, 0) }
        guard count == bytes.count else { return nil }
        return Decoding.details(bytes)
    }

    /// `seconds` since 1970 as this computer's local time, written "2021-07-04 18:30:05" (or
    /// with another `separator` between the date's parts: EXIF's is ":").
    static func localTime(seconds: Int64, separator: String = "-") -> String {
        var time = time_t(seconds)
        var parts = tm()
        localtime_r(&time, &parts)
        return String(
            format: "%04d\(separator)%02d\(separator)%02d %02d:%02d:%02d", Int(parts.tm_year) + 1900,
            Int(parts.tm_mon) + 1, Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }
}

extension SortFacts {
    /// The modification time and size a file's status gives.
    init(_ status: stat) {
        self.init(
            modified: Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec),
            size: Int64(status.st_size))
    }
}

extension PhotoOrder {
    /// Whether, in this order, a photo with `a`'s facts comes before one with `b`'s, or nil
    /// when they tie (the name decides).
    func precedes(_ a: SortFacts, _ b: SortFacts) -> Bool? {
        let ascending: Bool? =
            switch key {
            case .name: nil
            case .dateModified: a.modified == b.modified ? nil : a.modified < b.modified
            case .size: a.size == b.size ? nil : a.size < b.size
            case .dateTaken: a.taken == b.taken ? nil : (a.taken ?? "") < (b.taken ?? "")
            }
        return ascending.map { $0 != descending }
    }

    /// The indexes of photos named `names` with `facts` in this order. Names order ties,
    /// ascending whichever way the rest goes. Sub-folders (see `PhotoEntry.isFolder`) come
    /// first, by name, whatever the order.
    /// `nameOrder`, when given, is the photos' name order already known (a tree's, read folder
    /// by folder).
    public func order(names: [String], links: [String], facts: [SortFacts?], nameOrder: [Int]? = nil) -> [Int] {
        let ordered = photoOrder(names: names, links: links, facts: facts, nameOrder: nameOrder)
        guard links.contains(where: { $0.hasSuffix("/") }) else { return ordered }
        let isFolder = links.map { PhotoEntry(name: "", link: $0, base: nil).isFolder }
        let folders = NaturalOrder.order(names: names, links: links).filter { isFolder[$0] }
        return folders + ordered.filter { !isFolder[$0] }
    }

    /// The same for photos among which there is no folder (a folder's listed pictures).
    func order(pictures names: PackedTexts, links: PackedTexts, facts: [SortFacts?], nameOrder: [Int]?) -> [Int] {
        photoOrder(names: names, links: links, facts: facts, nameOrder: nameOrder)
    }

    private func photoOrder<Texts: RandomAccessCollection<String> & Sendable>(
        names: Texts, links: Texts, facts: [SortFacts?], nameOrder: [Int]?
    ) -> [Int] where Texts.Index == Int {
        let byName = nameOrder ?? NaturalOrder.order(names: names, links: links)
        guard key != .name || descending else { return byName }
        if key == .name { return byName.reversed() }
        if let keys = sortKeys(facts) { return Self.ordered(byName, keys: keys) }
        var rank = [Int](repeating: 0, count: byName.count)
        for (position, index) in byName.enumerated() { rank[index] = position }
        return byName.sorted { a, b in
            switch (facts[a], facts[b]) {
            case (let x?, let y?): if let first = precedes(x, y) { return first }
            case (nil, _?): return false // unreadable files last
            case (_?, nil): return true
            case (nil, nil): break
            }
            return rank[a] < rank[b]
        }
    }

    /// The photos in `byName` (their name order) ordered by `keys` (one a photo, smaller
    /// first), ties in name order.
    private static func ordered(_ byName: [Int], keys: [Int64]) -> [Int] {
        // One number a photo, and its place by name for ties: sorting 100,000 such pairs took a
        // tenth of the time of comparing the facts themselves (dates as text).
        var pairs = byName.enumerated().map { position, index in (key: keys[index], rank: Int32(position)) }
        pairs.sort { $0.key != $1.key ? $0.key < $1.key : $0.rank < $1.rank }
        return pairs.map { byName[Int($0.rank)] }
    }

    /// The indexes of photos whose dates taken are `dateNumbers` (see `dateNumber(_:)`; nil
    /// for a file that could not be read, which goes last) in this order, by date taken,
    /// ties as `order(names:links:facts:nameOrder:)` breaks them. No folder is among them.
    func order(dateNumbers: [Int64?], names: PackedTexts, links: PackedTexts, nameOrder: [Int]?) -> [Int] {
        let byName = nameOrder ?? NaturalOrder.order(names: names, links: links)
        let keys = dateNumbers.map { number in number.map { descending ? -$0 : $0 } ?? .max }
        return Self.ordered(byName, keys: keys)
    }

    /// Each photo's place in this order as one number (smaller first; unreadable files last),
    /// or nil where a date taken is not in the form `SortFacts` writes.
    private func sortKeys(_ facts: [SortFacts?]) -> [Int64]? {
        var keys = [Int64](repeating: .max, count: facts.count)
        for (index, facts) in facts.enumerated() {
            guard let facts else { continue } // unreadable files last, whichever way
            let value: Int64
            switch key {
            case .name: return nil
            case .dateModified: value = facts.modified
            case .size: value = facts.size
            case .dateTaken:
                // A photo whose date is unknown comes before every date, as an empty text would.
                guard let taken = facts.taken else {
                    value = -1
                    break
                }
                guard let number = Self.dateNumber(taken) else { return nil }
                value = number
            }
            keys[index] = descending ? (value == .min ? .max - 1 : -value) : min(value, .max - 1)
        }
        return keys
    }

    /// "2021-07-04 18:30:05" as the number 20210704183005, which orders dates as their text does.
    static func dateNumber(_ taken: String) -> Int64? { dateNumber(taken.utf8) }

    /// The same for the date's UTF-8 bytes.
    static func dateNumber<Bytes: Sequence>(_ taken: Bytes) -> Int64? where Bytes.Element == UInt8 {
        var number: Int64 = 0
        var count = 0
        for (position, byte) in taken.enumerated() {
            switch position {
            case 4, 7: guard byte == UInt8(ascii: "-") else { return nil }
            case 10: guard byte == UInt8(ascii: " ") else { return nil }
            case 13, 16: guard byte == UInt8(ascii: ":") else { return nil }
            default:
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                number = number * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            count += 1
        }
        return count == 19 ? number : nil
    }

    /// Whether `a` (named `nameA`) comes before `b` (named `nameB`) in this order.
    public func precedes(_ a: SortFacts?, named nameA: String, _ b: SortFacts?, named nameB: String) -> Bool {
        if key != .name {
            switch (a, b) {
            case (let x?, let y?): if let first = precedes(x, y) { return first }
            case (nil, _?): return false
            case (_?, nil): return true
            case (nil, nil): break
            }
        }
        let byName = NaturalOrder.compare(nameA, nameB)
        return key == .name && descending ? byName > 0 : byName < 0
    }
}
