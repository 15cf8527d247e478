import Foundation

/// Turns a JPEG by its EXIF Orientation tag (0x0112 in IFD0), never touching its pixels: the
/// lossless rotation cameras and viewers use.
///
/// Three cases, from the least to the most change to the file:
/// - the tag is there: its two bytes are the only ones that change (`patch`, written in place);
/// - there is an EXIF block without the tag: IFD0 is copied, with the tag added in order, to
///   the end of the TIFF block, and the header points to the copy (every other offset in the
///   block counts from the TIFF header, so nothing else moves); the old IFD0 stays as unused
///   bytes;
/// - there is no EXIF block: a small one holding only the tag goes right after SOI (and after a
///   JFIF APP0, if the file starts with one).
/// Anything malformed (a truncated segment, an IFD outside its block, a segment that would
/// grow past 64 KB) is refused rather than guessed at.
public enum ExifOrientation {
    /// The orientation after turning a photo shown with `orientation` (1–8) a quarter turn
    /// clockwise (or counter-clockwise), as EXIF numbers them. Orientations 1, 6, 3, 8 are
    /// the upright photo turned 0°, 90°, 180° and 270° clockwise; 2, 7, 4, 5 the same
    /// mirrored.
    public static func turned(_ orientation: Int, clockwise: Bool) -> Int {
        let cw: [Int: Int] = [1: 6, 6: 3, 3: 8, 8: 1, 2: 7, 7: 4, 4: 5, 5: 2]
        let o = (1...8).contains(orientation) ? orientation : 1
        if clockwise { return cw[o]! }
        return cw.first { $0.value == o }!.key
    }

    /// Where the orientation's value lies in a JPEG, if it has the tag (an offset into the
    /// bytes, and the TIFF block's byte order).
    public struct TagLocation: Sendable, Equatable {
        public let valueOffset: Int
        public let littleEndian: Bool
    }

    /// What turning a JPEG changes.
    public enum Change: Sendable, Equatable {
        /// Write these bytes at this offset: the file keeps its length.
        case patch(offset: Int, bytes: [UInt8])
        /// The whole file, rewritten.
        case rewrite(Data)
    }

    /// The orientation a JPEG has (1 when it has none).
    public static func orientation(of jpeg: Data) -> Int {
        ExifReader.read(jpeg).orientation
    }

    /// The change that gives `jpeg` orientation `orientation` (1–8).
    public static func change(_ jpeg: Data, to orientation: Int) throws(PhotoFileFailure) -> Change {
        guard (1...8).contains(orientation) else {
            throw PhotoFileFailure(message: translatable("No such orientation"))
        }
        let bytes = [UInt8](jpeg)
        guard bytes.count > 4, PictureSignature.isJPEG(bytes) else {
            throw PhotoFileFailure(message: translatable("Not a JPEG file"))
        }
        let segments = try Self.segments(bytes)
        guard let exif = segments.first(where: \.isExif) else {
            return .rewrite(Data(insertingExif(into: bytes, segments: segments, orientation: orientation)))
        }
        let tiff = exif.body.lowerBound + 6
        let block = UnsafeTIFF(bytes: bytes, range: tiff..<exif.body.upperBound)
        guard block.isValid, let ifd0 = block.u32(4), ifd0 >= 8, let count = block.u16(ifd0), count < 1024,
            ifd0 + 2 + count * 12 + 4 <= block.count
        else { throw PhotoFileFailure(message: translatable("The EXIF block is damaged")) }
        for n in 0..<count where block.u16(ifd0 + 2 + n * 12) == 0x0112 {
            let entry = ifd0 + 2 + n * 12
            // SHORT, one value: the value is in the entry itself, in its first two bytes.
            guard block.u16(entry + 2) == 3, block.u32(entry + 4) == 1 else {
                throw PhotoFileFailure(message: translatable("The EXIF orientation is not a single number"))
            }
            let value = block.encode16(orientation)
            return .patch(offset: tiff + entry + 8, bytes: value)
        }
        return .rewrite(Data(try addingTag(to: bytes, exif: exif, block: block, ifd0: ifd0, orientation: orientation)))
    }

    /// `jpeg` with orientation `orientation`, as bytes (the change applied).
    public static func setting(_ jpeg: Data, to orientation: Int) throws(PhotoFileFailure) -> Data {
        switch try change(jpeg, to: orientation) {
        case .rewrite(let data): return data
        case .patch(let offset, let bytes):
            var data = jpeg
            let start = data.startIndex + offset
            data.replaceSubrange(start..<(start + bytes.count), with: bytes)
            return data
        }
    }

    /// The EXIF block `tiff` (a TIFF structure, as a HEIF file keeps it) made true to a
    /// picture saved upright at `width` × `height`: IFD0's orientation set to 1 (where it is
    /// one number), the EXIF directory's pixel size set where it states one, and IFD1 (the
    /// thumbnail of the picture as it was) let go. Nil when the block is damaged.
    static func uprightTIFF(_ tiff: Data, width: Int, height: Int) -> Data? {
        let bytes = [UInt8](tiff)
        let block = UnsafeTIFF(bytes: bytes, range: 0..<bytes.count)
        /// The entries of the directory at `offset`: each one's tag and where it begins.
        func entries(at offset: Int) -> [(tag: Int, at: Int)]? {
            guard offset >= 8, let count = block.u16(offset), count < 1024, offset + 2 + count * 12 + 4 <= block.count
            else { return nil }
            return (0..<count).compactMap { n in block.u16(offset + 2 + n * 12).map { ($0, offset + 2 + n * 12) } }
        }
        guard block.isValid, let ifd0 = block.u32(4), let first = entries(at: ifd0) else { return nil }
        var out = bytes
        var exifDirectory: Int?
        for (tag, entry) in first {
            if tag == 0x0112, block.u16(entry + 2) == 3, block.u32(entry + 4) == 1 {
                out.replaceSubrange((entry + 8)..<(entry + 10), with: block.encode16(1))
            }
            if tag == 0x8769, block.u32(entry + 4) == 1 { exifDirectory = block.u32(entry + 8) }
        }
        // No next directory: IFD1, the thumbnail, is no longer reached.
        let next = ifd0 + 2 + first.count * 12
        out.replaceSubrange(next..<(next + 4), with: [0, 0, 0, 0])
        for (tag, entry) in exifDirectory.flatMap(entries(at:)) ?? [] where tag == 0xA002 || tag == 0xA003 {
            let value = tag == 0xA002 ? width : height
            guard block.u32(entry + 4) == 1 else { continue }
            switch block.u16(entry + 2) {
            case 3 where value <= 0xFFFF: out.replaceSubrange((entry + 8)..<(entry + 10), with: block.encode16(value))
            case 4: out.replaceSubrange((entry + 8)..<(entry + 12), with: block.encode32(value))
            default: continue
            }
        }
        return Data(out)
    }

    /// Where, in the EXIF block `tiff` (a TIFF structure), IFD0's orientation is written (its
    /// two bytes, in the block's byte order), when it is there as one number.
    static func orientationValueOffset(inTIFF tiff: Data) -> Int? {
        let bytes = [UInt8](tiff)
        let block = UnsafeTIFF(bytes: bytes, range: 0..<bytes.count)
        guard block.isValid, let ifd0 = block.u32(4), ifd0 >= 8, let count = block.u16(ifd0), count < 1024,
            ifd0 + 2 + count * 12 <= block.count
        else { return nil }
        for n in 0..<count {
            let entry = ifd0 + 2 + n * 12
            if block.u16(entry) == 0x0112, block.u16(entry + 2) == 3, block.u32(entry + 4) == 1 { return entry + 8 }
        }
        return nil
    }

    // MARK: Segments

    private struct Segment {
        let marker: UInt8
        /// Where the marker (0xFF) is.
        let start: Int
        /// The segment's payload, after its length.
        let body: Range<Int>
        var isExif: Bool
    }

    /// The marker segments before the image data (SOS), which must all be whole.
    private static func segments(_ b: [UInt8]) throws(PhotoFileFailure) -> [Segment] {
        var found: [Segment] = []
        var i = 2
        while true {
            guard i + 4 <= b.count, b[i] == 0xFF else {
                throw PhotoFileFailure(message: translatable("The JPEG file is damaged"))
            }
            let marker = b[i + 1]
            if marker == 0xFF { // fill byte
                i += 1
                continue
            }
            if marker == 0xDA || marker == 0xD9 { return found }
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard length >= 2, i + 2 + length <= b.count else {
                throw PhotoFileFailure(message: translatable("The JPEG file is damaged"))
            }
            let body = (i + 4)..<(i + 2 + length)
            let exif =
                marker == 0xE1 && body.count >= 14 && b[body].starts(with: PictureSignature.exifHeader)
                && found.allSatisfy { !$0.isExif }
            found.append(Segment(marker: marker, start: i, body: body, isExif: exif))
            i += 2 + length
        }
    }

    /// A new APP1 with a little-endian TIFF block whose IFD0 holds only the orientation, after
    /// SOI (and a leading JFIF APP0).
    private static func insertingExif(into b: [UInt8], segments: [Segment], orientation: Int) -> [UInt8] {
        var app1: [UInt8] = [0xFF, 0xE1, 0x00, 0x22] + PictureSignature.exifHeader
        app1 += PictureSignature.tiffLittleEndian + [0x2A, 0x00, 0x08, 0x00, 0x00, 0x00] // 42, IFD0 at 8
        app1 += [0x01, 0x00] // one entry
        app1 += [0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, UInt8(orientation), 0x00, 0x00, 0x00]
        app1 += [0x00, 0x00, 0x00, 0x00] // no IFD1
        let at = segments.first.map { $0.marker == 0xE0 ? $0.body.upperBound : 2 } ?? 2
        return Array(b[0..<at]) + app1 + Array(b[at...])
    }

    /// The file with IFD0 copied, the orientation added, to the end of the EXIF block.
    private static func addingTag(
        to b: [UInt8], exif: Segment, block: UnsafeTIFF, ifd0: Int, orientation: Int
    ) throws(PhotoFileFailure) -> [UInt8] {
        let count = block.u16(ifd0)!
        var entries: [[UInt8]] = (0..<count).map { n in
            let at = block.range.lowerBound + ifd0 + 2 + n * 12
            return Array(b[at..<(at + 12)])
        }
        let tagEntry =
            block.encode16(0x0112) + block.encode16(3) + block.encode32(1) + block.encode16(orientation) + [0, 0]
        // Entries go in ascending tag order.
        let insertAt = entries.firstIndex { block.decode16($0[0], $0[1]) > 0x0112 } ?? entries.count
        entries.insert(tagEntry, at: insertAt)
        let next = block.range.lowerBound + ifd0 + 2 + count * 12
        let nextIFD = Array(b[next..<(next + 4)])
        // The copy starts on an even offset, as TIFF asks.
        let padding = block.count % 2
        let newIFD = block.count + padding
        var tail: [UInt8] = Array(repeating: 0, count: padding)
        tail += block.encode16(entries.count)
        for entry in entries { tail += entry }
        tail += nextIFD
        let newLength = exif.body.count + tail.count + 2
        guard newLength <= 0xFFFF else { throw PhotoFileFailure(message: translatable("The EXIF block is full")) }
        var out = b
        out.insert(contentsOf: tail, at: exif.body.upperBound)
        // The segment's length, and the header's pointer to IFD0.
        out[exif.start + 2] = UInt8(newLength >> 8)
        out[exif.start + 3] = UInt8(newLength & 0xFF)
        let pointer = block.encode32(newIFD)
        out.replaceSubrange((block.range.lowerBound + 4)..<(block.range.lowerBound + 8), with: pointer)
        return out
    }

    /// A TIFF block inside the file's bytes: offsets are from its header.
    private struct UnsafeTIFF {
        let bytes: [UInt8]
        let range: Range<Int>
        let little: Bool
        var count: Int { range.count }

        init(bytes: [UInt8], range: Range<Int>) {
            self.bytes = bytes
            self.range = range
            little = bytes[range].starts(with: PictureSignature.tiffLittleEndian)
        }

        var isValid: Bool {
            guard range.count >= 8 else { return false }
            let block = bytes[range]
            let ordered = [PictureSignature.tiffLittleEndian, PictureSignature.tiffBigEndian].contains {
                block.starts(with: $0)
            }
            return ordered && u16(2) == 42
        }

        func decode16(_ a: UInt8, _ b: UInt8) -> Int { little ? Int(a) | Int(b) << 8 : Int(a) << 8 | Int(b) }

        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= range.count else { return nil }
            return decode16(bytes[range.lowerBound + at], bytes[range.lowerBound + at + 1])
        }

        func u32(_ at: Int) -> Int? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }

        func encode16(_ value: Int) -> [UInt8] {
            let (high, low) = (UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF))
            return little ? [low, high] : [high, low]
        }

        func encode32(_ value: Int) -> [UInt8] {
            let bytes = (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) }
            return little ? bytes : bytes.reversed()
        }
    }
}
