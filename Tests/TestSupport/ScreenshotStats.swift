import CGdkPixbuf
import CGLib

/// Simple facts about a screenshot, to tell a real window from a blank screen.
public struct ScreenshotStats: CustomStringConvertible, Sendable {
    public let distinctColours: Int
    /// Pixels whose colour looks sepia-toned (warm, r > g > b, not grey).
    public let sepiaPixels: Int
    /// Mean luminance, 0 (black) to 255 (white).
    public let meanLuminance: Double
    /// Mean red, green and blue, 0 to 255 each.
    public let meanColour: (r: Double, g: Double, b: Double)

    /// Reads the PNG at `path`, all of it or the `region` (x, y, width, height) only.
    public init(path: String, region: (x: Int, y: Int, width: Int, height: Int)? = nil) throws {
        var error: UnsafeMutablePointer<GError>?
        guard let pixbuf = gdk_pixbuf_new_from_file(path, &error) else {
            if let error { g_error_free(error) }
            throw AppSessionError.timeout("cannot read \(path)")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        let fullWidth = Int(gdk_pixbuf_get_width(pixbuf)), fullHeight = Int(gdk_pixbuf_get_height(pixbuf))
        let area = region ?? (0, 0, fullWidth, fullHeight)
        let left = max(0, area.x), top = max(0, area.y)
        let width = min(fullWidth, area.x + area.width), height = min(fullHeight, area.y + area.height)
        let stride = Int(gdk_pixbuf_get_rowstride(pixbuf)), channels = Int(gdk_pixbuf_get_n_channels(pixbuf))
        let pixels = gdk_pixbuf_read_pixels(pixbuf)!
        var colours = Set<UInt32>()
        var sepia = 0
        var luminance = 0.0, samples = 0
        var sums = (r: 0.0, g: 0.0, b: 0.0)
        for y in Swift.stride(from: top, to: height, by: 2) {
            for x in Swift.stride(from: left, to: width, by: 2) {
                let p = pixels + y * stride + x * channels
                let (r, g, b) = (Int(p[0]), Int(p[1]), Int(p[2]))
                luminance += 0.2126 * Double(r) + 0.7152 * Double(g) + 0.0722 * Double(b)
                sums = (sums.r + Double(r), sums.g + Double(g), sums.b + Double(b))
                samples += 1
                colours.insert(UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b))
                if r > g, g > b, r - b > 25, r - b < 110 { sepia += 1 }
            }
        }
        distinctColours = colours.count
        sepiaPixels = sepia * 4
        meanLuminance = samples > 0 ? luminance / Double(samples) : 0
        let n = Double(max(1, samples))
        meanColour = (sums.r / n, sums.g / n, sums.b / n)
    }

    public var description: String {
        "\(distinctColours) colours, \(sepiaPixels) sepia pixels, mean luminance \(Int(meanLuminance))"
    }
}
