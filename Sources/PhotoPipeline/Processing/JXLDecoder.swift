import CGdkPixbuf
import CGLib
import CJxl
import Foundation
import GLibKit

/// Decodes JPEG XL pictures with libjxl, for which Debian 12 has no gdk-pixbuf loader. It runs
/// where every picture is decoded, in the decoder helpers, and keeps to the same limits: the
/// size from the header is checked, and the memory the decode needs reserved, before any pixel
/// is decoded.
///
/// libjxl 0.7 has no decoding to a smaller size, so the picture is decoded whole (its first
/// frame, for an animation, with the EXIF orientation applied as the file says) and then
/// scaled; its colours are then turned into sRGB from the profile the decoded pixels are in.
public enum JXLDecoder {
    /// Whether `head` starts like a JPEG XL file: a bare codestream (FF 0A) or the ISO BMFF
    /// container whose first box is `JXL `.
    public static func isJXL(_ head: some Collection<UInt8>) -> Bool {
        let bytes = Array(head.prefix(12))
        if bytes.count >= 2, bytes[0] == 0xFF, bytes[1] == 0x0A { return true }
        return bytes.count == 12 && bytes == [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]
    }

    /// Bytes of memory per pixel the decode is taken to need: the 8-bit output and libjxl's own
    /// planes of floating-point samples.
    static let bytesPerPixel = 16

    /// The picture's size as shown (its orientation applied), read from the header alone; nil
    /// if `bytes` hold no JPEG XL header libjxl can read.
    public static func size(of bytes: UnsafeRawBufferPointer) -> (width: Int, height: Int)? {
        guard let decoder = JxlDecoderCreate(nil) else { return nil }
        defer { JxlDecoderDestroy(decoder) }
        guard JxlDecoderSubscribeEvents(decoder, Int32(JXL_DEC_BASIC_INFO.rawValue)) == JXL_DEC_SUCCESS,
            JxlDecoderSetInput(decoder, bytes.cBytes, bytes.count)
                == JXL_DEC_SUCCESS
        else { return nil }
        JxlDecoderCloseInput(decoder)
        var info = JxlBasicInfo()
        guard JxlDecoderProcessInput(decoder) == JXL_DEC_BASIC_INFO,
            JxlDecoderGetBasicInfo(decoder, &info) == JXL_DEC_SUCCESS
        else { return nil }
        return shownSize(info)
    }

    /// The size of the pixels libjxl puts out: turned by the orientation (5 to 8 swap sides).
    private static func shownSize(_ info: JxlBasicInfo) -> (width: Int, height: Int) {
        let (w, h) = (Int(info.xsize), Int(info.ysize))
        return info.orientation.rawValue >= 5 ? (h, w) : (w, h)
    }

    /// A decoded picture at full size, and the colour profile its pixels are in (nil: sRGB).
    public struct Decoded {
        public let image: PhotoImage
        public let profile: Data?
        /// The profile's name where the pixels are sRGB already ("sRGB", from the file's
        /// colour description).
        public let describedAs: String?
        /// What became of the colours of a picture of more than 8 bits a sample, turned into sRGB
        /// from 16 bits as it was decoded (`profile` is then the one it was turned from); nil
        /// when the pixels are still in `profile`.
        public var turned: ColorProfile.Outcome?
    }

    /// Decodes the whole file in `bytes`.
    public static func decode(
        _ bytes: UnsafeRawBufferPointer, limits: DecodeLimits, budget: DecodeMemoryBudget, cancellable: Cancellable
    ) throws(PhotoFailure) -> Decoded {
        func damaged(_ detail: String) -> PhotoFailure {
            PhotoFailure(.damaged(format: "JPEG XL"), detail: detail)
        }
        guard let decoder = JxlDecoderCreate(nil) else { throw damaged("libjxl could not be started") }
        defer { JxlDecoderDestroy(decoder) }
        let threads = min(4, max(1, ProcessInfo.processInfo.activeProcessorCount))
        let runner = JxlThreadParallelRunnerCreate(nil, threads)
        defer { if let runner { JxlThreadParallelRunnerDestroy(runner) } }
        if let runner { _ = JxlDecoderSetParallelRunner(decoder, JxlThreadParallelRunner, runner) }
        let events = JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_COLOR_ENCODING.rawValue | JXL_DEC_FULL_IMAGE.rawValue
        guard JxlDecoderSubscribeEvents(decoder, Int32(events)) == JXL_DEC_SUCCESS,
            JxlDecoderSetInput(decoder, bytes.cBytes, bytes.count)
                == JXL_DEC_SUCCESS
        else { throw damaged("libjxl refused the data") }
        JxlDecoderCloseInput(decoder)

        var info = JxlBasicInfo()
        var format = JxlPixelFormat(num_channels: 3, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 4)
        var image: PhotoImage?
        var profile: Data?
        var describedAs: String?
        // A picture of more than 8 bits a sample in a profile of its own is decoded to 16 bits
        // and turned into sRGB from them (see `DeepPicture`).
        var deep: [UInt16] = []
        var reservation: DecodeMemoryBudget.Reservation?
        defer { reservation?.release() }
        while true {
            if cancellable.isCancelled { throw PhotoFailure.cancelled }
            let status = JxlDecoderProcessInput(decoder)
            switch status {
            case JXL_DEC_BASIC_INFO:
                guard JxlDecoderGetBasicInfo(decoder, &info) == JXL_DEC_SUCCESS else {
                    throw damaged("The JPEG XL header could not be read")
                }
                let (width, height) = shownSize(info)
                let pixels = width.multipliedReportingOverflow(by: height)
                guard width > 0, height > 0, !pixels.overflow, pixels.partialValue <= limits.maxPixels else {
                    throw ImageDecoder.tooManyPixels(width: width, height: height, limit: limits.maxPixels)
                }
                reservation = try budget.reserve(pixels.partialValue * bytesPerPixel, cancellable: cancellable)
                format.num_channels = info.alpha_bits > 0 ? 4 : 3
            case JXL_DEC_COLOR_ENCODING:
                (profile, describedAs) = colours(of: decoder, format: &format)
            case JXL_DEC_NEED_IMAGE_OUT_BUFFER where info.bits_per_sample > 8 && profile != nil:
                let (width, height) = shownSize(info)
                format.data_type = JXL_TYPE_UINT16
                format.align = 0
                var needed = 0
                let count = width * height * Int(format.num_channels)
                guard JxlDecoderImageOutBufferSize(decoder, &format, &needed) == JXL_DEC_SUCCESS, needed == count * 2
                else { throw damaged("libjxl wanted \(needed) bytes for a \(width)×\(height) picture") }
                deep = [UInt16](repeating: 0, count: count)
                let set = deep.withUnsafeMutableBytes {
                    JxlDecoderSetImageOutBuffer(decoder, &format, $0.baseAddress, needed)
                }
                guard set == JXL_DEC_SUCCESS else { throw damaged("libjxl took no buffer for the picture") }
            case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                let (width, height) = shownSize(info)
                guard
                    let made = gdk_pixbuf_new(
                        GDK_COLORSPACE_RGB, format.num_channels == 4 ? 1 : 0, 8, Int32(width), Int32(height))
                else { throw PhotoFailure(.tooManyPixels, detail: "No memory for a \(width)×\(height) picture") }
                image = PhotoImage(taking: made)
                var needed = 0
                let stride = Int(gdk_pixbuf_get_rowstride(made))
                guard JxlDecoderImageOutBufferSize(decoder, &format, &needed) == JXL_DEC_SUCCESS,
                    needed <= stride * height,
                    JxlDecoderSetImageOutBuffer(decoder, &format, gdk_pixbuf_get_pixels(made), needed)
                        == JXL_DEC_SUCCESS
                else {
                    throw damaged("libjxl wanted \(needed) bytes for a \(width)×\(height) picture")
                }
            case JXL_DEC_FULL_IMAGE, JXL_DEC_SUCCESS:
                // The first frame is the picture (an animation's first frame, as a still).
                if !deep.isEmpty {
                    let (width, height) = shownSize(info)
                    let turned = deep.withUnsafeBufferPointer { pixels in
                        ColorProfile.rgb(
                            fromDeep: pixels.baseAddress!, width: width, height: height,
                            channels: Int(format.num_channels), profile: profile)
                    }
                    guard let (image, outcome) = turned else {
                        throw PhotoFailure(.tooManyPixels, detail: "No memory for a \(width)×\(height) picture")
                    }
                    return Decoded(image: image, profile: profile, describedAs: describedAs, turned: outcome)
                }
                guard let image else { throw damaged("The JPEG XL file holds no picture") }
                return Decoded(image: image, profile: profile, describedAs: describedAs)
            case JXL_DEC_NEED_MORE_INPUT:
                throw damaged("The JPEG XL file is cut short")
            default:
                throw damaged("libjxl could not decode the JPEG XL file")
            }
        }
    }

    /// The colour profile the decoded pixels will be in: none when the file describes them as
    /// sRGB (then named so), otherwise the ICC profile libjxl gives for them.
    private static func colours(
        of decoder: OpaquePointer, format: inout JxlPixelFormat
    ) -> (profile: Data?, describedAs: String?) {
        var encoding = JxlColorEncoding()
        if JxlDecoderGetColorAsEncodedProfile(decoder, &format, JXL_COLOR_PROFILE_TARGET_DATA, &encoding)
            == JXL_DEC_SUCCESS, encoding.color_space == JXL_COLOR_SPACE_RGB,
            encoding.white_point == JXL_WHITE_POINT_D65, encoding.primaries == JXL_PRIMARIES_SRGB,
            encoding.transfer_function == JXL_TRANSFER_FUNCTION_SRGB
        {
            return (nil, "sRGB")
        }
        var length = 0
        guard JxlDecoderGetICCProfileSize(decoder, &format, JXL_COLOR_PROFILE_TARGET_DATA, &length) == JXL_DEC_SUCCESS,
            length > 0, length < 64 << 20
        else { return (nil, nil) }
        var icc = [UInt8](repeating: 0, count: length)
        guard
            JxlDecoderGetColorAsICCProfile(decoder, &format, JXL_COLOR_PROFILE_TARGET_DATA, &icc, length)
                == JXL_DEC_SUCCESS
        else { return (nil, nil) }
        return (Data(icc), nil)
    }
}

extension JXLDecoder {
    /// Decodes the JPEG XL file kept whole (`bytes`), scales it to `size`, and turns its colours
    /// into sRGB: the picture (owned by the image returned with it).
    static func decode(
        _ bytes: [UInt8], size: DecodeSize, limits: DecodeLimits, budget: DecodeMemoryBudget, cancellable: Cancellable
    ) throws(PhotoFailure) -> ImageDecoder.DecodedPicture {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(PhotoFailure) in
                try decode(raw, limits: limits, budget: budget, cancellable: cancellable)
            }
        }
        let decoded = try result.get()
        let whole = decoded.image
        let (w, h) = ImageDecoder.scaledSize(width: whole.width, height: whole.height, for: size)
        let image = try ImageDecoder.scaled(whole, width: w, height: h)
        let colours =
            decoded.turned ?? decoded.profile.map { ColorProfile.convert(image.pixbuf, from: $0) }
            ?? decoded.describedAs.map { .srgb($0) } ?? .assumedSRGB
        return (image.pixbuf, colours, image)
    }
}
