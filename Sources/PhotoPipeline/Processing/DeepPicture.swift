import CEmbeddedPictures
import CGdkPixbuf
import CLcms2
import Foundation

/// Pictures of more than 8 bits a channel, decoded by their own libraries and turned into 8-bit
/// sRGB from all their bits: 16-bit PNGs and TIFFs (libpng, libtiff), and HEIF and AVIF files of
/// 10 or 12 bits (libheif), as phones and cameras write them. gdk-pixbuf's loaders keep only the
/// top 8 bits, and a picture in a wide colour space (ProPhoto, Rec. 2020, Display P3; what RAW
/// developers, scanners and phones export in) turned from those shows steps where its gradients
/// were smooth.
///
/// It runs where every picture is decoded, in the decoder helpers. The size is read from the
/// header, checked against the limits and its memory reserved before any pixel is decoded; the
/// picture is decoded whole (neither library scales), turned, then scaled to the size asked for.
enum DeepPicture {
    enum Kind {
        case png, tiff
        /// A HEIF or AVIF file, taken only when its primary picture has more than 8 bits.
        case heif

        /// The kind of picture the deep path may take, by its first bytes (a TIFF is only known
        /// to be 16-bit once its directory is read, which may be anywhere in the file).
        init?(_ head: some Collection<UInt8>) {
            let first = Array(head.prefix(33))
            if first.withUnsafeBytes({ cp_deep_png_is_deep($0.baseAddress, $0.count) }) != 0 {
                self = .png
            } else if first.count >= 4,
                first[0..<4].elementsEqual([0x49, 0x49, 0x2A, 0x00])
                    || first[0..<4].elementsEqual([0x4D, 0x4D, 0x00, 0x2A])
            {
                self = .tiff
            } else {
                return nil
            }
        }

        var name: String {
            switch self {
            case .png: "PNG"
            case .tiff: "TIFF"
            case .heif: "HEIF"
            }
        }
    }

    /// Bytes of memory a pixel takes while decoded: 16-bit RGBA, and the 8-bit picture it turns into.
    static let bytesPerPixel = 12
    /// The same for a HEIF or AVIF of 10 or 12 bits, at its peak: libheif's 16-bit RGBA beside
    /// the widened copy of it (its planes of 16-bit samples are gone by then).
    static let heifBytesPerPixel = 16

    /// The picture's size and channels from its header; nil when it is not of the kind this
    /// path takes (an 8-bit RGB TIFF, an 8-bit HEIF), which gdk-pixbuf's loader then decodes.
    static func probe(_ bytes: UnsafeRawBufferPointer, kind: Kind) throws(PhotoFailure) -> (width: Int, height: Int)? {
        var picture = cp_deep_picture()
        let status = run(bytes, kind: kind, maxPixels: .max, probe: true, into: &picture)
        switch status.code {
        case 0: return (Int(picture.width), Int(picture.height))
        case 1: return nil
        default: throw PhotoFailure(.damaged(format: kind.name), detail: status.message)
        }
    }

    /// Decodes the picture at full size into 8-bit sRGB, from its embedded profile, or from
    /// `fallback` (a PNG's cICP or gAMA / cHRM, a HEIF's `nclx`) where it has none, or from
    /// `replacing` in place of it (a PNG's cICP).
    static func decode(
        _ bytes: UnsafeRawBufferPointer, kind: Kind, limits: DecodeLimits, fallback: Data?, replacing: Data??
    ) throws(PhotoFailure) -> (PhotoImage, ColorProfile.Outcome) {
        var picture = cp_deep_picture()
        let status = run(bytes, kind: kind, maxPixels: Int64(limits.maxPixels), probe: false, into: &picture)
        defer { cp_deep_picture_free(&picture) }
        guard status.code == 0, let pixels = picture.pixels else {
            throw PhotoFailure(.damaged(format: kind.name), detail: status.message)
        }
        let embedded = picture.profile.map { Data(bytes: $0, count: picture.profile_length) }
        let profile = replacing ?? embedded ?? fallback
        let (width, height) = (Int(picture.width), Int(picture.height))
        guard
            let (image, outcome) =
                picture.cmyk != 0
                ? inks(pixels, width: width, height: height, profile: embedded)
                : ColorProfile.rgb(
                    fromDeep: pixels, width: width, height: height, channels: Int(picture.channels), profile: profile)
        else {
            throw PhotoFailure(.tooManyPixels, detail: "No memory for the \(picture.width)×\(picture.height) picture")
        }
        // Turned upright later, as the loader's pictures are.
        if picture.orientation > 1 {
            gdk_pixbuf_set_option(image.pixbuf, "orientation", "\(picture.orientation)")
        }
        return (image, outcome)
    }

    /// A CMYK TIFF's inks turned into sRGB through its own CMYK profile, or the default CMYK
    /// profile where it has none (or one for other pixels); by the usual formula where there is
    /// no CMYK profile to be had. nil when there is no memory.
    private static func inks(
        _ pixels: UnsafePointer<UInt16>, width: Int, height: Int, profile embedded: Data?
    ) -> (PhotoImage, ColorProfile.Outcome)? {
        let profile = embedded.flatMap { ColorProfile.isCMYKProfile($0) ? $0 : nil } ?? ColorProfile.defaultCMYK
        if let profile,
            let made = ColorProfile.rgb(
                fromInks: pixels, width: width, height: height, inverted: false, bytesPerInk: 2, profile: profile)
        {
            return made
        }
        guard let made = gdk_pixbuf_new(GDK_COLORSPACE_RGB, 0, 8, Int32(width), Int32(height)) else { return nil }
        let image = PhotoImage(taking: made)
        let stride = Int(gdk_pixbuf_get_rowstride(made))
        let out = gdk_pixbuf_get_pixels(made)!
        for y in 0..<height {
            for x in 0..<width {
                let ink = pixels + (y * width + x) * 4
                let white = 65535 - Int(ink[3])
                for channel in 0..<3 {
                    out[y * stride + x * 3 + channel] = UInt8((65535 - Int(ink[channel])) * white / 65535 / 257)
                }
            }
        }
        return (image, .assumedSRGB)
    }

    private static func run(
        _ bytes: UnsafeRawBufferPointer, kind: Kind, maxPixels: Int64, probe: Bool,
        into picture: inout cp_deep_picture
    ) -> (code: Int32, message: String) {
        var message = [CChar](repeating: 0, count: 256)
        let code =
            switch kind {
            case .png:
                cp_deep_png_decode(
                    bytes.baseAddress, bytes.count, maxPixels, probe ? 1 : 0, &picture, &message, message.count)
            case .tiff:
                cp_deep_tiff_decode(
                    bytes.baseAddress, bytes.count, maxPixels, probe ? 1 : 0, &picture, &message, message.count)
            case .heif:
                cp_deep_heif_decode(
                    bytes.baseAddress, bytes.count, maxPixels, probe ? 1 : 0, &picture, &message, message.count)
            }
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let depth = kind == .heif ? "10- or 12-bit" : "16-bit"
        return (code, text.isEmpty ? "The \(depth) \(kind.name) could not be read" : text)
    }
}

extension DeepPicture {
    /// Decodes a picture of `kind` kept whole (`bytes`) at full size into 8-bit sRGB (see
    /// `decode`), with what its header says of its colours where that counts: a HEIF's `nclx`
    /// where it has no profile, a PNG's cICP in place of its profile or gAMA / cHRM where it
    /// has none.
    static func decode(
        _ bytes: [UInt8], kind: Kind, limits: DecodeLimits
    ) -> Result<(PhotoImage, ColorProfile.Outcome), PhotoFailure> {
        var fallback: Data?
        var replacing: Data??
        if kind == .heif {
            fallback = HEIFHeader.nclxProfile(of: bytes)
        } else if kind == .png, let chunks = ColourDescription.PNGChunks.read(bytes) {
            switch chunks.profile {
            case .replaces(let described): replacing = .some(described)
            case .fallback(let described): fallback = described
            case .none: break
            }
        }
        return bytes.withUnsafeBytes { raw in
            Result { () throws(PhotoFailure) in
                try decode(raw, kind: kind, limits: limits, fallback: fallback, replacing: replacing)
            }
        }
    }

    /// `whole`, decoded at full size, scaled to `size` with its orientation kept.
    static func scaled(
        _ whole: PhotoImage, colours: ColorProfile.Outcome, to size: DecodeSize
    ) throws(PhotoFailure) -> ImageDecoder.DecodedPicture {
        let (w, h) = ImageDecoder.scaledSize(width: whole.width, height: whole.height, for: size)
        let image = try ImageDecoder.scaled(whole, width: w, height: h)
        if let orientation = gdk_pixbuf_get_option(whole.pixbuf, "orientation"), image !== whole {
            gdk_pixbuf_set_option(image.pixbuf, "orientation", orientation)
        }
        return (image.pixbuf, colours, image)
    }
}
