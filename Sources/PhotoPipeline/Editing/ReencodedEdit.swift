import CCairo
import CGdkPixbuf
import CGLib
import Foundation
import GLibKit

/// An edit of a picture that is not a JPEG (PNG, TIFF, WebP, AVIF, BMP, HEIC; a HEIC or AVIF
/// only turned is given its container's turn instead, `HEIFTurn`): decoded whole
/// in a decoder helper, turned, straightened (cairo's bilinear filter, as a JPEG is) and cut
/// here, and saved again in its own format (`PictureWriter`). PNG, TIFF and BMP keep every
/// pixel as it was; WebP and AVIF are encoded again at quality 95, HEIC with x265 at libheif's
/// 70, keeping its EXIF (orientation upright). What the format's writer cannot carry (EXIF but
/// a HEIC's, XMP, a colour profile the decoder turned into sRGB) is not kept.
public enum ReencodedEdit {
    /// The formats (gdk-pixbuf's names) edited this way, where a writer for them is installed
    /// (HEIF's is libheif's).
    public static let formats: Set<String> =
        Set(["png", "tiff", "webp", "avif", "bmp"]).union(PictureWriter.canWriteHEIF ? [PictureWriter.heif] : [])

    /// The file `bytes` (a picture in `format`, gdk-pixbuf's name) with `edit` applied, and
    /// what was kept of it.
    static func apply(
        _ edit: PhotoEdit, to bytes: Data, format: String
    ) -> Result<(Data, LosslessJPEG.Outcome), PhotoFileFailure> {
        let cancellable = Cancellable()
        let image: PhotoImage
        do throws(PhotoFailure) {
            let info = try Decoding.info(bytes, details: false, cancellable: cancellable)
            let side = ViewerLimits.decodeSide(width: info.width, height: info.height, wanted: 0)
            guard side >= max(info.width, info.height) else {
                return .failure(PhotoFileFailure(message: translatable("The picture is too large to be edited")))
            }
            image = try Decoding.picture(.bytes(bytes), size: .fit(side), cancellable: cancellable)
        } catch {
            return .failure(PhotoFileFailure(message: error.detail))
        }
        // Upright as decoded; turned as the edit says.
        guard let turned = image.orientedIfRoom(edit.turn.exifOrientation) else {
            return .failure(PhotoFileFailure(message: translatable("The picture is too large to be edited")))
        }
        let inside =
            edit.straighten == 0
            ? PixelRect(x: 0, y: 0, width: turned.width, height: turned.height)
            : StraightenedJPEG.inscribed(width: turned.width, height: turned.height, degrees: edit.straighten)
        guard let kept = (edit.crop ?? inside).intersection(inside) else {
            return .failure(PhotoFileFailure(message: translatable("The crop keeps nothing of the photo")))
        }
        let result = withExtendedLifetime(turned) { () -> Result<Data, PhotoFileFailure> in
            // The kept rectangle: straightened, a new picture; else saved from a view of it (the
            // writers read its rows in place).
            let made =
                edit.straighten == 0
                ? gdk_pixbuf_new_subpixbuf(
                    turned.pixbuf, Int32(kept.x), Int32(kept.y), Int32(kept.width), Int32(kept.height))
                : straightened(turned.pixbuf, degrees: edit.straighten, kept: kept)
            guard let cut = made else {
                return .failure(PhotoFileFailure(message: translatable("The picture is too large to be edited")))
            }
            defer { g_object_unref(UnsafeMutableRawPointer(cut)) }
            let exif =
                format == PictureWriter.heif
                ? PictureWriter.uprightHEIFExif(of: bytes, width: kept.width, height: kept.height) : nil
            return PictureWriter.encode(cut, format: format, exif: exif)
        }
        return result.map { ($0, LosslessJPEG.Outcome(kept: kept, cornerMoved: 0, edgeDropped: 0)) }
    }

    /// The `kept` part of `pixbuf` turned `degrees` about its centre: a new picture with the
    /// same channels (an alpha channel kept), or nil when memory runs short.
    private static func straightened(_ pixbuf: OpaquePointer, degrees: Double, kept: PixelRect) -> OpaquePointer? {
        let width = Int(gdk_pixbuf_get_width(pixbuf)), height = Int(gdk_pixbuf_get_height(pixbuf))
        let alpha = gdk_pixbuf_get_has_alpha(pixbuf) != 0
        let channels = Int(gdk_pixbuf_get_n_channels(pixbuf)), stride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        guard let source = gdk_pixbuf_read_pixels(pixbuf) else { return nil }
        // Cairo's pixels: native-endian 32-bit words, alpha premultiplied.
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        pixels.withUnsafeMutableBytes { raw in
            for y in 0..<height {
                let row = source + y * stride
                for x in 0..<width {
                    let p = row + x * channels
                    let a = alpha ? UInt32(p[3]) : 255
                    let word =
                        a << 24 | premultiplied(p[0], a) << 16 | premultiplied(p[1], a) << 8 | premultiplied(p[2], a)
                    raw.storeBytes(of: word, toByteOffset: (y * width + x) * 4, as: UInt32.self)
                }
            }
        }
        let turned = (width: width, height: height)
        guard
            let drawn = try? StraightenedJPEG.draw(
                &pixels, width: width, height: height, turn: .upright, turned: turned, degrees: degrees, kept: kept,
                format: alpha ? CAIRO_FORMAT_ARGB32 : CAIRO_FORMAT_RGB24),
            let made = gdk_pixbuf_new(GDK_COLORSPACE_RGB, alpha ? 1 : 0, 8, Int32(kept.width), Int32(kept.height))
        else { return nil }
        let target = gdk_pixbuf_get_pixels(made)!, targetStride = Int(gdk_pixbuf_get_rowstride(made))
        let targetChannels = alpha ? 4 : 3
        drawn.withUnsafeBytes { raw in
            for y in 0..<kept.height {
                let row = target + y * targetStride
                for x in 0..<kept.width {
                    let word = raw.load(fromByteOffset: (y * kept.width + x) * 4, as: UInt32.self)
                    let p = row + x * targetChannels
                    let a = alpha ? word >> 24 : 255
                    p[0] = unmultiplied(word >> 16, a)
                    p[1] = unmultiplied(word >> 8, a)
                    p[2] = unmultiplied(word, a)
                    if alpha { p[3] = UInt8(a) }
                }
            }
        }
        return made
    }

    /// A channel's value premultiplied by alpha `a` (0–255), rounded, as cairo keeps it.
    private static func premultiplied(_ value: UInt8, _ a: UInt32) -> UInt32 { (UInt32(value) * a + 127) / 255 }

    /// The low byte of `word`, a channel premultiplied by alpha `a`, back to its own value.
    private static func unmultiplied(_ word: UInt32, _ a: UInt32) -> UInt8 {
        a == 0 ? 0 : UInt8(min(255, ((word & 0xFF) * 255 + a / 2) / a))
    }
}
