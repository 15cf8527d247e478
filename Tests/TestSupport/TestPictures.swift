import CGdkPixbuf
import CGLib
import Foundation

/// Writes small real pictures in the formats gdk-pixbuf can save, for folder tests.
public enum TestPictures {
    /// Saves (with ImageMagick) a `width`×`height` picture whose left half is white and right
    /// half black, at `url` in the format its name ends with (a JPEG at quality 95).
    public static func writeTwoTone(_ url: URL, width: Int, height: Int) throws {
        let made = try run(
            URL(fileURLWithPath: "/usr/bin/convert"),
            [
                "-size", "\(width)x\(height)", "xc:black", "-fill", "white", "-draw",
                "rectangle 0,0 \(width / 2 - 1),\(height - 1)", "-quality", "95", url.path,
            ])
        guard made.status == 0 else { throw FormatFileError(message: "convert failed: \(made.stderr)") }
    }

    /// Saves a `size`×`size` picture of one colour (0xRRGGBB) at `url` in `format`
    /// ("png", "jpeg", "bmp", "tiff", "ico"). Returns false if the saver is missing or fails.
    @discardableResult
    public static func write(_ url: URL, format: String, rgb: UInt32 = 0x3366CC, size: Int32 = 64) -> Bool {
        guard let pixbuf = gdk_pixbuf_new(GDK_COLORSPACE_RGB, format == "ico" ? 1 : 0, 8, size, size) else {
            return false
        }
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        gdk_pixbuf_fill(pixbuf, (rgb << 8) | 0xFF)
        return gdk_pixbuf_savev(pixbuf, url.path, format, nil, nil, nil) != 0
    }

    /// Saves a `width`×`height` JPEG of a diagonal gradient from `rgb` to black at `url`, made
    /// in process (no child process to wait for). Returns false if saving fails.
    @discardableResult
    public static func writeGradient(_ url: URL, width: Int32, height: Int32, rgb: UInt32) -> Bool {
        guard let pixbuf = gdk_pixbuf_new(GDK_COLORSPACE_RGB, 0, 8, width, height) else { return false }
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        let stride = Int(gdk_pixbuf_get_rowstride(pixbuf)), pixels = gdk_pixbuf_get_pixels(pixbuf)!
        let (r, g, b) = (Double(rgb >> 16 & 0xFF), Double(rgb >> 8 & 0xFF), Double(rgb & 0xFF))
        for y in 0..<Int(height) {
            for x in 0..<Int(width) {
                let k = 1 - Double(x + y) / Double(Int(width) + Int(height))
                let p = pixels + y * stride + x * 3
                (p[0], p[1], p[2]) = (UInt8(r * k), UInt8(g * k), UInt8(b * k))
            }
        }
        return gdk_pixbuf_savev(pixbuf, url.path, "jpeg", nil, nil, nil) != 0
    }

    /// A big folder sorted by date cheaply: `count` names (`prefix` and five digits, `.jpg`) in
    /// `folder`, hard links to one photo taken on each of `dates` in turn (name `n` taken on
    /// `dates[n % dates.count]`); the photos themselves go beside `folder`. Returns the names.
    @discardableResult
    public static func linkDatedPhotos(
        in folder: URL, count: Int, dates: [String], prefix: String = "p"
    ) throws -> [String] {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let sources = try dates.enumerated().map { n, date in
            let file = folder.deletingLastPathComponent().appendingPathComponent("\(folder.lastPathComponent)-\(n).jpg")
            try jpegWithExif(make: "Cam", model: "One", original: date, orientation: 1, little: true).write(to: file)
            return file.path
        }
        return try (0..<count).map { n in
            let name = String(format: "%@%05d.jpg", prefix, n)
            guard link(sources[n % sources.count], folder.appendingPathComponent(name).path) == 0 else {
                throw CocoaError(.fileWriteUnknown)
            }
            return name
        }
    }

    /// The bundled 600×400 coffee.jpg with an EXIF block put first: Make, Model and Orientation
    /// in IFD0, DateTimeOriginal ("YYYY:MM:DD HH:MM:SS") in the EXIF sub-IFD; little- or
    /// big-endian. Built byte by byte (ImageMagick's `-set exif:…` writes no EXIF).
    public static func jpegWithExif(
        make: String, model: String, original: String, orientation: UInt16, little: Bool
    ) throws -> Data {
        func u16(_ v: UInt16) -> [UInt8] {
            little ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)]
        }
        func u32(_ v: UInt32) -> [UInt8] {
            little
                ? (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) }
                : (0..<4).reversed().map { UInt8((v >> (8 * $0)) & 0xFF) }
        }
        let makeBytes = Array(make.utf8) + [0], modelBytes = Array(model.utf8) + [0],
            dateBytes = Array(original.utf8) + [0]
        // Layout: header (8) | IFD0: 4 entries (2 + 48 + 4) | EXIF IFD: 1 entry (2 + 12 + 4) | strings
        let ifd0 = 8, exifIFD = ifd0 + 2 + 4 * 12 + 4, strings = exifIFD + 2 + 12 + 4
        var tiff: [UInt8] = (little ? [0x49, 0x49] : [0x4D, 0x4D]) + u16(42) + u32(UInt32(ifd0))
        tiff += u16(4)
        tiff += u16(0x010F) + u16(2) + u32(UInt32(makeBytes.count)) + u32(UInt32(strings))
        tiff += u16(0x0110) + u16(2) + u32(UInt32(modelBytes.count)) + u32(UInt32(strings + makeBytes.count))
        tiff += u16(0x0112) + u16(3) + u32(1) + u16(orientation) + [0, 0]
        tiff += u16(0x8769) + u16(4) + u32(1) + u32(UInt32(exifIFD))
        tiff += u32(0)
        tiff += u16(1)
        tiff +=
            u16(0x9003) + u16(2) + u32(UInt32(dateBytes.count))
            + u32(UInt32(strings + makeBytes.count + modelBytes.count))
        tiff += u32(0)
        tiff += makeBytes + modelBytes + dateBytes
        let app1 = Array("Exif".utf8) + [0, 0] + tiff
        let length = app1.count + 2
        let jpeg = try Data(contentsOf: Products.packageRoot.appendingPathComponent("data/photos/coffee.jpg"))
        // SOI, then our APP1 before the file's own segments.
        return Data([0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + app1) + jpeg.dropFirst(2)
    }

    /// A fresh empty folder under the temporary directory.
    public static func makeFolder(_ name: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("classic-photos-\(name)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}
