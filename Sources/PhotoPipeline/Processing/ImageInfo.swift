import CEmbeddedPictures
import CGdkPixbuf
import CGLib
import Foundation
import GLibKit

/// What the photo viewer's info popover says about a picture: read from its bytes without
/// decoding its pixels (the header for the size and format, EXIF for the camera and date).
public struct ImageInfo: Sendable, Equatable, Codable {
    /// The image's size in pixels, as shown (EXIF rotation applied).
    public var width: Int
    public var height: Int
    /// The format's name as gdk-pixbuf knows it ("jpeg", "png", …) and its description.
    public var format: String
    public var formatDescription: String
    /// The file's size in bytes.
    public var fileSize: Int
    /// From EXIF, where the picture has them.
    public var camera: String?
    public var date: String?
    /// The EXIF orientation (1–8; 1 when there is none).
    public var orientation: Int
    /// Everything else the photo says of itself (exposure, lens, place, author), where it
    /// says anything.
    public var details: PhotoDetails?
    /// Where a motion photo's clip is in the file (see `MotionPhoto`); nil for a still photo.
    public var motionClip: Range<Int>? = nil

    /// Reads the header of `bytes` with gdk-pixbuf (stopping as soon as the size is known) and
    /// the EXIF block of a JPEG; with `details`, everything else its metadata says too (what
    /// the info popover shows; work that only needs the size goes without). Throws `not-image`
    /// when gdk-pixbuf finds no picture.
    public static func read(_ bytes: Data, details readsDetails: Bool = true) throws(PhotoFailure) -> ImageInfo {
        let exif = ExifReader.read(bytes)
        var refusedBy: String?
        guard let header = probe(bytes, refusedBy: &refusedBy) else {
            let detail = "No picture could be decoded from the data"
            // A loader took the bytes for its kind of picture and then found no size in them.
            throw refusedBy.map { PhotoFailure(.damaged(format: $0), detail: detail) }
                ?? PhotoFailure(.notImage, detail: detail)
        }
        let rotated = (5...8).contains(exif.orientation)
        // Exiv2 reads every format's metadata; the app's own reader the JPEG, PNG, TIFF and HEIF
        // blocks the thumbnails need (orientation), and stands in where Exiv2 reads nothing.
        let details = readsDetails ? PhotoDetails.read(bytes).flatMap { $0.isEmpty ? nil : $0 } : nil
        return ImageInfo(
            width: rotated ? header.height : header.width, height: rotated ? header.width : header.height,
            format: header.format, formatDescription: header.description, fileSize: bytes.count,
            camera: details?.camera ?? exif.camera, date: details?.dateTaken ?? exif.date,
            orientation: exif.orientation, details: details, motionClip: MotionPhoto.clip(in: bytes))
    }

    /// Feeds `bytes` to a GdkPixbufLoader in small pieces until it knows the image's size.
    ///
    /// Once it does, the loader is asked for a 0×0 picture, which every loader treats as an
    /// error before allocating its pixels (see `ImageDecoder`): a GIF's loader only parses its
    /// header when all its bytes are in, and then allocates the whole frame whatever size is
    /// asked for, so a 310-byte GIF claiming 60000×60000 made this probe allocate 14 GB (found
    /// by the decode fuzzer). Wrapper formats whose inner loader never sees the size asked
    /// for are not probed at all.
    private static func probe(
        _ bytes: Data, refusedBy: inout String?
    ) -> (width: Int, height: Int, format: String, description: String)? {
        if ImageDecoder.wrapperKind(bytes.prefix(8)) != nil { return nil }
        // HEIF's loader reads the size only once it has decoded the whole picture, and WebP's
        // allocates the whole canvas as it reads it, whatever size is asked for: their sizes
        // are read here instead.
        if PictureSignature.isHEIF(bytes.prefix(12)) {
            var width: Int32 = 0, height: Int32 = 0, thumbnails: Int32 = 0
            var message: UnsafeMutablePointer<CChar>?
            let status = bytes.withUnsafeBytes {
                cp_heif_probe($0.baseAddress, $0.count, &width, &height, &thumbnails, &message)
            }
            free(message)
            let avif = PictureSignature.isAVIF(bytes.prefix(64))
            return status == 0 && width > 0 && height > 0
                ? (Int(width), Int(height), avif ? "avif" : "heif", avif ? "AVIF image" : "HEIF image") : nil
        }
        if JXLDecoder.isJXL(bytes.prefix(12)) {
            let size = bytes.withUnsafeBytes { JXLDecoder.size(of: $0) }
            return size.map { ($0.width, $0.height, "jxl", "JPEG XL image") }
        }
        if let webP = PictureSignature.webPSize(bytes.prefix(30)) {
            return webP.width > 0 && webP.height > 0 ? (webP.width, webP.height, "webp", "WebP image") : nil
        }
        let loader = ObjectRef(taking: gdk_pixbuf_loader_new()!)
        var size: (Int, Int)?
        let prepared = SignalConnection.connect(
            loader.pointer, "size-prepared",
            ints: { width, height in
                size = (Int(width), Int(height))
                // Nothing beyond the header is wanted: stop the loader before it allocates.
                gdk_pixbuf_loader_set_size(loader.pointer, 0, 0)
            })
        defer {
            prepared.disconnect()
            gdk_pixbuf_loader_close(loader.pointer, nil)
        }
        var offset = 0
        let piece = 4096
        bytes.withUnsafeBytes { raw in
            while size == nil, offset < raw.count {
                let n = min(piece, raw.count - offset)
                let piece = UnsafeRawBufferPointer(rebasing: raw[offset..<offset + n])
                offset += n
                if gdk_pixbuf_loader_write(loader.pointer, piece.cBytes, gsize(n), nil) == 0 { break }
            }
        }
        // Some small files only reach the loader's header parsing when it is closed.
        if size == nil { gdk_pixbuf_loader_close(loader.pointer, nil) }
        if size == nil { refusedBy = ImageDecoder.formatName(loader) }
        guard let (width, height) = size, width > 0, height > 0,
            let format = gdk_pixbuf_loader_get_format(loader.pointer)
        else { return nil }
        let name =
            gdk_pixbuf_format_get_name(format).map { s -> String in
                defer { g_free(s) }; return String(cString: s)
            } ?? "?"
        let description =
            gdk_pixbuf_format_get_description(format)
            .map { s -> String in
                defer { g_free(s) }; return String(cString: s)
            } ?? name
        return (width, height, name, description)
    }
}

/// Reads the few EXIF tags the viewer shows from a JPEG's APP1 segment: camera make and model,
/// date taken, orientation. Anything malformed just yields fewer tags.
public enum ExifReader {
    public struct Tags: Sendable, Equatable {
        public var camera: String?
        /// EXIF's `LensModel`.
        public var lens: String?
        public var date: String?
        /// Whether `date` is EXIF's `DateTimeOriginal` (not the file's `DateTime`, all that
        /// was found).
        public var dateIsOriginal = false
        public var orientation = 1
        /// Where, in the bytes read, the JPEG thumbnail of EXIF's second image (IFD1) lies,
        /// if it has one that lies wholly within them.
        public var thumbnail: Range<Int>?
        /// EXIF's `ColorSpace` (1: sRGB, 0xFFFF: uncalibrated) and the interoperability
        /// index (`R98` sRGB, `R03` Adobe RGB), where the photo has them.
        public var colorSpace: Int?
        public var interoperability: String?
        /// The picture's size as EXIF's `PixelXDimension` and `PixelYDimension` state it.
        public var pixelWidth: Int?
        public var pixelHeight: Int?
        /// Where the photo was taken (degrees, north and east positive), from the GPS
        /// directory, where it gives both with their hemispheres.
        public var latitude: Double?
        public var longitude: Double?

        /// Whether EXIF says the photo is in Adobe RGB without a profile of its own: colour
        /// space uncalibrated, interoperability index `R03` (the DCF rule cameras follow).
        public var isAdobeRGB: Bool { colorSpace == 0xFFFF && interoperability == "R03" }
    }

    public static func read(_ bytes: Data) -> Tags {
        bytes.withUnsafeBytes { raw -> Tags in
            let b = raw.bindMemory(to: UInt8.self)
            guard let tiff = exifRange(b) else { return Tags() }
            var tags = parseTIFF(UnsafeBufferPointer(rebasing: b[tiff]))
            // From the TIFF block's offsets to the file's.
            tags.thumbnail = tags.thumbnail.map {
                ($0.lowerBound + tiff.lowerBound)..<($0.upperBound + tiff.lowerBound)
            }
            return tags
        }
    }

    /// The TIFF block inside a JPEG's `Exif` APP1 segment.
    private static func exifRange(_ b: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        guard b.count > 4, PictureSignature.isJPEG(b) else { return nil }
        var i = 2
        while i + 4 <= b.count, b[i] == 0xFF {
            let marker = b[i + 1]
            if marker == 0xDA || marker == 0xD9 { return nil } // image data: no EXIF before it
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard length >= 2 else { return nil }
            // Only the EXIF segment may be cut short by the end of what was read: a date near
            // its start is found in the first few kilobytes of a photo.
            guard i + 2 + length <= b.count || marker == 0xE1 else { return nil }
            let body = (i + 4)..<min(b.count, i + 2 + length)
            if marker == 0xE1, body.count > 6, b[body].starts(with: PictureSignature.exifHeader) {
                return (body.lowerBound + 6)..<body.upperBound
            }
            i += 2 + length
        }
        return nil
    }

    /// When the photo in `bytes` (its start at least) was taken, as EXIF's
    /// `DateTimeOriginal` (or `DateTime`) says, in the sortable form "2021-07-04 18:30:05":
    /// from a JPEG's APP1 segment, a PNG's `eXIf` chunk, or a TIFF-based file's own IFDs (TIFF,
    /// and the camera RAW files built on it: DNG, NEF, CR2, ARW, PEF, …).
    public static func dateTaken(_ bytes: Data) -> String? {
        tags(bytes)?.date
    }

    /// The EXIF tags of a JPEG's APP1 segment, a PNG's `eXIf` chunk or a TIFF-based file's
    /// own IFDs, among `bytes` (a file's start); nil where they hold none of those.
    public static func tags(_ bytes: Data) -> Tags? {
        if PictureSignature.isJPEG(bytes) { return read(bytes) }
        return bytes.withUnsafeBytes { raw -> Tags? in
            let b = raw.bindMemory(to: UInt8.self)
            if b.starts(with: PictureSignature.png) {
                return pngExifRange(b).map { parseTIFF(UnsafeBufferPointer(rebasing: b[$0])) }
            }
            if b.starts(with: PictureSignature.tiffLittleEndian) || b.starts(with: PictureSignature.tiffBigEndian) {
                return parseTIFF(b)
            }
            return nil
        }
    }

    /// The pixel size a JPEG's frame header (SOF) or a PNG's `IHDR` gives, as stored (before
    /// any EXIF rotation), if it lies among `bytes`.
    public static func storedSize(_ bytes: Data) -> (width: Int, height: Int)? {
        bytes.withUnsafeBytes { raw -> (width: Int, height: Int)? in
            let b = raw.bindMemory(to: UInt8.self)
            func u16(_ at: Int) -> Int { Int(b[at]) << 8 | Int(b[at + 1]) }
            func u32(_ at: Int) -> Int { u16(at) << 16 | u16(at + 2) }
            if b.starts(with: PictureSignature.png) {
                // IHDR comes first: its width and height follow the chunk's length and type.
                guard b.count >= 24, b[12..<16].elementsEqual("IHDR".utf8) else { return nil }
                let (width, height) = (u32(16), u32(20))
                return width > 0 && height > 0 ? (width, height) : nil
            }
            guard b.count > 4, PictureSignature.isJPEG(b) else { return nil }
            var i = 2
            while i + 9 <= b.count, b[i] == 0xFF {
                let marker = b[i + 1]
                if marker == 0xFF {
                    i += 1
                    continue
                }
                if marker == 0xDA || marker == 0xD9 { return nil }
                // Start of frame, any kind but the DHT, JPG and DAC markers that share the range.
                if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                    let (height, width) = (u16(i + 5), u16(i + 7))
                    return width > 0 && height > 0 ? (width, height) : nil
                }
                let length = u16(i + 2)
                guard length >= 2 else { return nil }
                i += 2 + length
            }
            return nil
        }
    }

    /// Whether `head`, a file's first bytes, shows that the file holds no metadata that could
    /// say when it was taken: a JPEG whose segments reach its image data with no APP1 (EXIF,
    /// XMP) or APP13 (IPTC) one, a PNG whose chunks reach its image data with neither an `eXIf`
    /// chunk nor a text chunk of XMP or of the kind ImageMagick keeps EXIF in ("Raw profile type
    /// exif"), a GIF or a BMP. False where it may hold some.
    public static func holdsNone(_ head: Data) -> Bool {
        head.withUnsafeBytes { raw -> Bool in
            let b = raw.bindMemory(to: UInt8.self)
            if b.starts(with: PictureSignature.gif) || b.starts(with: Array("BM".utf8)) { return true }
            if PictureSignature.isJPEG(b) {
                var i = 2
                while i + 4 <= b.count, b[i] == 0xFF {
                    let marker = b[i + 1]
                    if marker == 0xDA || marker == 0xD9 { return true }
                    let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
                    guard length >= 2 else { return false }
                    // EXIF, or the XMP (APP1) or IPTC (Photoshop's APP13) an app may keep the date in.
                    if marker == 0xE1 || marker == 0xED { return false }
                    i += 2 + length
                }
                return false
            }
            guard b.starts(with: PictureSignature.png) else { return false }
            var none = false
            walkPNGChunks(b) { type, body in
                if type == "IDAT" || type == "IEND" {
                    none = true
                    return false
                }
                let keyword = b[body].prefix(17)
                let metadata =
                    type == "eXIf"
                    || (["tEXt", "zTXt", "iTXt"].contains(type)
                        && (keyword.elementsEqual("Raw profile type ".utf8)
                            || keyword.starts(with: "XML:com.adobe.xmp".utf8)))
                return !metadata
            }
            return none
        }
    }

    /// The TIFF block of a PNG's `eXIf` chunk, among the chunks within the bytes read.
    private static func pngExifRange(_ b: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        var found: Range<Int>?
        walkPNGChunks(b) { type, body in
            if type == "eXIf" { found = body }
            return found == nil && type != "IEND"
        }
        return found
    }

    /// Hands `visit` the type and body (cut short where the bytes end) of each chunk of the
    /// PNG `b` whose head lies within it, in order, while it returns true.
    private static func walkPNGChunks(_ b: UnsafeBufferPointer<UInt8>, _ visit: (String, Range<Int>) -> Bool) {
        var i = PictureSignature.png.count
        while i + 8 <= b.count {
            let length = Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
            let type = String(decoding: b[(i + 4)..<(i + 8)], as: UTF8.self)
            guard visit(type, (i + 8)..<min(b.count, i + 8 + length)), length < Int(Int32.max) else { return }
            i += 12 + length
        }
    }

    private static func parseTIFF(_ t: UnsafeBufferPointer<UInt8>) -> Tags {
        var tags = Tags()
        guard t.count >= 8 else { return tags }
        let little: Bool
        if t.starts(with: PictureSignature.tiffLittleEndian) {
            little = true
        } else if t.starts(with: PictureSignature.tiffBigEndian) {
            little = false
        } else {
            return tags
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= t.count else { return nil }
            return little ? Int(t[at]) | Int(t[at + 1]) << 8 : Int(t[at]) << 8 | Int(t[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }
        /// An ASCII value (type 2) of the entry at `entry`.
        func ascii(_ entry: Int) -> String? {
            guard u16(entry + 2) == 2, let count = u32(entry + 4), count > 0, count < 4096 else { return nil }
            let start = count <= 4 ? entry + 8 : (u32(entry + 8) ?? -1)
            guard start >= 0, start + count <= t.count else { return nil }
            let text = String(decoding: t[start..<(start + count)].prefix { $0 != 0 }, as: UTF8.self)
                .trimmingCharacters(in: .whitespaces)
            return text.isEmpty ? nil : text
        }
        /// A GPS coordinate: the three rationals (degrees, minutes, seconds) the entry at
        /// `entry` points to, as degrees.
        func degrees(_ entry: Int) -> Double? {
            guard u16(entry + 2) == 5, u32(entry + 4) == 3, let start = u32(entry + 8) else { return nil }
            var parts: [Double] = []
            for part in 0..<3 {
                guard let numerator = u32(start + part * 8), let denominator = u32(start + part * 8 + 4),
                    denominator != 0
                else { return nil }
                parts.append(Double(numerator) / Double(denominator))
            }
            return parts[0] + parts[1] / 60 + parts[2] / 3_600
        }
        var make: String?, model: String?, dateTime: String?, original: String?
        var exifIFD: Int?, gpsIFD: Int?
        func walk(_ ifd: Int, visit: (Int, Int) -> Void) {
            guard let count = u16(ifd), count < 512 else { return }
            for n in 0..<count {
                let entry = ifd + 2 + n * 12
                guard let tag = u16(entry) else { return }
                visit(tag, entry)
            }
        }
        guard let first = u32(4) else { return tags }
        walk(first) { tag, entry in
            switch tag {
            case 0x010F: make = ascii(entry)
            case 0x0110: model = ascii(entry)
            case 0x0132: dateTime = ascii(entry)
            case 0x0112:
                if u16(entry + 2) == 3, let value = u16(entry + 8), (1...8).contains(value) { tags.orientation = value }
            case 0x8769: exifIFD = u32(entry + 8)
            case 0x8825: gpsIFD = u32(entry + 8)
            default: break
            }
        }
        if let gpsIFD, gpsIFD != first {
            var north: String?, east: String?, latitude: Double?, longitude: Double?
            walk(gpsIFD) { tag, entry in
                switch tag {
                case 0x0001: north = ascii(entry)
                case 0x0002: latitude = degrees(entry)
                case 0x0003: east = ascii(entry)
                case 0x0004: longitude = degrees(entry)
                default: break
                }
            }
            if let latitude, let longitude, let north = north?.uppercased(), north == "N" || north == "S",
                let east = east?.uppercased(), east == "E" || east == "W", latitude <= 90, longitude <= 180
            {
                tags.latitude = north == "S" ? -latitude : latitude
                tags.longitude = east == "W" ? -longitude : longitude
            }
        }
        // IFD1, the thumbnail's: its JPEG's offset and length.
        if let entries = u16(first), let second = u32(first + 2 + entries * 12), second != 0, second != first {
            var offset: Int?, length: Int?
            walk(second) { tag, entry in
                if tag == 0x0201 { offset = u32(entry + 8) }
                if tag == 0x0202 { length = u32(entry + 8) }
            }
            if let offset, let length, offset > 0, length > 2, offset + length <= t.count {
                tags.thumbnail = offset..<(offset + length)
            }
        }
        var interopIFD: Int?
        if let exifIFD, exifIFD != first {
            walk(exifIFD) { tag, entry in
                switch tag {
                case 0x9003: original = ascii(entry)
                case 0xA434: tags.lens = ascii(entry)
                case 0xA001: if u16(entry + 2) == 3 { tags.colorSpace = u16(entry + 8) }
                case 0xA002, 0xA003:
                    // SHORT or LONG, one value, held in the entry itself.
                    let value = u16(entry + 2) == 3 ? u16(entry + 8) : u16(entry + 2) == 4 ? u32(entry + 8) : nil
                    if let value, value > 0 {
                        if tag == 0xA002 { tags.pixelWidth = value } else { tags.pixelHeight = value }
                    }
                case 0xA005: interopIFD = u32(entry + 8)
                default: break
                }
            }
        }
        if let interopIFD, interopIFD != first, interopIFD != exifIFD {
            walk(interopIFD) { tag, entry in
                // InteroperabilityIndex: four ASCII bytes, held in the entry itself.
                if tag == 0x0001, u16(entry + 2) == 2, entry + 11 <= t.count {
                    tags.interoperability = String(decoding: t[(entry + 8)..<(entry + 11)], as: UTF8.self)
                }
            }
        }
        tags.camera = PhotoDetails.camera(make: make, model: model)
        tags.date = (original ?? dateTime).map(Self.readableDate)
        tags.dateIsOriginal = original != nil
        return tags
    }

    /// "2021:07:04 18:30:05" as "2021-07-04 18:30:05".
    static func readableDate(_ exif: String) -> String {
        let parts = exif.split(separator: " ", maxSplits: 1)
        guard let day = parts.first, day.count == 10 else { return exif }
        return day.replacingOccurrences(of: ":", with: "-") + (parts.count > 1 ? " " + parts[1] : "")
    }
}
