import CGdkPixbuf
import CSQLite
import Foundation
import GLibKit
@testable import PhotoPipeline
import Testing
import TestSupport

/// The index of dates taken: what it keeps and by which key, how it survives a damaged or
/// foreign file, and a folder sorted by date served from it the second time.
@Suite struct PhotoIndexTests {
    private func place() throws -> (folder: URL, index: String) {
        let folder = try TestPictures.makeFolder("index")
        return (folder, folder.appendingPathComponent("cache/classic-photos/index.sqlite").path)
    }

    @Test("Facts kept are found again by path, size and time, after the index is opened anew")
    func roundTrip() throws {
        let (folder, path) = try place()
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let index = try PhotoIndex(path: path)
            index.remember(path: "/p/a.jpg", .init(size: 10, modified: 100, taken: "2020-01-01 10:00:00"))
            index.remember(
                path: "/p/sub/b.jpg",
                .init(
                    size: 20, modified: 200, taken: "2021-01-01 10:00:00", width: 4000, height: 3000, orientation: 6,
                    camera: "Canon EOS R6"))
            index.remember(path: "/p2/c.jpg", .init(size: 30, modified: 300, taken: "2022-01-01 10:00:00"))
            index.flush()
        }
        let index = try PhotoIndex(path: path)
        #expect(index.count == 3)
        #expect(index.dateTaken(path: "/p/a.jpg", size: 10, modified: 100) == "2020-01-01 10:00:00")
        // The file rewritten since (another size or another time) is not known.
        #expect(index.dateTaken(path: "/p/a.jpg", size: 11, modified: 100) == nil)
        #expect(index.dateTaken(path: "/p/a.jpg", size: 10, modified: 101) == nil)
        #expect(index.dateTaken(path: "/p/x.jpg", size: 10, modified: 100) == nil)
        // A folder's files and its sub-folders', not a sibling whose name starts the same.
        let inFolder = index.facts(inFolder: "/p")
        #expect(Set(inFolder.keys) == ["/p/a.jpg", "/p/sub/b.jpg"])
        // What the info needs, kept beside the date; nothing where nothing was known.
        let b = try #require(index.facts(path: "/p/sub/b.jpg", size: 20, modified: 200))
        #expect(b == inFolder["/p/sub/b.jpg"])
        #expect(b.width == 4000 && b.height == 3000 && b.orientation == 6 && b.camera == "Canon EOS R6")
        #expect(b.shownSize.map { [$0.width, $0.height] } == [3000, 4000])
        let a = try #require(inFolder["/p/a.jpg"])
        #expect(a.width == nil && a.camera == nil && a.orientation == nil && a.shownSize == nil)
        #expect(index.clear() >= 0 && index.count == 0)
    }

    @Test("A damaged or foreign index is set aside and made anew; a locked one does not block")
    func damagedForeignLocked() throws {
        let (folder, path) = try place()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        // Garbage where the index was.
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 7919) })
        try garbage.write(to: URL(fileURLWithPath: path))
        var index = try PhotoIndex(path: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path + ".set-aside")) == garbage)
        index.remember(path: "/p/a.jpg", .init(size: 1, modified: 2, taken: "2020-01-01 10:00:00"))
        index.flush()
        #expect(index.count == 1)

        // Another program's database.
        index = try PhotoIndex(path: folder.appendingPathComponent("unused.sqlite").path)
        try FileManager.default.removeItem(atPath: path)
        var foreign: OpaquePointer?
        #expect(sqlite3_open(path, &foreign) == SQLITE_OK)
        #expect(
            sqlite3_exec(foreign, "CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('mine')", nil, nil, nil)
                == SQLITE_OK)
        sqlite3_close(foreign)
        index = try PhotoIndex(path: path)
        #expect(index.count == 0)
        #expect(FileManager.default.fileExists(atPath: path + ".set-aside"))

        // Another process writing: reads go on, a write waits a moment and is given up.
        index.remember(path: "/p/a.jpg", .init(size: 1, modified: 2, taken: "2020-01-01 10:00:00"))
        index.flush()
        var writer: OpaquePointer?
        #expect(sqlite3_open(path, &writer) == SQLITE_OK)
        #expect(sqlite3_exec(writer, "BEGIN EXCLUSIVE", nil, nil, nil) == SQLITE_OK)
        let second = try PhotoIndex(path: path)
        #expect(second.dateTaken(path: "/p/a.jpg", size: 1, modified: 2) == "2020-01-01 10:00:00")
        let started = Date()
        second.remember(path: "/p/b.jpg", .init(size: 1, modified: 2, taken: "2020-01-01 10:00:00"))
        second.flush()
        #expect(Date().timeIntervalSince(started) < 5, "a locked index held the writer up")
        sqlite3_exec(writer, "ROLLBACK", nil, nil, nil)
        sqlite3_close(writer)
    }

    @Test("An index damaged inside (its header sound) opens at once, and the check in the background sets it aside")
    func damagedInside() throws {
        let (folder, path) = try place()
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let index = try PhotoIndex(path: path)
            for n in 0..<3_000 {
                index.remember(
                    path: "/p/\(n / 50)/img\(n).jpg", .init(size: Int64(n), modified: 1, taken: "2020-01-01 10:00:00"))
            }
            index.flush()
            #expect(index.count == 3_000)
        }
        // Pages of the table itself, past the header's page, overwritten.
        let file = try #require(FileHandle(forUpdatingAtPath: path))
        let size = try file.seekToEnd()
        #expect(size > 16_384)
        try file.seek(toOffset: 8_192)
        try file.write(contentsOf: Data((0..<8_192).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }))
        try file.close()
        #expect(!FileManager.default.fileExists(atPath: path + ".set-aside"))

        let index = try PhotoIndex(path: path)
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: path + ".set-aside"), Date() < deadline { usleep(20_000) }
        #expect(FileManager.default.fileExists(atPath: path + ".set-aside"), "the damaged index was not set aside")
        // Made anew, and in use.
        #expect(index.count == 0)
        index.remember(path: "/p/a.jpg", .init(size: 1, modified: 2, taken: "2020-01-01 10:00:00"))
        index.flush()
        #expect(index.dateTaken(path: "/p/a.jpg", size: 1, modified: 2) == "2020-01-01 10:00:00")
    }

    @Test("The files first by date, found while a tree's dates are read, are the ones the index's own query gives")
    func firstRowsOnTheWay() throws {
        let (folder, path) = try place()
        defer { try? FileManager.default.removeItem(at: folder) }
        let index = try PhotoIndex(path: path)
        // Few distinct dates (many ties, broken by path), written in no order.
        var generator = SystemRandomNumberGenerator()
        for n in (0..<5_000).shuffled(using: &generator) {
            let day = 1 + (n * 7919) % 23
            index.remember(
                path: "/tree/\(n % 40)/img\(n).jpg",
                .init(size: Int64(n), modified: Int64(n * 3), taken: String(format: "2021-03-%02d 10:00:00", day)))
        }
        // Outside the tree: not counted, not found.
        index.remember(path: "/tree0/a.jpg", .init(size: 1, modified: 1, taken: "1999-01-01 00:00:00"))
        index.remember(path: "/other/b.jpg", .init(size: 1, modified: 1, taken: "1999-01-01 00:00:00"))
        index.flush()
        for descending in [false, true] {
            let found = Locked<(rows: [(path: String, facts: SortFacts)]?, held: Int)?>(nil)
            let numbers = index.dateNumbersByPathKey(
                inFolder: "/tree",
                first: .init(limit: 37, descending: descending) { rows, held in found.withLock { $0 = (rows, held) } })
            #expect(numbers?.count == 5_000)
            let (rows, held) = try #require(found.withLock { $0 })
            #expect(held == 5_000)
            let expected = try #require(
                index.firstByDateTaken(inFolder: "/tree", descending: descending, limit: 37, minimum: 1))
            #expect(expected.count == 37)
            #expect(rows?.map(\.path) == expected.map(\.path), "descending: \(descending)")
            #expect(rows?.map(\.facts) == expected.map(\.facts))
        }
        // A date not in the numbers' form: no numbers, and no rows.
        index.remember(path: "/tree/odd.jpg", .init(size: 1, modified: 1, taken: "2021:03:01 10:00:00"))
        index.flush()
        let found = Locked<(rows: [(path: String, facts: SortFacts)]?, held: Int)?>(nil)
        let numbers = index.dateNumbersByPathKey(
            inFolder: "/tree",
            first: .init(limit: 37, descending: false) { rows, held in found.withLock { $0 = (rows, held) } })
        #expect(numbers == nil)
        #expect(found.withLock { $0 }.map { $0.rows == nil } == true)
    }

    @Test("A folder sorted by date is served from the index the second time; a photo rewritten is read again")
    func folderServedFromIndex() throws {
        let (folder, path) = try place()
        defer { try? FileManager.default.removeItem(at: folder) }
        let photos = folder.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        // Names in one order, dates in the other.
        let dates = ["2024:01:01 10:00:00", "2023:01:01 10:00:00", "2022:01:01 10:00:00", "2021:01:01 10:00:00"]
        for (n, date) in dates.enumerated() {
            let jpeg = try TestPictures.jpegWithExif(
                make: "Cam", model: "One", original: date, orientation: 1, little: n % 2 == 0)
            let file = photos.appendingPathComponent("img\(n + 1).jpg")
            try jpeg.write(to: file)
            // Whole seconds, which setting the time again below keeps exactly.
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSince1970: 1_600_000_000 + Double(n))], ofItemAtPath: file.path)
        }
        let index = try PhotoIndex(path: path)
        func read() throws -> [String] {
            var names: [String] = []
            try FolderSource.readPictures(
                in: photos, selecting: nil, order: PhotoOrder(key: .dateTaken), cancellable: Cancellable(),
                index: index
            ) { batch in names += batch.entries.map(\.name) }
            return names
        }
        #expect(try read() == ["img4.jpg", "img3.jpg", "img2.jpg", "img1.jpg"])
        #expect(index.count == 4)

        // The files' dates changed behind the index's back, size and time kept: the index answers.
        for n in 1...4 {
            let file = photos.appendingPathComponent("img\(n).jpg")
            var bytes = try Data(contentsOf: file)
            let date = Data("2025:0\(n):01 10:00:00".utf8)
            let at = try #require(bytes.range(of: Data(dates[n - 1].utf8)))
            bytes.replaceSubrange(at, with: date)
            try bytes.write(to: file)
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSince1970: 1_600_000_000 + Double(n - 1))], ofItemAtPath: file.path
            )
        }
        #expect(try read() == ["img4.jpg", "img3.jpg", "img2.jpg", "img1.jpg"], "dates came from the files")

        // img4 rewritten (a new time): its new date is read, and it goes last.
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -10)],
            ofItemAtPath: photos.appendingPathComponent("img4.jpg").path)
        #expect(try read() == ["img3.jpg", "img2.jpg", "img1.jpg", "img4.jpg"])
    }

    @Test(
        "A big folder is matched with the index by path alone: in name order while the index knows too few, in the index's date order once it knows them, flagged as not yet checked"
    )
    func bigFolderByPath() throws {
        let (folder, path) = try place()
        defer { try? FileManager.default.removeItem(at: folder) }
        let photos = folder.appendingPathComponent("big")
        // Even names taken in 2022, odd ones in 2021.
        let names = try TestPictures.linkDatedPhotos(
            in: photos, count: FolderSource.inlineDatesLimit + 100,
            dates: ["2022:01:01 10:00:00", "2021:01:01 10:00:00"],
            prefix: "photo")
        let index = try PhotoIndex(path: path)
        func read() throws -> (names: [String], order: PhotoOrder?, fromIndex: Bool) {
            var read: (names: [String], order: PhotoOrder?, fromIndex: Bool) = ([], nil, false)
            try FolderSource.readPictures(
                in: photos, selecting: nil, order: PhotoOrder(key: .dateTaken), cancellable: Cancellable(),
                index: index
            ) { batch in
                read.names += batch.entries.map(\.name)
                read.order = batch.order
                read.fromIndex = batch.orderFromIndex
            }
            return read
        }
        // Nothing known: names first, the dates to be read in the background.
        let cold = try read()
        #expect(cold.names == names && cold.order == .byName && !cold.fromIndex)
        for name in names {
            _ = SortFacts.read(link: photos.appendingPathComponent(name).absoluteString, taken: true, index: index)
        }
        index.flush()
        // Known: the dates' order at once, not yet checked against the files.
        let warm = try read()
        let byDate =
            names.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
            + names.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
        #expect(warm.names == byDate && warm.order == PhotoOrder(key: .dateTaken) && warm.fromIndex)
        // A few unknown files among them are read at once, and go by their dates too.
        let extra = folder.appendingPathComponent("late.jpg")
        try TestPictures.jpegWithExif(
            make: "Cam", model: "One", original: "2020:01:01 10:00:00", orientation: 1, little: true
        ).write(to: extra)
        #expect(link(extra.path, photos.appendingPathComponent("zz-late.jpg").path) == 0)
        let mixed = try read()
        #expect(mixed.names == ["zz-late.jpg"] + byDate && mixed.fromIndex)
        // A date held in another form (as a camera wrote it, not to be made a number): the
        // dates are compared as text, as for a small folder; it goes after "2021-…".
        var status = stat()
        let moved = photos.appendingPathComponent(names[2]).path
        #expect(stat(moved, &status) == 0)
        index.remember(
            path: moved,
            PhotoIndex.Facts(size: SortFacts(status).size, modified: SortFacts(status).modified, taken: "2021:7:4"))
        index.flush()
        let odd = try read()
        let (taken2021, taken2022) = (byDate.prefix(names.count / 2), byDate.dropFirst(names.count / 2))
        #expect(odd.names == ["zz-late.jpg"] + taken2021 + [names[2]] + taken2022.filter { $0 != names[2] })
        #expect(odd.fromIndex && odd.order == PhotoOrder(key: .dateTaken))
    }

    @Test(
        "Reading a photo's date keeps its pixel size, orientation and camera in the index: a JPEG's frame header or EXIF's dimensions, a PNG's header"
    )
    func infoFactsRead() throws {
        let (folder, path) = try place()
        defer { try? FileManager.default.removeItem(at: folder) }
        let index = try PhotoIndex(path: path)
        // coffee.jpg, 600 × 400, turned a quarter by its EXIF.
        let jpeg = folder.appendingPathComponent("turned.jpg")
        try TestPictures.jpegWithExif(
            make: "Canon", model: "Canon EOS 5D", original: "2021:07:04 18:30:05", orientation: 6, little: false
        )
        .write(to: jpeg)
        let png = folder.appendingPathComponent("plain.png")
        #expect(TestPictures.write(png, format: "png"))
        for file in [jpeg, png] {
            #expect(SortFacts.read(link: file.absoluteString, taken: true, index: index) != nil)
        }
        index.flush()
        func held(_ file: URL) throws -> PhotoIndex.Facts {
            let status = try FileManager.default.attributesOfItem(atPath: file.path)
            let size = Int64(try #require(status[.size] as? Int))
            return try #require(index.facts(inFolder: folder.path)[file.path].flatMap { $0.size == size ? $0 : nil })
        }
        let turned = try held(jpeg)
        #expect(turned.taken == "2021-07-04 18:30:05")
        #expect(turned.camera == "Canon EOS 5D")
        #expect(turned.orientation == 6)
        #expect(turned.shownSize.map { [$0.width, $0.height] } == [400, 600])
        let plain = try held(png)
        #expect(plain.camera == nil && plain.orientation == nil)
        var (width, height): (Int32, Int32) = (0, 0)
        #expect(gdk_pixbuf_get_file_info(png.path, &width, &height) != nil)
        #expect(plain.width == Int(width) && plain.height == Int(height) && width > 0)

        // A JPEG whose frame header lies past what is read: EXIF's own dimensions stand in.
        var exif = Data([0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08]) // big-endian, IFD0 at 8
        exif += Data([0x00, 0x01]) + Data([0x87, 0x69, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x1A])
        exif += Data([0x00, 0x00, 0x00, 0x00]) // no IFD1; the EXIF IFD at 26
        exif += Data([0x00, 0x02])
        exif += Data([0xA0, 0x02, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x17, 0x70]) // 6000
        exif += Data([0xA0, 0x03, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x0F, 0xA0, 0x00, 0x00]) // 4000
        exif += Data([0x00, 0x00, 0x00, 0x00])
        let tags = try #require(ExifReader.tags(exif))
        #expect(tags.pixelWidth == 6000 && tags.pixelHeight == 4000)
        #expect(ExifReader.storedSize(try Data(contentsOf: jpeg)).map { [$0.width, $0.height] } == [600, 400])
    }
}
