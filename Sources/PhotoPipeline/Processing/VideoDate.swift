import Foundation

/// When a video was recorded, as its QuickTime / MP4 container says (the movie header's
/// creation time, in seconds since 1904, UTC), for sorting by date taken beside photos. The
/// top-level boxes are walked with a few small reads wherever the index is (phones put it at
/// the end), and only the movie header's first bytes are read.
enum VideoDate {
    /// Seconds from 1904-01-01 to 1970-01-01.
    private static let epoch1904: Int64 = 2_082_844_800
    /// The most top-level boxes looked through (a phone's file has four or five).
    private static let mostBoxes = 64

    /// The recording time of the MP4 / MOV file open as `file` (`size` bytes long), in seconds
    /// since 1970; nil where it is not such a file, or says none.
    static func created(file: Int32, size: Int) -> Int64? {
        var offset = 0
        for _ in 0..<mostBoxes {
            guard let (type, start, end) = box(file, at: offset, within: size) else { return nil }
            if offset == 0, type != "ftyp" { return nil }
            if type == "moov" { return movieHeaderTime(file, from: start, to: end) }
            offset = end
        }
        return nil
    }

    private static func movieHeaderTime(_ file: Int32, from start: Int, to end: Int) -> Int64? {
        var offset = start
        for _ in 0..<mostBoxes {
            guard let (type, body, next) = box(file, at: offset, within: end) else { return nil }
            if type == "mvhd" {
                guard let header = PhotoXMP.read(file, at: body, count: 12) else { return nil }
                let seconds =
                    header[0] == 1
                    ? header[4..<12].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                    : header[4..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                // Zero (not set), before 1971 or past the year 9999: no time worth sorting by.
                guard seconds > UInt64(epoch1904 + 365 * 86_400), seconds < UInt64(epoch1904 + 253_402_300_800)
                else { return nil }
                return Int64(seconds) - epoch1904
            }
            offset = next
        }
        return nil
    }

    /// The box at `offset`: its type, where its body begins and where it ends (within `limit`).
    private static func box(_ file: Int32, at offset: Int, within limit: Int) -> (String, Int, Int)? {
        guard offset + 8 <= limit, let head = PhotoXMP.read(file, at: offset, count: 8) else { return nil }
        var length = head[0..<4].reduce(0) { $0 << 8 | Int($1) }
        var body = offset + 8
        if length == 1 {
            // Sizes past what a file can be (and an Int can hold) are no box.
            guard let large = PhotoXMP.read(file, at: offset + 8, count: 8), large[0] == 0, large[1] == 0 else {
                return nil
            }
            length = large.reduce(0) { $0 << 8 | Int($1) }
            body += 8
        } else if length == 0 {
            length = limit - offset // to the end
        }
        guard length >= body - offset, length <= limit - offset else { return nil }
        let type = String(decoding: head[4..<8], as: UTF8.self)
        return (type, body, offset + length)
    }
}
