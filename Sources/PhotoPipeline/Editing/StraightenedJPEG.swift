import CCairo
import CExiv2Setup
import CTurboJPEG
import Foundation
import GLibKit

/// A JPEG straightened: decoded whole (TurboJPEG), turned by the edit's few degrees about its
/// centre with cairo's bilinear filter (after the edit's quarter turns and flips, and its
/// EXIF orientation), cut to the crop (at most the largest rectangle of the photo's own shape
/// left inside the turned picture), and encoded again at the quality the camera used
/// (estimated from the file's quantisation tables) with its chroma subsampling and its
/// progressive or baseline kind; its EXIF (orientation upright, size and thumbnail made true),
/// XMP, IPTC, comment and ICC profile are copied over. Runs in a decoder helper.
public enum StraightenedJPEG {
    /// The largest rectangle of a `width` × `height` picture's own shape inside it once turned
    /// `degrees` about its centre, centred, in its pixels (rounded inwards).
    public static func inscribed(width: Int, height: Int, degrees: Double) -> PixelRect {
        let angle = abs(degrees) * .pi / 180
        let (w, h) = (Double(width), Double(height))
        let (c, s) = (cos(angle), sin(angle))
        let scale = min(1, w / (w * c + h * s), h / (w * s + h * c))
        let (keptWidth, keptHeight) = (max(1, Int(w * scale)), max(1, Int(h * scale)))
        return PixelRect(
            x: (width - keptWidth + 1) / 2, y: (height - keptHeight + 1) / 2, width: keptWidth, height: keptHeight)
    }

    /// The quality (1–100) a JPEG was saved with, by libjpeg's scaling of its standard
    /// luminance table, from the first quantisation table in `jpeg`; nil: none found.
    public static func quality(of jpeg: Data) -> Int? {
        let bytes = [UInt8](jpeg.prefix(1 << 20))
        var offset = 2
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF {
            let marker = bytes[offset + 1]
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard marker != 0xDA, length >= 2 else { return nil } // the picture's data: no table came
            if marker == 0xDB, offset + 4 + 1 + 64 <= bytes.count {
                let precision = bytes[offset + 4] >> 4
                var ratio = 0.0
                for index in 0..<64 {
                    let value =
                        precision == 0
                        ? Double(bytes[offset + 5 + index])
                        : Double(Int(bytes[offset + 5 + 2 * index]) << 8 | Int(bytes[offset + 6 + 2 * index]))
                    ratio += value * 100 / Double(standardLuminance[zigzag[index]])
                }
                let scale = ratio / 64
                let estimate = scale <= 100 ? (200 - scale) / 2 : 5000 / scale
                return min(100, max(1, Int(estimate.rounded())))
            }
            offset += 2 + length
        }
        return nil
    }

    /// `jpeg` with `edit` applied (its straightening not 0).
    static func apply(_ edit: PhotoEdit, to jpeg: Data) throws(PhotoFailure) -> (Data, LosslessJPEG.Outcome) {
        guard let handle = tjInitDecompress() else { throw damaged("TurboJPEG could not start") }
        defer { tjDestroy(handle) }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        let read = jpeg.withUnsafeBytes { raw in
            tjDecompressHeader3(handle, raw.cBytes, UInt(raw.count), &width, &height, &subsampling, &colorspace)
        }
        guard read == 0, width > 0, height > 0 else { throw damaged(error(handle)) }
        guard colorspace != Int32(TJCS_CMYK.rawValue), colorspace != Int32(TJCS_YCCK.rawValue) else {
            throw damaged("A CMYK photo cannot be straightened")
        }
        let stride = Int(width) * 4
        var pixels = [UInt8](repeating: 0, count: stride * Int(height))
        let decoded = jpeg.withUnsafeBytes { raw in
            tjDecompress2(
                handle, raw.cBytes, UInt(raw.count), &pixels, width, Int32(stride), height, Int32(TJPF_BGRX.rawValue),
                0)
        }
        guard decoded == 0 else { throw damaged(error(handle)) }

        let turn = PictureTurn(exifOrientation: ExifOrientation.orientation(of: jpeg)).then(edit.turn)
        let turned = turn.size(width: Int(width), height: Int(height))
        let inside = inscribed(width: turned.width, height: turned.height, degrees: edit.straighten)
        guard let kept = (edit.crop ?? inside).intersection(inside) else {
            throw damaged("The crop keeps nothing of the photo")
        }
        var output = try draw(
            &pixels, width: Int(width), height: Int(height), turn: turn, turned: turned, degrees: edit.straighten,
            kept: kept)

        let progressive = ProgressiveJPEG.isProgressive([UInt8](jpeg.prefix(64 << 10)))
        var encoded = try encode(
            &output, width: kept.width, height: kept.height, subsampling: subsampling,
            quality: quality(of: jpeg) ?? 92, progressive: progressive)
        if PhotoDetails.exiv2Ready {
            encoded = withMetadata(of: jpeg, in: encoded)
            var size = 0
            var message: UnsafeMutablePointer<CChar>?
            let fixed = encoded.withUnsafeBytes {
                cp_exiv2_exif_after_edit($0.cBytes, $0.count, kept.width, kept.height, &size, &message)
            }
            free(message)
            if let fixed {
                encoded = Data(bytes: fixed, count: size)
                free(fixed)
            }
        }
        return (encoded, LosslessJPEG.Outcome(kept: kept, cornerMoved: 0, edgeDropped: 0))
    }

    /// The `kept` part of the picture `pixels` (cairo's `format`: BGRX, or premultiplied BGRA)
    /// turned by `turn`, then by `degrees` about the centre of the `turned` frame, drawn with
    /// the bilinear filter: its pixels, in the same format.
    static func draw(
        _ pixels: inout [UInt8], width: Int, height: Int, turn: PictureTurn, turned: (width: Int, height: Int),
        degrees: Double, kept: PixelRect, format: cairo_format_t = CAIRO_FORMAT_RGB24
    ) throws(PhotoFailure) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: kept.width * 4 * kept.height)
        let drawn = pixels.withUnsafeMutableBufferPointer { source -> Bool in
            output.withUnsafeMutableBufferPointer { target -> Bool in
                guard
                    let from = cairo_image_surface_create_for_data(
                        source.baseAddress, format, Int32(width), Int32(height), Int32(width * 4)),
                    let to = cairo_image_surface_create_for_data(
                        target.baseAddress, format, Int32(kept.width), Int32(kept.height),
                        Int32(kept.width * 4))
                else { return false }
                defer {
                    cairo_surface_destroy(from)
                    cairo_surface_destroy(to)
                }
                guard let cr = cairo_create(to) else { return false }
                defer { cairo_destroy(cr) }
                // Read from last to first: the kept part's corner, the straightening about the
                // turned frame's centre, the quarter turns, the mirror.
                cairo_translate(cr, Double(-kept.x), Double(-kept.y))
                cairo_translate(cr, Double(turned.width) / 2, Double(turned.height) / 2)
                cairo_rotate(cr, degrees * .pi / 180)
                cairo_translate(cr, Double(-turned.width) / 2, Double(-turned.height) / 2)
                var steps: [(width: Int, height: Int)] = []
                var side = (width: width, height: height)
                for _ in 0..<turn.quarterTurns {
                    steps.append(side)
                    side = (side.height, side.width)
                }
                for step in steps.reversed() {
                    // A quarter turn clockwise of a picture `step.height` high: (x, y) → (h − y, x).
                    var matrix = cairo_matrix_t(xx: 0, yx: 1, xy: -1, yy: 0, x0: Double(step.height), y0: 0)
                    cairo_transform(cr, &matrix)
                }
                if turn.mirrored {
                    var matrix = cairo_matrix_t(xx: -1, yx: 0, xy: 0, yy: 1, x0: Double(width), y0: 0)
                    cairo_transform(cr, &matrix)
                }
                cairo_set_source_surface(cr, from, 0, 0)
                let pattern = cairo_get_source(cr)
                cairo_pattern_set_filter(pattern, CAIRO_FILTER_BILINEAR)
                cairo_pattern_set_extend(pattern, CAIRO_EXTEND_PAD)
                cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
                cairo_paint(cr)
                cairo_surface_flush(to)
                return cairo_status(cr) == CAIRO_STATUS_SUCCESS
            }
        }
        guard drawn else { throw damaged("The photo could not be turned") }
        return output
    }

    /// `pixels` (BGRX) as a JPEG.
    private static func encode(
        _ pixels: inout [UInt8], width: Int, height: Int, subsampling: Int32, quality: Int, progressive: Bool
    ) throws(PhotoFailure) -> Data {
        guard let handle = tjInitCompress() else { throw damaged("TurboJPEG could not start") }
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let flags = TJFLAG_ACCURATEDCT | (progressive ? TJFLAG_PROGRESSIVE : 0)
        let status = tjCompress2(
            handle, &pixels, Int32(width), Int32(width * 4), Int32(height), Int32(TJPF_BGRX.rawValue), &output,
            &size, subsampling, Int32(quality), Int32(flags))
        defer { tjFree(output) }
        guard status == 0, let output else { throw damaged(error(handle)) }
        return Data(bytes: output, count: Int(size))
    }

    /// `encoded` given the metadata of `original` (as it was, if Exiv2 refuses).
    private static func withMetadata(of original: Data, in encoded: Data) -> Data {
        var size = 0
        var message: UnsafeMutablePointer<CChar>?
        let copied = original.withUnsafeBytes { source in
            encoded.withUnsafeBytes { edited in
                cp_exiv2_copy_metadata(source.cBytes, source.count, edited.cBytes, edited.count, &size, &message)
            }
        }
        free(message)
        guard let copied else { return encoded }
        defer { free(copied) }
        return Data(bytes: copied, count: size)
    }

    private static func error(_ handle: tjhandle) -> String {
        tjGetErrorStr2(handle).map { String(cString: $0) } ?? "unknown error"
    }

    private static func damaged(_ detail: String) -> PhotoFailure {
        PhotoFailure(.damaged(format: "jpeg"), detail: detail)
    }

    /// libjpeg's standard luminance quantisation table (quality 50), in natural order.
    private static let standardLuminance: [Int] = [
        16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29,
        51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121,
        120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
    ]

    /// Where each of a DQT's 64 values (in zigzag order) lies in natural order.
    private static let zigzag: [Int] = [
        0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14,
        21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53,
        60, 61, 54, 47, 55, 62, 63,
    ]
}
