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
