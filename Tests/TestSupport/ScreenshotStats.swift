import CGdkPixbuf
import CGLib

/// Simple facts about a screenshot, to tell a real window from a blank screen.
public struct ScreenshotStats: CustomStringConvertible, Sendable {
    public let distinctColours: Int
    /// Pixels whose colour looks sepia-toned (warm, r > g > b, not grey).
    public let sepiaPixels: Int

    public init(path: String) throws {
        var error: UnsafeMutablePointer<GError>?
        guard let pixbuf = gdk_pixbuf_new_from_file(path, &error) else {
            if let error { g_error_free(error) }
            throw AppSessionError.timeout("cannot read \(path)")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        let width = Int(gdk_pixbuf_get_width(pixbuf)), height = Int(gdk_pixbuf_get_height(pixbuf))
        let stride = Int(gdk_pixbuf_get_rowstride(pixbuf)), channels = Int(gdk_pixbuf_get_n_channels(pixbuf))
        let pixels = gdk_pixbuf_read_pixels(pixbuf)!
        var colours = Set<UInt32>()
        var sepia = 0
        for y in Swift.stride(from: 0, to: height, by: 2) {
            for x in Swift.stride(from: 0, to: width, by: 2) {
                let p = pixels + y * stride + x * channels
                let (r, g, b) = (Int(p[0]), Int(p[1]), Int(p[2]))
                colours.insert(UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b))
                if r > g, g > b, r - b > 25, r - b < 110 { sepia += 1 }
            }
        }
        distinctColours = colours.count
        sepiaPixels = sepia * 4
    }

    public var description: String { "\(distinctColours) colours, \(sepiaPixels) sepia pixels" }
}
