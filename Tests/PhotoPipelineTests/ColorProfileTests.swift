import CGdkPixbuf
import CGLib
import CLcms2
import Foundation
import GLibKit
import PhotoPipeline
import Testing
import TestSupport

/// Pictures with colour profiles made by Little CMS itself, saved by gdk-pixbuf's savers with
/// the profile embedded, and decoded through the decoder helpers: their pixels must be what
/// Little CMS's own transform of the whole picture to sRGB gives.
@Suite(.serialized) struct ColorProfileTests {
    /// An RGB profile of D65 white with these primaries (CIE xy) and one gamma for all three.
    static func profile(red: (Double, Double), green: (Double, Double), blue: (Double, Double), gamma: Double) -> Data {
        ColourDescription.rgbProfile(red: red, green: green, blue: blue, gamma: gamma)!
    }

    static let adobeRGB = profile(red: (0.64, 0.33), green: (0.21, 0.71), blue: (0.15, 0.06), gamma: 2.2)
    static let displayP3 = profile(red: (0.680, 0.320), green: (0.265, 0.690), blue: (0.150, 0.060), gamma: 2.2)
    /// Red and blue the other way round: a picture's red is shown blue.
    static let swapped = profile(red: (0.15, 0.06), green: (0.30, 0.60), blue: (0.64, 0.33), gamma: 2.2)

    /// A picture of saturated and middle colours (48×32 unless asked), saved as `format` with
    /// `profile`.
    static func picture(_ format: String, profile: Data?, width: Int = 48, height: Int = 32) throws -> Data {
        let pixbuf = gdk_pixbuf_new(GDK_COLORSPACE_RGB, 0, 8, Int32(width), Int32(height))!
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        let stride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        let pixels = gdk_pixbuf_get_pixels(pixbuf)!
        for y in 0..<height {
            for x in 0..<width {
                let at = y * stride + x * 3
                // Six bands of strong colours, light to dark from top to bottom.
                let band = x * 6 / width
                let level = UInt8(255 - y * 160 / height)
                pixels[at] = [0, 1, 5].contains(band) ? level : 40
                pixels[at + 1] = [1, 2, 3].contains(band) ? level : 60
                pixels[at + 2] = [3, 4, 5].contains(band) ? level : 80
            }
        }
        var keys: [UnsafeMutablePointer<CChar>?] = []
        var values: [UnsafeMutablePointer<CChar>?] = []
        // gdk-pixbuf 2.42's PNG saver hands libpng the profile before the picture's colour type,
        // which libpng then refuses: the chunk is put in here instead.
        if let profile, format != "png" {
            keys.append(strdup("icc-profile"))
            values.append(profile.withUnsafeBytes { g_base64_encode($0.baseAddress, gsize($0.count)) })
        }
        if format == "jpeg" {
            keys.append(strdup("quality"))
            values.append(strdup("100"))
        }
        keys.append(nil)
        values.append(nil)
        defer {
            for key in keys { free(key) }
            for value in values { g_free(value) }
        }
        var buffer: UnsafeMutablePointer<CChar>?
        var size: gsize = 0
        var error: UnsafeMutablePointer<GError>?
        let saved = gdk_pixbuf_save_to_bufferv(pixbuf, &buffer, &size, format, &keys, &values, &error) != 0
        if let error {
            defer { g_error_free(error) }
            throw BenchlessError(String(cString: error.pointee.message))
        }
        guard saved, let buffer else { throw BenchlessError("gdk-pixbuf saved no \(format)") }
        defer { g_free(buffer) }
        let file = Data(bytes: buffer, count: Int(size))
        guard format == "png", let profile else { return file }
        return withICCP(file, profile: profile)
    }

    /// A PNG with an `iCCP` chunk holding `profile` after its header (the profile in a zlib
    /// stream of stored blocks: valid, if not small).
    static func withICCP(_ png: Data, profile: Data) -> Data {
        var zlib: [UInt8] = [0x78, 0x01]
        var rest = profile[...]
        repeat {
            let block = rest.prefix(65_535)
            rest = rest.dropFirst(block.count)
            let length = UInt16(block.count)
            zlib += [
                rest.isEmpty ? 1 : 0, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF),
                UInt8(~length >> 8),
            ]
            zlib += block
        } while !rest.isEmpty
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in profile {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        zlib += bigEndian(b << 16 | a)
        let body = Array("ICC profile".utf8) + [0, 0] + zlib
        let chunk =
            bigEndian(UInt32(body.count)) + Array("iCCP".utf8) + body + bigEndian(crc32(Array("iCCP".utf8) + body))
        // After the signature (8) and IHDR (25).
        return png.prefix(33) + Data(chunk) + png.dropFirst(33)
    }

    /// The picture as an extended WebP with `profile` in its ICCP chunk: ImageMagick writes the
    /// lossless picture, and the chunks around it are put together here.
    static func webP(profile: Data) throws -> Data {
        let folder = try ScratchFolder()
        let png = try folder.write("picture.png", try picture("png", profile: nil))
        let webp = folder.url.appendingPathComponent("picture.webp")
        let made = try run(
            URL(fileURLWithPath: "/usr/bin/convert"), [png.path, "-define", "webp:lossless=true", webp.path])
        guard made.status == 0 else { throw BenchlessError("convert: \(made.stderr)") }
        let plain = [UInt8](try Data(contentsOf: webp))
        guard plain.count > 20, plain[12..<16].elementsEqual("VP8L".utf8) else {
            throw BenchlessError("ImageMagick wrote no lossless WebP")
        }
        func littleEndian(_ value: Int, _ bytes: Int) -> [UInt8] { (0..<bytes).map { UInt8(value >> (8 * $0) & 0xFF) } }
        let vp8x =
            Array("VP8X".utf8) + littleEndian(10, 4) + [0x20, 0, 0, 0] + littleEndian(47, 3) + littleEndian(31, 3)
        var iccp = Array("ICCP".utf8) + littleEndian(profile.count, 4) + profile
        if profile.count % 2 == 1 { iccp.append(0) }
        let body = Array("WEBP".utf8) + vp8x + iccp + plain[12...]
        return Data(Array("RIFF".utf8) + littleEndian(body.count, 4) + body)
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return ~crc
    }

    struct BenchlessError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The picture decoded as gdk-pixbuf decodes it, its colours then turned into sRGB by
    /// Little CMS's own transform of the whole picture: the reference.
    static func reference(_ bytes: Data, profile: Data) -> [UInt8] {
        let plain = plainPixels(bytes)
        return ToSRGB(from: profile, format: cmsUInt32Number(PT_RGB) << 16 | 3 << 3 | 1)(plain, pixels: plain.count / 3)
    }

    /// Little CMS's own transform from `profile` (pixels in Little CMS's `format`) to 8-bit
    /// sRGB, perceptual: what the tests compare with.
    final class ToSRGB {
        private let source: cmsHPROFILE
        private let srgb: cmsHPROFILE
        private let transform: cmsHTRANSFORM

        init(from profile: Data, format: cmsUInt32Number) {
            source = profile.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count))! }
            srgb = cmsCreate_sRGBProfile()!
            transform = cmsCreateTransform(
                source, format, srgb, cmsUInt32Number(PT_RGB) << 16 | 3 << 3 | 1, cmsUInt32Number(INTENT_PERCEPTUAL), 0)!
        }

        deinit {
            cmsDeleteTransform(transform)
            cmsCloseProfile(source)
            cmsCloseProfile(srgb)
        }

        /// `pixels` pixels of `input`, as packed 8-bit RGB.
        func callAsFunction(_ input: [UInt8], pixels: Int) -> [UInt8] {
            var out = [UInt8](repeating: 0, count: pixels * 3)
            cmsDoTransform(transform, input, &out, cmsUInt32Number(pixels))
            return out
        }
    }

    /// Embeds `profile` in the JPEG `file` as cameras do (APP2 segments), with exiftool.
    static func embed(_ profile: Data, in file: URL, folder: ScratchFolder) async throws {
        let icc = try folder.write("\(file.lastPathComponent).icc", profile)
        let tagged = try await run(
            URL(fileURLWithPath: "/usr/bin/exiftool"),
            ["-q", "-overwrite_original", "-icc_profile<=\(icc.path)", file.path])
        #expect(tagged.status == 0, "\(tagged.stderr)")
    }

    /// An uncompressed little-endian TIFF whose samples are each stored in a plane of their own
    /// (PlanarConfiguration 2, one strip a plane), with `profile` as its ICC profile: ImageMagick
    /// writes none. `planes` holds each sample's values, row after row.
    static func planarTIFF(
        width: Int, height: Int, bits: Int, photometric: UInt16, planes: [[UInt16]], profile: Data?
    ) -> Data {
        func u16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
        func u32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(value >> (8 * $0) & 0xFF) } }
        let samples = planes.count
        let planeBytes = width * height * bits / 8
        let entries = profile == nil ? 10 : 11
        let bitsAt = 8 + 2 + entries * 12 + 4
        let offsetsAt = bitsAt + samples * 2, countsAt = offsetsAt + samples * 4
        let profileAt = countsAt + samples * 4, dataAt = profileAt + (profile?.count ?? 0)
        // Tag, type (3 SHORT, 4 LONG, 7 UNDEFINED), count, and the value or where it is.
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: Int) -> [UInt8] {
            u16(tag) + u16(type) + u32(count) + (type == 3 && count == 1 ? u16(value) + [0, 0] : u32(value))
        }
        var bytes: [UInt8] = [0x49, 0x49] + u16(42) + u32(8) + u16(entries)
        bytes += entry(256, 4, 1, width) + entry(257, 4, 1, height) + entry(258, 3, samples, bitsAt)
        bytes += entry(259, 3, 1, 1) + entry(262, 3, 1, Int(photometric)) + entry(273, 4, samples, offsetsAt)
        bytes += entry(277, 3, 1, samples) + entry(278, 4, 1, height) + entry(279, 4, samples, countsAt)
        bytes += entry(284, 3, 1, 2)
        if let profile { bytes += entry(34675, 7, profile.count, profileAt) }
        bytes += u32(0)
        bytes += (0..<samples).flatMap { _ in u16(bits) }
        bytes += (0..<samples).flatMap { u32(dataAt + $0 * planeBytes) }
        bytes += (0..<samples).flatMap { _ in u32(planeBytes) }
        bytes += profile.map(Array.init) ?? []
        for plane in planes {
            bytes += bits == 16 ? plane.flatMap { u16(Int($0)) } : plane.map { UInt8($0) }
        }
        return Data(bytes)
    }

    /// The picture's pixels as gdk-pixbuf decodes them, packed RGB.
    static func plainPixels(_ bytes: Data) -> [UInt8] {
        let loader = gdk_pixbuf_loader_new()!
        defer { g_object_unref(UnsafeMutableRawPointer(loader)) }
        _ = bytes.withUnsafeBytes { gdk_pixbuf_loader_write(loader, $0.baseAddress, gsize($0.count), nil) }
        gdk_pixbuf_loader_close(loader, nil)
        return packed(PhotoImage(taking: gdk_pixbuf_copy(gdk_pixbuf_loader_get_pixbuf(loader)!)!))
    }

    static func packed(_ image: PhotoImage) -> [UInt8] {
        var out: [UInt8] = []
        for y in 0..<image.height {
            for x in 0..<image.width {
                let (r, g, b, _) = image.pixel(x: x, y: y)
                out += [r, g, b]
            }
        }
        return out
    }

    static func meanDifference(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return .infinity }
        return Double(zip(a, b).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(a.count)
    }

    @Test(
        "Pictures with Adobe RGB, Display P3, ProPhoto and channel-swapping profiles, as JPEG, PNG and TIFF, are decoded into sRGB as Little CMS turns them",
        arguments: ["jpeg", "png", "tiff"])
    func convertedAsLittleCMSDoes(_ format: String) throws {
        let profiles = [
            ("Adobe RGB", Self.adobeRGB), ("P3", Self.displayP3), ("ProPhoto", DeepPictureTests.proPhoto),
            ("swapped", Self.swapped),
        ]
        for (name, profile) in profiles {
            let bytes = try Self.picture(format, profile: profile)
            let image = try Decoding.picture(.bytes(bytes), size: .fit(100), cancellable: Cancellable())
            let decoded = Self.packed(image)
            let reference = Self.reference(bytes, profile: profile)
            let difference = Self.meanDifference(decoded, reference)
            #expect(difference <= 3.1, "\(format), \(name): mean difference \(difference)")
            // And not what the file holds: the profile changed the colours.
            #expect(Self.meanDifference(decoded, Self.plainPixels(bytes)) > 1, "\(format), \(name)")
            #expect(ColorProfile.name(of: image) != nil, "\(format), \(name): the profile is named")
        }
    }

    /// The test picture as `format` ("webp", "avif", "heic") with `profile` embedded: the WebP
    /// put together here, the AVIF by avifenc (lossless, the profile given beside it), the HEIC
    /// by heif-enc from a PNG carrying the profile.
    static func newerPicture(_ format: String, profile: Data) async throws -> Data {
        if format == "webp" { return try webP(profile: profile) }
        let folder = try ScratchFolder()
        let out = folder.url.appendingPathComponent("picture.\(format)")
        let made: ProcessResult
        if format == "avif" {
            let png = try folder.write("picture.png", try picture("png", profile: nil))
            let icc = try folder.write("picture.icc", profile)
            made = try await run(
                URL(fileURLWithPath: "/usr/bin/avifenc"), ["-l", "-s", "10", "--icc", icc.path, png.path, out.path])
        } else {
            let png = try folder.write("picture.png", try picture("png", profile: profile))
            made = try await run(URL(fileURLWithPath: "/usr/bin/heif-enc"), ["-q", "95", png.path, "-o", out.path])
        }
        guard made.status == 0 else { throw BenchlessError("\(format): \(made.stderr)") }
        return try Data(contentsOf: out)
    }

    @Test(
        "Pictures with Adobe RGB, Display P3, ProPhoto and channel-swapping profiles, as WebP, AVIF and HEIC, are decoded into sRGB as Little CMS turns them",
        arguments: ["webp", "avif", "heic"])
    func newerFormatsConverted(_ format: String) async throws {
        let profiles = [
            ("Adobe RGB", Self.adobeRGB), ("P3", Self.displayP3), ("ProPhoto", DeepPictureTests.proPhoto),
            ("swapped", Self.swapped),
        ]
        for (name, profile) in profiles {
            let bytes = try await Self.newerPicture(format, profile: profile)
            let image = try Decoding.picture(.bytes(bytes), size: .fit(100), cancellable: Cancellable())
            let decoded = Self.packed(image)
            let difference = Self.meanDifference(decoded, Self.reference(bytes, profile: profile))
            #expect(difference <= 3.1, "\(format), \(name): mean difference \(difference)")
            #expect(Self.meanDifference(decoded, Self.plainPixels(bytes)) > 1, "\(format), \(name)")
            #expect(ColorProfile.name(of: image) != nil, "\(format), \(name): the profile is named")
        }
    }

    @Test("A WebP's ICCP chunk, which gdk-pixbuf does not hand over, is read from its header and used")
    func webPProfile() throws {
        let bytes = try Self.webP(profile: Self.adobeRGB)
        let image = try Decoding.picture(.bytes(bytes), size: .fit(100), cancellable: Cancellable())
        let difference = Self.meanDifference(Self.packed(image), Self.reference(bytes, profile: Self.adobeRGB))
        #expect(difference <= 3.1, "mean difference \(difference)")
        #expect(Self.meanDifference(Self.packed(image), Self.plainPixels(bytes)) > 1)
        #expect(ColorProfile.name(of: image) != nil)
    }

    @Test("A JPEG whose EXIF says Adobe RGB (colour space uncalibrated, interoperability R03) is turned from Adobe RGB")
    func exifAdobeRGB() throws {
        let folder = try ScratchFolder()
        let file = try folder.write("adobe.jpg", try Self.picture("jpeg", profile: nil))
        let tagged = try run(
            URL(fileURLWithPath: "/usr/bin/exiftool"),
            ["-q", "-overwrite_original", "-ColorSpace#=65535", "-InteropIndex=R03", file.path])
        #expect(tagged.status == 0, "\(tagged.stderr)")
        let bytes = try Data(contentsOf: file)
        #expect(ExifReader.read(bytes).isAdobeRGB)
        let image = try Decoding.picture(.bytes(bytes), size: .fit(100), cancellable: Cancellable())
        let difference = Self.meanDifference(Self.packed(image), Self.reference(bytes, profile: ColorProfile.adobeRGB))
        #expect(difference <= 3.1, "mean difference \(difference)")
        #expect(ColorProfile.name(of: image) == "Adobe RGB (1998), from EXIF")
    }

    @Test("A RAW photo's preview is shown in the colour space the camera recorded it in (Adobe RGB)")
    func rawPreviewInAdobeRGB() throws {
        let preview = try Self.picture("jpeg", profile: nil)
        for adobeRGB in [true, false] {
            let dng = CameraFiles.dng(
                preview: preview, previewWidth: 48, previewHeight: 32, width: 48, height: 32, orientation: 1,
                adobeRGB: adobeRGB)
            let image = try Decoding.picture(.bytes(dng), size: .fit(100), raw: true, cancellable: Cancellable())
            let decoded = Self.packed(image)
            if adobeRGB {
                let difference = Self.meanDifference(decoded, Self.reference(preview, profile: ColorProfile.adobeRGB))
                #expect(difference <= 3.1, "mean difference \(difference)")
                #expect(ColorProfile.name(of: image) == "Adobe RGB (1998), from EXIF")
            } else {
                #expect(decoded == Self.plainPixels(preview))
                #expect(ColorProfile.name(of: image) == nil)
            }
        }
    }

    @Test(
        "A DNG's preview is turned from the colour space its PreviewColorSpace names (ProPhoto), and left as it is for sRGB"
    )
    func dngPreviewColorSpace() throws {
        let preview = try Self.picture("jpeg", profile: nil)
        func decoded(space: UInt32, adobeRGB: Bool) throws -> PhotoImage {
            let dng = CameraFiles.dng(
                preview: preview, previewWidth: 48, previewHeight: 32, width: 48, height: 32, orientation: 1,
                adobeRGB: adobeRGB, previewSpace: space)
            return try Decoding.picture(.bytes(dng), size: .fit(100), raw: true, cancellable: Cancellable())
        }
        let proPhoto = try decoded(space: 4, adobeRGB: false)
        let difference = Self.meanDifference(
            Self.packed(proPhoto), Self.reference(preview, profile: RawPhoto.proPhotoProfile))
        #expect(difference <= 3.1, "mean difference \(difference)")
        #expect(Self.meanDifference(Self.packed(proPhoto), Self.plainPixels(preview)) > 1)
        #expect(ColorProfile.name(of: proPhoto) == "ProPhoto RGB, from DNG")
        // The DNG says sRGB: its EXIF's Adobe RGB is the photo's, not the preview's.
        let srgb = try decoded(space: 2, adobeRGB: true)
        #expect(Self.packed(srgb) == Self.plainPixels(preview))
        #expect(ColorProfile.name(of: srgb) == nil)
    }

    /// A camera photo with a 160 × 120 EXIF thumbnail of another colour, tagged by exiftool
    /// with `tags` (given the scratch folder, for files they name).
    private static func taggedCameraPhoto(_ tags: (ScratchFolder) throws -> [String]) throws -> Data {
        let folder = try ScratchFolder()
        let photo = try #require(
            CameraFiles.jpegWithThumbnail(
                width: 640, height: 480, rgb: 0x20_C0_40, thumbWidth: 160, thumbHeight: 120, thumbRGB: 0xE0_30_30))
        let file = try folder.write("photo.jpg", photo)
        let tagged = try run(
            URL(fileURLWithPath: "/usr/bin/exiftool"), ["-q", "-overwrite_original"] + (try tags(folder)) + [file.path])
        #expect(tagged.status == 0, "\(tagged.stderr)")
        return try Data(contentsOf: file)
    }

    @Test("An EXIF thumbnail of a photo whose EXIF says Adobe RGB (R03, no profile) is turned from Adobe RGB")
    func exifThumbnailInAdobeRGB() throws {
        let bytes = try Self.taggedCameraPhoto { _ in ["-ColorSpace#=65535", "-InteropIndex=R03"] }
        #expect(ExifReader.read(bytes).isAdobeRGB && ColorProfile.jpegProfile(in: bytes) == nil)
        let preview = try #require(Decoding.preview(bytes.prefix(64 << 10), squareSide: 80))
        let thumbnail = bytes.subdata(in: try #require(ExifReader.read(bytes).thumbnail))
        let difference = Self.meanDifference(
            Self.packed(preview.image), Self.reference(thumbnail, profile: ColorProfile.adobeRGB))
        #expect(difference <= 3.1, "mean difference \(difference)")
        // Turned, not shown as it is (Adobe RGB's red is deeper than sRGB's).
        #expect(Self.meanDifference(Self.packed(preview.image), Self.plainPixels(thumbnail)) > 1)
    }

    @Test("An EXIF thumbnail is shown in its photo's colours: the photo's own profile turns it too")
    func exifThumbnail() throws {
        let bytes = try Self.taggedCameraPhoto { folder in
            ["-icc_profile<=\(try folder.write("p3.icc", Self.displayP3).path)"]
        }
        #expect(ColorProfile.jpegProfile(in: bytes) == Self.displayP3)
        let preview = try #require(Decoding.preview(bytes.prefix(64 << 10), squareSide: 80))
        let range = try #require(ExifReader.read(bytes).thumbnail)
        let thumbnail = bytes.subdata(in: range)
        let difference = Self.meanDifference(
            Self.packed(preview.image), Self.reference(thumbnail, profile: Self.displayP3))
        #expect(difference <= 3.1, "mean difference \(difference)")
        #expect(Self.meanDifference(Self.packed(preview.image), Self.plainPixels(thumbnail)) > 1)
    }

    @Test("A profile that swaps red and blue shows the picture's red as blue")
    func swappedChannels() throws {
        let bytes = try Self.picture("png", profile: Self.swapped)
        let image = try Decoding.picture(.bytes(bytes), size: .fit(100), cancellable: Cancellable())
        // Band 0 is red in the file (x 0–7), band 4 blue (x 32–39).
        let (r, _, b, _) = image.pixel(x: 3, y: 2)
        #expect(b > 150 && r < 100, "red in the file is shown as (\(r), _, \(b))")
        let (r4, _, b4, _) = image.pixel(x: 35, y: 2)
        #expect(r4 > 150 && b4 < 100, "blue in the file is shown as (\(r4), _, \(b4))")
    }

    @Test("No profile, an sRGB one, and damaged ones (cut short, garbage, huge tag counts) leave the pixels as decoded")
    func unchangedPictures() throws {
        var damaged: [Data] = [Self.adobeRGB.prefix(60), Data(repeating: 0xA5, count: 600)]
        var hugeCount = Self.adobeRGB
        hugeCount.replaceSubrange(128..<132, with: [0x7F, 0xFF, 0xFF, 0xFF]) // tag count
        damaged.append(hugeCount)
        let srgb = cmsCreate_sRGBProfile()!
        let srgbBytes = ColourDescription.serialized(srgb)!
        cmsCloseProfile(srgb)
        for profile in [nil, srgbBytes] + damaged {
            let bytes = try Self.picture("png", profile: profile)
            let image = try Decoding.picture(.bytes(bytes), size: .fit(100), cancellable: Cancellable())
            #expect(Self.packed(image) == Self.plainPixels(bytes))
        }
        // Named only where there is a profile it used.
        let plain = try Decoding.picture(
            .bytes(try Self.picture("png", profile: nil)), size: .fit(100), cancellable: Cancellable())
        #expect(ColorProfile.name(of: plain) == nil)
    }

    @Test("A large JPEG, sequential or progressive, is turned whole (a sequential one band by band as it decodes)")
    func largePictures() throws {
        let folder = try ScratchFolder()
        let sequential = try Self.picture("jpeg", profile: Self.displayP3, width: 1600, height: 1000)
        let file = try folder.write("sequential.jpg", sequential)
        let progressiveFile = folder.url.appendingPathComponent("progressive.jpg")
        let made = try run(
            URL(fileURLWithPath: "/usr/bin/convert"), [file.path, "-interlace", "JPEG", progressiveFile.path])
        #expect(made.status == 0, "\(made.stderr)")
        let progressive = try Data(contentsOf: progressiveFile)
        #expect(ColorProfile.jpegProfile(in: progressive) == Self.displayP3, "ImageMagick kept the profile")
        for (name, bytes) in [("sequential", sequential), ("progressive", progressive)] {
            let image = try Decoding.picture(.bytes(bytes), size: .fit(4000), cancellable: Cancellable())
            #expect(image.width == 1600 && image.height == 1000)
            let difference = Self.meanDifference(Self.packed(image), Self.reference(bytes, profile: Self.displayP3))
            #expect(difference <= 3.1, "\(name): mean difference \(difference)")
            // Every band turned: the last rows as well as the first.
            let last = Self.packed(image).suffix(1600 * 3 * 8)
            let lastReference = Self.reference(bytes, profile: Self.displayP3).suffix(1600 * 3 * 8)
            #expect(Self.meanDifference(Array(last), Array(lastReference)) <= 3.1, "\(name): the last rows")
            #expect(ColorProfile.name(of: image) != nil)
        }
    }

    @Test("Profiles with bytes changed all over (header, tag table, curves) never take the helper down")
    func mutatedProfiles() throws {
        var generator = SystemRandomNumberGenerator()
        let base = [UInt8](Self.displayP3)
        for round in 0..<48 {
            var profile = base
            // A few bytes anywhere, and one in the header or the tag table every time.
            for _ in 0..<(1 + round % 4) {
                profile[Int.random(in: 0..<profile.count, using: &generator)] = .random(in: 0...255, using: &generator)
            }
            profile[Int.random(in: 0..<min(profile.count, 256), using: &generator)] = .random(
                in: 0...255, using: &generator)
            let bytes = try Self.picture(round % 2 == 0 ? "png" : "jpeg", profile: Data(profile))
            do throws(PhotoFailure) {
                let image = try Decoding.picture(.bytes(bytes), size: .fit(100), cancellable: Cancellable())
                #expect(image.width == 48)
            } catch {
                Issue.record("round \(round): \(error)")
            }
        }
    }

    /// A grey profile of D65 white and one gamma.
    static func greyProfile(gamma: Double) -> Data {
        var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
        let curve = cmsBuildGamma(nil, gamma)!
        defer { cmsFreeToneCurve(curve) }
        let made = cmsCreateGrayProfile(&white, curve)!
        defer { cmsCloseProfile(made) }
        return ColourDescription.serialized(made)!
    }

    @Test(
        "Grey pictures with a grey profile (a linear one here), as PNG and JPEG, are turned into sRGB; a colour picture with a grey profile is left as it is"
    )
    func greyPictures() async throws {
        let folder = try ScratchFolder()
        let linear = Self.greyProfile(gamma: 1.0)
        // A grey ramp, written grey by ImageMagick (PNG colour type 0; a one-component JPEG).
        let png = folder.url.appendingPathComponent("ramp.png")
        let jpeg = folder.url.appendingPathComponent("ramp.jpg")
        for file in [png, jpeg] {
            let made = try await run(
                URL(fileURLWithPath: "/usr/bin/convert"),
                ["-size", "32x48", "gradient:white-black", "-colorspace", "Gray", "-type", "Grayscale", file.path])
            #expect(made.status == 0, "\(made.stderr)")
        }
        try await Self.embed(linear, in: jpeg, folder: folder)
        let pictures = [
            ("png", Self.withICCP(try Data(contentsOf: png), profile: linear)), ("jpeg", try Data(contentsOf: jpeg)),
        ]
        let toSRGB = ToSRGB(from: linear, format: cmsUInt32Number(PT_GRAY) << 16 | 1 << 3 | 1)
        for (format, bytes) in pictures {
            let image = try Decoding.picture(.bytes(bytes), size: .fit(100), cancellable: Cancellable())
            let plain = Self.plainPixels(bytes)
            // Each pixel as Little CMS turns its grey.
            let greys = stride(from: 0, to: plain.count, by: 3).map { plain[$0] }
            let reference = toSRGB(greys, pixels: greys.count)
            let difference = Self.meanDifference(Self.packed(image), reference)
            #expect(difference <= 3.1, "\(format): mean difference \(difference)")
            #expect(Self.meanDifference(Self.packed(image), plain) > 10, "\(format): a linear grey is lighter in sRGB")
            #expect(ColorProfile.name(of: image) != nil, "\(format)")
        }
        // The grey profile on a picture in colour: nothing to do with it.
        let colour = try Self.picture("png", profile: linear)
        let image = try Decoding.picture(.bytes(colour), size: .fit(100), cancellable: Cancellable())
        #expect(Self.packed(image) == Self.plainPixels(colour))
    }

    /// A PNG with a chunk of `type` holding `body` put in after its header.
    static func withChunk(_ png: Data, _ type: String, _ body: [UInt8]) -> Data {
        let chunk =
            bigEndian(UInt32(body.count)) + Array(type.utf8) + body + bigEndian(crc32(Array(type.utf8) + body))
        return png.prefix(33) + Data(chunk) + png.dropFirst(33)
    }

    /// `bytes` decoded through the helpers, against the reference made with `profile`.
    static func check(_ bytes: Data, against profile: Data, _ label: String) throws {
        let image = try Decoding.picture(.bytes(bytes), size: .fit(100), cancellable: Cancellable())
        let difference = meanDifference(packed(image), reference(bytes, profile: profile))
        #expect(difference <= 3.1, "\(label): mean difference \(difference)")
        #expect(meanDifference(packed(image), plainPixels(bytes)) > 1, "\(label): the colours changed")
        #expect(ColorProfile.name(of: image) != nil, "\(label): named")
    }

    @Test("PNG's cICP (before an embedded profile) and gAMA / cHRM (without one) say what the colours are")
    func pngChunks() throws {
        let plain = try Self.picture("png", profile: nil)
        // cICP: Display P3 primaries, sRGB's curve.
        let p3 = try #require(ColourDescription.profile(primaries: 12, transfer: 13, from: "cICP"))
        try Self.check(Self.withChunk(plain, "cICP", [12, 13, 0, 1]), against: p3, "cICP")
        // cICP saying sRGB wins over an embedded profile that would swap the channels.
        let both = Self.withChunk(Self.withICCP(plain, profile: Self.swapped), "cICP", [1, 13, 0, 1])
        let image = try Decoding.picture(.bytes(both), size: .fit(100), cancellable: Cancellable())
        #expect(Self.packed(image) == Self.plainPixels(both))
        // gAMA alone: a linear picture (gamma 1.0).
        let linear = Self.profile(
            red: (0.64, 0.33), green: (0.30, 0.60), blue: (0.15, 0.06), gamma: 1.0)
        try Self.check(Self.withChunk(plain, "gAMA", Self.bigEndian(100_000)), against: linear, "gAMA")
        // gAMA and cHRM: Adobe RGB's primaries at gamma 2.2.
        let chrm = [31_270, 32_900, 64_000, 33_000, 21_000, 71_000, 15_000, 6_000].flatMap {
            Self.bigEndian(UInt32($0))
        }
        let adobe = Self.withChunk(Self.withChunk(plain, "cHRM", chrm), "gAMA", Self.bigEndian(45_455))
        try Self.check(adobe, against: Self.adobeRGB, "gAMA and cHRM")
        // sRGB's own gamma without primaries, or an sRGB chunk: nothing to do.
        for described in [Self.withChunk(plain, "gAMA", Self.bigEndian(45_455)), Self.withChunk(plain, "sRGB", [0])] {
            let image = try Decoding.picture(.bytes(described), size: .fit(100), cancellable: Cancellable())
            #expect(Self.packed(image) == Self.plainPixels(described))
            #expect(ColorProfile.name(of: image) == nil)
        }
    }

    @Test(
        "An AVIF with only an nclx colour description (Display P3) is turned from it; a HEIC's thumbnail item from its profile"
    )
    func heifColours() async throws {
        let folder = try ScratchFolder()
        let png = try folder.write("picture.png", try Self.picture("png", profile: nil))
        let avif = folder.url.appendingPathComponent("p3.avif")
        let made = try await run(
            URL(fileURLWithPath: "/usr/bin/avifenc"),
            ["--cicp", "12/13/6", "-s", "10", "--min", "0", "--max", "0", png.path, avif.path])
        #expect(made.status == 0, "\(made.stderr)")
        let p3 = try #require(ColourDescription.profile(primaries: 12, transfer: 13, from: "nclx"))
        let bytes = try Data(contentsOf: avif)
        let image = try Decoding.picture(.bytes(bytes), size: .fit(100), cancellable: Cancellable())
        let difference = Self.meanDifference(Self.packed(image), Self.reference(bytes, profile: p3))
        #expect(difference <= 3.1, "mean difference \(difference)")
        #expect(ColorProfile.name(of: image) == "Display P3 (nclx)")

        // heif-enc carries a PNG's profile into the HEIC; its thumbnail item, shown before the
        // picture is decoded, is in the picture's colours too.
        let profiled = try folder.write("adobe.png", try Self.picture("png", profile: Self.adobeRGB))
        let heic = folder.url.appendingPathComponent("adobe.heic")
        let madeHEIC = try await run(
            URL(fileURLWithPath: "/usr/bin/heif-enc"), ["-q", "100", "-t", "32", profiled.path, "-o", heic.path])
        #expect(madeHEIC.status == 0, "\(madeHEIC.stderr)")
        let heicBytes = try Data(contentsOf: heic)
        let preview = try #require(Decoding.preview(heicBytes, squareSide: 16))
        #expect(preview.origin == .heif)
        #expect(ColorProfile.name(of: preview.image) != nil, "the thumbnail turned from the picture's profile")
        let decoded = try Decoding.picture(.bytes(heicBytes), size: .fit(100), cancellable: Cancellable())
        #expect(ColorProfile.name(of: decoded) == ColorProfile.name(of: preview.image))
        let heicDifference = Self.meanDifference(
            Self.packed(decoded), Self.reference(heicBytes, profile: Self.adobeRGB))
        #expect(heicDifference <= 3.1, "HEIC: mean difference \(heicDifference)")

        // An AVIF carrying an ICC profile (avifenc's --icc) is turned from it.
        let icc = try folder.write("adobe.icc", Self.adobeRGB)
        let profiledAVIF = folder.url.appendingPathComponent("adobe.avif")
        let madeAVIF = try await run(
            URL(fileURLWithPath: "/usr/bin/avifenc"),
            ["--icc", icc.path, "-s", "10", "--min", "0", "--max", "0", png.path, profiledAVIF.path])
        #expect(madeAVIF.status == 0, "\(madeAVIF.stderr)")
        let avifBytes = try Data(contentsOf: profiledAVIF)
        let avifImage = try Decoding.picture(.bytes(avifBytes), size: .fit(100), cancellable: Cancellable())
        let avifDifference = Self.meanDifference(
            Self.packed(avifImage), Self.reference(avifBytes, profile: Self.adobeRGB))
        #expect(avifDifference <= 3.1, "AVIF: mean difference \(avifDifference)")
        #expect(Self.meanDifference(Self.packed(avifImage), Self.plainPixels(avifBytes)) > 1)
        #expect(ColorProfile.name(of: avifImage) != nil)
    }

    /// A CMYK profile whose inks are not what gdk-pixbuf's formula makes of them: cyan takes
    /// away green, magenta blue and yellow red (rather than red, green and blue), black all.
    static let cmyk: Data = {
        let lab = cmsCreateLab4Profile(nil)!
        let srgb = cmsCreate_sRGBProfile()!
        // TYPE_RGB_DBL and TYPE_Lab_DBL.
        let toLab = cmsCreateTransform(
            srgb, 1 << 22 | cmsUInt32Number(PT_RGB) << 16 | 3 << 3, lab,
            1 << 22 | cmsUInt32Number(PT_Lab) << 16 | 3 << 3, cmsUInt32Number(INTENT_PERCEPTUAL), 0)!
        defer {
            cmsDeleteTransform(toLab)
            cmsCloseProfile(lab)
            cmsCloseProfile(srgb)
        }
        let profile = cmsCreateProfilePlaceholder(nil)!
        defer { cmsCloseProfile(profile) }
        cmsSetProfileVersion(profile, 4.3)
        cmsSetDeviceClass(profile, cmsSigOutputClass)
        cmsSetColorSpace(profile, cmsSigCmykData)
        cmsSetPCS(profile, cmsSigLabData)
        let pipeline = cmsPipelineAlloc(nil, 4, 3)!
        defer { cmsPipelineFree(pipeline) }
        let table = cmsStageAllocCLut16bit(nil, 9, 4, 3, nil)!
        let sampler:
            @convention(c) (
                UnsafePointer<cmsUInt16Number>?, UnsafeMutablePointer<cmsUInt16Number>?, UnsafeMutableRawPointer?
            ) -> Int32 = { ink, out, cargo in
                guard let ink, let out, let cargo else { return 0 }
                let c = Double(ink[0]) / 65535, m = Double(ink[1]) / 65535, y = Double(ink[2]) / 65535
                let k = Double(ink[3]) / 65535
                var rgb = [(1 - y) * (1 - k), (1 - c) * (1 - k), (1 - m) * (1 - k)]
                var lab = cmsCIELab()
                cmsDoTransform(cargo, &rgb, &lab, 1)
                cmsFloat2LabEncoded(out, &lab)
                return 1
            }
        cmsStageSampleCLut16bit(table, sampler, toLab, 0)
        // ICC's lutAtoBType wants curves on both sides of the table: identity ones.
        cmsPipelineInsertStage(pipeline, cmsAT_END, cmsStageAllocToneCurves(nil, 4, nil))
        cmsPipelineInsertStage(pipeline, cmsAT_END, table)
        cmsPipelineInsertStage(pipeline, cmsAT_END, cmsStageAllocToneCurves(nil, 3, nil))
        cmsWriteTag(profile, cmsSigAToB0Tag, UnsafeMutableRawPointer(pipeline))
        if let name = cmsMLUalloc(nil, 1) {
            defer { cmsMLUfree(name) }
            cmsMLUsetASCII(name, "en", "US", "Twisted CMYK")
            cmsWriteTag(profile, cmsSigProfileDescriptionTag, UnsafeMutableRawPointer(name))
        }
        return ColourDescription.serialized(profile)!
    }()

    @Test(
        "A CMYK JPEG (Adobe's inverted inks) with a CMYK profile is turned through the profile, at full size and as a thumbnail"
    )
    func cmykJPEG() async throws {
        let folder = try ScratchFolder()
        let file = folder.url.appendingPathComponent("cmyk.jpg")
        // Four bands of inks: cyan, magenta, yellow with some black, and a grey of all four.
        let inks: [[UInt8]] = [[255, 0, 0, 0], [0, 255, 0, 0], [0, 0, 255, 64], [40, 40, 40, 128]]
        let bands = inks.map { "xc:cmyk(\($0[0]),\($0[1]),\($0[2]),\($0[3]))" }
        let made = try await run(
            URL(fileURLWithPath: "/usr/bin/convert"),
            ["-size", "64x128"] + bands + ["+append", "-quality", "100", file.path])
        #expect(made.status == 0, "\(made.stderr)")
        try await Self.embed(Self.cmyk, in: file, folder: folder)
        let bytes = try Data(contentsOf: file)
        // What Little CMS makes of each band's inks through the profile.
        let toSRGB = ToSRGB(from: Self.cmyk, format: cmsUInt32Number(PT_CMYK) << 16 | 4 << 3 | 1)
        let expected = inks.map { toSRGB($0, pixels: 1) }
        for size in [DecodeSize.fit(1000), .fit(64)] {
            let image = try Decoding.picture(.bytes(bytes), size: size, cancellable: Cancellable())
            #expect(image.width == (size == .fit(64) ? 64 : 256))
            #expect(ColorProfile.name(of: image) == "Twisted CMYK")
            for (band, want) in expected.enumerated() {
                let (r, g, b, _) = image.pixel(x: image.width * (2 * band + 1) / 8, y: image.height / 2)
                let off = [Int(r) - Int(want[0]), Int(g) - Int(want[1]), Int(b) - Int(want[2])].map(abs).max()!
                #expect(off <= 6, "\(size), band \(band): (\(r), \(g), \(b)) against \(want)")
            }
        }
        // gdk-pixbuf's own formula makes cyan ink red-less; through this profile it is green-less.
        let plain = Self.plainPixels(bytes)
        #expect(plain[3 * 32] < 60, "cyan by the formula: no red")
        let image = try Decoding.picture(.bytes(bytes), size: .fit(1000), cancellable: Cancellable())
        let (r, g, _, _) = image.pixel(x: 32, y: 64)
        #expect(r > 200 && g < 60, "cyan through the profile: (\(r), \(g))")
    }

    @Test(
        "A CMYK JPEG with no profile at all is turned through the default CMYK profile (Ghostscript's SWOP), as Little CMS turns it"
    )
    func cmykJPEGWithoutProfile() async throws {
        let profile = try #require(ColorProfile.defaultCMYK, "libgs-common's default CMYK profile")
        let folder = try ScratchFolder()
        let inks: [[UInt8]] = [[255, 0, 0, 0], [0, 255, 0, 0], [0, 0, 255, 64], [40, 40, 40, 128]]
        let toSRGB = ToSRGB(from: profile, format: cmsUInt32Number(PT_CMYK) << 16 | 4 << 3 | 1)
        let expected = inks.map { toSRGB($0, pixels: 1) }
        // A tiny file (shorter than what gdk-pixbuf reads before it picks a loader) and a big one.
        for (band, height) in [(16, 32), (512, 1024)] {
            let file = folder.url.appendingPathComponent("bare-cmyk-\(band).jpg")
            let bands = inks.map { "xc:cmyk(\($0[0]),\($0[1]),\($0[2]),\($0[3]))" }
            let made = try await run(
                URL(fileURLWithPath: "/usr/bin/convert"),
                ["-size", "\(band)x\(height)"] + bands + ["+append", "-strip", "-quality", "100", file.path])
            #expect(made.status == 0, "\(made.stderr)")
            let bytes = try Data(contentsOf: file)
            #expect(ColorProfile.jpegProfile(in: bytes) == nil, "made without a profile")
            #expect((bytes.count < 4096) == (band == 16), "\(bytes.count) bytes")
            for size in [DecodeSize.fit(4000), .fit(64)] {
                let image = try Decoding.picture(.bytes(bytes), size: size, cancellable: Cancellable())
                #expect(ColorProfile.name(of: image) == "Artifex CMYK SWOP Profile")
                for (index, want) in expected.enumerated() {
                    let (r, g, b, _) = image.pixel(x: image.width * (2 * index + 1) / 8, y: image.height / 2)
                    let off = [Int(r) - Int(want[0]), Int(g) - Int(want[1]), Int(b) - Int(want[2])].map(abs).max()!
                    #expect(off <= 6, "\(band), \(size), band \(index): (\(r), \(g), \(b)) against \(want)")
                }
            }
        }
    }

    @Test(
        "A CMYK TIFF, 8 or 16 bits a channel, in strips, tiles or planes, is turned through its own CMYK profile, or the default one when it has none, as Little CMS turns it"
    )
    func cmykTIFF() async throws {
        let folder = try ScratchFolder()
        let inks: [[UInt8]] = [[255, 0, 0, 0], [0, 255, 0, 0], [0, 0, 255, 64], [40, 40, 40, 128]]
        let bands = inks.map { "xc:cmyk(\($0[0]),\($0[1]),\($0[2]),\($0[3]))" }
        let format = cmsUInt32Number(PT_CMYK) << 16 | 4 << 3 | 1
        let defaultCMYK = try #require(ColorProfile.defaultCMYK, "libgs-common's default CMYK profile")
        let cases: [(depth: Int, profile: Data?, name: String, layout: String)] = [
            (8, Self.cmyk, "Twisted CMYK", "strips"), (16, Self.cmyk, "Twisted CMYK", "strips"),
            (8, nil, "Artifex CMYK SWOP Profile", "strips"), (16, Self.cmyk, "Twisted CMYK", "tiles"),
            (8, Self.cmyk, "Twisted CMYK", "planes"), (16, nil, "Artifex CMYK SWOP Profile", "planes"),
        ]
        for (depth, profile, name, layout) in cases {
            let file = folder.url.appendingPathComponent(
                "cmyk-\(depth)-\(profile == nil ? "bare" : "tagged")-\(layout).tif")
            if layout == "planes" {
                // Each ink's plane: the four bands of 64 × 128, row after row.
                let planes = (0..<4).map { ink in
                    (0..<128).flatMap { _ in
                        inks.flatMap { band in
                            [UInt16](repeating: UInt16(band[ink]) * (depth == 16 ? 257 : 1), count: 64)
                        }
                    }
                }
                try Self.planarTIFF(
                    width: 256, height: 128, bits: depth, photometric: 5, planes: planes, profile: profile
                ).write(to: file)
            } else {
                let tiles = layout == "tiles" ? ["-define", "tiff:tile-geometry=32x32"] : []
                let made = try await run(
                    URL(fileURLWithPath: "/usr/bin/convert"),
                    ["-size", "64x128"] + bands + ["+append", "-depth", "\(depth)", "-strip"] + tiles + [file.path])
                #expect(made.status == 0, "\(made.stderr)")
                if let profile { try await Self.embed(profile, in: file, folder: folder) }
            }
            let bytes = try Data(contentsOf: file)
            let toSRGB = ToSRGB(from: profile ?? defaultCMYK, format: format)
            for size in [DecodeSize.fit(1000), .fit(64)] {
                let image = try Decoding.picture(.bytes(bytes), size: size, cancellable: Cancellable())
                #expect(image.width == (size == .fit(64) ? 64 : 256))
                #expect(ColorProfile.name(of: image) == name, "\(depth) bits, \(layout), \(name)")
                for (band, ink) in inks.enumerated() {
                    let want = toSRGB(ink, pixels: 1)
                    let (r, g, b, _) = image.pixel(x: image.width * (2 * band + 1) / 8, y: image.height / 2)
                    let off = [Int(r) - Int(want[0]), Int(g) - Int(want[1]), Int(b) - Int(want[2])].map(abs).max()!
                    #expect(
                        off <= 6,
                        "\(depth) bits, \(layout), \(name), \(size), band \(band): (\(r), \(g), \(b)) against \(want)")
                }
            }
        }
    }

    @Test("Save As writes the turned pixels, in sRGB, without the profile they no longer are in")
    func savedInSRGB() throws {
        let folder = try ScratchFolder()
        let bytes = try Self.picture("jpeg", profile: Self.displayP3)
        for name in ["saved.png", "saved.jpg"] {
            let path = folder.url.appendingPathComponent(name).path
            guard case .success = PhotoSaving.save(bytes: bytes, sepia: false, to: path) else {
                Issue.record("\(name) not saved")
                continue
            }
            let saved = try Data(contentsOf: URL(fileURLWithPath: path))
            let loader = gdk_pixbuf_loader_new()!
            defer { g_object_unref(UnsafeMutableRawPointer(loader)) }
            _ = saved.withUnsafeBytes { gdk_pixbuf_loader_write(loader, $0.baseAddress, gsize($0.count), nil) }
            gdk_pixbuf_loader_close(loader, nil)
            let pixbuf = gdk_pixbuf_loader_get_pixbuf(loader)!
            #expect(gdk_pixbuf_get_option(pixbuf, "icc-profile") == nil, "\(name): no profile")
            let difference = Self.meanDifference(
                Self.plainPixels(saved), Self.reference(bytes, profile: Self.displayP3))
            // The JPEG is encoded once more: a little further off.
            #expect(difference <= (name.hasSuffix("png") ? 3.1 : 4), "\(name): mean difference \(difference)")
        }
    }

    @Test("A thumbnail (a square cut from the picture as it decodes) is converted too")
    func thumbnails() throws {
        let bytes = try Self.picture("jpeg", profile: Self.adobeRGB)
        let thumbnail = try Decoding.picture(.bytes(bytes), size: .square(16), cancellable: Cancellable())
        let plain = try ImageDecoder.decode(
            try Self.picture("jpeg", profile: nil), size: .square(16), cancellable: Cancellable())
        #expect(Self.meanDifference(Self.packed(thumbnail), Self.packed(plain)) > 1)
    }
}
