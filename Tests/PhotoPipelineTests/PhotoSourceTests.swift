import CGdkPixbuf
import CGLib
import Foundation
import GLibKit
@testable import PhotoPipeline
import Testing
import TestSupport

/// A folder under the temporary directory, removed when the value goes away.
final class ScratchFolder: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("photo-sources-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> URL {
        try write(name, Data(text.utf8))
    }

    @discardableResult
    func write(_ name: String, _ data: Data) throws -> URL {
        let file = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
        return file
    }

    /// Saves a small picture through gdk-pixbuf; false when it has no saver for `format`.
    func savePicture(_ name: String, format: String) throws -> Bool {
        let file = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let pixbuf = gdk_pixbuf_new(GDK_COLORSPACE_RGB, 0, 8, 16, 12)!
        defer { g_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        gdk_pixbuf_fill(pixbuf, 0x8866_44ff)
        var error: UnsafeMutablePointer<GError>?
        let saved = gdk_pixbuf_savev(pixbuf, file.path, format, nil, nil, &error) != 0
        if let error { g_error_free(error) }
        return saved
    }
}

/// Reads `source` on the calling thread and returns its batches.
func readBatches(
    _ source: any PhotoSource, cancellable: Cancellable = Cancellable()
) throws(PhotoSourceError) -> [PhotoSourceBatch] {
    var batches: [PhotoSourceBatch] = []
    try source.read(using: PhotoFetcher(), cancellable: cancellable) { batches.append($0) }
    return batches
}

func readEntries(_ source: any PhotoSource) throws(PhotoSourceError) -> [PhotoEntry] {
    try readBatches(source).flatMap(\.entries)
}

extension PhotoEntry {
    /// The resolved address (the tests' entries all have one).
    var url: URL {
        // swift-format-ignore: NeverUseForceTry
        try! resolvedURL()
    }
}

/// An XML property list around `body`.
func plist(_ body: String) -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">\(body)</plist>
    """
}

@Suite struct PropertyListSourceTests {
    let bundled = Products.packageRoot.appendingPathComponent("data/ClassicPhotos.plist")

    @Test("The bundled list: 18 rows in natural order, addresses into data/photos, the broken rows kept")
    func bundledList() throws {
        let entries = try readEntries(PropertyListSource(location: bundled))
        #expect(
            entries.map(\.name) == [
                "Astronaut", "Brick Wall", "Cameraman", "Chelsea the Cat", "Coffee", "Field Notes", "Grass", "Gravel",
                "Handwritten Formulas", "Hubble Deep Field", "Hubble Deep Field (Spiral Detail)",
                "Hubble Deep Field (Star Detail)", "Lighthouse", "Motion-Blurred Clock", "Retina",
                "Retina (Optic Disc Detail)", "Retina Microaneurysms", "Rocket Launch",
            ])
        let folder = Products.packageRoot.appendingPathComponent("data/photos").standardizedFileURL
        for entry in entries {
            #expect(entry.base?.url == bundled)
            #expect(entry.url.isFileURL)
            #expect(entry.url.deletingLastPathComponent().standardizedFileURL == folder)
        }
        // The same base object for every row, not one per row.
        #expect(Set(entries.compactMap { $0.base.map(ObjectIdentifier.init) }).count == 1)
        let lighthouse = try #require(entries.first { $0.name == "Lighthouse" })
        #expect(!FileManager.default.fileExists(atPath: lighthouse.url.path))
        let notes = try #require(entries.first { $0.name == "Field Notes" })
        #expect(notes.url.lastPathComponent == "notes.txt")
        #expect(entries.filter { FileManager.default.fileExists(atPath: $0.url.path) }.count == 17)
        // A local list named on the command line reads the same.
        let local = try readEntries(
            PhotoSources.source(for: "data/ClassicPhotos.plist", relativeTo: Products.packageRoot))
        #expect(local == entries)
    }

    @Test("Dictionary names in natural order, ties broken by the address; duplicate names both kept")
    func naturalOrderAndDuplicates() throws {
        let folder = try ScratchFolder()
        let list = try folder.write(
            "list.plist",
            plist(
                """
                <dict>
                  <key>img10</key><string>10.jpg</string>
                  <key>img2</key><string>2.jpg</string>
                  <key>Same</key><string>b.jpg</string>
                  <key>img1</key><string>1.jpg</string>
                  <key>Same</key><string>a.jpg</string>
                  <!-- a comment -->
                  <key>Fish &amp; Chips &#x1F41F;</key><string><![CDATA[fish&chips.jpg]]></string>
                </dict>
                """))
        let entries = try readEntries(PropertyListSource(location: list))
        // Case aside, whatever the locale: "Same" after "img10".
        #expect(entries.map(\.name) == ["Fish & Chips 🐟", "img1", "img2", "img10", "Same", "Same"])
        #expect(entries.map(\.link) == ["fish&chips.jpg", "1.jpg", "2.jpg", "10.jpg", "a.jpg", "b.jpg"])
    }

    @Test("An array of {name, url} keeps its order; relative and absolute addresses both resolve")
    func arrayForm() throws {
        let base = URL(string: "https://example.org/lists/today.plist")!
        let xml = plist(
            """
            <array>
              <dict><key>name</key><string>Zebra</string><key>url</key><string>img/zebra.jpg</string></dict>
              <dict><key>url</key><string>https://cdn.example.org/apple.jpg</string><key>name</key><string>Apple</string>
                    <key>size</key><integer>12</integer></dict>
              <dict><key>name</key><string>Mango</string><key>url</key><string>/root/mango.jpg</string></dict>
            </array>
            """)
        let items: [[String: Any]] = [
            ["name": "Zebra", "url": "img/zebra.jpg"],
            ["name": "Apple", "url": "https://cdn.example.org/apple.jpg", "size": 12],
            ["name": "Mango", "url": "/root/mango.jpg"],
        ]
        let binary = try PropertyListSerialization.data(fromPropertyList: items, format: .binary, options: 0)
        for data in [Data(xml.utf8), binary] {
            let list = try PropertyListParser.parse(data, name: "today.plist")
            var entries: [PhotoEntry] = []
            try PropertyListSource.deliver(list, base: PhotoEntryBase(base), cancellable: Cancellable()) {
                entries += $0.entries
            }
            #expect(entries.map(\.name) == ["Zebra", "Apple", "Mango"])
            #expect(
                entries.map(\.url.absoluteString) == [
                    "https://example.org/lists/img/zebra.jpg", "https://cdn.example.org/apple.jpg",
                    "https://example.org/root/mango.jpg",
                ])
        }
    }

    @Test("A binary dictionary is ordered like an XML one")
    func binaryDictionary() throws {
        let folder = try ScratchFolder()
        let dictionary: [String: Any] = ["img10": "10.jpg", "img2": "2.jpg", "img1": "1.jpg", "odd": 7]
        let list = try folder.write(
            "list.plist",
            PropertyListSerialization.data(fromPropertyList: dictionary, format: .binary, options: 0))
        let entries = try readEntries(PropertyListSource(location: list))
        #expect(entries.map(\.name) == ["img1", "img2", "img10", "odd"])
        #expect(entries.map(\.link) == ["1.jpg", "2.jpg", "10.jpg", ""])
    }

    @Test(
        "Bad lists say what is wrong with them",
        arguments: [
            ("not a plist at all", PhotoSourceError.notAPropertyList(list: "list.plist")),
            ("bplist00 but broken", .notAPropertyList(list: "list.plist")),
            ("<html><body>Not here</body></html>", .notAPropertyList(list: "list.plist")),
            (plist("<string>x</string>"), .notAPhotoList),
            ("<plist/>", .notAPhotoList),
            (plist("<array><string>a.jpg</string></array>"), .itemNotADictionary(item: 0)),
            (
                plist(
                    "<array><dict><key>name</key><string>A</string></dict><dict><key>url</key><string>b.jpg</string></dict></array>"
                ),
                .itemWithoutName(item: 1)
            ),
            (
                plist("<dict><string>a.jpg</string></dict>"),
                .notAPropertyList(list: "list.plist", flaw: .valueWithoutKey)
            ),
        ])
    func badLists(text: String, expected: PhotoSourceError) throws {
        let folder = try ScratchFolder()
        let list = try folder.write("list.plist", text)
        #expect(throws: expected) { try readEntries(PropertyListSource(location: list)) }
    }

    @Test(
        "Broken XML is not a property list, with what GLib's reader found",
        arguments: [
            plist("<dict><key>A</key><string>a.jpg</string>"),
            // No DTD is read, so entities it would declare are unknown (and never expanded).
            "<!DOCTYPE plist [<!ENTITY boom \"x\">]><plist><dict><key>&boom;</key><string>a</string></dict></plist>",
        ])
    func brokenXML(text: String) throws {
        let folder = try ScratchFolder()
        let list = try folder.write("list.plist", text)
        let error = #expect(throws: PhotoSourceError.self) { try readEntries(PropertyListSource(location: list)) }
        guard case .notAPropertyList("list.plist", .markup(let message)?) = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(!message.isEmpty)
    }

    @Test("A list that cannot be fetched names the file and the reason")
    func unreadable() throws {
        let folder = try ScratchFolder()
        let error = #expect(throws: PhotoSourceError.self) {
            try readEntries(PropertyListSource(location: folder.url.appendingPathComponent("gone.plist")))
        }
        guard case .listNotFetched("gone.plist", let failure) = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(failure.reason == .missing)
    }

    @Test("A row without a usable address stays in the list and fails alone")
    func badRowsKept() throws {
        let folder = try ScratchFolder()
        let dictionary = try folder.write(
            "dict.plist",
            plist(
                """
                <dict>
                  <key>A</key><integer>3</integer>
                  <key>B</key><string></string>
                  <key>C</key><string>c.jpg</string>
                  <key>D</key><dict><key>url</key><string>d.jpg</string></dict>
                  <key>E</key>
                </dict>
                """))
        let entries = try readEntries(PropertyListSource(location: dictionary))
        #expect(entries.map(\.name) == ["A", "B", "C", "D", "E"])
        #expect(entries.map(\.link) == ["", "", "c.jpg", "", ""])
        let failure = #expect(throws: PhotoFailure.self) { try entries[0].resolvedURL() }
        #expect(failure?.reason == .invalidAddress)
        #expect(entries[2].url == folder.url.appendingPathComponent("c.jpg"))

        let array = try folder.write(
            "array.plist",
            plist(
                """
                <array>
                  <dict><key>name</key><string>No address</string></dict>
                  <dict><key>name</key><string>Number</string><key>url</key><real>1.5</real></dict>
                  <dict><key>name</key><string>Fine</string><key>url</key><string>fine.jpg</string></dict>
                </array>
                """))
        let rows = try readEntries(PropertyListSource(location: array))
        #expect(rows.map(\.name) == ["No address", "Number", "Fine"])
        #expect(rows.map(\.link) == ["", "", "fine.jpg"])
    }

    @Test("Long lists arrive in batches of at most 10,000, in order")
    func batched() throws {
        let folder = try ScratchFolder()
        let count = 25_000
        var array = "<array>", dictionary = "<dict>"
        for n in (0..<count).reversed() {
            array += "<dict><key>name</key><string>p\(n)</string><key>url</key><string>\(n).jpg</string></dict>"
            dictionary += "<key>p\(n)</key><string>\(n).jpg</string>"
        }
        let arrayList = try folder.write("array.plist", plist(array + "</array>"))
        let dictionaryList = try folder.write("dict.plist", plist(dictionary + "</dict>"))

        let arrayBatches = try readBatches(PropertyListSource(location: arrayList))
        #expect(arrayBatches.map(\.entries.count) == [10_000, 10_000, 5_000])
        #expect(arrayBatches.flatMap(\.entries).map(\.name) == (0..<count).reversed().map { "p\($0)" })
        let dictionaryBatches = try readBatches(PropertyListSource(location: dictionaryList))
        #expect(dictionaryBatches.map(\.entries.count) == [10_000, 10_000, 5_000])
        #expect(dictionaryBatches.flatMap(\.entries).map(\.name) == (0..<count).map { "p\($0)" })
        #expect(dictionaryBatches.allSatisfy { $0.selected == nil })
    }

    @Test("Command-line arguments become source locations")
    func locations() {
        #expect(
            PhotoSources.location(of: "https://example.org/a.plist").absoluteString == "https://example.org/a.plist")
        #expect(
            PhotoSources.location(of: "lists/a.plist", relativeTo: URL(fileURLWithPath: "/home/me")).path
                == "/home/me/lists/a.plist")
        #expect(PhotoSources.location(of: "/abs/b.plist").path == "/abs/b.plist")
        #expect(PhotoSources.source(for: "https://example.org/a.plist") is PropertyListSource)
        #expect(PhotoSources.source(for: "file:///srv/photos") is LocalSource)
        #expect(
            PhotoSources.source(for: "photos", relativeTo: URL(fileURLWithPath: "/srv")).location.path == "/srv/photos")
    }
}

@Suite struct FolderSourceTests {
    /// A folder of pictures in several formats, with things that are not pictures beside them.
    /// Returns the folder and the names of the pictures in the order they should be shown.
    func mixedFolder() throws -> (ScratchFolder, [String]) {
        let folder = try ScratchFolder()
        var pictures: [String] = []
        for (name, format) in [
            ("img2.png", "png"), ("img10.jpeg", "jpeg"), ("img1.bmp", "bmp"), ("photo.tiff", "tiff"),
        ]
        where try folder.savePicture(name, format: format) {
            pictures.append(name)
        }
        #expect(pictures.contains("img2.png") && pictures.contains("img10.jpeg"))
        // GIF has no saver: a 1×1 one, as bytes.
        try folder.write("anim.gif", Data(base64Encoded: "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7")!)
        pictures.append("anim.gif")
        // A JPEG without an extension counts, read by its content; text called .jpg is
        // listed by its name (it fails when loaded); text called .txt is not.
        let jpeg = Products.packageRoot.appendingPathComponent("data/photos/coffee.jpg")
        try folder.write("no-extension", Data(contentsOf: jpeg))
        pictures.append("no-extension")
        try folder.write("fake.jpg", "This is text, whatever its name says.\n")
        pictures.append("fake.jpg")
        try folder.write("backup.png~", Data(contentsOf: jpeg))
        try folder.write("listed-hidden.png", Data(contentsOf: jpeg))
        try folder.write(".hidden", "listed-hidden.png\n")
        // A video is listed by its name (this one is a JPEG: it fails as a video when loaded);
        // a Live Photo's clip beside its still is not, the still plays it.
        try folder.write("clip.mp4", Data(contentsOf: jpeg))
        pictures.append("clip.mp4")
        try folder.write("IMG_0001.HEIC", Data(contentsOf: jpeg))
        pictures.append("IMG_0001.HEIC")
        try folder.write("IMG_0001.MOV", Data(contentsOf: jpeg))
        try folder.write("notes.txt", "Notes\n")
        try folder.write("empty.png", Data())
        pictures.append("empty.png")
        #expect(try folder.savePicture(".hidden.png", format: "png"))
        #expect(try folder.savePicture("sub/inner.png", format: "png"))
        try FileManager.default.createDirectory(
            at: folder.url.appendingPathComponent("folder.jpg"),
            withIntermediateDirectories: true)
        let order = [
            "anim.gif", "clip.mp4", "empty.png", "fake.jpg", "img1.bmp", "img2.png", "img10.jpeg", "IMG_0001.HEIC",
            "no-extension", "photo.tiff",
        ]
        // Sub-folders first, by name (a folder named like a picture is a folder).
        return (folder, ["folder.jpg", "sub"] + order.filter(pictures.contains))
    }

    @Test(
        "A folder lists its sub-folders, then its pictures by name (content only where the name says nothing), hidden and backup files left out, in natural order"
    )
    func folder() throws {
        let (folder, expected) = try mixedFolder()
        let batches = try readBatches(FolderSource(location: folder.url))
        #expect(batches.count == 1)
        let entries = batches.flatMap(\.entries)
        #expect(entries.map(\.name) == expected)
        #expect(batches.allSatisfy { $0.selected == nil })
        #expect(entries.map(\.isFolder) == entries.indices.map { $0 < 2 })
        for entry in entries {
            #expect(entry.base == nil)
            #expect(entry.link.hasPrefix("file:///"))
            #expect(
                entry.url.standardizedFileURL.path
                    == folder.url.appendingPathComponent(entry.name).standardizedFileURL.path)
        }
        // The same, with the folder named as an argument.
        let named = try readEntries(PhotoSources.source(for: folder.url.path))
        #expect(named == entries)
    }

    @Test("File names that need escaping become proper file URIs")
    func escaping() throws {
        let folder = try ScratchFolder()
        #expect(try folder.savePicture("a photo #1 ü.png", format: "png"))
        let entry = try #require(readEntries(FolderSource(location: folder.url)).first)
        #expect(entry.name == "a photo #1 ü.png")
        #expect(entry.link.hasSuffix("/a%20photo%20%231%20%C3%BC.png"))
        #expect(entry.url.path == folder.url.appendingPathComponent("a photo #1 ü.png").path)
    }

    @Test("A single picture opens its folder with that picture selected")
    func singlePicture() throws {
        let (folder, expected) = try mixedFolder()
        let source = PhotoSources.source(for: folder.url.appendingPathComponent("img2.png").path)
        let batches = try readBatches(source)
        let entries = batches.flatMap(\.entries)
        #expect(entries.map(\.name) == expected)
        let selected = try #require(batches.first?.selected)
        #expect(entries[selected].name == "img2.png")

        // A picture without an extension, and a hidden one, which is then listed too.
        let plain = try readBatches(PhotoSources.source(for: folder.url.appendingPathComponent("no-extension").path))
        #expect(plain.first.flatMap { batch in batch.selected.map { batch.entries[$0].name } } == "no-extension")
        let hidden = try readBatches(PhotoSources.source(for: folder.url.appendingPathComponent(".hidden.png").path))
        #expect(hidden.first.flatMap { batch in batch.selected.map { batch.entries[$0].name } } == ".hidden.png")
        #expect(hidden.flatMap(\.entries).count == expected.count + 1)
    }

    @Test("A file that is neither a picture nor a list, and a missing path, give clear errors")
    func notPhotos() throws {
        let (folder, _) = try mixedFolder()
        let fake = #expect(throws: PhotoSourceError.self) {
            try readEntries(PhotoSources.source(for: folder.url.appendingPathComponent("fake.jpg").path))
        }
        guard case .notAPropertyList("fake.jpg", _) = fake else { Issue.record("\(String(describing: fake))"); return }
        let missing = folder.url.appendingPathComponent("nowhere")
        let gone = PhotoSourceError.notFound(path: missing.path)
        #expect(throws: gone) { try readEntries(PhotoSources.source(for: missing.path)) }
        #expect(throws: gone) { try readEntries(FolderSource(location: missing)) }
        let notes = folder.url.appendingPathComponent("notes.txt")
        #expect(throws: PhotoSourceError.notAFolder(path: notes.path)) {
            try readEntries(FolderSource(location: notes))
        }
    }

    @Test("A folder that may not be read, and a path that is neither a folder nor a file, say so")
    func deniedAndOdd() throws {
        let folder = try ScratchFolder()
        let locked = folder.url.appendingPathComponent("locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
        #expect(try folder.savePicture("locked/a.png", format: "png"))
        chmod(locked.path, 0)
        defer { chmod(locked.path, 0o755) }
        // Root reads any folder, so only another user sees it refused (the mapping itself is
        // checked below, for everyone).
        if geteuid() != 0 {
            #expect(throws: PhotoSourceError.permissionDenied(path: locked.path)) {
                try readEntries(PhotoSources.source(for: locked.path))
            }
            let inside = locked.appendingPathComponent("a.png")
            #expect(throws: PhotoSourceError.permissionDenied(path: inside.path)) {
                try readEntries(PhotoSources.source(for: inside.path))
            }
        }
        let fifo = folder.url.appendingPathComponent("pipe")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        #expect(throws: PhotoSourceError.notPhotos(path: fifo.path)) {
            try readEntries(PhotoSources.source(for: fifo.path))
        }
    }

    @Test("What the system says about a path becomes what went wrong with it")
    func systemErrors() {
        let path = "/photos/2024", place = URL(fileURLWithPath: "/photos/2024")
        #expect(FolderListing.error(ENOENT, folder: place) == .notFound(path: path))
        #expect(FolderListing.error(ENOTDIR, folder: place) == .notAFolder(path: path))
        #expect(FolderListing.error(EACCES, folder: place) == .permissionDenied(path: path))
        let ioError = String(cString: strerror(EIO))
        #expect(FolderListing.error(EIO, folder: place) == .unreadable(path: path, detail: ioError))
        let io = String(cString: g_quark_to_string(g_io_error_quark()))
        func gio(_ code: GIOErrorEnum) -> GLibError {
            GLibError(domain: io, code: Int32(code.rawValue), message: "GIO says no")
        }
        #expect(LocalSource.error(gio(G_IO_ERROR_NOT_FOUND), at: place) == .notFound(path: path))
        #expect(LocalSource.error(gio(G_IO_ERROR_PERMISSION_DENIED), at: place) == .permissionDenied(path: path))
        #expect(LocalSource.error(gio(G_IO_ERROR_FAILED), at: place) == .unreadable(path: path, detail: "GIO says no"))
    }
}

/// The loader reports through GLib idle sources on the default main context; no loop runs in
/// the test process, so these tests turn the context themselves.
@Suite(.serialized) @MainActor struct PhotoSourceLoaderTests {
    /// Turns the default main context (`MainLoop.turn`) until `condition` holds or `seconds` pass.
    func iterate(for seconds: Double = 15, until condition: () -> Bool = { false }) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() > deadline { return false }
            await MainLoop.turn(milliseconds: 1)
        }
        return true
    }

    /// A property list of `rows` photos named p0, p1, … in `folder`.
    func longList(in folder: ScratchFolder, rows: Int) throws -> URL {
        var body = "<array>"
        for n in 0..<rows {
            body += "<dict><key>name</key><string>p\(n)</string><key>url</key><string>\(n).jpg</string></dict>"
        }
        return try folder.write("long.plist", plist(body + "</array>"))
    }

    /// A short description of an event, for comparing sequences.
    func describe(_ event: PhotoSourceEvent) -> String {
        switch event {
        case .started(let index, let location): "started \(index) \(location.lastPathComponent)"
        case .batch(let index, let batch): "batch \(index) \(batch.entries.count)"
        case .finished(let index, let location, let rows): "finished \(index) \(location.lastPathComponent) \(rows)"
        case .failed(let index, let location, _): "failed \(index) \(location.lastPathComponent)"
        }
    }

    @Test("Sources are read in turn and reported in order on the main loop")
    func inOrder() async throws {
        let folder = try ScratchFolder()
        for n in [1, 2, 10] { #expect(try folder.savePicture("pictures/img\(n).png", format: "png")) }
        let list = Products.packageRoot.appendingPathComponent("data/ClassicPhotos.plist")
        let missing = folder.url.appendingPathComponent("missing.plist")
        var events: [String] = []
        var names: [String] = []
        var errors: [PhotoSourceError] = []
        let loader = PhotoSourceLoader(fetcher: PhotoFetcher())
        let sources: [any PhotoSource] = [
            FolderSource(location: folder.url.appendingPathComponent("pictures")),
            PhotoSources.source(for: missing.path),
            PropertyListSource(location: list),
        ]
        _ = loader.load(sources) { event in
            #expect(MainLoop.isMainThread, "delivered by the GLib main context")
            events.append(describe(event))
            if case .batch(_, let batch) = event { names += batch.entries.map(\.name) }
            if case .failed(_, _, let error) = event { errors.append(error) }
        }
        #expect(events.isEmpty, "nothing is reported before the main loop turns")
        #expect(await iterate { events.count == 8 })
        #expect(
            events == [
                "started 0 pictures", "batch 0 3", "finished 0 pictures 3",
                "started 1 missing.plist", "failed 1 missing.plist",
                "started 2 ClassicPhotos.plist", "batch 2 18", "finished 2 ClassicPhotos.plist 18",
            ])
        #expect(errors == [.notFound(path: missing.path)])
        #expect(names.prefix(3) == ["img1.png", "img2.png", "img10.png"])
        #expect(names.count == 21)
    }

    @Test(
        "Asked for pieces, the loader cuts batches on its worker: small pieces for the first rows, then pieces of at most the size asked, every row once and in order"
    )
    func pieces() async throws {
        let folder = try ScratchFolder()
        let list = try longList(in: folder, rows: 12_000)
        let loader = PhotoSourceLoader(fetcher: PhotoFetcher())
        var sizes: [Int] = []
        var batches: [PhotoSourceBatch] = []
        var names: [String] = []
        var finished = false
        _ = loader.load([PropertyListSource(location: list)], pieces: (250, 100, 2_000)) { event in
            if case .batch(_, let batch) = event {
                batches.append(batch)
                sizes.append(batch.entries.count)
                names += batch.entries.map(\.name)
            }
            if case .finished = event { finished = true }
        }
        #expect(await iterate { finished })
        // The source's batches are 10,000 rows: the first cut to 100 + 100 + 50 (the first 250
        // rows) + 4 × 2,000 + 1,750, the second (2,000) whole.
        #expect(sizes == [100, 100, 50, 2_000, 2_000, 2_000, 2_000, 1_750, 2_000], "\(sizes)")
        #expect(batches.allSatisfy { $0.packed?.count == $0.entries.count }, "every piece is packed on the worker")
        #expect(names == (0..<12_000).map { "p\($0)" })
        // Appended packed, the pieces give the list every entry as it was read.
        let appended = PhotoList()
        for batch in batches { appended.apply(.append(try #require(batch.packed))) }
        #expect(appended.count == 12_000)
        #expect(
            [0, 99, 100, 249, 250, 9_999, 10_000, 11_999].allSatisfy {
                appended.entry(at: $0) == batches.flatMap(\.entries)[$0]
            })

        // The piece that holds a batch's selected entry points at it within the piece.
        let batch = PhotoSourceBatch(
            entries: names.prefix(250).map { PhotoEntry(name: $0, url: URL(fileURLWithPath: "/\($0)")) }, selected: 120)
        let cut = batch.pieces(lead: 100, leadRows: 100, rows: 100)
        #expect(cut.map(\.entries.count) == [100, 100, 50])
        #expect(cut.map(\.selected) == [nil, 20, nil])
        #expect(PhotoSourceBatch(entries: []).pieces(lead: 100, leadRows: 100, rows: 100).count == 1)

        // A batch that fills in around a photo delivered ahead (at position 3): each piece keeps
        // its entries' positions, which hold once the pieces before it are in.
        let around = PhotoSourceBatch(
            entries: names.prefix(5).map { PhotoEntry(name: $0, url: URL(fileURLWithPath: "/\($0)")) },
            positions: [0, 1, 2, 4, 5])
        #expect(around.pieces(lead: 2, leadRows: 2, rows: 2).map(\.positions) == [[0, 1], [2, 4], [5]])
        let filled = PhotoList()
        filled.apply(.append(PackedEntries([PhotoEntry(name: "ahead", url: URL(fileURLWithPath: "/ahead"))])))
        for piece in around.pieces(lead: 2, leadRows: 2, rows: 2) {
            filled.apply(.insert(piece.entries, at: piece.positions!))
        }
        #expect((0..<6).map { filled.entry(at: $0).name } == ["p0", "p1", "p2", "ahead", "p3", "p4"])
    }

    @Test("Nothing is reported once the load is cancelled")
    func cancelled() async throws {
        let folder = try ScratchFolder()
        let list = try longList(in: folder, rows: 30_000)
        let loader = PhotoSourceLoader(fetcher: PhotoFetcher())
        var events: [String] = []
        let loading = loader.load([PropertyListSource(location: list), PropertyListSource(location: list)]) { event in
            events.append(describe(event))
        }
        #expect(await iterate { !events.isEmpty })
        loading.cancel()
        let seen = events
        _ = await iterate(for: 1)
        #expect(events == seen)
        #expect(events.first == "started 0 long.plist")

        // Cancelled before the loop turns at all: nothing.
        var late: [String] = []
        loader.load([PropertyListSource(location: list)]) { late.append(describe($0)) }.cancel()
        _ = await iterate(for: 1)
        #expect(late.isEmpty)
    }
}
