import CGdkPixbuf
import CGLib
import Foundation

/// Camera-like files made in process for the format tests: JPEGs carrying an EXIF thumbnail
/// (of another colour than the photo, so a test can tell which one a row shows), and DNG files
/// with an embedded JPEG preview, as cameras write them.
public enum CameraFiles {
    /// A JPEG of `width`×`height` in one colour, encoded in memory (nil if gdk-pixbuf fails).
    public static func jpeg(width: Int32, height: Int32, rgb: UInt32, progressive: Bool = false) -> Data? {
        guard let pixbuf = gdk_pixbuf_new(GDK_COLORSPACE_RGB, 0, 8, width, height) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        gdk_pixbuf_fill(pixbuf, (rgb << 8) | 0xFF)
        var buffer: UnsafeMutablePointer<CChar>?
        var size: gsize = 0
        var keys: [UnsafeMutablePointer<CChar>?] = [
            strdup("quality"), progressive ? strdup("x-progressive") : nil, nil,
        ]
        var values: [UnsafeMutablePointer<CChar>?] = [strdup("90"), progressive ? strdup("yes") : nil, nil]
        defer { (keys + values).forEach { free($0) } }
        guard gdk_pixbuf_save_to_bufferv(pixbuf, &buffer, &size, "jpeg", &keys, &values, nil) != 0, let buffer else {
            return nil
        }
        defer { g_free(buffer) }
        return Data(bytes: buffer, count: Int(size))
    }

    /// A camera JPEG: the photo in `rgb`, with an EXIF block holding `orientation` (IFD0) and
    /// a `thumbWidth`×`thumbHeight` JPEG thumbnail in `thumbRGB` (IFD1), as cameras write it.
    public static func jpegWithThumbnail(
        width: Int32, height: Int32, rgb: UInt32, thumbWidth: Int32, thumbHeight: Int32,
        thumbRGB: UInt32, orientation: UInt16 = 1, progressive: Bool = false
    ) -> Data? {
        guard let photo = jpeg(width: width, height: height, rgb: rgb, progressive: progressive),
            let thumbnail = jpeg(width: thumbWidth, height: thumbHeight, rgb: thumbRGB)
        else { return nil }
        var tiff = TIFFWriter()
        let ifd0 = tiff.directory([.short(0x0112, [orientation])])
        let ifd1 = tiff.directory([.short(0x0103, [6]), .long(0x0201, [0]), .long(0x0202, [UInt32(thumbnail.count)])])
        tiff.link(ifd0, next: ifd1)
        let offset = tiff.append(thumbnail)
        tiff.patch(ifd1, tag: 0x0201, value: UInt32(offset))
        let app1 = Array("Exif".utf8) + [0, 0] + tiff.bytes
        let length = app1.count + 2
        guard length < 1 << 16 else { return nil }
        return Data([0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + app1) + photo.dropFirst(2)
    }

    /// A DNG as a camera writes it: IFD0 a JPEG `preview` (reduced-resolution, with the
    /// camera's `orientation`), and a sub-IFD of 16-bit Bayer sensor data of
    /// `width`×`height`. LibRaw reads it as a RAW photo. `dateTime`, in EXIF's form, is its
    /// IFD0's DateTime. `adobeRGB`: its EXIF says the camera was set to Adobe RGB (colour space
    /// uncalibrated, interoperability index R03). `previewSpace`: its PreviewColorSpace tag
    /// (1 grey gamma 2.2, 2 sRGB, 3 Adobe RGB, 4 ProPhoto).
    public static func dng(
        preview: Data, previewWidth: UInt32, previewHeight: UInt32, width: UInt32, height: UInt32,
        orientation: UInt16, dateTime: String? = nil, adobeRGB: Bool = false, previewSpace: UInt32? = nil
    ) -> Data {
        var tiff = TIFFWriter()
        let identity = [Int32](arrayLiteral: 1, 1, 0, 1, 0, 1, 0, 1, 1, 1, 0, 1, 0, 1, 0, 1, 1, 1)
        var entries: [TIFFWriter.Entry] = [
            .long(254, [1]), .long(256, [previewWidth]), .long(257, [previewHeight]), .short(258, [8, 8, 8]),
            .short(259, [7]), .short(262, [6]), .ascii(271, "Test"), .ascii(272, "Camera"), .long(273, [0]),
            .short(274, [orientation]), .short(277, [3]), .long(278, [previewHeight]),
            .long(279, [UInt32(preview.count)]),
            .long(330, [0]), .byte(50706, [1, 4, 0, 0]), .ascii(50708, "Test Camera"), .srational(50721, identity),
            .short(50778, [21]),
        ]
        if let dateTime { entries.append(.ascii(306, dateTime)) }
        if adobeRGB { entries.append(.long(34665, [0])) }
        if let previewSpace { entries.append(.long(50970, [previewSpace])) }
        let ifd0 = tiff.directory(entries)
        let sensor = Data(repeating: 0x10, count: Int(width * height) * 2)
        let ifd1 = tiff.directory([
            .long(254, [0]), .long(256, [width]), .long(257, [height]), .short(258, [16]), .short(259, [1]),
            .short(262, [32803]), .long(273, [0]), .short(277, [1]), .long(278, [height]),
            .long(279, [UInt32(sensor.count)]),
            .short(33421, [2, 2]), .byte(33422, [0, 1, 1, 2]),
        ])
        tiff.patch(ifd0, tag: 330, value: UInt32(ifd1))
        if adobeRGB {
            let exif = tiff.directory([.short(0xA001, [0xFFFF]), .long(0xA005, [0])])
            let interoperability = tiff.directory([.ascii(0x0001, "R03")])
            tiff.patch(ifd0, tag: 34665, value: UInt32(exif))
            tiff.patch(exif, tag: 0xA005, value: UInt32(interoperability))
        }
        tiff.patch(ifd0, tag: 273, value: UInt32(tiff.append(preview)))
        tiff.patch(ifd1, tag: 273, value: UInt32(tiff.append(sensor)))
        return Data(tiff.bytes)
    }
}

/// Writes a little-endian TIFF structure: directories whose values lie after them, blobs
/// appended at the end, and offsets patched in once known.
struct TIFFWriter {
    enum Entry {
        case byte(UInt16, [UInt8])
        case ascii(UInt16, String)
        case short(UInt16, [UInt16])
        case long(UInt16, [UInt32])
        case srational(UInt16, [Int32])

        var tag: UInt16 {
            switch self {
            case .byte(let t, _), .ascii(let t, _), .short(let t, _), .long(let t, _), .srational(let t, _): t
            }
        }

        /// Type, count and the value's bytes.
        var encoded: (UInt16, UInt32, [UInt8]) {
            switch self {
            case .byte(_, let v): (1, UInt32(v.count), v)
            case .ascii(_, let s): (2, UInt32(s.utf8.count + 1), Array(s.utf8) + [0])
            case .short(_, let v): (3, UInt32(v.count), v.flatMap { TIFFWriter.le(UInt32($0), 2) })
            case .long(_, let v): (4, UInt32(v.count), v.flatMap { TIFFWriter.le($0, 4) })
            case .srational(_, let v): (10, UInt32(v.count / 2), v.flatMap { TIFFWriter.le(UInt32(bitPattern: $0), 4) })
            }
        }
    }

    private(set) var bytes: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0]
    /// Where each directory's entries start, by the directory's offset.
    private var entryOffsets: [Int: [UInt16: Int]] = [:]

    static func le(_ value: UInt32, _ count: Int) -> [UInt8] { (0..<count).map { UInt8((value >> (8 * $0)) & 0xFF) } }

    /// Appends a directory (the first one is the file's first) and returns its offset.
    mutating func directory(_ entries: [Entry]) -> Int {
        let start = bytes.count
        let sorted = entries.sorted { $0.tag < $1.tag }
        let values = start + 2 + 12 * sorted.count + 4
        var table = TIFFWriter.le(UInt32(sorted.count), 2)
        var extra: [UInt8] = []
        var offsets: [UInt16: Int] = [:]
        for entry in sorted {
            let (type, count, value) = entry.encoded
            offsets[entry.tag] = start + table.count + 8 // the value field
            table += TIFFWriter.le(UInt32(entry.tag), 2) + TIFFWriter.le(UInt32(type), 2) + TIFFWriter.le(count, 4)
            if value.count <= 4 {
                table += value + [UInt8](repeating: 0, count: 4 - value.count)
            } else {
                table += TIFFWriter.le(UInt32(values + extra.count), 4)
                extra += value + (value.count % 2 == 1 ? [0] : [])
            }
        }
        bytes += table + [0, 0, 0, 0] + extra
        entryOffsets[start] = offsets
        return start
    }

    /// Makes `next` the directory after `directory`.
    mutating func link(_ directory: Int, next: Int) {
        let count = Int(bytes[directory]) | Int(bytes[directory + 1]) << 8
        write(UInt32(next), at: directory + 2 + 12 * count)
    }

    /// Sets the (single, 4-byte) value of `tag` in `directory`.
    mutating func patch(_ directory: Int, tag: UInt16, value: UInt32) {
        guard let at = entryOffsets[directory]?[tag] else { return }
        write(value, at: at)
    }

    /// Appends a blob at an even offset and returns where.
    mutating func append(_ blob: Data) -> Int {
        if bytes.count % 2 == 1 { bytes.append(0) }
        let offset = bytes.count
        bytes += blob
        return offset
    }

    private mutating func write(_ value: UInt32, at offset: Int) {
        for (i, byte) in TIFFWriter.le(value, 4).enumerated() { bytes[offset + i] = byte }
    }
}

/// Pictures in the formats gdk-pixbuf reads only through extra loaders (HEIF, AVIF, WebP), in
/// JPEG XL (which libjxl decodes here), and in formats nothing here decodes (Photoshop), made
/// from a JPEG with Debian's own encoders, as a person's files would have been.
public enum FormatFiles {
    /// Writes `jpeg` (a file) as `kind` ("heic", "avif", "webp", "psd", "jxl") at `output`,
    /// HEIC with a thumbnail item of `thumbnail` pixels (0: none). Throws with the tool's words
    /// if it is missing or fails. The tool is waited for on a thread of its own, not one of the
    /// threads the tests' tasks share.
    public static func convert(_ jpeg: URL, to kind: String, at output: URL, thumbnail: Int = 0) async throws {
        let (tool, arguments): (String, [String])
        switch kind {
        case "heic":
            (tool, arguments) = (
                "heif-enc",
                ["-q", "70"] + (thumbnail > 0 ? ["-t", "\(thumbnail)"] : []) + ["-o", output.path, jpeg.path]
            )
        case "avif": (tool, arguments) = ("avifenc", ["-s", "8", jpeg.path, output.path])
        case "jxl": (tool, arguments) = ("cjxl", [jpeg.path, output.path])
        default: (tool, arguments) = ("convert", [jpeg.path, output.path])
        }
        let result = try await run(URL(fileURLWithPath: "/usr/bin/\(tool)"), arguments, timeout: 60)
        guard result.status == 0, FileManager.default.fileExists(atPath: output.path) else {
            throw FormatFileError(message: "\(tool) failed (\(result.status)): \(result.stderr)")
        }
    }
}

extension CameraFiles {
    /// Writes a small grey camera JPEG at `url` (its folders made), with `tags` written into it
    /// by exiftool ("-DateTimeOriginal=2019:05:01 12:00:00", "-GPSLatitude=48.1", …).
    public static func writeTagged(_ url: URL, tags: [String]) async throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        guard let bytes = jpeg(width: 64, height: 48, rgb: 0x808080) else {
            throw FormatFileError(message: "no JPEG made for \(url.path)")
        }
        try bytes.write(to: url)
        let tagged = try await run(
            URL(fileURLWithPath: "/usr/bin/exiftool"), ["-q", "-overwrite_original"] + tags + [url.path])
        guard tagged.status == 0 else { throw FormatFileError(message: "exiftool failed: \(tagged.stderr)") }
    }
}

public struct FormatFileError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
