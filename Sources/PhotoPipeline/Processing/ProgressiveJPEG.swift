import CEmbeddedPictures
import CGdkPixbuf
import Foundation
import GLibKit

/// A progressive JPEG (of YCbCr, RGB or grey): kept whole and decoded in one pass by libjpeg.
/// gdk-pixbuf's loader makes the whole picture once for each of its scans as they arrive (a
/// 12-megapixel photo: 440 ms against 220 in one pass here), and its rows are final only after
/// the last, so its colours could not be turned as it decoded. Taken from the loader at its
/// frame header (see `ImageDecoder.HeaderCheck`).
struct ProgressiveJPEG {
    let width: Int
    let height: Int
    /// Its EXIF orientation.
    let orientation: Int

    /// Whether a JPEG's first bytes, up to its frame header, are a progressive JPEG this decodes.
    static func isProgressive(_ header: [UInt8]) -> Bool {
        guard PictureSignature.isJPEG(header), let info = header.withUnsafeBytes({ DecodeCost.jpegInfo($0) }) else {
            return false
        }
        return info.progressive && (info.components == 1 || info.components == 3)
    }

    init(width: Int, height: Int, header: [UInt8]) {
        self.width = width
        self.height = height
        orientation = ExifReader.read(Data(header)).orientation
    }

    /// Decodes the JPEG kept whole (`bytes`) with libjpeg, in one pass, at a scale covering
    /// `size`. Its colours are turned into sRGB from its profile (else `exifProfile`, what its
    /// EXIF says) as its rows come when that is the size asked for (the viewer's), else after
    /// it is scaled.
    func decode(
        _ bytes: [UInt8], size: DecodeSize, limits: DecodeLimits, exifProfile: Data?
    ) throws(PhotoFailure) -> ImageDecoder.DecodedPicture {
        let (w, h) = ImageDecoder.scaledSize(width: width, height: height, for: size)
        let profile =
            ColorProfile.jpegProfile(in: Data(bytes.prefix(ImageDecoder.HeaderCheck.headerLimit))) ?? exifProfile
        let target = RowsTarget(profile: profile, wanted: (w, h))
        var message = [CChar](repeating: 0, count: 256)
        let rows = cp_jpeg_rows_target(
            prepare: { context, width, height, stride in
                CallbackData.borrow(context, as: RowsTarget.self).prepare(
                    width: Int(width), height: Int(height), stride: stride)
            },
            rows_done: { context, rows in
                CallbackData.borrow(context, as: RowsTarget.self).conversion?.ready(upTo: Int(rows))
            })
        let status = withExtendedLifetime(target) {
            bytes.withUnsafeBytes {
                cp_rgb_jpeg_decode(
                    $0.baseAddress, $0.count, Int32(w), Int32(h), Int64(limits.maxPixels), rows,
                    CallbackData.lend(target), &message, message.count)
            }
        }
        guard status == 0, let decoded = target.image else {
            target.conversion?.wait()
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if status == -2, !text.isEmpty, target.image == nil {
                throw PhotoFailure(.tooManyPixels, detail: text)
            }
            throw PhotoFailure(
                .damaged(format: "JPEG"), detail: text.isEmpty ? "The progressive JPEG could not be read" : text)
        }
        let image: PhotoImage
        let colours: ColorProfile.Outcome
        if let conversion = target.conversion {
            colours = conversion.finish()
            image = try ImageDecoder.scaled(decoded, width: w, height: h)
        } else {
            image = try ImageDecoder.scaled(decoded, width: w, height: h)
            colours = profile.map { ColorProfile.convert(image.pixbuf, from: $0) } ?? .assumedSRGB
        }
        // Turned upright later, as the loader's pictures are, by the EXIF orientation.
        if orientation != 1 {
            gdk_pixbuf_set_option(image.pixbuf, "orientation", "\(orientation)")
        }
        return (image.pixbuf, colours, image)
    }

    /// Where libjpeg's rows go: a picture made at the decoded size, and, when that is the
    /// size asked for and there is a profile, the turning of its rows as they come.
    private final class RowsTarget {
        let profile: Data?
        let wanted: (Int, Int)
        private(set) var image: PhotoImage?
        private(set) var conversion: ColorProfile.RowConversion?

        init(profile: Data?, wanted: (Int, Int)) {
            self.profile = profile
            self.wanted = wanted
        }

        func prepare(width: Int, height: Int, stride: UnsafeMutablePointer<Int32>?) -> UnsafeMutablePointer<UInt8>? {
            guard let made = gdk_pixbuf_new(GDK_COLORSPACE_RGB, 0, 8, Int32(width), Int32(height)) else {
                return nil
            }
            let image = PhotoImage(taking: made)
            self.image = image
            stride?.pointee = gdk_pixbuf_get_rowstride(made)
            // Turned as the rows come where that is worth a thread (a large picture, of RGB:
            // a grey profile is used only once its pixels are seen to be grey).
            if let profile, (width, height) == wanted, width * height >= SepiaFilter.parallelPixels,
                ColorProfile.isRGBProfile(profile)
            {
                conversion = ColorProfile.RowConversion(ColorProfile.Conversion(made, from: profile))
            }
            return gdk_pixbuf_get_pixels(made)
        }
    }
}
