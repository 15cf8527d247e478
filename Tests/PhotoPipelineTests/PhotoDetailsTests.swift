import Foundation
@testable import PhotoPipeline
import Testing
import TestSupport

/// What photos say of themselves, read with gexiv2 (`PhotoDetails`), against what exiftool
/// wrote into them and reads back, in each format cameras, phones and other apps write.
@Suite struct PhotoDetailsTests {
    /// The tags a camera and a person's photo app write, as exiftool takes them.
    private static let tags = [
        "-Make=Canon", "-Model=Canon EOS 5D Mark IV", "-LensModel=EF24-105mm f/4L IS USM", "-ExposureTime=1/250",
        "-FNumber=8", "-ISO=200", "-FocalLength=50", "-FocalLengthIn35mmFormat=50", "-ExifIFD:Flash#=1",
        "-DateTimeOriginal=2021:07:04 18:30:05", "-OffsetTimeOriginal=+02:00", "-GPSLatitude=33.8568",
        "-GPSLatitudeRef=S", "-GPSLongitude=151.2153", "-GPSLongitudeRef=E", "-GPSAltitude=12", "-GPSAltitudeRef=0",
        "-XMP-dc:Creator=Ada Lovelace", "-XMP-dc:Rights=© 2021 Ada Lovelace", "-XMP-dc:Description=The harbour at dusk",
    ]

    private static func tagged(_ format: String, in folder: ScratchFolder) async throws -> Data {
        let file = folder.url.appendingPathComponent("photo.\(format)")
        try #require(TestPictures.write(file, format: format, rgb: 0x556677, size: 96))
        let wrote = try await run(
            URL(fileURLWithPath: "/usr/bin/exiftool"), ["-q", "-overwrite_original"] + tags + [file.path])
        try #require(wrote.status == 0, "\(wrote.stderr)")
        return try Data(contentsOf: file)
    }

    @Test(
        "Date and zone, camera, lens, exposure, focal length, flash, place, author, copyright and caption",
        arguments: ["jpeg", "png", "tiff", "webp"])
    func everything(format: String) async throws {
        let folder = try ScratchFolder()
        let details = try #require(PhotoDetails.read(try await Self.tagged(format, in: folder)))
        #expect(details.dateTaken == "2021:07:04 18:30:05")
        #expect(details.camera == "Canon EOS 5D Mark IV")
        #expect(details.lens == "EF24-105mm f/4L IS USM")
        #expect(details.exposure == PhotoDetails.Exposure(numerator: 1, denominator: 250))
        #expect(details.fNumber == 8)
        #expect(details.iso == 200)
        #expect(details.focalLength == 50)
        #expect(details.focalLength35 == 50)
        #expect(details.flashFired == true)
        #expect(abs((details.latitude ?? 0) + 33.8568) < 1e-4, "\(String(describing: details.latitude))")
        #expect(abs((details.longitude ?? 0) - 151.2153) < 1e-4, "\(String(describing: details.longitude))")
        #expect(details.altitude == 12)
        #expect(details.author == "Ada Lovelace")
        #expect(details.copyright == "© 2021 Ada Lovelace")
        #expect(details.caption == "The harbour at dusk")
        // exiftool writes the zone into EXIF's own block, which PNG and WebP keep too.
        #expect(details.timeZone == "+02:00")
    }

    @Test(
        "A phone's HEIC: camera, lens and exposure (its Exif item read as a TIFF block where Exiv2's own HEIF reader finds none)"
    )
    func heic() async throws {
        let folder = try ScratchFolder()
        let png = folder.url.appendingPathComponent("phone.png")
        let heic = folder.url.appendingPathComponent("phone.heic")
        try #require(TestPictures.write(png, format: "png", rgb: 0x446688, size: 128))
        let made = try await run(URL(fileURLWithPath: "/usr/bin/heif-enc"), ["-q", "60", png.path, "-o", heic.path])
        try #require(made.status == 0, "\(made.stderr)")
        let wrote = try await run(
            URL(fileURLWithPath: "/usr/bin/exiftool"),
            [
                "-q", "-overwrite_original", "-Make=Apple", "-Model=iPhone 13", "-LensModel=iPhone 13 back camera",
                "-ExposureTime=1/120", "-FNumber=1.6", "-ISO=50", heic.path,
            ])
        try #require(wrote.status == 0, "\(wrote.stderr)")
        let details = try #require(PhotoDetails.read(try Data(contentsOf: heic)))
        #expect(details.camera == "Apple iPhone 13")
        #expect(details.lens == "iPhone 13 back camera")
        #expect(details.exposure == PhotoDetails.Exposure(numerator: 1, denominator: 120))
        #expect(details.fNumber == 1.6 && details.iso == 50)
    }

    @Test("A photo that says nothing of itself gives nothing; bytes Exiv2 does not know give nil")
    func nothing() throws {
        let folder = try ScratchFolder()
        let plain = folder.url.appendingPathComponent("plain.jpeg")
        try #require(TestPictures.write(plain, format: "jpeg"))
        #expect(PhotoDetails.read(try Data(contentsOf: plain))?.isEmpty ?? true)
        #expect(PhotoDetails.read(Data("not a picture at all".utf8)) == nil)
        #expect(PhotoDetails.read(Data()) == nil)
    }

    @Test(
        "A damaged EXIF block (cut short, its offsets pointing anywhere) reads what is sound or nothing, never crashes")
    func damaged() async throws {
        let folder = try ScratchFolder()
        let whole = try await Self.tagged("jpeg", in: folder)
        // Cut inside the EXIF block, and the same with its bytes scrambled after the header.
        for length in stride(from: 40, to: min(whole.count, 2_000), by: 97) {
            _ = PhotoDetails.read(whole.prefix(length))
            var scrambled = whole
            for index in stride(from: 30, to: min(length, scrambled.count), by: 7) { scrambled[index] ^= 0x5A }
            _ = PhotoDetails.read(scrambled)
        }
    }

    @Test("The decoder helper reads them for the viewer's information (and its camera and date come from them)")
    func throughTheHelper() async throws {
        let folder = try ScratchFolder()
        let bytes = try await Self.tagged("jpeg", in: folder)
        let pool = DecoderPool(configuration: AppConfiguration(), maxHelpers: 1, idleSeconds: 30)
        let info = try Decoding.info(bytes, pool: pool)
        #expect(info.details?.lens == "EF24-105mm f/4L IS USM")
        #expect(info.camera == "Canon EOS 5D Mark IV" && info.date == "2021:07:04 18:30:05")
        // Work that only needs the size (saving, turning) goes without them.
        let bare = try Decoding.info(bytes, details: false, pool: pool)
        #expect(bare.details == nil && bare.width == info.width && bare.height == info.height)
        #expect(pool.counts.crashed == 0)
    }

    @Test("What Exiv2 missed is taken from the app's own EXIF reader, field by field, none left out")
    func filledField() {
        var full = PhotoDetails()
        full.dateTaken = "2021:07:04 18:30:05"
        full.timeZone = "+02:00"
        full.make = "Canon"
        full.model = "EOS R6"
        full.lens = "RF50mm F1.8 STM"
        full.exposure = PhotoDetails.Exposure(numerator: 1, denominator: 250)
        full.fNumber = 1.8
        full.iso = 400
        full.focalLength = 50
        full.focalLength35 = 50
        full.flashFired = false
        full.latitude = 48.85
        full.longitude = 2.35
        full.altitude = 35
        full.author = "A. Photographer"
        full.copyright = "CC BY 4.0"
        full.caption = "A street at dusk"
        // Every field is set above (a field added to PhotoDetails and not here fails this).
        let unset = Mirror(reflecting: full).children.filter { child in
            let value = Mirror(reflecting: child.value)
            return value.displayStyle == .optional && value.children.isEmpty
        }
        #expect(unset.map(\.label) == [])
        #expect(PhotoDetails().filled(from: full) == full)
        #expect(full.filled(from: PhotoDetails()) == full)
        var partial = PhotoDetails()
        partial.lens = "Another lens"
        #expect(partial.filled(from: full).lens == "Another lens")
        #expect(partial.filled(from: full).caption == full.caption)
    }
}
