import CGdkPixbuf
import CGLib
import Foundation

/// Writes small real pictures in the formats gdk-pixbuf can save, for folder tests.
public enum TestPictures {
    /// Saves a `size`×`size` picture of one colour (0xRRGGBB) at `url` in `format`
    /// ("png", "jpeg", "bmp", "tiff", "ico"). Returns false if the saver is missing or fails.
    @discardableResult
    public static func write(_ url: URL, format: String, rgb: UInt32 = 0x3366CC, size: Int32 = 64) -> Bool {
        guard let pixbuf = gdk_pixbuf_new(GDK_COLORSPACE_RGB, format == "ico" ? 1 : 0, 8, size, size) else { return false }
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

    /// A fresh empty folder under the temporary directory.
    public static func makeFolder(_ name: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("classic-photos-\(name)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}
