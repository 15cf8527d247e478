import CGdkPixbuf
import CGLib
import CLcms2
import Foundation
import GLibKit

/// A picture's embedded colour profile (ICC), and the turning of its pixels into sRGB, the
/// colours GTK 4.8 shows textures in, with Little CMS.
///
/// It runs where pictures are decoded: in the decoder helpers, so that untrusted profiles are
/// parsed inside their confinement, as the pictures themselves are. A profile Little CMS
/// refuses (truncated, or with impossible tag counts), one that is not of RGB pixels, or one
/// that is sRGB already changes nothing: the picture is shown as it was decoded.
public enum ColorProfile {
    /// What became of a picture's colours.
    public enum Outcome: Sendable, Equatable {
        /// No profile: the picture is taken to be sRGB.
        case assumedSRGB
        /// An sRGB profile: nothing to do (its description).
        case srgb(String)
        /// Turned into sRGB from the profile with this description.
        case converted(String)
        /// A profile that was not used (damaged, or for pixels of another kind), and why.
        case ignored(String)

        /// How the info names the profile: its description, or "sRGB (assumed)".
        public var description: String? {
            switch self {
            case .assumedSRGB: nil
            case .srgb(let name), .converted(let name): name
            case .ignored: nil
            }
        }
    }

    /// Turns `pixbuf`'s pixels (8-bit RGB or RGBA, as gdk-pixbuf decodes) from the colour space
    /// `profile` describes into sRGB, in place.
    public static func convert(_ pixbuf: OpaquePointer, from profile: Data) -> Outcome {
        let conversion = Conversion(pixbuf, from: profile)
        conversion.rows(0..<conversion.height, shared: true)
        return conversion.outcome
    }

    /// The turning of one picture's pixels into sRGB, which may be run a band of rows at a time
    /// (as a decoder finishes them) or over the whole picture at once.
    final class Conversion: @unchecked Sendable {
        /// What becomes of the picture's colours (`converted` once its rows are run).
        let outcome: Outcome
        /// nil when there is nothing to do (see `outcome`).
        private let transform: cmsHTRANSFORM?
        /// The quicker way through the same transform, where the profile allows it.
        private let shaper: MatrixShaper?
        private let pixels: UnsafeMutablePointer<UInt8>?
        let width: Int, height: Int, stride: Int, channels: Int

        init(_ pixbuf: OpaquePointer, from profile: Data) {
            width = Int(gdk_pixbuf_get_width(pixbuf))
            height = Int(gdk_pixbuf_get_height(pixbuf))
            stride = Int(gdk_pixbuf_get_rowstride(pixbuf))
            channels = Int(gdk_pixbuf_get_n_channels(pixbuf))
            pixels = gdk_pixbuf_get_pixels(pixbuf)
            (transform, outcome, shaper) = Self.make(pixbuf, profile)
        }

        /// Whether the rows go through a `MatrixShaper`'s tables rather than Little CMS.
        var usesTables: Bool { shaper != nil }

        /// The fewest pixels a picture is given the quicker way for (see `make`).
        static let shaperPixels = 1 << 17

        deinit { if let transform { cmsDeleteTransform(transform) } }

        private static func make(_ pixbuf: OpaquePointer, _ profile: Data) -> (cmsHTRANSFORM?, Outcome, MatrixShaper?) {
            guard gdk_pixbuf_get_bits_per_sample(pixbuf) == 8, gdk_pixbuf_get_colorspace(pixbuf) == GDK_COLORSPACE_RGB
            else { return (nil, .ignored("not 8-bit RGB pixels"), nil) }
            guard
                let source = profile.withUnsafeBytes({
                    cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count))
                })
            else { return (nil, .ignored("not a colour profile Little CMS reads"), nil) }
            defer { cmsCloseProfile(source) }
            let name = description(of: source) ?? "Unnamed profile"
            let space = cmsGetColorSpace(source)
            let alpha = gdk_pixbuf_get_has_alpha(pixbuf) != 0
            let format = alpha ? pixelFormat(channels: 4) : pixelFormat(channels: 3)
            let input: cmsUInt32Number
            switch space {
            case cmsSigRgbData:
                if isSRGB(source) { return (nil, .srgb(name), nil) }
                input = format
            case cmsSigGrayData:
                // gdk-pixbuf gives a grey picture as RGB with the three alike: the grey is read
                // from the first of them, the other two (and alpha) passed over.
                guard isGrey(pixbuf) else { return (nil, .ignored("a grey profile on a picture in colour"), nil) }
                input = greyFormat(extra: alpha ? 3 : 2)
            default:
                return (nil, .ignored("a profile of \(kind(source)) pixels"), nil)
            }
            guard let srgb = cmsCreate_sRGBProfile() else { return (nil, .ignored("no sRGB profile"), nil) }
            defer { cmsCloseProfile(srgb) }
            // Alpha is copied where both sides have it; from grey it is left where it is (the
            // same bytes are read and written).
            let copyAlpha = alpha && space == cmsSigRgbData
            guard
                let transform = cmsCreateTransform(
                    source, input, srgb, format, cmsUInt32Number(INTENT_PERCEPTUAL),
                    cmsUInt32Number(copyAlpha ? cmsFLAGS_COPY_ALPHA : 0))
            else { return (nil, .ignored("Little CMS made no transform from it"), nil) }
            // Making the tables and checking them costs about as much as Little CMS turning
            // a few thousand pixels: worth it for pictures, not for small squares.
            let pixels = Int(gdk_pixbuf_get_width(pixbuf)) * Int(gdk_pixbuf_get_height(pixbuf))
            let shaper =
                space == cmsSigRgbData && pixels >= shaperPixels
                ? MatrixShaper(source: source, checkedAgainst: transform, channels: alpha ? 4 : 3) : nil
            return (transform, .converted(name), shaper)
        }

        /// Turns `rows` in place. `shared`: a large band is split between the cores (one Little
        /// CMS transform may be run by several threads at once on rows of their own).
        func rows(_ rows: Range<Int>, shared: Bool = false) {
            guard transform != nil, width > 0, !rows.isEmpty else { return }
            let cores = ProcessInfo.processInfo.activeProcessorCount
            guard shared, width * rows.count >= SepiaFilter.parallelPixels, cores > 1 else { return band(rows) }
            let bandRows = max(16, (rows.count + cores * 4 - 1) / (cores * 4))
            let bands = (rows.count + bandRows - 1) / bandRows
            DispatchQueue.concurrentPerform(iterations: bands) { n in
                let first = rows.lowerBound + n * bandRows
                self.band(first..<min(rows.upperBound, first + bandRows))
            }
        }

        private func band(_ rows: Range<Int>) {
            guard let transform, let pixels else { return }
            // Rows are padded to their stride; the same buffer is read and written.
            let start = pixels + rows.lowerBound * stride
            if let shaper {
                return shaper.run(start, width: width, rows: rows.count, stride: stride, channels: channels)
            }
            cmsDoTransformLineStride(
                transform, start, start, cmsUInt32Number(width), cmsUInt32Number(rows.count),
                cmsUInt32Number(stride), cmsUInt32Number(stride), 0, 0)
        }
    }

    /// A conversion run behind a decoder: bands of rows are turned on another thread as the
    /// decoder reports them done, so that on a machine with a spare core the picture is in
    /// sRGB almost as soon as it is decoded.
    final class RowConversion: @unchecked Sendable {
        private let conversion: Conversion
        private let queue = DispatchQueue(label: "classic-photos.colour-rows")
        /// Rows handed to the queue so far (used on the decoding thread only).
        private var handed = 0
        private var finished = false

        init(_ conversion: Conversion) { self.conversion = conversion }

        /// The decoder has finished every row above `row`: those not yet handed over are turned,
        /// in bands of at least 64 rows.
        func ready(upTo row: Int) {
            let end = min(row, conversion.height)
            guard !finished, end - handed >= 64 else { return }
            let rows = handed..<end
            handed = end
            queue.async { self.conversion.rows(rows) }
        }

        /// Turns the rows left, waits for every band, and says what became of the colours.
        @discardableResult func finish() -> Outcome {
            if !finished {
                finished = true
                let rows = handed..<conversion.height
                handed = conversion.height
                queue.sync { conversion.rows(rows, shared: true) }
            }
            return conversion.outcome
        }

        /// Waits for the bands handed over, and hands over no more (the decode failed).
        func wait() {
            finished = true
            queue.sync {}
        }
    }

    /// Makes an sRGB picture of a CMYK picture's inks (C, M, Y, K a pixel, of `bytesPerInk` 1 or
    /// 2, native byte order; `width` × 4 inks a row; `inverted` as Adobe's applications store
    /// them) through its CMYK `profile`; nil if the profile is not a CMYK one Little CMS can use.
    static func rgb(
        fromInks inks: UnsafeRawPointer, width: Int, height: Int, inverted: Bool, bytesPerInk: Int = 1, profile: Data
    ) -> (PhotoImage, Outcome)? {
        guard
            let source = profile.withUnsafeBytes({ cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) })
        else { return nil }
        defer { cmsCloseProfile(source) }
        guard cmsGetColorSpace(source) == cmsSigCmykData, let srgb = cmsCreate_sRGBProfile() else { return nil }
        defer { cmsCloseProfile(srgb) }
        // COLORSPACE_SH(PT_CMYK) | CHANNELS_SH(4) | BYTES_SH(1 or 2), with FLAVOR_SH(1) for inks
        // stored inverted (TYPE_CMYK_8, TYPE_CMYK_16 and TYPE_CMYK_8_REV).
        let input =
            cmsUInt32Number(PT_CMYK) << 16 | 4 << 3 | cmsUInt32Number(bytesPerInk) | (inverted ? 1 << 13 : 0)
        guard
            let transform = cmsCreateTransform(
                source, input, srgb, pixelFormat(channels: 3), cmsUInt32Number(INTENT_PERCEPTUAL), 0),
            let made = gdk_pixbuf_new(GDK_COLORSPACE_RGB, 0, 8, Int32(width), Int32(height))
        else { return nil }
        defer { cmsDeleteTransform(transform) }
        let image = PhotoImage(taking: made)
        SharedRows(
            transform: transform, from: UnsafeMutableRawPointer(mutating: inks), to: gdk_pixbuf_get_pixels(made),
            width: width, fromStride: width * 4 * bytesPerInk, toStride: Int(gdk_pixbuf_get_rowstride(made))
        ).runOnCores(height: height)
        return (image, .converted(description(of: source) ?? "Unnamed CMYK profile"))
    }

    /// Makes an 8-bit sRGB picture of 16-bit RGB or grey pixels (`channels` 3, or 4 with alpha;
    /// grey: 1, or 2 with alpha; in native byte order, `width` × `channels` values a row) from
    /// the colour space `profile` describes, turned from all 16 bits; with no profile, an sRGB
    /// one, or one that cannot be used, the pixels are only brought down to 8 bits (grey as
    /// sRGB's grey). nil when there is no memory.
    static func rgb(
        fromDeep pixels: UnsafePointer<UInt16>, width: Int, height: Int, channels: Int, profile: Data?
    ) -> (PhotoImage, Outcome)? {
        let grey = channels <= 2
        let alpha = channels == 4 || channels == 2
        if grey, let profile, isRGBProfile(profile) {
            // A grey picture described in RGB (a PNG's gAMA and cHRM or cICP, an RGB profile):
            // each grey becomes red, green and blue alike, turned as a picture in colour.
            let wide = alpha ? 4 : 3
            let count = width * height
            let rgb = UnsafeMutablePointer<UInt16>.allocate(capacity: count * wide)
            defer { rgb.deallocate() }
            for pixel in 0..<count {
                let value = pixels[pixel * channels]
                rgb[pixel * wide] = value
                rgb[pixel * wide + 1] = value
                rgb[pixel * wide + 2] = value
                if alpha { rgb[pixel * wide + 3] = pixels[pixel * channels + 1] }
            }
            return self.rgb(fromDeep: rgb, width: width, height: height, channels: wide, profile: profile)
        }
        guard let srgb = cmsCreate_sRGBProfile() else { return nil }
        defer { cmsCloseProfile(srgb) }
        guard let made = gdk_pixbuf_new(GDK_COLORSPACE_RGB, alpha ? 1 : 0, 8, Int32(width), Int32(height)) else {
            return nil
        }
        let image = PhotoImage(taking: made)
        // TYPE_RGB_16 / TYPE_RGBA_16 (BYTES_SH(2) where the 8-bit formats have 1), or
        // TYPE_GRAY_16 / TYPE_GRAYA_16.
        let input =
            grey
            ? cmsUInt32Number(PT_GRAY) << 16 | (alpha ? 1 << 7 : 0) | 1 << 3 | 2
            : pixelFormat(channels: channels) + 1
        let output = pixelFormat(channels: alpha ? 4 : 3)
        let intent = cmsUInt32Number(INTENT_PERCEPTUAL)
        // No one-pixel cache: from 16 bits it seldom hits, and checking it cost a fifth of the
        // transform's time (12 megapixels: 230 ms against 296 on one core).
        let flags = cmsUInt32Number(alpha ? cmsFLAGS_COPY_ALPHA : 0) | cmsUInt32Number(cmsFLAGS_NOCACHE)
        let source = profile.flatMap { bytes in
            bytes.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) }
        }
        defer { if let source { cmsCloseProfile(source) } }
        let wanted = grey ? cmsSigGrayData : cmsSigRgbData
        var outcome = Outcome.assumedSRGB
        var transform: cmsHTRANSFORM?
        if let source {
            let name = description(of: source) ?? "Unnamed profile"
            if cmsGetColorSpace(source) != wanted {
                outcome = .ignored("a profile of \(kind(source)) pixels on \(grey ? "a grey" : "an RGB") picture")
            } else if isSRGB(source) {
                outcome = .srgb(name)
            } else if let made = cmsCreateTransform(source, input, srgb, output, intent, flags) {
                transform = made
                outcome = .converted(name)
            } else {
                outcome = .ignored("Little CMS made no transform from it")
            }
        } else if profile != nil {
            outcome = .ignored("not a colour profile Little CMS reads")
        }
        // Otherwise the values are only packed into 8 bits (Little CMS rounds them); grey
        // through a grey profile of sRGB's curve, which gives each grey its own value again.
        if transform == nil {
            if grey, let sRGBGrey = Self.sRGBGrey() {
                defer { cmsCloseProfile(sRGBGrey) }
                transform = cmsCreateTransform(sRGBGrey, input, srgb, output, intent, flags)
            } else if !grey {
                transform = cmsCreateTransform(
                    srgb, input, srgb, output, intent, flags | cmsUInt32Number(cmsFLAGS_NULLTRANSFORM))
            }
        }
        guard let transform else { return nil }
        defer { cmsDeleteTransform(transform) }
        SharedRows(
            transform: transform, from: UnsafeMutableRawPointer(mutating: pixels), to: gdk_pixbuf_get_pixels(made),
            width: width, fromStride: width * channels * 2, toStride: Int(gdk_pixbuf_get_rowstride(made))
        ).runOnCores(height: height)
        return (image, outcome)
    }

    /// A grey profile with sRGB's tone curve and white: sRGB's own greys, for a grey picture
    /// that names no colour space (the caller closes it).
    private static func sRGBGrey() -> cmsHPROFILE? {
        let parameters: [Double] = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
        guard let curve = parameters.withUnsafeBufferPointer({ cmsBuildParametricToneCurve(nil, 4, $0.baseAddress) })
        else { return nil }
        defer { cmsFreeToneCurve(curve) }
        var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
        return cmsCreateGrayProfile(&white, curve)
    }

    /// Turns pictures in sRGB (as every picture here is once decoded) into the colours of a
    /// display that has a profile of its own, for showing them on it: a copy, as the picture
    /// itself stays sRGB for saving, copying and the sepia.
    public final class DisplayTransform: @unchecked Sendable {
        /// The display profile's description.
        public let name: String
        private let rgb: cmsHTRANSFORM
        private let rgba: cmsHTRANSFORM

        /// nil when there is nothing to do or nothing that can be done: the profile is sRGB, not
        /// for RGB, or not one Little CMS reads.
        public init?(displayProfile profile: Data) {
            guard
                let display = profile.withUnsafeBytes({
                    cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count))
                })
            else { return nil }
            defer { cmsCloseProfile(display) }
            guard cmsGetColorSpace(display) == cmsSigRgbData, !isSRGB(display), let srgb = cmsCreate_sRGBProfile()
            else { return nil }
            defer { cmsCloseProfile(srgb) }
            let intent = cmsUInt32Number(INTENT_PERCEPTUAL)
            guard
                let rgb = cmsCreateTransform(
                    srgb, pixelFormat(channels: 3), display, pixelFormat(channels: 3), intent, 0)
            else { return nil }
            guard
                let rgba = cmsCreateTransform(
                    srgb, pixelFormat(channels: 4), display, pixelFormat(channels: 4), intent,
                    cmsUInt32Number(cmsFLAGS_COPY_ALPHA))
            else {
                cmsDeleteTransform(rgb)
                return nil
            }
            self.rgb = rgb
            self.rgba = rgba
            name = description(of: display) ?? "Unnamed profile"
        }

        deinit {
            cmsDeleteTransform(rgb)
            cmsDeleteTransform(rgba)
        }

        /// `image` in the display's colours (a new picture; a large one is turned on every core).
        public func apply(to image: PhotoImage) -> PhotoImage {
            guard gdk_pixbuf_get_bits_per_sample(image.pixbuf) == 8, let copy = gdk_pixbuf_copy(image.pixbuf),
                let pixels = gdk_pixbuf_get_pixels(copy)
            else { return image }
            let turned = PhotoImage(taking: copy)
            let alpha = gdk_pixbuf_get_has_alpha(copy) != 0
            let stride = Int(gdk_pixbuf_get_rowstride(copy))
            let (width, height) = (turned.width, turned.height)
            SharedRows(
                transform: alpha ? rgba : rgb, from: UnsafeMutableRawPointer(pixels), to: pixels, width: width,
                fromStride: stride, toStride: stride
            ).runOnCores(height: height)
            return turned
        }
    }

    /// The profile a CMYK JPEG that carries none is taken to be in: Ghostscript's default CMYK
    /// profile (a SWOP press, Debian's `libgs-common`), where it is installed; nil otherwise
    /// (gdk-pixbuf's own formula then turns the inks, as before). Read once per process.
    public static let defaultCMYK: Data? = {
        guard let profile = try? Data(contentsOf: URL(fileURLWithPath: defaultCMYKPath)), isCMYKProfile(profile)
        else { return nil }
        return profile
    }()
    static let defaultCMYKPath = "/usr/share/color/icc/ghostscript/default_cmyk.icc"

    /// Whether an ICC profile's header says it is for CMYK pixels.
    static func isCMYKProfile(_ profile: Data) -> Bool {
        profile.count >= 20 && profile[profile.startIndex + 16..<profile.startIndex + 20].elementsEqual("CMYK".utf8)
    }

    /// The profile gdk-pixbuf found in the picture (its `icc-profile` option, in base64: JPEG,
    /// PNG, TIFF, HEIF and AVIF), if any.
    public static func embedded(in pixbuf: OpaquePointer) -> Data? {
        guard let text = gdk_pixbuf_get_option(pixbuf, "icc-profile") else { return nil }
        var length: gsize = 0
        guard let bytes = g_base64_decode(text, &length) else { return nil }
        defer { g_free(bytes) }
        return length > 0 ? Data(bytes: bytes, count: Int(length)) : nil
    }

    /// Turns the picture into sRGB from its embedded profile, if it has one.
    public static func convertEmbedded(_ pixbuf: OpaquePointer) -> Outcome {
        guard let profile = embedded(in: pixbuf) else { return .assumedSRGB }
        return convert(pixbuf, from: profile)
    }

    /// The profile of a JPEG whose first bytes are `head`: its APP2 `ICC_PROFILE` segments in
    /// order (a profile may be split over several), when all of them are in `head`.
    public static func jpegProfile(in head: Data) -> Data? {
        head.withUnsafeBytes { raw -> Data? in
            let b = raw.bindMemory(to: UInt8.self)
            guard b.count > 4, PictureSignature.isJPEG(b) else { return nil }
            let marker = Array("ICC_PROFILE".utf8) + [0]
            var parts: [Int: Range<Int>] = [:]
            var count = 0
            var i = 2
            while i + 4 <= b.count, b[i] == 0xFF {
                let kind = b[i + 1]
                if kind == 0xDA || kind == 0xD9 { break } // the image data: no profile after it
                let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
                guard length >= 2, i + 2 + length <= b.count else { return nil }
                let body = (i + 4)..<(i + 2 + length)
                if kind == 0xE2, body.count > marker.count + 2, b[body].starts(with: marker) {
                    let sequence = Int(b[body.lowerBound + marker.count])
                    count = Int(b[body.lowerBound + marker.count + 1])
                    parts[sequence] = (body.lowerBound + marker.count + 2)..<body.upperBound
                }
                i += 2 + length
            }
            guard count > 0, (1...count).allSatisfy({ parts[$0] != nil }) else { return nil }
            var profile = Data()
            for sequence in 1...count {
                profile.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[parts[sequence]!]))
            }
            return profile
        }
    }

    /// Adobe RGB (1998), for photos whose EXIF says they are in it without a profile of
    /// their own (see `ExifReader.Tags.isAdobeRGB`): its primaries, D65 white and its gamma of
    /// 563/256, as Little CMS builds it.
    public static let adobeRGB: Data =
        ColourDescription.rgbProfile(
            red: (0.64, 0.33), green: (0.21, 0.71), blue: (0.15, 0.06), gamma: 563.0 / 256.0,
            name: "Adobe RGB (1998), from EXIF") ?? Data()

    /// The pixbuf option that names the profile a decoded picture's colours came from, as the
    /// info shows it (unset: sRGB assumed).
    public static let optionKey = "x-classic-photos::profile"

    /// Notes on a decoded picture what became of its colours: the profile's name where it had
    /// one that was used; its `icc-profile` option goes once its pixels are sRGB, so that
    /// nothing saves or reads them as in the old space.
    static func mark(_ pixbuf: OpaquePointer, _ outcome: Outcome) {
        if case .converted = outcome { gdk_pixbuf_remove_option(pixbuf, "icc-profile") }
        if let name = outcome.description, gdk_pixbuf_get_option(pixbuf, optionKey) == nil {
            gdk_pixbuf_set_option(pixbuf, optionKey, name)
        }
    }

    /// What a helper sends back with a picture it decoded: the profile its colours came from.
    static func options(of image: PhotoImage) -> [String: String] {
        name(of: image).map { [optionKey: $0] } ?? [:]
    }

    /// Puts what a helper said of a picture's colours (`options(of:)`) on the picture received.
    static func restore(_ options: [String: String], on image: PhotoImage) {
        if let profile = options[optionKey] { gdk_pixbuf_set_option(image.pixbuf, optionKey, profile) }
    }

    /// The profile a decoded picture's colours came from (see `optionKey`); nil: sRGB assumed.
    public static func name(of image: PhotoImage) -> String? {
        gdk_pixbuf_get_option(image.pixbuf, optionKey).map { String(cString: $0) }
    }

    /// Little CMS's pixel format for 8-bit RGB with `channels` channels (3, or 4 with alpha).
    static func pixelFormat(channels: Int) -> cmsUInt32Number {
        // COLORSPACE_SH(PT_RGB) | CHANNELS_SH(3) | BYTES_SH(1), and EXTRA_SH(1) for alpha: the
        // TYPE_RGB_8 and TYPE_RGBA_8 macros, which Swift cannot import.
        let rgb = cmsUInt32Number(PT_RGB) << 16 | 3 << 3 | 1
        return channels == 4 ? rgb | 1 << 7 : rgb
    }

    /// Little CMS's pixel format for 8-bit grey followed by `extra` bytes it passes over.
    static func greyFormat(extra: Int) -> cmsUInt32Number {
        // COLORSPACE_SH(PT_GRAY) | EXTRA_SH(extra) | CHANNELS_SH(1) | BYTES_SH(1).
        cmsUInt32Number(PT_GRAY) << 16 | cmsUInt32Number(extra) << 7 | 1 << 3 | 1
    }

    /// Whether a decoded picture is grey: red, green and blue alike in every pixel of every
    /// eighth row (a grey JPEG or PNG as gdk-pixbuf gives it).
    static func isGrey(_ pixbuf: OpaquePointer) -> Bool {
        guard let pixels = gdk_pixbuf_get_pixels(pixbuf) else { return false }
        let width = Int(gdk_pixbuf_get_width(pixbuf)), height = Int(gdk_pixbuf_get_height(pixbuf))
        let stride = Int(gdk_pixbuf_get_rowstride(pixbuf)), channels = Int(gdk_pixbuf_get_n_channels(pixbuf))
        for y in Swift.stride(from: 0, to: height, by: 8) {
            var p = pixels + y * stride
            for _ in 0..<width {
                if p[0] != p[1] || p[0] != p[2] { return false }
                p += channels
            }
        }
        return true
    }

    /// Whether an ICC profile's header says it is for RGB pixels (its colour space field).
    static func isRGBProfile(_ profile: Data) -> Bool {
        profile.count >= 20 && profile[profile.startIndex + 16..<profile.startIndex + 20].elementsEqual("RGB ".utf8)
    }

    /// The profile's description, in English where it has several.
    static func description(of profile: cmsHPROFILE) -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        let length = cmsGetProfileInfoASCII(
            profile, cmsInfoDescription, "en", "US", &buffer, cmsUInt32Number(buffer.count))
        guard length > 1 else { return nil }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    /// Whether the profile is sRGB by its description ("sRGB IEC61966-2.1", "sRGB built-in"):
    /// turning it into sRGB would change nothing but the time taken.
    static func isSRGB(_ profile: cmsHPROFILE) -> Bool {
        if let name = description(of: profile)?.lowercased(), name.hasPrefix("srgb") { return true }
        return false
    }

    private static func kind(_ profile: cmsHPROFILE) -> String {
        switch cmsGetColorSpace(profile) {
        case cmsSigCmykData: "CMYK"
        case cmsSigGrayData: "grey"
        case cmsSigLabData: "Lab"
        default: "other"
        }
    }
}

/// A transform from one buffer into another, run by several threads on rows of their own.
private struct SharedRows: @unchecked Sendable {
    let transform: cmsHTRANSFORM
    let from: UnsafeMutableRawPointer
    let to: UnsafeMutablePointer<UInt8>?
    let width: Int, fromStride: Int, toStride: Int

    func run(rows: Range<Int>) {
        guard let to, !rows.isEmpty else { return }
        cmsDoTransformLineStride(
            transform, from + rows.lowerBound * fromStride, to + rows.lowerBound * toStride,
            cmsUInt32Number(width), cmsUInt32Number(rows.count), cmsUInt32Number(fromStride),
            cmsUInt32Number(toStride), 0, 0)
    }

    /// Runs `height` rows: a large picture in bands on every core, a small one here.
    func runOnCores(height: Int) {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let bands = width * height >= SepiaFilter.parallelPixels && cores > 1 ? cores * 4 : 1
        let bandRows = (height + bands - 1) / bands
        DispatchQueue.concurrentPerform(iterations: bands) { n in
            run(rows: (n * bandRows)..<min(height, (n + 1) * bandRows))
        }
    }
}
