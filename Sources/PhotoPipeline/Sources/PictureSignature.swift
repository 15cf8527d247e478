import Foundation

/// The signatures (magic numbers) pictures and their parts begin with, in one table, and what
/// a file's first bytes say it is, for the kinds the decoder treats apart.
public enum PictureSignature {
    /// A JPEG's start-of-image marker (SOI): every JPEG begins with it, the thumbnail inside
    /// a camera JPEG's EXIF block too.
    public static let jpegStart: [UInt8] = [0xFF, 0xD8]
    /// SOI and the first byte of the marker after it (FF D8 FF): what file managers' magic
    /// takes for a JPEG.
    public static let jpeg: [UInt8] = jpegStart + [0xFF]
    /// PNG's eight bytes.
    public static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// GIF: "GIF", then its version ("87a" or "89a").
    public static let gif: [UInt8] = Array("GIF".utf8)
    /// A binary PPM ("P6"): what RAW converters write a photo as.
    public static let ppm: [UInt8] = Array("P6".utf8)
    /// WebP: a RIFF container ("RIFF", its size) whose form is "WEBP".
    public static let riff: [UInt8] = Array("RIFF".utf8)
    public static let webP: [UInt8] = Array("WEBP".utf8)
    /// An ISO media file's (HEIF, AVIF) first box, at byte 4: "ftyp", then the brand.
    public static let fileTypeBox: [UInt8] = Array("ftyp".utf8)
    /// A TIFF block's byte order (EXIF's block is one), then the number 42: "II" little-endian,
    /// "MM" big-endian.
    public static let tiffLittleEndian: [UInt8] = [0x49, 0x49]
    public static let tiffBigEndian: [UInt8] = [0x4D, 0x4D]
    /// What a JPEG's APP1 segment holding EXIF begins with: "Exif" and two zero bytes.
    public static let exifHeader: [UInt8] = Array("Exif".utf8) + [0, 0]

    /// Whether `bytes` begin as a JPEG does (its start-of-image marker).
    public static func isJPEG(_ bytes: some Collection<UInt8>) -> Bool { bytes.starts(with: jpegStart) }

    /// HEIF and AVIF: an ISO media file whose `ftyp` box names an image brand.
    static func isHEIF<Bytes: Collection<UInt8>>(_ first: Bytes) -> Bool {
        let head = Array(first.prefix(12))
        guard head.count == 12, head[4..<8].elementsEqual(fileTypeBox) else { return false }
        let brand = String(decoding: head[8..<12], as: UTF8.self)
        return ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1", "avif", "avis"].contains(brand)
    }

    /// Whether the HEIF file whose first bytes are `first` is an AVIF: its `ftyp` box names
    /// AVIF as its brand, or among those it is compatible with and HEVC's not.
    static func isAVIF<Bytes: Collection<UInt8>>(_ first: Bytes) -> Bool {
        let head = Array(first.prefix(64))
        guard head.count >= 12, head[4..<8].elementsEqual(fileTypeBox) else { return false }
        let size = min(head.count, Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3]))
        // The major brand, then (after the minor version) the compatible ones.
        let brands = ([8] + Array(stride(from: 16, to: size - 3, by: 4))).map {
            String(decoding: head[$0..<($0 + 4)], as: UTF8.self)
        }
        let av1 = brands.contains { $0 == "avif" || $0 == "avis" }
        let hevc = brands.contains { ["heic", "heix", "hevc", "hevx", "heim", "heis"].contains($0) }
        return av1 && (!hevc || brands[0] == "avif" || brands[0] == "avis")
    }

    /// A WebP file's canvas size, from its first 30 bytes: the lossy (VP8), lossless (VP8L)
    /// or extended (VP8X) header; and whether it is animated.
    static func webPSize<Bytes: Collection<UInt8>>(_ first: Bytes) -> (width: Int, height: Int, animated: Bool)? {
        let b = Array(first.prefix(30))
        guard b.count == 30, b[0..<4].elementsEqual(riff), b[8..<12].elementsEqual(webP) else {
            return nil
        }
        func u16(_ at: Int) -> Int { Int(b[at]) | Int(b[at + 1]) << 8 }
        func u24(_ at: Int) -> Int { u16(at) | Int(b[at + 2]) << 16 }
        switch String(decoding: b[12..<16], as: UTF8.self) {
        case "VP8 ":
            guard b[23] == 0x9D, b[24] == 0x01, b[25] == 0x2A else { return nil }
            return (u16(26) & 0x3FFF, u16(28) & 0x3FFF, false)
        case "VP8L":
            guard b[20] == 0x2F else { return nil }
            let bits = u24(21) | Int(b[24]) << 24
            return ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1, false)
        case "VP8X":
            return (u24(24) + 1, u24(27) + 1, b[20] & 0x02 != 0)
        default:
            return nil
        }
    }

    /// The colour profile of an extended WebP (its `ICCP` chunk, which follows `VP8X` when the
    /// VP8X flags say there is one), once `first` holds all of it; nil when there is none, or
    /// not yet. (gdk-pixbuf's WebP loader does not hand it over.)
    static func webPProfile(_ first: [UInt8]) -> Data? {
        guard first.count >= 38, first[0..<4].elementsEqual(riff), first[8..<12].elementsEqual(webP),
            first[12..<16].elementsEqual("VP8X".utf8), first[20] & 0x20 != 0,
            first[30..<34].elementsEqual("ICCP".utf8)
        else { return nil }
        let length = Int(first[34]) | Int(first[35]) << 8 | Int(first[36]) << 16 | Int(first[37]) << 24
        guard length > 0, length <= 1 << 22, 38 + length <= first.count else { return nil }
        return Data(first[38..<(38 + length)])
    }

    /// The name of a kind of picture that nothing here decodes and that shared-mime-info does
    /// not know (so that no content type says it is a picture), from a file's first bytes:
    /// such a file is listed, and says "Format not supported" on its row, rather than vanish.
    static func unsupportedPicture<Bytes: Collection<UInt8>>(_ first: Bytes) -> String? {
        let kinds: [(signature: [UInt8], name: String)] = [
            (Array("#?RADIANCE".utf8), "Radiance HDR"), (Array("#?RGBE".utf8), "Radiance HDR"),
            (Array("qoif".utf8), "QOI"), (Array("farbfeld".utf8), "farbfeld"),
            ([0x76, 0x2F, 0x31, 0x01], "OpenEXR"),
        ]
        return kinds.first { first.starts(with: $0.signature) }?.name
    }
}
