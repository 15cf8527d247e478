import Foundation

/// When and where a video was recorded, as its QuickTime / MP4 container says: the movie
/// header's creation time (seconds since 1904, UTC), for sorting by date taken beside photos,
/// and the place a phone wrote: ISO 6709 text ("+48.1374+011.5755+520.0/") in Android's and
/// older iPhones' `©xyz` in the movie's user data, or as newer iPhones'
/// `com.apple.quicktime.location.ISO6709` among the movie's metadata keys; or 3GPP's `loci`
/// (fixed-point degrees). The top-level boxes are walked with a few small reads
/// wherever the index is (phones put it at the end), and only the few boxes that hold those are
/// read.
enum VideoDate {
    /// Seconds from 1904-01-01 to 1970-01-01.
    private static let epoch1904: Int64 = 2_082_844_800
    /// The most boxes looked through at one level (a phone's file has four or five at the top).
    private static let mostBoxes = 64

    /// Where a video was recorded (degrees, north and east positive; metres above sea level).
    struct Position: Equatable {
        var latitude: Double
        var longitude: Double
        var altitude: Double?
    }

    /// What the movie's boxes say.
    struct Header {
        /// Seconds since 1970.
        var created: Int64?
        var position: Position?
    }

    /// The recording time of the MP4 / MOV file open as `file` (`size` bytes long), in seconds
    /// since 1970; nil where it is not such a file, or says none.
    static func created(file: Int32, size: Int) -> Int64? {
        header(file: file, size: size)?.created
    }

    /// The recording time and place of the MP4 / MOV file open as `file` (`size` bytes long);
    /// nil where it is not such a file.
    static func header(file: Int32, size: Int) -> Header? {
        let file = Boxes(file)
        var offset = 0
        for _ in 0..<mostBoxes {
            guard let (type, start, end) = box(file, at: offset, within: size) else { return nil }
            if offset == 0, type != "ftyp" { return nil }
            if type == "moov" { return movieHeader(file, from: start, to: end) }
            offset = end
        }
        return nil
    }

    /// The file whose boxes are read, and how many more may be: boxes within boxes (a `meta` in
    /// each of many `udta`s, items of many values) are read a bounded number of times in all.
    private final class Boxes {
        let file: Int32
        var left = 1_024
        init(_ file: Int32) { self.file = file }
    }

    /// `©xyz`'s type (box types are read a byte to a character: see `box`).
    private static let locationBox = "\u{A9}xyz"
    /// The most bytes of a place's text read (ISO 6709 takes some 30).
    private static let mostPlaceBytes = 64

    private static func movieHeader(_ file: Boxes, from start: Int, to end: Int) -> Header {
        var header = Header()
        var offset = start
        for _ in 0..<mostBoxes {
            guard let (type, body, next) = box(file, at: offset, within: end) else { break }
            switch type {
            case "mvhd": header.created = creationTime(file, at: body)
            case "udta":
                forEachBox(file, from: body, to: next) { type, body, end in
                    guard header.position == nil else { return }
                    if type == locationBox, end - body > 4,
                        let bytes = PhotoXMP.read(file.file, at: body, count: min(end - body, 4 + mostPlaceBytes))
                    {
                        // `©xyz`: a 16-bit length and language, then the text.
                        let length = min(Int(bytes[0]) << 8 | Int(bytes[1]), bytes.count - 4)
                        header.position = iso6709(Array(bytes[4..<(4 + length)]))
                    } else if type == "loci" {
                        header.position = location(file, from: body, to: end)
                    } else if type == "meta" {
                        header.position = metadataPosition(file, from: body, to: end)
                    }
                }
            case "meta": if header.position == nil { header.position = metadataPosition(file, from: body, to: next) }
            default: break
            }
            offset = next
        }
        return header
    }

    private static func creationTime(_ file: Boxes, at body: Int) -> Int64? {
        guard let header = PhotoXMP.read(file.file, at: body, count: 12) else { return nil }
        let seconds =
            header[0] == 1
            ? header[4..<12].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            : header[4..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        // Zero (not set), before 1971 or past the year 9999: no time worth sorting by.
        guard seconds > UInt64(epoch1904 + 365 * 86_400), seconds < UInt64(epoch1904 + 253_402_300_800)
        else { return nil }
        return Int64(seconds) - epoch1904
    }

    /// The place among a QuickTime `meta` box's keys (`keys`) and values (`ilst`, each item's
    /// type the 1-based number of its key, its value in a `data` box).
    private static func metadataPosition(_ file: Boxes, from start: Int, to end: Int) -> Position? {
        var wanted: Int?
        var position: Position?
        // In an MP4 (not a QuickTime movie) `meta` begins with a version and flags.
        guard let first = PhotoXMP.read(file.file, at: start, count: 4) else { return nil }
        let children = first.allSatisfy { $0 == 0 } ? start + 4 : start
        forEachBox(file, from: children, to: end) { type, body, end in
            if type == "keys", end - body >= 8, let head = PhotoXMP.read(file.file, at: body, count: 8) {
                let count = min(head[4..<8].reduce(0) { $0 << 8 | Int($1) }, mostBoxes)
                var at = body + 8
                for number in stride(from: 1, through: count, by: 1) {
                    // (Each key read counts among the boxes read.)
                    guard file.left > 0, at + 8 <= end, let entry = PhotoXMP.read(file.file, at: at, count: 8) else {
                        break
                    }
                    file.left -= 1
                    let length = entry[0..<4].reduce(0) { $0 << 8 | Int($1) }
                    guard length >= 8, length <= end - at else { break }
                    let key = "com.apple.quicktime.location.ISO6709"
                    if length - 8 == key.utf8.count, let name = PhotoXMP.read(file.file, at: at + 8, count: length - 8),
                        name.elementsEqual(key.utf8)
                    {
                        wanted = number
                    }
                    at += length
                }
            } else if type == "ilst", let wanted {
                forEachBox(file, from: body, to: end) { number, item, itemEnd in
                    guard number.unicodeScalars.reduce(0, { $0 << 8 | Int($1.value) }) == wanted else { return }
                    forEachBox(file, from: item, to: itemEnd) { type, value, valueEnd in
                        // `data`: a type and a locale (4 bytes each), then the text.
                        guard type == "data", valueEnd - value > 8,
                            let text = PhotoXMP.read(
                                file.file, at: value + 8, count: min(valueEnd - value - 8, mostPlaceBytes))
                        else { return }
                        position = iso6709(Array(text))
                    }
                }
            }
        }
        return position
    }

    /// A 3GPP `loci` box's place: after its version and flags, a language, a name ending in a
    /// zero (UTF-8, or UTF-16 after its byte-order mark, ending in two) and a role, then
    /// longitude, latitude and altitude as 16.16 fixed-point numbers.
    private static func location(_ file: Boxes, from start: Int, to end: Int) -> Position? {
        guard end - start > 19, let bytes = PhotoXMP.read(file.file, at: start, count: min(end - start, 256)) else {
            return nil
        }
        var zero = bytes[6...].firstIndex(of: 0)
        if bytes[6] == 0xFE, bytes[7] == 0xFF {
            zero = stride(from: 8, to: bytes.count - 1, by: 2).first { bytes[$0] == 0 && bytes[$0 + 1] == 0 }
                .map { $0 + 1 }
        }
        guard let zero, zero + 14 <= bytes.count else { return nil }
        func fixed(_ at: Int) -> Double {
            Double(Int32(bitPattern: bytes[at..<(at + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })) / 65_536
        }
        let (longitude, latitude, altitude) = (fixed(zero + 2), fixed(zero + 6), fixed(zero + 10))
        guard abs(latitude) <= 90, abs(longitude) <= 180 else { return nil }
        return Position(latitude: latitude, longitude: longitude, altitude: altitude)
    }

    /// Calls `body` with the type, body start and end of each box from `start` to `end`.
    private static func forEachBox(_ file: Boxes, from start: Int, to end: Int, _ body: (String, Int, Int) -> Void) {
        var offset = start
        for _ in 0..<mostBoxes {
            guard let (type, start, next) = box(file, at: offset, within: end) else { return }
            body(type, start, next)
            offset = next
        }
    }

    /// A place written as ISO 6709 decimal degrees: a signed latitude, a signed longitude and
    /// optionally a signed altitude, then "/" ("+48.1374+011.5755+520.000/"). The standard's
    /// forms in degrees and minutes (4 or 5 digits before the point) or seconds (6 or 7), which
    /// no phone writes, are refused rather than read as degrees.
    static func iso6709(_ bytes: [UInt8]) -> Position? {
        var numbers: [Double] = []
        var at = 0
        while at < bytes.count, numbers.count < 3, bytes[at] == 0x2B || bytes[at] == 0x2D {
            var end = at + 1
            while end < bytes.count, (0x30...0x39).contains(bytes[end]) || bytes[end] == 0x2E { end += 1 }
            let whole = bytes[(at + 1)..<end].prefix { $0 != 0x2E }.count
            guard end > at + 1, numbers.count == 2 || whole <= 3,
                let number = Double(String(decoding: bytes[at..<end], as: UTF8.self))
            else { break }
            numbers.append(number)
            at = end
        }
        guard numbers.count >= 2, abs(numbers[0]) <= 90, abs(numbers[1]) <= 180 else { return nil }
        return Position(latitude: numbers[0], longitude: numbers[1], altitude: numbers.count > 2 ? numbers[2] : nil)
    }

    /// The box at `offset`: its type, where its body begins and where it ends (within `limit`).
    private static func box(_ file: Boxes, at offset: Int, within limit: Int) -> (String, Int, Int)? {
        guard file.left > 0 else { return nil }
        file.left -= 1
        guard offset + 8 <= limit, let head = PhotoXMP.read(file.file, at: offset, count: 8) else { return nil }
        var length = head[0..<4].reduce(0) { $0 << 8 | Int($1) }
        var body = offset + 8
        if length == 1 {
            // Sizes past what a file can be (and an Int can hold) are no box.
            guard let large = PhotoXMP.read(file.file, at: offset + 8, count: 8), large[0] == 0, large[1] == 0 else {
                return nil
            }
            length = large.reduce(0) { $0 << 8 | Int($1) }
            body += 8
        } else if length == 0 {
            length = limit - offset // to the end
        }
        guard length >= body - offset, length <= limit - offset else { return nil }
        // A byte to a character, so that types that are not text (`©xyz`, an item's number)
        // keep their bytes.
        let type = String(String.UnicodeScalarView(head[4..<8].map { Unicode.Scalar($0) }))
        return (type, body, offset + length)
    }
}
