import CGdkPixbuf
import CLcms2
import Foundation
import GLibKit
import PhotoPipeline
import Testing
import TestSupport

/// 16-bit PNGs and TIFFs (what RAW developers and scanners export, often in ProPhoto) are
/// turned into sRGB from all 16 bits of each sample, not from the 8 that gdk-pixbuf's loaders
/// keep, and decoded through the decoder helpers like every picture.
@Suite(.serialized) struct DeepPictureTests {
    /// ProPhoto RGB (ROMM): very wide primaries, D50 white, gamma 1.8.
    static let proPhoto = ColourDescription.rgbProfile(
        red: (0.7347, 0.2653), green: (0.1596, 0.8404), blue: (0.0366, 0.0001), white: (0.3457, 0.3585), gamma: 1.8,
        name: "ProPhoto test")!

    static let width = 96, height = 64

    /// Smooth dark-to-light ramps of three hues, as 16-bit samples (`channels` 3 or 4), little
    /// endian: the low bytes matter, as in a photo's sky.
    static func ramps(channels: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(width * height * channels * 2)
        for y in 0..<height {
            for x in 0..<width {
                let t = Double(x) / Double(width - 1) * 0.35 + Double(y) / Double(height - 1) * 0.05
                let hue = y * 3 / height
                var samples = [t * 0.9, t * 0.6, t * 0.3]
                if hue == 1 { samples = [t * 0.3, t * 0.9, t * 0.5] }
                if hue == 2 { samples = [t * 0.4, t * 0.4, t] }
                if channels == 4 { samples.append(1 - Double(x) / Double(width) * 0.5) }
                for sample in samples {
                    let value = UInt16((sample * 65_535).rounded())
                    bytes += [UInt8(value & 0xFF), UInt8(value >> 8)]
                }
            }
        }
        return bytes
    }

    /// The ramps written by ImageMagick as a 16-bit `format` ("PNG48", "PNG64", "TIFF") with
    /// `profile` attached as it is (not applied).
    static func file(_ format: String, channels: Int, profile: Data?, in folder: ScratchFolder) throws -> Data {
        if format == "TIFF planes" {
            // Each sample's plane, from the ramps' interleaved little-endian samples.
            let samples = ramps(channels: channels)
            let planes = (0..<channels).map { channel in
                stride(from: channel * 2, to: samples.count, by: channels * 2).map {
                    UInt16(samples[$0]) | UInt16(samples[$0 + 1]) << 8
                }
            }
            return ColorProfileTests.planarTIFF(
                width: width, height: height, bits: 16, photometric: 2, planes: planes, profile: profile)
        }
        let raw = try folder.write("ramps-\(channels).raw", Data(ramps(channels: channels)))
        var arguments = ["-size", "\(width)x\(height)", "-depth", "16", "-endian", "LSB"]
        arguments.append((channels == 4 ? "rgba:" : "rgb:") + raw.path)
        if let profile { arguments += ["-profile", try folder.write("profile.icc", profile).path] }
        if format.hasPrefix("TIFF") { arguments += ["-compress", "zip"] }
        if format == "TIFF tiles" { arguments += ["-define", "tiff:tile-geometry=32x32"] }
        // ImageMagick's own gAMA and cHRM would say what the colours are where no profile does.
        if !format.hasPrefix("TIFF") { arguments += ["-define", "png:exclude-chunk=gAMA,cHRM"] }
        let tiff = format.hasPrefix("TIFF")
        let out = folder.url.appendingPathComponent(
            "picture-\(format.replacingOccurrences(of: " ", with: "-"))-\(channels).\(tiff ? "tif" : "png")")
        arguments.append(tiff ? out.path : "\(format):\(out.path)")
        let made = try run(URL(fileURLWithPath: "/usr/bin/convert"), arguments)
        guard made.status == 0 else { throw ColorProfileTests.BenchlessError("convert: \(made.stderr)") }
        return try Data(contentsOf: out)
    }

    /// Little CMS's transform of the ramps from `profile` into 8-bit sRGB: from all 16 bits
    /// (`deep`), or from their top 8 bits, as a picture decoded by gdk-pixbuf would be turned.
    static func reference(_ profile: Data, deep: Bool) -> [UInt8] {
        let samples = ramps(channels: 3)
        if deep {
            let rgb16 = cmsUInt32Number(PT_RGB) << 16 | 3 << 3 | 2
            return ColorProfileTests.ToSRGB(from: profile, format: rgb16)(samples, pixels: width * height)
        }
        let top = stride(from: 1, to: samples.count, by: 2).map { samples[$0] }
        return ColorProfileTests.ToSRGB(from: profile, format: cmsUInt32Number(PT_RGB) << 16 | 3 << 3 | 1)(
            top, pixels: width * height)
    }

    static func decoded(_ bytes: Data, size: DecodeSize = .fit(200)) throws -> PhotoImage {
        try Decoding.picture(.bytes(bytes), size: size, cancellable: Cancellable())
    }

    static func largestDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
        zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? .max
    }

    @Test(
        "A 16-bit PNG and TIFF in ProPhoto and in Adobe RGB are turned from their 16 bits, as Little CMS turns them",
        arguments: ["PNG48", "TIFF", "TIFF tiles", "TIFF planes"])
    func turnedFromSixteenBits(_ format: String) throws {
        let folder = try ScratchFolder()
        for (name, profile) in [("ProPhoto", Self.proPhoto), ("Adobe RGB", ColorProfileTests.adobeRGB)] {
            let image = try Self.decoded(try Self.file(format, channels: 3, profile: profile, in: folder))
            #expect((image.width, image.height) == (Self.width, Self.height))
            let pixels = ColorProfileTests.packed(image)
            let deep = Self.reference(profile, deep: true)
            #expect(
                Self.largestDifference(pixels, deep) <= 1,
                "\(format), \(name): \(ColorProfileTests.meanDifference(pixels, deep)) from the 16-bit reference")
            #expect(ColorProfile.name(of: image) != nil, "\(format), \(name): the profile is named")
            if name == "ProPhoto" {
                // Turned from 8 bits, the dark ends of the ramps come out in steps: not what is shown.
                let shallow = Self.reference(profile, deep: false)
                let apart = zip(pixels, shallow).filter { $0 != $1 }.count
                #expect(apart > pixels.count / 20, "\(format): only \(apart) values differ from the 8-bit route")
                #expect(ColorProfile.name(of: image) == "ProPhoto test")
            }
        }
    }

    @Test("A 16-bit JPEG XL in ProPhoto is turned from its 16 bits too")
    func jpegXL() throws {
        let folder = try ScratchFolder()
        let png = try folder.write("ramps.png", try Self.file("PNG48", channels: 3, profile: Self.proPhoto, in: folder))
        let jxl = folder.url.appendingPathComponent("ramps.jxl")
        let made = try run(URL(fileURLWithPath: "/usr/bin/cjxl"), [png.path, jxl.path, "-d", "0", "--quiet"])
        try #require(made.status == 0, "cjxl: \(made.stderr)")
        let image = try Self.decoded(try Data(contentsOf: jxl))
        let pixels = ColorProfileTests.packed(image)
        let deep = Self.reference(Self.proPhoto, deep: true)
        #expect(
            Self.largestDifference(pixels, deep) <= 1,
            "\(ColorProfileTests.meanDifference(pixels, deep)) from the 16-bit reference")
        let shallow = Self.reference(Self.proPhoto, deep: false)
        #expect(zip(pixels, shallow).filter { $0 != $1 }.count > pixels.count / 20)
        #expect(ColorProfile.name(of: image) == "ProPhoto test")
    }

    /// Little CMS's transform into 8-bit sRGB of the ramps as a file of `bits` bits holds them:
    /// each sample rounded to those bits, then widened to 16 again.
    static func reference(_ profile: Data, bits: Int) -> [UInt8] {
        let top = UInt32(1 << bits - 1)
        var samples = ramps(channels: 3)
        for i in stride(from: 0, to: samples.count, by: 2) {
            let value = UInt32(samples[i]) | UInt32(samples[i + 1]) << 8
            let kept = (value * top + 32_767) / 65_535
            let widened = (kept * 65_535 + top / 2) / top
            samples[i] = UInt8(widened & 0xFF)
            samples[i + 1] = UInt8(widened >> 8)
        }
        let rgb16 = cmsUInt32Number(PT_RGB) << 16 | 3 << 3 | 2
        return ColorProfileTests.ToSRGB(from: profile, format: rgb16)(samples, pixels: width * height)
    }

    /// The ramps in ProPhoto as a lossless HEIC (x265) or AVIF (libaom) of `bits` bits, made
    /// from the 16-bit PNG by libheif's and libavif's own tools, the profile carried over.
    static func heifFile(avif: Bool, bits: Int, in folder: ScratchFolder) throws -> Data {
        let png = try folder.write("ramps16.png", try file("PNG48", channels: 3, profile: proPhoto, in: folder))
        let out = folder.url.appendingPathComponent("ramps-\(bits).\(avif ? "avif" : "heic")")
        // Lossless: full-resolution chroma and the identity matrix (RGB coded as it is).
        let made =
            avif
            ? try run(URL(fileURLWithPath: "/usr/bin/avifenc"), ["-l", "-d", "\(bits)", png.path, out.path])
            : try run(
                URL(fileURLWithPath: "/usr/bin/heif-enc"),
                ["-L", "-p", "chroma=444", "--matrix_coefficients=0", "-b", "\(bits)", png.path, "-o", out.path])
        guard made.status == 0 else { throw ColorProfileTests.BenchlessError("encoder: \(made.stderr)") }
        return try Data(contentsOf: out)
    }

    @Test(
        "A HEIC and an AVIF of 10 and 12 bits in ProPhoto are turned from all their bits when shown whole",
        arguments: [(false, 10), (false, 12), (true, 10), (true, 12)])
    func heifOfMoreThanEightBits(_ avif: Bool, _ bits: Int) throws {
        let folder = try ScratchFolder()
        let bytes = try Self.heifFile(avif: avif, bits: bits, in: folder)
        let kind = "\(avif ? "AVIF" : "HEIC"), \(bits) bits"
        let image = try Self.decoded(bytes)
        #expect((image.width, image.height) == (Self.width, Self.height), "\(kind)")
        #expect(ColorProfile.name(of: image) == "ProPhoto test", "\(kind)")
        let pixels = ColorProfileTests.packed(image)
        let expected = Self.reference(Self.proPhoto, bits: bits)
        // Within 2 (x265's tool cuts 16 bits to 10 rather than rounding them), 0.5 on average.
        #expect(
            Self.largestDifference(pixels, expected) <= 2 && ColorProfileTests.meanDifference(pixels, expected) < 0.5,
            "\(kind): \(ColorProfileTests.meanDifference(pixels, expected)) from the reference of its bits")
        // Turned from their top 8 bits (gdk-pixbuf's loader), the dark ends come out in steps.
        let shallow = Self.reference(Self.proPhoto, deep: false)
        let apart = zip(pixels, shallow).filter { $0 != $1 }.count
        #expect(apart > pixels.count / 20, "\(kind): only \(apart) values differ from the 8-bit route")
        // A row's square is made from 8 bits, scaled, then turned, as every thumbnail is.
        let square = try Self.decoded(bytes, size: .square(32))
        #expect((square.width, square.height) == (32, 32), "\(kind)")
        #expect(ColorProfile.name(of: square) == "ProPhoto test", "\(kind)")
    }

    @Test("A 10-bit HEIC the memory budget cannot take the 16-bit way is turned from the loader's 8 bits instead")
    func heifWithoutRoomForSixteenBits() throws {
        let folder = try ScratchFolder()
        let bytes = try Self.heifFile(avif: false, bits: 10, in: folder)
        let pixels = Self.width * Self.height
        // Room for the loader's way (10 bytes a pixel, and the picture made) but not for 16.
        let budget = DecodeMemoryBudget(capacity: pixels * (10 + 12) + 1_000)
        let image = try ImageDecoder.decode(bytes, size: .fit(200), budget: budget, cancellable: Cancellable())
        #expect(ColorProfile.name(of: image) == "ProPhoto test")
        let packed = ColorProfileTests.packed(image)
        let deep = try Self.decoded(bytes)
        #expect(packed != ColorProfileTests.packed(deep), "the same pixels as the 16-bit way")
        #expect(Self.largestDifference(packed, Self.reference(Self.proPhoto, deep: false)) <= 8)
        #expect(budget.usage.now == 0)
    }

    @Test("A 10-bit AVIF with only an nclx description (Display P3) is turned from its 10 bits")
    func nclxOfTenBits() throws {
        let folder = try ScratchFolder()
        let png = try folder.write("ramps16.png", try Self.file("PNG48", channels: 3, profile: nil, in: folder))
        let avif = folder.url.appendingPathComponent("p3.avif")
        // Display P3 primaries, the sRGB curve, identity matrix (lossless).
        let made = try run(
            URL(fileURLWithPath: "/usr/bin/avifenc"), ["-l", "-d", "10", "--cicp", "12/13/0", png.path, avif.path])
        try #require(made.status == 0, "avifenc: \(made.stderr)")
        let image = try Self.decoded(try Data(contentsOf: avif))
        #expect(ColorProfile.name(of: image) == "Display P3 (nclx)")
        let p3 = try #require(ColourDescription.profile(primaries: 12, transfer: 13, from: "nclx"))
        let pixels = ColorProfileTests.packed(image)
        let expected = Self.reference(p3, bits: 10)
        #expect(
            Self.largestDifference(pixels, expected) <= 1,
            "\(ColorProfileTests.meanDifference(pixels, expected)) from the reference of its bits")
    }

    /// A smooth dark grey ramp of 16-bit samples, little endian (with a falling alpha beside
    /// each grey for `alpha`).
    static func greyRamp(alpha: Bool) -> [UInt8] {
        var bytes: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                var samples = [Double(x) / Double(width - 1) * 0.2 + Double(y) / Double(height - 1) * 0.01]
                if alpha { samples.append(1 - Double(x) / Double(width) * 0.5) }
                for sample in samples {
                    let value = UInt16((sample * 65_535).rounded())
                    bytes += [UInt8(value & 0xFF), UInt8(value >> 8)]
                }
            }
        }
        return bytes
    }

    /// The grey ramp as a 16-bit grey PNG or TIFF (`format` "PNG" or "TIFF"), written by
    /// ImageMagick with `profile` attached as it is.
    static func greyFile(_ format: String, alpha: Bool, profile: Data?, in folder: ScratchFolder) throws -> Data {
        let raw = try folder.write("grey-\(alpha).raw", Data(greyRamp(alpha: alpha)))
        var arguments = ["-size", "\(width)x\(height)", "-depth", "16", "-endian", "LSB"]
        arguments.append((alpha ? "graya:" : "gray:") + raw.path)
        if let profile { arguments += ["-profile", try folder.write("grey.icc", profile).path] }
        arguments += ["-define", "png:exclude-chunk=gAMA,cHRM", "-type", alpha ? "GrayscaleAlpha" : "Grayscale"]
        let out = folder.url.appendingPathComponent("grey-\(alpha).\(format == "TIFF" ? "tif" : "png")")
        arguments.append(format == "TIFF" ? out.path : "PNG:\(out.path)")
        let made = try run(URL(fileURLWithPath: "/usr/bin/convert"), arguments)
        guard made.status == 0 else { throw ColorProfileTests.BenchlessError("convert: \(made.stderr)") }
        return try Data(contentsOf: out)
    }

    @Test(
        "A 16-bit grey PNG and TIFF with a linear grey profile are turned from their 16 bits; without one, shown as sRGB greys",
        arguments: ["PNG", "TIFF"])
    func greyOfSixteenBits(_ format: String) throws {
        let folder = try ScratchFolder()
        let linear = ColorProfileTests.greyProfile(gamma: 1.0)
        let grey16 = cmsUInt32Number(PT_GRAY) << 16 | 1 << 3 | 2
        let deep = ColorProfileTests.ToSRGB(from: linear, format: grey16)(
            Self.greyRamp(alpha: false), pixels: Self.width * Self.height)
        for alpha in [false, true] {
            let image = try Self.decoded(try Self.greyFile(format, alpha: alpha, profile: linear, in: folder))
            let label = "\(format)\(alpha ? " with alpha" : "")"
            #expect((image.width, image.height) == (Self.width, Self.height), "\(label)")
            #expect(ColorProfile.name(of: image) != nil, "\(label): the grey profile is named")
            #expect((gdk_pixbuf_get_has_alpha(image.pixbuf) != 0) == alpha, "\(label)")
            let pixels = ColorProfileTests.packed(image)
            #expect(
                Self.largestDifference(pixels, deep) <= 1,
                "\(label): \(ColorProfileTests.meanDifference(pixels, deep)) from the 16-bit reference")
            if alpha {
                let (_, _, _, right) = image.pixel(x: Self.width - 1, y: 10)
                #expect((125...131).contains(right), "\(label): alpha \(right)")
            }
        }
        // From the top 8 bits, a linear grey's dark end comes out in steps.
        let samples = Self.greyRamp(alpha: false)
        let top = stride(from: 1, to: samples.count, by: 2).map { samples[$0] }
        let shallow = ColorProfileTests.ToSRGB(from: linear, format: cmsUInt32Number(PT_GRAY) << 16 | 1 << 3 | 1)(
            top, pixels: Self.width * Self.height)
        let image = try Self.decoded(try Self.greyFile(format, alpha: false, profile: linear, in: folder))
        let apart = zip(ColorProfileTests.packed(image), shallow).filter { $0 != $1 }.count
        #expect(apart > shallow.count / 20, "\(format): only \(apart) values differ from the 8-bit route")

        if format == "PNG" {
            // A gAMA chunk of 1.0 (linear) and no profile: described in RGB, turned as the grey
            // profile turns it.
            let plain = try Self.greyFile(format, alpha: false, profile: nil, in: folder)
            let linearPNG = ColorProfileTests.withChunk(plain, "gAMA", ColorProfileTests.bigEndian(100_000))
            let turned = ColorProfileTests.packed(try Self.decoded(linearPNG))
            // Within 1.5 on average (Little CMS's 16-bit RGB transform is coarser in the dark
            // than its grey one), and far from the untouched greys (a linear grey is lighter).
            #expect(
                ColorProfileTests.meanDifference(turned, deep) <= 1.5,
                "gAMA: \(ColorProfileTests.meanDifference(turned, deep)) from the 16-bit reference")
            #expect(ColorProfileTests.meanDifference(turned, ColorProfileTests.packed(try Self.decoded(plain))) > 10)
        }
        // No profile: each grey rounded to 8 bits, as sRGB.
        let plain = try Self.decoded(try Self.greyFile(format, alpha: false, profile: nil, in: folder))
        #expect(ColorProfile.name(of: plain) == nil)
        let rounded = stride(from: 0, to: samples.count, by: 2).flatMap { i -> [UInt8] in
            let value = Int(samples[i]) | Int(samples[i + 1]) << 8
            let grey = UInt8((value * 255 + 32_767) / 65_535)
            return [grey, grey, grey]
        }
        #expect(Self.largestDifference(ColorProfileTests.packed(plain), rounded) <= 1)
    }

    @Test("A 16-bit PNG with alpha keeps its alpha; one without a profile is shown as its samples say")
    func alphaAndNoProfile() throws {
        let folder = try ScratchFolder()
        let withAlpha = try Self.decoded(try Self.file("PNG64", channels: 4, profile: Self.proPhoto, in: folder))
        #expect(gdk_pixbuf_get_has_alpha(withAlpha.pixbuf) != 0)
        let (_, _, _, left) = withAlpha.pixel(x: 0, y: 10)
        let (_, _, _, right) = withAlpha.pixel(x: Self.width - 1, y: 10)
        #expect(left == 255 && (125...131).contains(right), "alpha \(left) … \(right)")
        let rgb = ColorProfileTests.packed(withAlpha)
        #expect(Self.largestDifference(rgb, Self.reference(Self.proPhoto, deep: true)) <= 1)

        let plainBytes = try Self.file("PNG48", channels: 3, profile: nil, in: folder)
        let plain = try Self.decoded(plainBytes)
        #expect(ColorProfile.name(of: plain) == nil)
        // Rounded to 8 bits rather than cut: within one of what gdk-pixbuf's loader gives.
        #expect(
            Self.largestDifference(ColorProfileTests.packed(plain), ColorProfileTests.plainPixels(plainBytes)) <= 1)
    }

    @Test("A 16-bit picture becomes a row's square and a cached thumbnail like any other")
    func thumbnails() throws {
        let folder = try ScratchFolder()
        for format in ["PNG48", "TIFF"] {
            let bytes = try Self.file(format, channels: 3, profile: Self.proPhoto, in: folder)
            let square = try Self.decoded(bytes, size: .square(32))
            #expect((square.width, square.height) == (32, 32), "\(format)")
            #expect(ColorProfile.name(of: square) == "ProPhoto test")
        }
    }

    @Test(
        "A 16-bit PNG cut short, and a TIFF whose directory is damaged, fail as damaged without taking the helper down")
    func damaged() throws {
        let folder = try ScratchFolder()
        let png = try Self.file("PNG48", channels: 3, profile: Self.proPhoto, in: folder)
        #expect {
            try Self.decoded(png.prefix(png.count / 2))
        } throws: { error in
            (error as? PhotoFailure)?.kind == .damaged(format: "PNG")
        }
        var tiff = try Self.file("TIFF", channels: 3, profile: Self.proPhoto, in: folder)
        // The first directory's offset sent past the end.
        tiff.replaceSubrange(4..<8, with: [0xFF, 0xFF, 0xFF, 0x7F])
        #expect(throws: PhotoFailure.self) { try Self.decoded(tiff) }
        // The helpers are still there for the next picture.
        #expect(try Self.decoded(try Self.file("TIFF", channels: 3, profile: nil, in: folder)).width == Self.width)
    }
}
