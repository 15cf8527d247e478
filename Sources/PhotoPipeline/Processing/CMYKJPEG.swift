import CEmbeddedPictures
import CGdkPixbuf
import Foundation

/// A CMYK JPEG with a CMYK profile (or none, when there is a default CMYK profile): kept whole
/// and its inks decoded with libjpeg, to be turned into RGB through the profile (gdk-pixbuf's
/// loader would turn them by a formula first). Taken from the loader at its frame header (see
/// `ImageDecoder.HeaderCheck`).
struct CMYKJPEG {
    /// The profile its inks are turned through.
    let profile: Data
    let width: Int
    let height: Int
    /// Its EXIF orientation.
    let orientation: Int

    /// Bytes a pixel of the size asked for takes besides the decode's estimate: the inks at
    /// libjpeg's scale (at most twice the size asked for, each way), its buffers, and the RGB
    /// picture made of them.
    static let extraBytesPerPixel = 3 * 4

    /// The profile to turn a JPEG's inks through, from its first bytes up to its frame header:
    /// its own CMYK profile, or, where it has none at all, the default CMYK one; nil when it is
    /// not a CMYK JPEG, or its profile is not a CMYK one.
    static func profile(_ header: [UInt8]) -> Data? {
        guard PictureSignature.isJPEG(header), header.withUnsafeBytes({ DecodeCost.jpegInfo($0)?.components }) == 4
        else { return nil }
        let embedded = ColorProfile.jpegProfile(in: Data(header))
        return embedded.map { ColorProfile.isCMYKProfile($0) ? $0 : nil } ?? ColorProfile.defaultCMYK
    }

    init(profile: Data, width: Int, height: Int, header: [UInt8]) {
        self.profile = profile
        self.width = width
        self.height = height
        orientation = ExifReader.read(Data(header)).orientation
    }

    /// Decodes the JPEG kept whole (`bytes`) with libjpeg at a scale covering `size`, turns its
    /// inks into sRGB through its profile, and scales it to that size.
    func decode(
        _ bytes: [UInt8], size: DecodeSize, limits: DecodeLimits
    ) throws(PhotoFailure) -> ImageDecoder.DecodedPicture {
        let (w, h) = ImageDecoder.scaledSize(width: width, height: height, for: size)
        var picture = cp_cmyk_picture()
        var message = [CChar](repeating: 0, count: 256)
        let status = bytes.withUnsafeBytes {
            cp_cmyk_jpeg_decode(
                $0.baseAddress, $0.count, Int32(w), Int32(h), Int64(limits.maxPixels), &picture, &message,
                message.count)
        }
        defer { free(picture.inks) }
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard status == 0, let inks = picture.inks,
            let (inRGB, colours) = ColorProfile.rgb(
                fromInks: inks, width: Int(picture.width), height: Int(picture.height),
                inverted: picture.inverted != 0, profile: profile)
        else {
            throw PhotoFailure(
                .damaged(format: "JPEG"), detail: text.isEmpty ? "The CMYK JPEG could not be read" : text)
        }
        let image = try ImageDecoder.scaled(inRGB, width: w, height: h)
        // Turned upright later, as the loader's pictures are, by the EXIF orientation.
        if orientation != 1 { gdk_pixbuf_set_option(image.pixbuf, "orientation", "\(orientation)") }
        return (image.pixbuf, colours, image)
    }
}
