import CEmbeddedPictures
import CGdkPixbuf
import CGLib
import Foundation

/// Writes pixels as a picture file of a given format (gdk-pixbuf's name for it): HEIF (HEIC,
/// the format of phones' photos) with libheif's HEVC encoder, which gdk-pixbuf's loader for it
/// cannot do; every other format with gdk-pixbuf's writer for it. What is written here is
/// the app's own pixels, decoded (from untrusted files) in a decoder helper.
enum PictureWriter {
    /// The app's name for HEIF pictures (HEVC-coded: HEIC), as `ImageInfo` gives it.
    static let heif = "heif"

    /// Pictures of lossy formats are encoded at this quality (out of 100).
    static let quality = 95
    /// A HEIC's, on libheif's scale for x265 (its default is 50, about what phones write): a
    /// photo saved again keeps its detail at about 1.7 times its size (85 made it 3 times).
    static let heifQuality = 70

    /// Whether HEIF pictures can be written here (libheif has an HEVC encoder).
    static let canWriteHEIF = cp_heif_can_encode() != 0

    /// `pixbuf` as a file of `format`; a HEIC carries `exif` (a TIFF structure, made true to
    /// the picture: `uprightHEIFExif`) and a thumbnail of 320 pixels, as phones write them.
    static func encode(_ pixbuf: OpaquePointer, format: String, exif: Data? = nil) -> Result<Data, PhotoFileFailure> {
        guard format == heif else { return encodeWithPixbuf(pixbuf, format: format) }
        guard let pixels = gdk_pixbuf_read_pixels(pixbuf) else {
            return .failure(PhotoFileFailure(message: translatable("Unknown error")))
        }
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = (exif ?? Data()).withUnsafeBytes { block in
            cp_heif_encode(
                pixels, gdk_pixbuf_get_width(pixbuf), gdk_pixbuf_get_height(pixbuf),
                Int(gdk_pixbuf_get_rowstride(pixbuf)), gdk_pixbuf_get_n_channels(pixbuf), Int32(heifQuality), 320,
                block.isEmpty ? nil : block.cBytes, block.count, &out, &size, &message, message.count)
        }
        guard status == 0, let out else {
            return .failure(
                PhotoFileFailure(
                    message: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))
        }
        defer { free(out) }
        return .success(Data(bytes: out, count: size))
    }

    /// gdk-pixbuf's writer for `format`; WebP and AVIF at `quality`.
    private static func encodeWithPixbuf(_ pixbuf: OpaquePointer, format: String) -> Result<Data, PhotoFileFailure> {
        let lossy = format == "webp" || format == "avif"
        var keys: [UnsafeMutablePointer<CChar>?] = lossy ? [strdup("quality"), nil] : [nil]
        var values: [UnsafeMutablePointer<CChar>?] = lossy ? [strdup(String(quality)), nil] : [nil]
        defer {
            for key in keys { free(key) }
            for value in values { free(value) }
        }
        var buffer: UnsafeMutablePointer<CChar>?
        var size: gsize = 0
        var error: UnsafeMutablePointer<GError>?
        guard gdk_pixbuf_save_to_bufferv(pixbuf, &buffer, &size, format, &keys, &values, &error) != 0, let buffer
        else {
            defer { if let error { g_error_free(error) } }
            return .failure(
                PhotoFileFailure(
                    message: error.map { String(cString: $0.pointee.message) } ?? translatable("Unknown error")))
        }
        defer { g_free(buffer) }
        return .success(Data(bytes: buffer, count: Int(size)))
    }

    /// The EXIF block (a TIFF structure) of the HEIF file `file`, made true to the picture
    /// written from it, upright at `width` × `height` (see `ExifOrientation.uprightTIFF`): nil
    /// when it has none, or one too damaged to change.
    static func uprightHEIFExif(of file: Data, width: Int, height: Int) -> Data? {
        guard let range = HEIFExif.itemRange(in: file), range.upperBound <= file.count,
            let tiff = HEIFExif.tiffBlock(
                ofItem: file[(file.startIndex + range.lowerBound)..<(file.startIndex + range.upperBound)])
        else { return nil }
        return ExifOrientation.uprightTIFF(Data(tiff), width: width, height: height)
    }
}
