import Foundation
import PhotoPipeline
import Testing
import TestSupport

/// Marks written into the photos themselves (the preference Write Marks into Photos): read by
/// exiftool from the photo, everything else the photo holds kept, the picture's data untouched;
/// a sidecar the photo has written as well; RAW files left alone.
@Suite(.serialized) struct MarksInPhotoTests {
    private static let pools: [String] = ["helper", "in-process"]

    private func pool(_ mode: String) -> DecoderPool {
        DecoderPool(
            configuration: .fromEnvironment(mode == "helper" ? [:] : ["CLASSIC_PHOTOS_SANDBOX": "off"]),
            maxHelpers: 1, idleSeconds: 30)
    }

    /// What exiftool reads of `file` (`-G1 -j`), by tag name ("XMP-xmp:Rating", "IFD0:Make", …).
    private func exiftool(_ file: URL, _ tags: [String]) throws -> [String: String] {
        let result = try run(
            URL(fileURLWithPath: "/usr/bin/exiftool"), ["-j", "-G1"] + tags + [file.path], timeout: 60)
        try #require(result.status == 0, "\(result.stderr)")
        let parsed = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
        let read = try #require(parsed?.first)
        return read.filter { $0.key != "SourceFile" }.mapValues { value in
            (value as? [Any]).map { $0.map { "\($0)" }.joined(separator: ", ") } ?? "\(value)"
        }
    }

    /// `bytes` (a JPEG) without its XMP segment.
    private func withoutXMP(_ bytes: Data) throws -> Data {
        let namespace = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
        var offset = 2
        let b = [UInt8](bytes)
        while offset + 4 <= b.count, b[offset] == 0xFF, b[offset + 1] != 0xDA {
            let end = offset + 2 + (Int(b[offset + 2]) << 8 | Int(b[offset + 3]))
            if b[offset + 1] == 0xE1, b[(offset + 4)...].starts(with: namespace) {
                return Data(b[..<offset] + b[end...])
            }
            offset = end
        }
        throw MarksTestError("no XMP segment")
    }

    /// The bytes of `file` from the first `marker` on: a JPEG's picture data (from its first
    /// start of scan) or a PNG's (from its first IDAT chunk), which a change of XMP leaves alone.
    private func picture(_ file: URL, from marker: [UInt8]) throws -> Data {
        let bytes = try Data(contentsOf: file)
        let start = try #require(
            bytes.firstRange(of: marker)?.lowerBound, "no picture data in \(file.lastPathComponent)")
        return bytes[start...]
    }

    @Test(
        "A JPEG's stars, label and tags go into the photo, where exiftool reads them; its EXIF and picture stay",
        arguments: pools)
    func intoJPEG(_ mode: String) throws {
        let pool = pool(mode)
        let folder = try TestPictures.makeFolder("marks-in-photo")
        defer { try? FileManager.default.removeItem(at: folder) }
        let photo = folder.appendingPathComponent("IMG_0001.JPG")
        try TestPictures.jpegWithExif(
            make: "Canon", model: "Canon EOS R5", original: "2021:07:14 10:30:00", orientation: 1, little: true
        ).write(to: photo)
        let exifBefore = try exiftool(photo, ["-EXIF:all"])
        let original = try Data(contentsOf: photo)
        let pictureBefore = try picture(photo, from: [0xFF, 0xDA])
        #expect(exifBefore["IFD0:Make"] == "Canon")

        let marks = PhotoMarks(rating: 4, label: "Red", tags: ["Beach", "Places|France|Paris"])
        let outcome = MarksFiles.write(marks, old: .none, photoAt: photo.path, intoPhoto: true, index: nil, pool: pool)
        #expect(outcome == .photo(photo.path))
        #expect(MarksFiles.sidecar(for: photo.path) == nil, "no sidecar made")
        let xmp = try exiftool(photo, ["-XMP:all"])
        #expect(xmp["XMP-xmp:Rating"] == "4")
        #expect(xmp["XMP-xmp:Label"] == "Red")
        #expect(xmp["XMP-dc:Subject"] == "Beach, Places, France, Paris")
        #expect(xmp["XMP-lr:HierarchicalSubject"] == "Places|France|Paris")
        #expect(try exiftool(photo, ["-EXIF:all"]) == exifBefore, "its EXIF as it was")
        #expect(try withoutXMP(Data(contentsOf: photo)) == original, "every other byte as it was")
        #expect(try picture(photo, from: [0xFF, 0xDA]) == pictureBefore, "its picture's data as it was")
        #expect(MarksFiles.read(photoAt: photo.path, index: nil, pool: pool) == marks, "read back")

        // Changed again: only the stars; the tags and label already there stay.
        let fewer = PhotoMarks(rating: 2, label: "Red", tags: marks.tags)
        #expect(
            MarksFiles.write(fewer, old: marks, photoAt: photo.path, intoPhoto: true, index: nil, pool: pool)
                == .photo(photo.path))
        let again = try exiftool(photo, ["-XMP:all"])
        #expect(again["XMP-xmp:Rating"] == "2")
        #expect(again["XMP-dc:Subject"] == "Beach, Places, France, Paris")
        #expect(try picture(photo, from: [0xFF, 0xDA]) == pictureBefore)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(names == ["IMG_0001.JPG"], "nothing else left in the folder: \(names)")
    }

    @Test(
        "A PNG takes its marks too; a RAW file, a link and the preference off leave the photo alone and write a sidecar"
    )
    func pngAndRaw() throws {
        let pool = pool("helper")
        let folder = try TestPictures.makeFolder("marks-in-photo")
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = folder.appendingPathComponent("scan.png")
        try #require(TestPictures.write(png, format: "png", size: 96))
        let pngPicture = try picture(png, from: Array("IDAT".utf8))
        #expect(
            MarksFiles.write(
                PhotoMarks(rating: 5), old: .none, photoAt: png.path, intoPhoto: true, index: nil, pool: pool)
                == .photo(png.path))
        #expect(try exiftool(png, ["-XMP-xmp:Rating"])["XMP-xmp:Rating"] == "5")
        #expect(try picture(png, from: Array("IDAT".utf8)) == pngPicture)
        // Written again: one XMP chunk, changed.
        #expect(
            MarksFiles.write(
                PhotoMarks(rating: 2), old: PhotoMarks(rating: 5), photoAt: png.path, intoPhoto: true, index: nil,
                pool: pool)
                == .photo(png.path))
        #expect(try exiftool(png, ["-XMP-xmp:Rating"])["XMP-xmp:Rating"] == "2")
        let chunks = try Data(contentsOf: png).ranges(of: Data("XML:com.adobe.xmp".utf8)).count
        #expect(chunks == 1, "one XMP chunk")

        // A RAW file (here a JPEG by its bytes, a NEF by its name, as a camera's RAW files are
        // TIFF-shaped): photo apps keep RAW files untouched and read their sidecars.
        let raw = folder.appendingPathComponent("DSC_0001.NEF")
        try FileManager.default.copyItem(
            at: Products.packageRoot.appendingPathComponent("data/photos/coffee.jpg"), to: raw)
        let rawBefore = try Data(contentsOf: raw)
        #expect(
            MarksFiles.write(
                PhotoMarks(rating: 3), old: .none, photoAt: raw.path, intoPhoto: true, index: nil, pool: pool)
                == .sidecar(raw.path + ".xmp"))
        #expect(try Data(contentsOf: raw) == rawBefore)

        // A link to a photo: GIO would write over its target in place, not whole; the link's
        // sidecar takes the marks.
        let link = folder.appendingPathComponent("link.png")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: png)
        let pngBefore = try Data(contentsOf: png)
        #expect(
            MarksFiles.write(
                PhotoMarks(rating: 2), old: .none, photoAt: link.path, intoPhoto: true, index: nil, pool: pool)
                == .sidecar(link.path + ".xmp"))
        #expect(try Data(contentsOf: png) == pngBefore)

        // A photo with another name (a hard link): both names would part, or change together.
        let linked = folder.appendingPathComponent("linked.png")
        try FileManager.default.linkItem(at: png, to: linked)
        #expect(
            MarksFiles.write(
                PhotoMarks(rating: 1), old: .none, photoAt: linked.path, intoPhoto: true, index: nil, pool: pool)
                == .sidecar(linked.path + ".xmp"))
        #expect(try Data(contentsOf: png) == pngBefore)

        // The preference off (the default): a JPEG stays as it was.
        let jpeg = folder.appendingPathComponent("kept.jpg")
        try FileManager.default.copyItem(
            at: Products.packageRoot.appendingPathComponent("data/photos/coffee.jpg"), to: jpeg)
        let jpegBefore = try Data(contentsOf: jpeg)
        #expect(
            MarksFiles.write(PhotoMarks(rating: 3), old: .none, photoAt: jpeg.path, index: nil, pool: pool)
                == .sidecar(jpeg.path + ".xmp"))
        #expect(try Data(contentsOf: jpeg) == jpegBefore)
    }

    @Test("A photo with a sidecar has both written, so that apps reading either find the same; many at once")
    func sidecarToo() throws {
        let pool = pool("helper")
        let folder = try TestPictures.makeFolder("marks-in-photo")
        defer { try? FileManager.default.removeItem(at: folder) }
        let photos = (0..<6).map { folder.appendingPathComponent("IMG_\($0).jpg") }
        for photo in photos {
            try FileManager.default.copyItem(
                at: Products.packageRoot.appendingPathComponent("data/photos/coffee.jpg"), to: photo)
        }
        // Lightroom's name for the first's sidecar, with a property of its own.
        let lightroom = folder.appendingPathComponent("IMG_0.xmp")
        try Data(
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" \
            xmlns:crs="http://ns.adobe.com/camera-raw-settings/1.0/" xmp:Rating="1" crs:Exposure2012="+0.50"/>\
            </rdf:RDF></x:xmpmeta>
            """.utf8
        ).write(to: lightroom)
        let index = try PhotoIndex(path: folder.appendingPathComponent("cache/index.sqlite").path)
        let writes = SidecarWrites(index: index, pool: pool, intoPhotos: true)
        for photo in photos {
            let old = MarksFiles.read(photoAt: photo.path, index: index, pool: pool)
            let outcome = writes.write(PhotoMarks(rating: 3, label: "Green"), old: old, photoAt: photo.path)
            #expect(outcome == (photo == photos[0] ? .sidecar(lightroom.path) : .photo(photo.path)))
        }
        writes.flush()
        for photo in photos {
            #expect(try exiftool(photo, ["-XMP-xmp:Rating"])["XMP-xmp:Rating"] == "3", "\(photo.lastPathComponent)")
        }
        let sidecar = try exiftool(lightroom, ["-XMP:all"])
        #expect(sidecar["XMP-xmp:Rating"] == "3" && sidecar["XMP-xmp:Label"] == "Green")
        #expect(sidecar["XMP-crs:Exposure2012"] == "+0.50", "the sidecar's own property kept")
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
        #expect(names == Set(photos.map(\.lastPathComponent) + ["IMG_0.xmp", "cache"]), "no new sidecar: \(names)")
        // The index knows where each photo's marks are now: read again without the files' help.
        for photo in photos.dropFirst() {
            #expect(index.marks(path: photo.path)?.source == photo.path)
            #expect(
                MarksFiles.read(photoAt: photo.path, index: index, pool: pool) == PhotoMarks(rating: 3, label: "Green"))
        }
    }

    @Test(
        "A photo whose own XMP and sidecar differ: both given the same marks, not only what changed from the sidecar's")
    func ownAndSidecarDiffer() throws {
        let pool = pool("helper")
        let folder = try TestPictures.makeFolder("marks-in-photo")
        defer { try? FileManager.default.removeItem(at: folder) }
        let photo = folder.appendingPathComponent("IMG_7.jpg")
        try FileManager.default.copyItem(
            at: Products.packageRoot.appendingPathComponent("data/photos/coffee.jpg"), to: photo)
        let own = PhotoMarks(rating: 5, label: "Blue", tags: ["Old"])
        #expect(
            MarksFiles.write(own, old: .none, photoAt: photo.path, intoPhoto: true, index: nil, pool: pool)
                == .photo(photo.path))
        // Another app's sidecar, saying otherwise; it is what is read.
        let sidecar = URL(fileURLWithPath: photo.path + ".xmp")
        #expect(
            MarksFiles.write(PhotoMarks(rating: 1), old: own, photoAt: photo.path, index: nil, pool: pool)
                == .sidecar(sidecar.path))
        try Data(
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="1"/>\
            </rdf:RDF></x:xmpmeta>
            """.utf8
        ).write(to: sidecar)
        let read = MarksFiles.read(photoAt: photo.path, index: nil, pool: pool)
        #expect(read == PhotoMarks(rating: 1))
        let new = PhotoMarks(rating: 3, label: "Green")
        #expect(
            MarksFiles.write(new, old: read, photoAt: photo.path, intoPhoto: true, index: nil, pool: pool)
                == .sidecar(sidecar.path))
        let inPhoto = try exiftool(photo, ["-XMP:all"])
        #expect(inPhoto["XMP-xmp:Rating"] == "3" && inPhoto["XMP-xmp:Label"] == "Green", "\(inPhoto)")
        #expect(inPhoto["XMP-dc:Subject"] == nil, "the photo's old tag taken away as the sidecar has none: \(inPhoto)")
        let inSidecar = try exiftool(sidecar, ["-XMP:all"])
        #expect(inSidecar["XMP-xmp:Rating"] == "3" && inSidecar["XMP-xmp:Label"] == "Green")
    }
}
