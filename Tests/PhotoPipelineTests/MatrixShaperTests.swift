import CGdkPixbuf
import CGLib
import CLcms2
import Foundation
import GLibKit
@testable import PhotoPipeline
import Testing
import TestSupport

/// The quicker way through profiles of curves and primaries (`ColorProfile.MatrixShaper`):
/// it must turn every colour as Little CMS's own transform does, to one level.
@Suite struct MatrixShaperTests {
    /// A picture 512 wide and `height` high (512: 64 levels of each channel in every
    /// combination, every fourth level and 255), opaque where it has alpha.
    static func lattice(alpha: Bool, height: Int = 512) -> PhotoImage {
        let pixbuf = gdk_pixbuf_new(GDK_COLORSPACE_RGB, alpha ? 1 : 0, 8, 512, Int32(height))!
        let stride = Int(gdk_pixbuf_get_rowstride(pixbuf)), channels = alpha ? 4 : 3
        let pixels = gdk_pixbuf_get_pixels(pixbuf)!
        func level(_ n: Int) -> UInt8 { UInt8(min(255, n * 4 + (n == 63 ? 3 : 0))) }
        for index in 0..<(512 * height) {
            let at = index / 512 * stride + index % 512 * channels
            pixels[at] = level(index >> 12)
            pixels[at + 1] = level(index >> 6 & 63)
            pixels[at + 2] = level(index & 63)
            if alpha { pixels[at + 3] = UInt8(index % 251) }
        }
        return PhotoImage(taking: pixbuf)
    }

    /// The picture's red, green and blue, packed (read a row at a time: these tests run beside
    /// the GUI tests, and reading 262,144 pixels one call each took seconds).
    static func rgb(_ image: PhotoImage) -> [UInt8] {
        let stride = Int(gdk_pixbuf_get_rowstride(image.pixbuf))
        let channels = Int(gdk_pixbuf_get_n_channels(image.pixbuf))
        let pixels = gdk_pixbuf_read_pixels(image.pixbuf)!
        var out = [UInt8](repeating: 0, count: image.width * image.height * 3)
        out.withUnsafeMutableBufferPointer { out in
            for y in 0..<image.height {
                let row = pixels + y * stride
                for x in 0..<image.width {
                    let to = (y * image.width + x) * 3
                    out[to] = row[x * channels]
                    out[to + 1] = row[x * channels + 1]
                    out[to + 2] = row[x * channels + 2]
                }
            }
        }
        return out
    }

    /// The largest difference between two buffers of the same length.
    static func worst(_ a: [UInt8], _ b: [UInt8]) -> Int {
        guard a.count == b.count else { return .max }
        var worst = 0
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                for i in 0..<a.count { worst = max(worst, abs(Int(a[i]) - Int(b[i]))) }
            }
        }
        return worst
    }

    static let profiles: [(String, Data)] = [
        ("Adobe RGB", ColorProfileTests.adobeRGB),
        ("Display P3 (sRGB's curve)", ColourDescription.profile(primaries: 12, transfer: 13, from: "test")!),
        ("ProPhoto (D50 white)", DeepPictureTests.proPhoto),
        ("BT.2020, linear", ColourDescription.profile(primaries: 9, transfer: 8, from: "test")!),
        ("BT.709's curve", ColourDescription.profile(primaries: 12, transfer: 1, from: "test")!),
        ("red and blue swapped", ColorProfileTests.swapped),
    ]

    @Test(
        "Profiles of curves and primaries go through tables that turn every colour within one level of Little CMS, alpha untouched",
        arguments: [false, true])
    func tablesAgreeWithLittleCMS(alpha: Bool) throws {
        for (name, profile) in Self.profiles {
            let image = Self.lattice(alpha: alpha)
            let before = Self.lattice(alpha: alpha)
            let conversion = ColorProfile.Conversion(image.pixbuf, from: profile)
            #expect(conversion.usesTables, "\(name): through the tables")
            conversion.rows(0..<image.height, shared: true)
            #expect(conversion.outcome != .assumedSRGB)
            let plain = Self.rgb(before)
            let reference = ColorProfileTests.ToSRGB(from: profile, format: ColorProfile.pixelFormat(channels: 3))(
                plain, pixels: 512 * 512)
            let turned = Self.rgb(image)
            let worst = Self.worst(turned, reference)
            #expect(worst <= 1, "\(name): a colour \(worst) levels from Little CMS's")
            #expect(turned != plain, "\(name): the colours changed")
            if alpha {
                for (x, y) in [(0, 0), (100, 7), (511, 511)] {
                    #expect(image.pixel(x: x, y: y).3 == before.pixel(x: x, y: y).3)
                }
            }
        }
    }

    @Test("Small pictures, grey profiles and sRGB go through Little CMS (or nowhere), as before")
    func otherPictures() throws {
        let small = PhotoImage(taking: gdk_pixbuf_new(GDK_COLORSPACE_RGB, 0, 8, 64, 64)!)
        #expect(!ColorProfile.Conversion(small.pixbuf, from: ColorProfileTests.adobeRGB).usesTables)
        let grey = Self.lattice(alpha: false)
        gdk_pixbuf_fill(grey.pixbuf, 0x8080_80FF)
        let greyProfile = ColourDescription.greyProfile(gamma: 1.8)!
        let greyConversion = ColorProfile.Conversion(grey.pixbuf, from: greyProfile)
        #expect(!greyConversion.usesTables)
        #expect(greyConversion.outcome != .assumedSRGB)
    }

    @Test(
        "Profiles with their colourants and curves changed at random never crash the tables, and agree with Little CMS or are not used"
    )
    func mutatedProfiles() throws {
        var generator = SystemRandomNumberGenerator()
        let base = [UInt8](ColourDescription.profile(primaries: 12, transfer: 13, from: "test")!)
        // The tag data (colourants and curves) follows the header and the tag table.
        let tagCount = Int(base[128]) << 24 | Int(base[129]) << 16 | Int(base[130]) << 8 | Int(base[131])
        let dataStart = 132 + 12 * tagCount
        var used = 0
        for round in 0..<24 {
            var profile = base
            for _ in 0..<(1 + round % 3) {
                profile[Int.random(in: dataStart..<profile.count, using: &generator)] = .random(
                    in: 0...255, using: &generator)
            }
            // 131,072 pixels: the fewest the tables are used for.
            let image = Self.lattice(alpha: round % 2 == 1, height: 256)
            let before = Self.rgb(image)
            let conversion = ColorProfile.Conversion(image.pixbuf, from: Data(profile))
            conversion.rows(0..<image.height, shared: true)
            guard conversion.usesTables else { continue }
            used += 1
            let reference = ColorProfileTests.ToSRGB(
                from: Data(profile), format: ColorProfile.pixelFormat(channels: 3))(
                    before, pixels: 512 * 256)
            let worst = Self.worst(Self.rgb(image), reference)
            #expect(worst <= 2, "round \(round): a colour \(worst) levels from Little CMS's")
        }
        #expect(used > 0, "some changed profiles still go through the tables")
    }
}
