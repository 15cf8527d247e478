import CGdkPixbuf
import CGLib
import GLibKit

/// A decoded photo: an immutable GdkPixbuf, safe to hand between threads.
public final class PhotoImage: @unchecked Sendable {
    // GdkPixbufs are immutable once built and may be shared by threads; nothing mutates this one.
    public let object: ObjectRef<GObject>

    /// Adopts a pixbuf reference the caller owns.
    public init(taking pixbuf: OpaquePointer) { object = ObjectRef(takingOpaque: pixbuf) }

    /// The `GdkPixbuf*` for C calls.
    public var pixbuf: OpaquePointer { object.opaque }

    public var width: Int { Int(gdk_pixbuf_get_width(pixbuf)) }
    public var height: Int { Int(gdk_pixbuf_get_height(pixbuf)) }

    /// Reads one pixel as (r, g, b, a); alpha is 255 for opaque images.
    public func pixel(x: Int, y: Int) -> (UInt8, UInt8, UInt8, UInt8) {
        let stride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        let channels = Int(gdk_pixbuf_get_n_channels(pixbuf))
        let base = gdk_pixbuf_read_pixels(pixbuf)! + y * stride + x * channels
        return (base[0], base[1], base[2], channels == 4 ? base[3] : 255)
    }

    /// Builds an image from tightly packed 8-bit RGB or RGBA pixels (for tests and tools).
    public static func fromPixels(_ bytes: [UInt8], width: Int, height: Int, hasAlpha: Bool) -> PhotoImage {
        let image = PhotoImage(
            taking: gdk_pixbuf_new(GDK_COLORSPACE_RGB, hasAlpha ? 1 : 0, 8, Int32(width), Int32(height))!)
        let raw = image.pixbuf
        let stride = Int(gdk_pixbuf_get_rowstride(raw))
        let channels = hasAlpha ? 4 : 3
        let pixels = gdk_pixbuf_get_pixels(raw)!
        for y in 0..<height {
            for x in 0..<(width * channels) {
                pixels[y * stride + x] = bytes[(y * width) * channels + x]
            }
        }
        return image
    }
}
