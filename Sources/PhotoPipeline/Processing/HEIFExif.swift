import Foundation

/// Finds the EXIF block of a HEIF file (HEIC from phones, AVIF): HEIF keeps it as an item of
/// type `Exif`, found through the `meta` box's item information (`iinf`) and placed by its
/// item locations (`iloc`), anywhere in the file. Only the boxes at the file's start are read
/// (the `meta` box comes before the picture's data); every length and offset is checked
/// against what was read, so a malformed file yields nothing.
enum HEIFExif {
    /// Where, in the file whose first bytes are `head`, the `Exif` item's data lies: the file
    /// offset and length of its one extent (the item's data begins with the offset of the TIFF
    /// header within it). Nil when `head` is no HEIF file, has no such item, or is malformed.
    static func itemRange(in head: Data) -> Range<Int>? {
        head.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard bytes.count >= 12, bytes[4..<8].elementsEqual("ftyp".utf8),
                let meta = box("meta", in: bytes, 0..<bytes.count)
            else { return nil }
            // `meta` is a full box: 4 bytes of version and flags before its children.
            let children = (meta.lowerBound + 4)..<meta.upperBound
            guard children.lowerBound <= children.upperBound,
                let infos = box("iinf", in: bytes, children), let item = exifItem(bytes, infos),
                let locations = box("iloc", in: bytes, children)
            else { return nil }
            return extent(of: item, bytes, locations)
        }
    }

    /// The TIFF block within an `Exif` item's data.
    static func tiffBlock(ofItem data: Data) -> Data? {
        guard data.count >= 4 else { return nil }
        let start = data.startIndex
        let offset =
            Int(data[start]) << 24 | Int(data[start + 1]) << 16 | Int(data[start + 2]) << 8 | Int(data[start + 3])
        guard offset >= 0, 4 + offset < data.count else { return nil }
        return data[(start + 4 + offset)...]
    }

    /// The body of the first box of type `type` among the boxes in `range`.
    private static func box(_ type: String, in b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Range<Int>? {
        var at = range.lowerBound
        while at + 8 <= range.upperBound {
            var size = Int(read(b, at, 4) ?? 0)
            var header = 8
            if size == 1 {
                guard let large = read(b, at + 8, 8), large < UInt64(Int.max) else { return nil }
                size = Int(large)
                header = 16
            } else if size == 0 {
                size = range.upperBound - at // to the end
            }
            guard size >= header else { return nil }
            let end = at + size
            if b[(at + 4)..<(at + 8)].elementsEqual(type.utf8) {
                // A box cut short by the end of what was read is of no use.
                return end <= range.upperBound ? (at + header)..<end : nil
            }
            guard end > at else { return nil }
            at = end
        }
        return nil
    }

    /// The ID of the item of type `Exif` in the item information box `infos`.
    private static func exifItem(_ b: UnsafeBufferPointer<UInt8>, _ infos: Range<Int>) -> UInt32? {
        guard infos.count >= 6 else { return nil }
        let version = b[infos.lowerBound]
        var at = infos.lowerBound + (version == 0 ? 6 : 8) // version, flags, entry count
        while at + 8 <= infos.upperBound {
            guard let size = read(b, at, 4).map(Int.init), size >= 8, at + size <= infos.upperBound else { return nil }
            if b[(at + 4)..<(at + 8)].elementsEqual("infe".utf8), size >= 12 {
                // infe, version 2 (16-bit item ID) or 3 (32-bit): ID, protection index, type.
                let entryVersion = b[at + 8]
                let idLength = entryVersion == 3 ? 4 : 2
                if entryVersion >= 2, let id = read(b, at + 12, idLength),
                    at + 12 + idLength + 2 + 4 <= at + size,
                    b[(at + 12 + idLength + 2)..<(at + 12 + idLength + 6)].elementsEqual("Exif".utf8)
                {
                    return UInt32(id)
                }
            }
            at += size
        }
        return nil
    }

    /// The file range of item `item`'s only extent, from the item location box `locations`.
    private static func extent(
        of item: UInt32, _ b: UnsafeBufferPointer<UInt8>, _ locations: Range<Int>
    ) -> Range<Int>? {
        let end = locations.upperBound
        guard locations.count >= 8 else { return nil }
        let version = b[locations.lowerBound]
        var at = locations.lowerBound + 4
        let offsetSize = Int(b[at] >> 4), lengthSize = Int(b[at] & 0x0F)
        let baseSize = Int(b[at + 1] >> 4), indexSize = version >= 1 ? Int(b[at + 1] & 0x0F) : 0
        at += 2
        let countLength = version < 2 ? 2 : 4
        guard [0, 4, 8].contains(offsetSize), [0, 4, 8].contains(lengthSize), [0, 4, 8].contains(baseSize),
            let count = read(b, at, countLength), at + countLength <= end
        else { return nil }
        at += countLength
        for _ in 0..<min(count, 4096) {
            guard let id = read(b, at, countLength) else { return nil }
            at += countLength
            var method: UInt64 = 0
            if version >= 1 {
                guard let value = read(b, at, 2) else { return nil }
                method = value & 0x0F
                at += 2
            }
            at += 2 // data reference index
            guard let base = read(b, at, baseSize), let extents = read(b, at + baseSize, 2) else { return nil }
            at += baseSize + 2
            var found: (offset: UInt64, length: UInt64)?
            for _ in 0..<extents {
                at += indexSize
                guard let offset = read(b, at, offsetSize), let length = read(b, at + offsetSize, lengthSize) else {
                    return nil
                }
                at += offsetSize + lengthSize
                found = found == nil ? (offset, length) : nil
            }
            guard UInt32(id) == item else { continue }
            // Only data in the file itself (method 0), in one piece, of a sensible size.
            guard method == 0, extents == 1, let found, found.length > 0, found.length <= 1 << 24 else { return nil }
            let start = base &+ found.offset
            guard start < UInt64(Int.max) - found.length else { return nil }
            return Int(start)..<Int(start + found.length)
        }
        return nil
    }

    /// A big-endian number of `length` (0, 2, 4 or 8) bytes at `at`; 0 for length 0; nil past
    /// the end.
    private static func read(_ b: UnsafeBufferPointer<UInt8>, _ at: Int, _ length: Int) -> UInt64? {
        guard length >= 0, at >= 0, at + length <= b.count else { return nil }
        var value: UInt64 = 0
        for i in 0..<length { value = value << 8 | UInt64(b[at + i]) }
        return value
    }
}
