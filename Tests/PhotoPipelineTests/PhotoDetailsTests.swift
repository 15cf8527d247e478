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
        full.altText = "A cobbled street under lamps at dusk"
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

    @Test(
        "The index's date and camera are the panel's: where a photo's first bytes do not settle them (WebP, EXIF behind a large segment, ImageMagick's PNG text chunks), the panel's reader reads the whole file"
    )
    func indexAgrees() async throws {
        let folder = try ScratchFolder()
        var files: [String: Data] = [:]
        for format in ["jpeg", "png", "tiff", "webp"] { files[format] = try await Self.tagged(format, in: folder) }
        // A JPEG whose EXIF comes after 70 KB of another segment (an ICC profile can be as long).
        let jpeg = try #require(files["jpeg"])
        func segment(_ count: Int) -> Data {
            Data(
                [0xFF, 0xE2, UInt8((count + 2) >> 8), UInt8((count + 2) & 0xFF)]
                    + [UInt8](repeating: 0x20, count: count))
        }
        files["late.jpeg"] = jpeg.prefix(2) + segment(65_000) + segment(8_000) + jpeg.dropFirst(2)
        for (name, bytes) in files { try bytes.write(to: folder.url.appendingPathComponent("photo-\(name)")) }
        // ImageMagick keeps EXIF in a PNG as hex in a text chunk ("Raw profile type exif").
        let converted = folder.url.appendingPathComponent("photo-magick.png")
        let convert = try await run(
            URL(fileURLWithPath: "/usr/bin/convert"),
            [folder.url.appendingPathComponent("photo-jpeg").path, "png:" + converted.path])
        try #require(convert.status == 0, "\(convert.stderr)")
        let names = files.keys.map { "photo-\($0)" } + ["photo-magick.png"]
        for name in names {
            let path = folder.url.appendingPathComponent(name).path
            let panel = try #require(PhotoDetails.read(try Data(contentsOf: URL(fileURLWithPath: path))), "\(name)")
            #expect(panel.dateTaken == "2021:07:04 18:30:05", "\(name)")
            let index = SortFacts.indexedTags(path: path)
            #expect(index.date == "2021-07-04 18:30:05", "\(name)")
            #expect(index.camera == "Canon EOS 5D Mark IV" && index.camera == panel.camera, "\(name)")
        }
        // A picture with no EXIF at all is settled by its first bytes: nothing, and no helper.
        let plain = folder.url.appendingPathComponent("plain.png")
        try #require(TestPictures.write(plain, format: "png", rgb: 0x112233, size: 32))
        #expect(ExifReader.holdsNone(try Data(contentsOf: plain)))
        #expect(SortFacts.indexedTags(path: plain.path).date == nil)
        // A segment whose length is less than its own two bytes settles nothing (and is no crash).
        #expect(!ExifReader.holdsNone(Data([0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x01, 0x45, 0x78])))
    }

    @Test(
        "A photo whose date and camera are only in XMP or IPTC (an app's export, a scan) gives them, with the zone, to the panel and the index"
    )
    func xmpAndIPTC() async throws {
        let folder = try ScratchFolder()
        let cases: [(name: String, tags: [String], zone: String, camera: String?)] = [
            (
                "xmp",
                [
                    "-XMP-exif:DateTimeOriginal=2002:07:13 15:58:28Z", "-XMP-tiff:Make=FUJIFILM",
                    "-XMP-tiff:Model=FinePixS1Pro",
                ],
                "+00:00", "FUJIFILM FinePixS1Pro"
            ),
            ("iptc", ["-IPTC:DateCreated=2002:07:13", "-IPTC:TimeCreated=15:58:28+02:00"], "+02:00", nil),
        ]
        for (name, tags, zone, camera) in cases {
            let file = folder.url.appendingPathComponent("\(name).jpeg")
            try #require(TestPictures.write(file, format: "jpeg", rgb: 0x445566, size: 64))
            let wrote = try await run(
                URL(fileURLWithPath: "/usr/bin/exiftool"), ["-q", "-overwrite_original"] + tags + [file.path])
            try #require(wrote.status == 0, "\(wrote.stderr)")
            let details = PhotoDetails.read(try Data(contentsOf: file))
            #expect(
                details?.dateTaken == "2002:07:13 15:58:28" && details?.timeZone == zone,
                "\(name) \(String(describing: details))")
            #expect(details?.camera == camera, "\(name)")
            let index = SortFacts.indexedTags(path: file.path)
            #expect(index.date == "2002-07-13 15:58:28" && index.camera == camera, "\(name)")
        }
        #expect(PhotoDetails.exifDate(iso: "2021-07-04T18:30")! == ("2021:07:04 18:30:00", nil))
        #expect(PhotoDetails.exifDate(iso: "2021-07-04T18:30:05.25-05:00")! == ("2021:07:04 18:30:05", "-05:00"))
        #expect(PhotoDetails.exifDate(iso: "2021-07-04") == nil && PhotoDetails.exifDate(iso: "July 4th, 2021") == nil)
    }
}
