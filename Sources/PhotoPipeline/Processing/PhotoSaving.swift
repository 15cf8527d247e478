import CGdkPixbuf
import CGLib
import Foundation
import GLibKit

/// Writes a photo at full size (within the viewer's pixel limit), sepia or not. Blocking: run
/// it off the main thread.
public enum PhotoSaving {
    /// What was written: the format (`png`, `jpeg`) and the size in pixels.
    public struct Saved: Sendable {
        public let format: String
        public let width: Int
        public let height: Int
    }

    /// Whether `path` names a JPEG file (by its ending); anything else is written as PNG.
    public static func isJPEG(_ path: String) -> Bool {
        let lower = path.lowercased()
        return lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg")
    }

    /// Decodes `bytes` whole, applies the sepia filter if asked, and writes the picture as PNG,
    /// or as JPEG when `path` ends in .jpg or .jpeg (on white, JPEG having no transparency).
    public static func save(bytes: Data, sepia: Bool, to path: String) -> Result<Saved, PhotoFileFailure> {
        let cancellable = Cancellable()
        do throws(PhotoFailure) {
            let info = try Decoding.info(bytes, details: false, cancellable: cancellable)
            let side = ViewerLimits.decodeSide(width: info.width, height: info.height, wanted: 0)
            var image = try Decoding.picture(.bytes(bytes), size: .fit(side), cancellable: cancellable)
            if sepia, let filtered = SepiaFilter().apply(to: image) { image = filtered }
            let jpeg = isJPEG(path)
            if jpeg, gdk_pixbuf_get_has_alpha(image.pixbuf) != 0 {
                image = PhotoImage(
                    taking: gdk_pixbuf_composite_color_simple(
                        image.pixbuf, Int32(image.width), Int32(image.height), GDK_INTERP_NEAREST, 255, 16, 0xFFFFFF,
                        0xFFFFFF)!)
            }
            var error: UnsafeMutablePointer<GError>?
            let saved =
                jpeg
                ? cp_pixbuf_save_jpeg(image.pixbuf, path, &error)
                : gdk_pixbuf_savev(image.pixbuf, path, "png", nil, nil, &error)
            if saved == 0 {
                defer { if let error { g_error_free(error) } }
                return .failure(
                    PhotoFileFailure(message: error.map { String(cString: $0.pointee.message) } ?? "unknown error"))
            }
            return .success(Saved(format: jpeg ? "jpeg" : "png", width: image.width, height: image.height))
        } catch {
            return .failure(PhotoFileFailure(message: error.detail))
        }
    }

    /// Decodes `bytes` whole (within the viewer's pixel limit), sepia if asked: what Print puts
    /// on the page.
    public static func fullPicture(bytes: Data, sepia: Bool) -> Result<PhotoImage, PhotoFileFailure> {
        let cancellable = Cancellable()
        do throws(PhotoFailure) {
            let info = try Decoding.info(bytes, details: false, cancellable: cancellable)
            let side = ViewerLimits.decodeSide(width: info.width, height: info.height, wanted: 0)
            let image = try Decoding.picture(.bytes(bytes), size: .fit(side), cancellable: cancellable)
            return .success(sepia ? SepiaFilter().apply(to: image) ?? image : image)
        } catch {
            return .failure(PhotoFileFailure(message: error.detail))
        }
    }
}
