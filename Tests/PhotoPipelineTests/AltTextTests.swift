import Foundation
import PhotoPipeline
import Testing
import TestSupport

/// A photo's alt text (IPTC's `Iptc4xmpCore:AltTextAccessibility`), written where its marks go
/// and read back by exiftool, and written by exiftool and read here.
@Suite(.serialized) struct AltTextTests {
    private static let pools: [String] = ["helper", "in-process"]

    private func pool(_ mode: String) -> DecoderPool {
        DecoderPool(
            configuration: .fromEnvironment(mode == "helper" ? [:] : ["CLASSIC_PHOTOS_SANDBOX": "off"]),
            maxHelpers: 1, idleSeconds: 30)
    }

    private func exiftool(_ arguments: [String]) throws -> String {
        let result = try run(URL(fileURLWithPath: "/usr/bin/exiftool"), arguments, timeout: 60)
        try #require(result.status == 0, "\(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// What exiftool reads as the alt text of `file` (a photo or a sidecar).
    private func altText(_ file: String) throws -> String {
        try exiftool(["-s3", "-XMP-iptcCore:AltTextAccessibility", file])
    }

    private func photo(in folder: URL) throws -> URL {
        let photo = folder.appendingPathComponent("IMG_0007.JPG")
        try TestPictures.jpegWithExif(
            make: "Canon", model: "Canon EOS R5", original: "2021:07:14 10:30:00", orientation: 1, little: true
        ).write(to: photo)
        return photo
    }

    @Test(
        "Alt text written here goes to the photo's sidecar (its marks kept), where exiftool reads it; changed, and taken away",
        arguments: pools)
    func writtenToSidecar(_ mode: String) throws {
        let pool = pool(mode)
        let folder = try TestPictures.makeFolder("alt-text")
        defer { try? FileManager.default.removeItem(at: folder) }
        let photo = try photo(in: folder)
        let marks = PhotoMarks(rating: 3, label: "Green", tags: ["Café"])
        #expect(
            MarksFiles.write(marks, old: .none, photoAt: photo.path, index: nil, pool: pool)
                == .sidecar(photo.path + ".xmp"))

        let text = "A cup of coffee on a saucer, seen from above; “café crème” in steam"
        let written = MarksFiles.writeAltText(AltTextChange(text), photoAt: photo.path, index: nil, pool: pool)
        #expect(written == .sidecar(photo.path + ".xmp"))
        #expect(try altText(photo.path + ".xmp") == text)
        #expect(try exiftool(["-s3", "-XMP-xmp:Rating", photo.path + ".xmp"]) == "3", "the marks kept")
        #expect(MarksFiles.read(photoAt: photo.path, index: nil, pool: pool) == marks)
        #expect(MarksFiles.altText(ofPhotoAt: photo.path, pool: pool) == text, "read back")

        // Marks written later keep it.
        let more = PhotoMarks(rating: 5, label: "Green", tags: ["Café"])
        _ = MarksFiles.write(more, old: marks, photoAt: photo.path, index: nil, pool: pool)
        #expect(try altText(photo.path + ".xmp") == text)

        _ = MarksFiles.writeAltText(AltTextChange("A cup of coffee"), photoAt: photo.path, index: nil, pool: pool)
        #expect(try altText(photo.path + ".xmp") == "A cup of coffee")
        _ = MarksFiles.writeAltText(AltTextChange("  "), photoAt: photo.path, index: nil, pool: pool)
        #expect(try altText(photo.path + ".xmp") == "", "taken away")
        #expect(MarksFiles.altText(ofPhotoAt: photo.path, pool: pool) == nil)
        #expect(try exiftool(["-s3", "-XMP-xmp:Rating", photo.path + ".xmp"]) == "5")
    }

    @Test(
        "With Write Marks into Photos, alt text goes into the JPEG itself, where exiftool reads it; its picture untouched"
    )
    func writtenIntoPhoto() throws {
        let pool = pool("helper")
        let folder = try TestPictures.makeFolder("alt-text")
        defer { try? FileManager.default.removeItem(at: folder) }
        let photo = try photo(in: folder)
        let before = try Data(contentsOf: photo)
        let start = try #require(before.firstRange(of: Data([0xFF, 0xDA]))?.lowerBound)
        let written = MarksFiles.writeAltText(
            AltTextChange("Two people on a beach at dusk"), photoAt: photo.path, intoPhoto: true, index: nil, pool: pool
        )
        #expect(written == .photo(photo.path))
        #expect(MarksFiles.sidecar(for: photo.path) == nil)
        #expect(try altText(photo.path) == "Two people on a beach at dusk")
        let after = try Data(contentsOf: photo)
        let newStart = try #require(after.firstRange(of: Data([0xFF, 0xDA]))?.lowerBound)
        #expect(after[newStart...] == before[start...], "the picture's data as it was")
        #expect(try exiftool(["-s3", "-EXIF:Model", photo.path]) == "Canon EOS R5")
        #expect(MarksFiles.altText(ofPhotoAt: photo.path, pool: pool) == "Two people on a beach at dusk")
    }

    @Test("Alt text exiftool wrote, in a photo or in its sidecar (which comes first), is read here", arguments: pools)
    func writtenByExiftool(_ mode: String) throws {
        let pool = pool(mode)
        let folder = try TestPictures.makeFolder("alt-text")
        defer { try? FileManager.default.removeItem(at: folder) }
        let photo = try photo(in: folder)
        #expect(MarksFiles.altText(ofPhotoAt: photo.path, pool: pool) == nil)
        _ = try exiftool([
            "-q", "-overwrite_original", "-XMP-iptcCore:AltTextAccessibility=A red kite over a field", photo.path,
        ])
        #expect(MarksFiles.altText(ofPhotoAt: photo.path, pool: pool) == "A red kite over a field")
        // A sidecar made from the photo's XMP, then changed.
        _ = try exiftool(["-q", "-o", photo.path + ".xmp", photo.path])
        _ = try exiftool([
            "-q", "-overwrite_original", "-XMP-iptcCore:AltTextAccessibility=A kite, from the sidecar",
            photo.path + ".xmp",
        ])
        #expect(MarksFiles.altText(ofPhotoAt: photo.path, pool: pool) == "A kite, from the sidecar")
        // gexiv2 reads the photo's own for the details of a photo.
        let details = try #require(Decoding.details(try Data(contentsOf: photo), pool: pool))
        #expect(details.altText == "A red kite over a field")
    }
}
