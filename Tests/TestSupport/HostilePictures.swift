import CGdkPixbuf
import CGLib
import Foundation

/// Pictures made to hurt a viewer, built at test time: decompression bombs (a few bytes whose
/// header claims billions of pixels), and helpers to measure what they cost.
public enum HostilePictures {
    /// The claimed sizes: far past any sane limit, each within its format's own maximum.
    public static let jpegSide = 65000, pngSide = 60000, gifSide = 65535

    /// The bomb of `format` ("jpeg", "png", "gif"), or nil for another name.
    public static func bomb(_ format: String) -> Data? {
        switch format {
        case "jpeg": jpegBomb()
        case "png": pngBomb()
        case "gif": gifBomb()
        default: nil
        }
    }

    /// A real JPEG (the bundled coffee photo, 600×400) whose frame header says 65000×65000.
    public static func jpegBomb() -> Data {
        var bytes = [UInt8](
            (try? Data(contentsOf: Products.packageRoot.appendingPathComponent("data/photos/coffee.jpg"))) ?? Data())
        var i = 2
        while i + 9 < bytes.count {
            let marker = bytes[i + 1]
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if (0xC0...0xC2).contains(marker) {
                bytes[i + 5] = UInt8(jpegSide >> 8); bytes[i + 6] = UInt8(jpegSide & 0xFF) // height
                bytes[i + 7] = UInt8(jpegSide >> 8); bytes[i + 8] = UInt8(jpegSide & 0xFF) // width
                break
            }
            i += 2 + length
        }
        return Data(bytes)
    }

    /// A 64×64 PNG whose header (IHDR, with its checksum redone) says 60000×60000.
    public static func pngBomb() -> Data {
        var bytes = [UInt8](png(width: 64, height: 64))
        // Signature (8), IHDR length (4) and type (4), then width and height.
        for (offset, value) in [(16, pngSide), (20, pngSide)] {
            for k in 0..<4 { bytes[offset + k] = UInt8((value >> (24 - 8 * k)) & 0xFF) }
        }
        let crc = crc32(bytes[12..<29])
        for k in 0..<4 { bytes[29 + k] = UInt8((crc >> (24 - 8 * UInt32(k))) & 0xFF) }
        return Data(bytes)
    }

    /// A GIF whose screen and only image are 65535×65535, with a few bytes of image data.
    public static func gifBomb() -> Data {
        let side = [UInt8(gifSide & 0xFF), UInt8(gifSide >> 8)]
        var bytes = Array("GIF89a".utf8) + side + side + [0x80, 0, 0] + [0, 0, 0, 0xFF, 0xFF, 0xFF]
        bytes += [0x2C, 0, 0, 0, 0] + side + side + [0]
        bytes += [0x02, 0x02, 0x44, 0x01, 0x00, 0x3B]
        return Data(bytes)
    }

    /// A PNG of `width`×`height` in one colour (RGB, or RGBA with `alpha`).
    public static func png(width: Int, height: Int, alpha: Bool = false) -> Data {
        guard let pixbuf = gdk_pixbuf_new(GDK_COLORSPACE_RGB, alpha ? 1 : 0, 8, Int32(width), Int32(height)) else {
            return Data()
        }
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        gdk_pixbuf_fill(pixbuf, 0x3366_99FF)
        var buffer: UnsafeMutablePointer<gchar>?
        var size: gsize = 0
        guard gdk_pixbuf_save_to_bufferv(pixbuf, &buffer, &size, "png", nil, nil, nil) != 0, let buffer else {
            return Data()
        }
        defer { g_free(buffer) }
        return Data(bytes: buffer, count: Int(size))
    }

    /// CRC-32 as PNG checksums it.
    static func crc32<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }
}

/// This process's memory, from /proc/self/status.
public enum ProcessMemory {
    /// Resident memory now (VmRSS), in bytes.
    public static var residentBytes: Int { value("VmRSS:") }
    /// The most resident memory since the process started or `resetPeak()` (VmHWM), in bytes.
    public static var peakResidentBytes: Int { value("VmHWM:") }

    /// The most resident memory another process of ours has had (its VmHWM), in bytes; 0 when
    /// it is gone. A helper's figure counts only its own work, where this process's peak counts
    /// every suite running beside a test.
    public static func peakResidentBytes(of process: pid_t) -> Int { value("VmHWM:", in: "/proc/\(process)/status") }

    /// Starts the peak over from the resident memory now (writes 5 to /proc/self/clear_refs).
    /// Returns false where the kernel does not allow it.
    @discardableResult
    public static func resetPeak() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data("5".utf8))) != nil
    }

    private static func value(_ key: String, in file: String = "/proc/self/status") -> Int {
        guard let status = try? String(contentsOfFile: file, encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key) }),
            let kB = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return 0 }
        return kB * 1024
    }
}
