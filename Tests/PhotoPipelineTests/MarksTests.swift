import CSQLite
import Foundation
import PhotoPipeline
import Testing
import TestSupport

/// Stars, rejects, labels and tags in XMP, as other photo apps read them: written to sidecars
/// and read back by exiftool, read from sidecars shaped as darktable and Lightroom write them
/// and from a photo's own XMP, parsed in a decoder helper (confined, as the app runs it) and
/// in the app's own process.
@Suite(.serialized) struct MarksTests {
    private static let pools: [String] = ["helper", "in-process"]

    private func pool(_ mode: String) -> DecoderPool {
        DecoderPool(
            configuration: .fromEnvironment(mode == "helper" ? [:] : ["CLASSIC_PHOTOS_SANDBOX": "off"]),
            maxHelpers: 1, idleSeconds: 30)
    }

    /// A folder holding a copy of a bundled photo named `name`.
    private func photo(named name: String) throws -> (folder: URL, photo: URL) {
        let folder = try TestPictures.makeFolder("marks")
        let photo = folder.appendingPathComponent(name)
        try FileManager.default.copyItem(
            at: Products.packageRoot.appendingPathComponent("data/photos/coffee.jpg"), to: photo)
        return (folder, photo)
    }

    /// What exiftool reads of `file`'s XMP, by tag name (`-G1 -j -struct`: "XMP-xmp:Rating", …).
    private func exiftool(_ file: URL, _ tags: [String] = ["-XMP:all"]) throws -> [String: Any] {
        let result = try run(
            URL(fileURLWithPath: "/usr/bin/exiftool"), ["-j", "-G1", "-struct"] + tags + [file.path], timeout: 60)
        try #require(result.status == 0, "\(result.stderr)")
        let parsed = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
        var tags = try #require(parsed?.first)
        tags.removeValue(forKey: "SourceFile")
        return tags
    }

    /// The sidecar a write wrote (failing the test when it wrote none).
    @discardableResult
    private func written(_ outcome: MarksFiles.Written) throws -> String {
        guard case .sidecar(let path) = outcome else { throw MarksTestError("not written: \(outcome)") }
        return path
    }

    private func strings(_ value: Any?) -> [String] {
        switch value {
        case let many as [Any]: many.map { "\($0)" }
        case let one?: ["\(one)"]
        case nil: []
        }
    }

    @Test("Stars, a label and tags written to a new sidecar are what exiftool reads, and read back", arguments: pools)
    func writtenAndReadBack(_ mode: String) throws {
        let pool = pool(mode)
        #expect((pool.confinement == .bubblewrap) == (mode == "helper"), "\(pool.confinement)")
        let (folder, photo) = try photo(named: "IMG_0001.JPG")
        defer { try? FileManager.default.removeItem(at: folder) }
        let before = try Data(contentsOf: photo)
        #expect(MarksFiles.read(photoAt: photo.path, index: nil, pool: pool) == .none)
        let marks = PhotoMarks(rating: 4, label: "Red", tags: ["Beach", "Places|France|Paris"])
        let outcome = MarksFiles.write(marks, old: .none, photoAt: photo.path, index: nil, pool: pool)
        #expect(outcome == .sidecar(photo.path + ".xmp"), "a new sidecar, named as darktable and digiKam name it")
        let read = try exiftool(URL(fileURLWithPath: photo.path + ".xmp"))
        #expect(strings(read["XMP-xmp:Rating"]) == ["4"])
        #expect(strings(read["XMP-xmp:Label"]) == ["Red"])
        #expect(strings(read["XMP-dc:Subject"]) == ["Beach", "Places", "France", "Paris"])
        #expect(strings(read["XMP-lr:HierarchicalSubject"]) == ["Places|France|Paris"])
        #expect(MarksFiles.read(photoAt: photo.path, index: nil, pool: pool) == marks)
        #expect(try Data(contentsOf: photo) == before, "the photo itself is not rewritten")

        // Rejected, the label taken off, a tag removed: only those change.
        let changed = PhotoMarks(rating: PhotoMarks.rejected, label: nil, tags: ["Beach"])
        _ = try written(MarksFiles.write(changed, old: marks, photoAt: photo.path, index: nil, pool: pool))
        let again = try exiftool(URL(fileURLWithPath: photo.path + ".xmp"))
        #expect(strings(again["XMP-xmp:Rating"]) == ["-1"])
        #expect(again["XMP-xmp:Label"] == nil)
        #expect(strings(again["XMP-dc:Subject"]) == ["Beach"])
        #expect(again["XMP-lr:HierarchicalSubject"] == nil)
        #expect(MarksFiles.read(photoAt: photo.path, index: nil, pool: pool) == changed)
    }

    @Test("A darktable sidecar keeps its edit history and every other property when a star changes", arguments: pools)
    func darktableSidecarKept(_ mode: String) throws {
        let pool = pool(mode)
        let (folder, photo) = try photo(named: "DSC_1234.NEF")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sidecar = URL(fileURLWithPath: photo.path + ".xmp")
        try Data(Self.darktableSidecar.utf8).write(to: sidecar)
        let before = try exiftool(sidecar)
        let old = MarksFiles.read(photoAt: photo.path, index: nil, pool: pool)
        #expect(old == PhotoMarks(rating: 2, tags: ["holiday"]))
        _ = try written(
            MarksFiles.write(
                PhotoMarks(rating: 5, tags: ["holiday"]), old: old, photoAt: photo.path, index: nil, pool: pool
            ))
        var after = try exiftool(sidecar)
        #expect(strings(after["XMP-xmp:Rating"]) == ["5"])
        after["XMP-xmp:Rating"] = before["XMP-xmp:Rating"]
        // The toolkit that wrote the file last names itself; that is not a property of the photo.
        after["XMP-x:XMPToolkit"] = before["XMP-x:XMPToolkit"]
        let beforeText = try JSONSerialization.data(withJSONObject: before, options: [.sortedKeys])
        let afterText = try JSONSerialization.data(withJSONObject: after, options: [.sortedKeys])
        #expect(
            String(decoding: afterText, as: UTF8.self) == String(decoding: beforeText, as: UTF8.self),
            "every other property as it was")
        let history = after["XMP-darktable:History"] as? [[String: Any]]
        #expect(history?.map { "\($0["Operation"] ?? "")" } == ["exposure", "colorin"])
    }

    @Test(
        "A Lightroom sidecar (IMG_1.xmp) and a photo's own XMP are read; a change to the latter goes to a new sidecar begun from it"
    )
    func lightroomAndEmbedded() throws {
        let pool = pool("helper")
        let (folder, photo) = try photo(named: "IMG_1.jpg")
        defer { try? FileManager.default.removeItem(at: folder) }
        // The photo's own XMP.
        let tagged = try run(
            URL(fileURLWithPath: "/usr/bin/exiftool"),
            [
                "-q", "-overwrite_original", "-XMP-xmp:Rating=2", "-XMP-dc:Subject=Dog", "-XMP-dc:Subject=Park",
                photo.path,
            ],
            timeout: 60)
        try #require(tagged.status == 0, "\(tagged.stderr)")
        let embedded = MarksFiles.read(photoAt: photo.path, index: nil, pool: pool)
        #expect(embedded == PhotoMarks(rating: 2, tags: ["Dog", "Park"]))
        let photoBytes = try Data(contentsOf: photo)
        let labelled = PhotoMarks(rating: 2, label: "Blue", tags: ["Dog", "Park"])
        _ = try written(MarksFiles.write(labelled, old: embedded, photoAt: photo.path, index: nil, pool: pool))
        let sidecar = try exiftool(URL(fileURLWithPath: photo.path + ".xmp"))
        #expect(strings(sidecar["XMP-xmp:Rating"]) == ["2"], "begun from the photo's XMP")
        #expect(strings(sidecar["XMP-dc:Subject"]) == ["Dog", "Park"])
        #expect(strings(sidecar["XMP-xmp:Label"]) == ["Blue"])
        #expect(try Data(contentsOf: photo) == photoBytes)
        #expect(MarksFiles.read(photoAt: photo.path, index: nil, pool: pool) == labelled)

        // Lightroom's name: the photo's name without its ending.
        try FileManager.default.removeItem(atPath: photo.path + ".xmp")
        let lightroom = folder.appendingPathComponent("IMG_1.xmp")
        try Data(Self.lightroomSidecar.utf8).write(to: lightroom)
        #expect(
            MarksFiles.read(photoAt: photo.path, index: nil, pool: pool)
                == PhotoMarks(rating: 3, label: "Green", tags: ["Animals|Dogs", "park"]))
        _ = try written(
            MarksFiles.write(
                PhotoMarks(rating: 4, label: "Green", tags: ["Animals|Dogs", "park"]),
                old: MarksFiles.read(photoAt: photo.path, index: nil, pool: pool), photoAt: photo.path, index: nil,
                pool: pool
            ))
        #expect(strings(try exiftool(lightroom)["XMP-xmp:Rating"]) == ["4"], "written to the sidecar that exists")
        #expect(!FileManager.default.fileExists(atPath: photo.path + ".xmp"))
    }

    @Test("What is not XMP reads as no marks, and a sidecar that cannot be written says why")
    func unreadableAndUnwritable() throws {
        let pool = pool("helper")
        let (folder, photo) = try photo(named: "p.jpg")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sidecar = URL(fileURLWithPath: photo.path + ".xmp")
        let damaged = Data("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF".utf8)
        try damaged.write(to: sidecar)
        #expect(MarksFiles.read(photoAt: photo.path, index: nil, pool: pool) == .none, "cut short")
        if case .sidecar = MarksFiles.write(
            PhotoMarks(rating: 1), old: .none, photoAt: photo.path, index: nil, pool: pool)
        {
            Issue.record("a damaged sidecar was written over")
        }
        #expect(try Data(contentsOf: sidecar) == damaged, "and left as it was")
        // A folder where the sidecar's name is taken by a folder: the write fails, with a reason.
        try FileManager.default.removeItem(at: sidecar)
        try FileManager.default.createDirectory(at: sidecar, withIntermediateDirectories: false)
        switch MarksFiles.write(PhotoMarks(rating: 1), old: .none, photoAt: photo.path, index: nil, pool: pool) {
        case .sidecar, .photo: Issue.record("written over a folder")
        case .failed(let failure, let kept): #expect(!failure.message.isEmpty && !kept)
        }
    }

    @Test(
        "The index keeps marks by the file they came from: a sidecar changed elsewhere is read again; marks no file could keep stay, and survive Clear Cache"
    )
    func indexed() throws {
        let pool = pool("helper")
        let (folder, photo) = try photo(named: "IMG_2.jpg")
        defer { try? FileManager.default.removeItem(at: folder) }
        let index = try PhotoIndex(path: folder.appendingPathComponent("cache/index.sqlite").path)
        let marks = PhotoMarks(rating: 3, tags: ["one"])
        let sidecar = try written(MarksFiles.write(marks, old: .none, photoAt: photo.path, index: index, pool: pool))
        let held = try #require(index.marks(path: photo.path))
        #expect(held.source == sidecar && held.marks == marks && !held.unsaved)
        // What the index holds for the sidecar as it is is what is read (not the file): shown
        // by holding other marks for the same size and time.
        index.remember(marks: [
            (photo.path, .init(source: sidecar, size: held.size, modified: held.modified, marks: PhotoMarks(rating: 5)))
        ])
        #expect(MarksFiles.read(photoAt: photo.path, index: index, pool: pool) == PhotoMarks(rating: 5))
        // Another app changes the sidecar: it is read again.
        let changed = try run(
            URL(fileURLWithPath: "/usr/bin/exiftool"), ["-q", "-overwrite_original", "-XMP-xmp:Rating=1", sidecar],
            timeout: 60)
        try #require(changed.status == 0, "\(changed.stderr)")
        #expect(MarksFiles.read(photoAt: photo.path, index: index, pool: pool) == PhotoMarks(rating: 1, tags: ["one"]))
        #expect(index.marks(path: photo.path)?.marks.rating == 1)

        // The sidecar's name taken by a folder: the marks are kept in the index, read from there.
        let other = folder.appendingPathComponent("IMG_3.jpg")
        try FileManager.default.copyItem(at: photo, to: other)
        try FileManager.default.createDirectory(atPath: other.path + ".xmp", withIntermediateDirectories: false)
        let unsaved = PhotoMarks(rating: PhotoMarks.rejected)
        guard
            case .failed(_, keptInIndex: true) = MarksFiles.write(
                unsaved, old: .none, photoAt: other.path, index: index, pool: pool)
        else { throw MarksTestError("written, or not kept") }
        #expect(MarksFiles.read(photoAt: other.path, index: index, pool: pool) == unsaved)
        #expect(index.marksCount() == 2 && index.marksCount(unsaved: true) == 1)
        index.clear()
        #expect(index.marksCount() == 1, "Clear Cache leaves the marks no file holds")
        #expect(index.marks(path: other.path)?.marks == unsaved)
    }

    @Test(
        "A JPEG's XMP is found among its segments after a large EXIF block and a comment; a JPEG without XMP, one cut short, and a PNG's XMP"
    )
    func ownXMPFound() throws {
        let pool = pool("helper")
        let (folder, photo) = try photo(named: "big.jpg")
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(PhotoXMP.bytes(ofPhotoAt: photo.path) == Data(), "no XMP segment: nothing to search")
        // 60 KB of comment before the XMP (segments are written in order: the comment, then XMP).
        let comment = String(repeating: "a long comment ", count: 4_000)
        let tagged = try run(
            URL(fileURLWithPath: "/usr/bin/exiftool"),
            [
                "-q", "-overwrite_original", "-Comment=\(comment)", "-XMP-xmp:Rating=4", "-XMP-xmp:Label=Green",
                photo.path,
            ],
            timeout: 60)
        try #require(tagged.status == 0, "\(tagged.stderr)")
        #expect(MarksFiles.read(photoAt: photo.path, index: nil, pool: pool) == PhotoMarks(rating: 4, label: "Green"))
        // Cut inside its segments: nothing found, nothing read past the end.
        let bytes = try Data(contentsOf: photo)
        let cut = folder.appendingPathComponent("cut.jpg")
        try bytes.prefix(2_000).write(to: cut)
        #expect(PhotoXMP.bytes(ofPhotoAt: cut.path) == Data())
        #expect(MarksFiles.read(photoAt: cut.path, index: nil, pool: pool) == .none)
        // A PNG keeps its XMP in a text chunk: found in its first bytes.
        let png = folder.appendingPathComponent("p.png")
        try #require(TestPictures.write(png, format: "png"))
        let pngTagged = try run(
            URL(fileURLWithPath: "/usr/bin/exiftool"), ["-q", "-overwrite_original", "-XMP-xmp:Rating=-1", png.path],
            timeout: 60)
        try #require(pngTagged.status == 0, "\(pngTagged.stderr)")
        #expect(MarksFiles.read(photoAt: png.path, index: nil, pool: pool) == PhotoMarks(rating: PhotoMarks.rejected))
    }

    @Test(
        "Sidecars written in groups (300: a group of 256 and the rest at flush) are all in place, read by exiftool, with no temporary file left; one that cannot be written leaves its marks to the index"
    )
    func groupedWrites() throws {
        let pool = pool("helper")
        let (folder, first) = try photo(named: "g0.jpg")
        defer { try? FileManager.default.removeItem(at: folder) }
        let photos = [first] + (1..<300).map { folder.appendingPathComponent("g\($0).jpg") }
        for photo in photos.dropFirst() { try FileManager.default.linkItem(at: first, to: photo) }
        // g7's sidecar is cut short: not written over.
        let damaged = Data("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF".utf8)
        try damaged.write(to: URL(fileURLWithPath: photos[7].path + ".xmp"))
        let index = try PhotoIndex(path: folder.appendingPathComponent("cache/index.sqlite").path)
        let writes = SidecarWrites(index: index, pool: pool)
        var kept = 0
        for (n, photo) in photos.enumerated() {
            switch writes.write(PhotoMarks(rating: n % 5 + 1), old: .none, photoAt: photo.path) {
            case .sidecar(let path): #expect(path == photo.path + ".xmp")
            case .photo: Issue.record("written into the photo")
            case .failed(_, let keptInIndex):
                #expect(n == 7 && keptInIndex)
                kept += 1
            }
        }
        writes.flush()
        #expect(kept == 1)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(!names.contains { $0.contains("~") }, "no temporary file left")
        #expect(names.filter { $0.hasSuffix(".xmp") }.count == 300)
        for n in [0, 255, 256, 299] {
            #expect(
                strings(try exiftool(URL(fileURLWithPath: photos[n].path + ".xmp"))["XMP-xmp:Rating"]) == [
                    "\(n % 5 + 1)"
                ])
            #expect(MarksFiles.read(photoAt: photos[n].path, index: index, pool: pool) == PhotoMarks(rating: n % 5 + 1))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: photos[7].path + ".xmp")) == damaged)
        #expect(index.marks(path: photos[7].path).map { $0.unsaved && $0.marks.rating == 3 } == true)
        #expect(index.marksCount() == 300)
    }

    @Test(
        "Ratings that are no number to keep (nan, 1e999, 7, -3) are read as none or clamped, never a crash",
        arguments: pools)
    func strangeRatings(_ mode: String) throws {
        let pool = pool(mode)
        let (folder, photo) = try photo(named: "odd.jpg")
        defer { try? FileManager.default.removeItem(at: folder) }
        for (text, expected) in [("nan", 0), ("1e999", 0), ("-inf", 0), ("7", 5), ("-3", -1), ("2.6", 3)] {
            let sidecar = """
                <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
                <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="\(text)"/>\
                </rdf:RDF></x:xmpmeta>
                """
            try Data(sidecar.utf8).write(to: URL(fileURLWithPath: photo.path + ".xmp"))
            #expect(MarksFiles.read(photoAt: photo.path, index: nil, pool: pool).rating == expected, "\(text)")
        }
    }

    /// An index file at `path` as version `version` of the app made it: its photos table as
    /// it was then, and `more` (SQL) after it.
    private static func oldIndex(at path: String, version: Int, _ more: String) throws {
        var old: OpaquePointer?
        try #require(sqlite3_open(path, &old) == SQLITE_OK)
        let made = sqlite3_exec(
            old,
            """
            PRAGMA application_id=\(0x4350_4958); PRAGMA user_version=\(version);
            CREATE TABLE photos (
                path TEXT PRIMARY KEY NOT NULL, size INTEGER NOT NULL, modified INTEGER NOT NULL,
                taken TEXT NOT NULL, width INTEGER, height INTEGER, orientation INTEGER, camera TEXT
            ) WITHOUT ROWID;
            \(more)
            """, nil, nil, nil)
        sqlite3_close(old)
        try #require(made == SQLITE_OK)
    }

    @Test("An index of the version before marks is given the marks' table, its facts forgotten to be read again")
    func indexOfVersionTwo() throws {
        let folder = try TestPictures.makeFolder("marks-index")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("index.sqlite").path
        try Self.oldIndex(
            at: path, version: 2,
            "INSERT INTO photos VALUES ('/p/a.jpg', 10, 100, '2020-01-01 10:00:00', NULL, NULL, NULL, NULL);")
        let index = try PhotoIndex(path: path)
        // Read with the reader of then, which could take a modification time for a date.
        #expect(index.dateTaken(path: "/p/a.jpg", size: 10, modified: 100) == nil)
        index.remember(marks: [
            ("/p/a.jpg", .init(source: "/p/a.jpg", size: 10, modified: 100, marks: PhotoMarks(rating: 2)))
        ])
        #expect(index.marks(path: "/p/a.jpg")?.marks == PhotoMarks(rating: 2))
        #expect(!FileManager.default.fileExists(atPath: path + ".set-aside"))
    }

    @Test(
        "An index of version 3 or 4 keeps its marks and forgets its facts, to be read again as the panel reads them, with the lens and the position",
        arguments: [3, 4]
    )
    func indexOfVersionThreeOrFour(version: Int) throws {
        let folder = try TestPictures.makeFolder("marks-index-\(version)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("index.sqlite").path
        let lens = version == 4 ? "ALTER TABLE photos ADD COLUMN lens TEXT;" : ""
        let values = version == 4 ? ", NULL" : ""
        try Self.oldIndex(
            at: path, version: version,
            """
            \(lens)
            CREATE TABLE marks (
                path TEXT PRIMARY KEY NOT NULL, source TEXT NOT NULL, size INTEGER NOT NULL,
                modified INTEGER NOT NULL, rating INTEGER NOT NULL, label TEXT, tags TEXT NOT NULL,
                unsaved INTEGER NOT NULL
            ) WITHOUT ROWID;
            INSERT INTO photos VALUES ('/p/a.webp', 10, 100, '2024-01-01 09:00:00', NULL, NULL, NULL, 'NIKON D70'\(values));
            INSERT INTO marks VALUES ('/p/a.webp', '/p/a.webp', 10, 100, 4, NULL, '', 0);
            """)
        let index = try PhotoIndex(path: path)
        #expect(index.dateTaken(path: "/p/a.webp", size: 10, modified: 100) == nil)
        #expect(index.marks(path: "/p/a.webp")?.marks == PhotoMarks(rating: 4))
        #expect(!FileManager.default.fileExists(atPath: path + ".set-aside"))
        // Read again, with the lens and the position the index now keeps.
        let facts = PhotoIndex.Facts(
            size: 10, modified: 100, taken: "2015-07-16 15:38:54", camera: "NIKON D5300", lens: "18-140mm",
            latitude: -33.8568, longitude: 151.2153)
        index.remember(path: "/p/a.webp", facts)
        index.flush()
        #expect(index.facts(path: "/p/a.webp", size: 10, modified: 100) == facts)
    }

    static let darktableSidecar = """
        <?xml version="1.0" encoding="UTF-8"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="XMP Core 4.4.0-Exiv2">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about=""
            xmlns:exif="http://ns.adobe.com/exif/1.0/"
            xmlns:xmp="http://ns.adobe.com/xap/1.0/"
            xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/"
            xmlns:dc="http://purl.org/dc/elements/1.1/"
            xmlns:darktable="http://darktable.sf.net/"
           exif:DateTimeOriginal="2024:06:01 10:11:12"
           xmp:Rating="2"
           xmpMM:DerivedFrom="DSC_1234.NEF"
           darktable:import_timestamp="63848457600"
           darktable:xmp_version="5"
           darktable:raw_params="0"
           darktable:auto_presets_applied="1"
           darktable:history_end="2">
          <darktable:colorlabels>
           <rdf:Seq>
            <rdf:li>1</rdf:li>
           </rdf:Seq>
          </darktable:colorlabels>
          <dc:subject>
           <rdf:Bag>
            <rdf:li>holiday</rdf:li>
           </rdf:Bag>
          </dc:subject>
          <darktable:history>
           <rdf:Seq>
            <rdf:li
             darktable:num="0"
             darktable:operation="exposure"
             darktable:enabled="1"
             darktable:modversion="6"
             darktable:params="0000000000000000000000000000803f"
             darktable:multi_name=""
             darktable:multi_priority="0"/>
            <rdf:li
             darktable:num="1"
             darktable:operation="colorin"
             darktable:enabled="1"
             darktable:modversion="7"
             darktable:params="gz48eJxjZBgFowAEAAQAAAAB"
             darktable:multi_name=""
             darktable:multi_priority="0"/>
           </rdf:Seq>
          </darktable:history>
          </rdf:Description>
         </rdf:RDF>
        </x:xmpmeta>
        """

    static let lightroomSidecar = """
        <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="Adobe XMP Core 7.0-c000 1.000000, 0000/00/00-00:00:00">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about=""
            xmlns:xmp="http://ns.adobe.com/xap/1.0/"
            xmlns:dc="http://purl.org/dc/elements/1.1/"
            xmlns:lr="http://ns.adobe.com/lightroom/1.0/"
            xmlns:crs="http://ns.adobe.com/camera-raw-settings/1.0/"
           xmp:Rating="3"
           xmp:Label="Green"
           crs:Exposure2012="+0.35">
           <dc:subject>
            <rdf:Bag>
             <rdf:li>Animals</rdf:li>
             <rdf:li>Dogs</rdf:li>
             <rdf:li>park</rdf:li>
            </rdf:Bag>
           </dc:subject>
           <lr:hierarchicalSubject>
            <rdf:Bag>
             <rdf:li>Animals|Dogs</rdf:li>
            </rdf:Bag>
           </lr:hierarchicalSubject>
          </rdf:Description>
         </rdf:RDF>
        </x:xmpmeta>
        """
}

struct MarksTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
