import CGdkPixbuf
import CGLib
import Foundation
import GLibKit

/// An edit of a picture that is not a JPEG (PNG, TIFF, WebP, AVIF, BMP): decoded whole in a
/// decoder helper, turned and cut here, and saved again in its own format by gdk-pixbuf's
/// writer for it. PNG, TIFF and BMP keep every pixel as it was; WebP and AVIF are encoded
/// again (at quality 95). What the format's writer cannot carry (EXIF, a colour profile the
/// decoder turned into sRGB) is not kept.
public enum ReencodedEdit {
    /// The formats (gdk-pixbuf's names) edited this way, where a writer for them is installed.
    public static let formats: Set<String> = ["png", "tiff", "webp", "avif", "bmp"]

    /// The file `bytes` (a picture in `format`, gdk-pixbuf's name) with `edit` applied, and
    /// what was kept of it.
    static func apply(
        _ edit: PhotoEdit, to bytes: Data, format: String
    ) -> Result<(Data, LosslessJPEG.Outcome), PhotoFileFailure> {
        guard edit.straighten == 0 else {
            return .failure(PhotoFileFailure(message: translatable("Only JPEG photos can be straightened")))
        }
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
        let whole = PixelRect(x: 0, y: 0, width: turned.width, height: turned.height)
        guard let kept = edit.crop.map({ $0.intersection(whole) }) ?? whole else {
            return .failure(PhotoFileFailure(message: translatable("The crop keeps nothing of the photo")))
        }
        let result = withExtendedLifetime(turned) { () -> Result<Data, PhotoFileFailure> in
            // The kept rectangle, saved from a view of it (the writers read its rows in place).
            guard
                let cut = gdk_pixbuf_new_subpixbuf(
                    turned.pixbuf, Int32(kept.x), Int32(kept.y), Int32(kept.width), Int32(kept.height))
            else { return .failure(PhotoFileFailure(message: translatable("The picture is too large to be edited"))) }
            defer { g_object_unref(UnsafeMutableRawPointer(cut)) }
            let lossy = format == "webp" || format == "avif"
            var keys: [UnsafeMutablePointer<CChar>?] = lossy ? [strdup("quality"), nil] : [nil]
            var values: [UnsafeMutablePointer<CChar>?] = lossy ? [strdup("95"), nil] : [nil]
            defer {
                for key in keys { free(key) }
                for value in values { free(value) }
            }
            var buffer: UnsafeMutablePointer<CChar>?
            var size: gsize = 0
            var error: UnsafeMutablePointer<GError>?
            guard gdk_pixbuf_save_to_bufferv(cut, &buffer, &size, format, &keys, &values, &error) != 0, let buffer
            else {
                defer { if let error { g_error_free(error) } }
                return .failure(
                    PhotoFileFailure(
                        message: error.map { String(cString: $0.pointee.message) } ?? translatable("Unknown error")))
            }
            defer { g_free(buffer) }
            return .success(Data(bytes: buffer, count: Int(size)))
        }
        return result.map { ($0, LosslessJPEG.Outcome(kept: kept, cornerMoved: 0, edgeDropped: 0)) }
    }
}
