import CEmbeddedPictures
import Foundation

/// Camera RAW files (CR2, CR3, NEF, ARW, DNG, ORF, RAF, RW2, …), shown through the preview the
/// camera embeds in them, read with LibRaw. The sensor data itself is not developed: the
/// preview is what the camera made of it, usually at full size, and it is what other viewers
/// show first too. The preview becomes an ordinary picture file (a JPEG carrying the camera's
/// orientation), so everything after this step treats it as one.
public enum RawPhoto {
    /// The file name endings of RAW formats LibRaw reads (lower case).
    static let endings: Set<String> = [
        "3fr", "arw", "cr2", "cr3", "crw", "dcr", "dng", "erf", "iiq", "k25", "kdc", "mef", "mos", "mrw", "nef", "nrw",
        "orf", "pef", "raf", "raw", "rw2", "rwl", "sr2", "srf", "srw", "x3f",
    ]

    /// Whether the photo at `url` is a RAW file, by its name (RAW formats are TIFF or ISO media
    /// inside, so their content alone reads as those).
    public static func isRaw(_ url: URL) -> Bool { endings.contains(url.pathExtension.lowercased()) }

    /// What the RAW file `bytes` says of itself: its camera preview's header (the picture the
    /// app shows), with the RAW file's own metadata (the preview's has little or none).
    public static func facts(of bytes: Data) throws(PhotoFailure) -> ImageInfo {
        try previewAndFacts(of: bytes).info
    }

    /// The camera's preview in `bytes` as a picture file (`preview(of:)`), and what the RAW
    /// file says of itself (`facts(of:)`), in one reading.
    static func previewAndFacts(of bytes: Data) throws(PhotoFailure) -> (preview: Data, info: ImageInfo) {
        let preview = try preview(of: bytes)
        var info = try ImageInfo.read(preview, details: false)
        info.details = PhotoDetails.read(bytes).flatMap { $0.isEmpty ? nil : $0 }
        return (preview, info)
    }

    /// The camera's preview in `bytes` (the whole RAW file) as a picture file: a JPEG (the
    /// camera's own, with its orientation written into an EXIF block where it has none), or
    /// a PPM for the few cameras that store plain pixels.
    public static func preview(of bytes: Data) throws(PhotoFailure) -> Data {
        var preview = cp_raw_preview()
        var message: UnsafePointer<CChar>?
        let status = bytes.withUnsafeBytes { cp_raw_preview_read($0.baseAddress, $0.count, &preview, &message) }
        guard status == 0, let data = preview.data else {
            let reason = message.map { String(cString: $0) } ?? "LibRaw could not read it"
            throw PhotoFailure(
                .noRawPreview,
                detail: "The camera's preview could not be read: \(reason)")
        }
        defer { cp_raw_preview_free(&preview) }
        let picture = Data(bytes: data, count: preview.length)
        guard preview.kind == 1 else { return picture }
        let profile = previewProfile(
            dngSpace: Int(preview.dng_preview_space),
            adobeRGB: preview.adobe_rgb != 0 || ExifReader.read(bytes).isAdobeRGB)
        return tagged(inProfile(picture, profile), orientation: Int(preview.orientation))
    }

    /// The colour space the camera made its preview in: what a DNG's PreviewColorSpace says
    /// (ProPhoto, Adobe RGB, a grey of gamma 2.2; sRGB needs nothing), or else Adobe RGB where
    /// the camera recorded its photos in it; nil for sRGB.
    static func previewProfile(dngSpace: Int, adobeRGB: Bool) -> Data? {
        switch dngSpace {
        case 1: greyGamma22
        case 2: nil
        case 3: ColorProfile.adobeRGB
        case 4: proPhotoProfile
        default: adobeRGB ? ColorProfile.adobeRGB : nil
        }
    }

    /// ProPhoto RGB (ROMM RGB): its primaries, D50 white and gamma 1.8.
    public static let proPhotoProfile =
        ColourDescription.rgbProfile(
            red: (0.7347, 0.2653), green: (0.1596, 0.8404), blue: (0.0366, 0.0001), white: (0.3457, 0.3585),
            gamma: 1.8, name: "ProPhoto RGB, from DNG") ?? Data()

    /// A grey of gamma 2.2 and D50 white, as DNG's PreviewColorSpace names it.
    static let greyGamma22 =
        ColourDescription.greyProfile(gamma: 2.2, name: "Gray Gamma 2.2, from DNG") ?? Data()

    /// `jpeg` carrying `profile` (an APP2 segment put first) when the camera made its preview
    /// in that colour space and the preview says nothing of its colours itself: it is turned
    /// from that.
    static func inProfile(_ jpeg: Data, _ profile: Data?) -> Data {
        guard let profile, PictureSignature.isJPEG(jpeg), ColorProfile.jpegProfile(in: jpeg) == nil,
            !ExifReader.read(jpeg).isAdobeRGB, !profile.isEmpty, profile.count < 65_000
        else { return jpeg }
        let body = Array("ICC_PROFILE".utf8) + [0, 1, 1] + profile // part 1 of 1
        let length = body.count + 2
        var result = Data(capacity: jpeg.count + length + 2)
        result.append(contentsOf: PictureSignature.jpegStart)
        result.append(contentsOf: [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + body)
        result.append(jpeg.dropFirst(2))
        return result
    }

    /// `jpeg` with an EXIF block saying `orientation` put first, unless it is upright or
    /// the JPEG has an EXIF orientation of its own.
    static func tagged(_ jpeg: Data, orientation: Int) -> Data {
        guard (2...8).contains(orientation), PictureSignature.isJPEG(jpeg), ExifReader.read(jpeg).orientation == 1
        else {
            return jpeg
        }
        // APP1 "Exif": a little-endian TIFF header and one IFD with the Orientation tag.
        var segment: [UInt8] = [0xFF, 0xE1, 0x00, 0x22]
        segment += PictureSignature.exifHeader
        segment += PictureSignature.tiffLittleEndian + [0x2A, 0x00, 0x08, 0x00, 0x00, 0x00] // 42, first IFD at 8
        segment += [0x01, 0x00] // one entry
        segment += [0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, UInt8(orientation), 0x00, 0x00, 0x00]
        segment += [0x00, 0x00, 0x00, 0x00] // no next IFD
        var result = Data(capacity: jpeg.count + segment.count)
        result.append(contentsOf: PictureSignature.jpegStart)
        result.append(contentsOf: segment)
        result.append(jpeg.dropFirst(2))
        return result
    }
}
