import CGLib
import Foundation
import GLibKit
@testable import PhotoPipeline
import Testing
import TestSupport

/// A folder shown with every picture beneath it (Include Sub-folders, `--recursive`).
@Suite struct FolderTreeSourceTests {
    /// A year/month tree with pictures at each level, a hidden folder, a folder that is a link
    /// back up the tree, and a folder of nothing but text.
    func yearTree() throws -> ScratchFolder {
        let folder = try ScratchFolder()
        for name in [
            "top.png", "2023/07 July/img10.png", "2023/07 July/img9.png", "2023/12 December/a.png",
            "2023/12 December/b c#ü.png",
            "2023/loose.png", "2024/01 January/b.png", "10/x.png", "9/x.png", ".private/secret.png",
        ] {
            #expect(try folder.savePicture(name, format: "png"))
        }
        try folder.write("notes/readme.txt", "Not a picture\n")
        try FileManager.default.createSymbolicLink(
            at: folder.url.appendingPathComponent("2024/back-up"), withDestinationURL: folder.url)
        return folder
    }

    @Test(
        "Every picture beneath the folder, named by its path below it: each folder's own pictures, then its sub-folders' in natural order; hidden folders left out, a link back up read once"
    )
    func wholeTree() throws {
        let folder = try yearTree()
        let batches = try readBatches(FolderSource(location: folder.url, includesSubfolders: true))
        let entries = batches.flatMap(\.entries)
        #expect(
            entries.map(\.name) == [
                "top.png", "9/x.png", "10/x.png", "2023/loose.png", "2023/07 July/img9.png", "2023/07 July/img10.png",
                "2023/12 December/a.png", "2023/12 December/b c#ü.png", "2024/01 January/b.png",
            ])
        #expect(entries.allSatisfy { !$0.isFolder })
        #expect(
            entries.map { $0.subfolder.map(String.init) } == [
                nil, "9", "10", "2023", "2023/07 July", "2023/07 July", "2023/12 December", "2023/12 December",
                "2024/01 January",
            ])
        #expect(entries.map { String($0.leafName) }[1] == "x.png")
        for entry in entries {
            #expect(entry.url.path == folder.url.appendingPathComponent(entry.name).path)
            // Whether made whole by GLib or from the folder's address, the address is GLib's.
            let path = folder.url.appendingPathComponent(entry.name).path
            let uri = try #require(g_filename_to_uri(path, nil, nil))
            #expect(entry.link == String(cString: uri))
            g_free(uri)
        }
        // Every folder read is given to be watched, the top one first; the link back up and the
        // hidden folder are not among them.
        let tree = try #require(batches.first?.tree)
        #expect(tree.first == folder.url.standardizedFileURL)
        #expect(tree.count == 9, "\(tree.map(\.lastPathComponent))")
        #expect(!tree.contains { $0.path.contains(".private") || $0.path.hasSuffix("back-up") })

        // Named as an argument, with sub-folders included, and a picture in it: the same list,
        // that picture selected.
        let local = LocalSource(location: folder.url.appendingPathComponent("top.png")).includingSubfolders(true)
        let fromPicture = try readBatches(local)
        #expect(fromPicture.flatMap(\.entries) == entries)
        #expect(fromPicture.first?.selected == 0)
        #expect(local.includesSubfolders && !LocalSource(location: folder.url).includesSubfolders)
    }

    @Test("A folder's contents as its item says them: its own sub-folders, and every picture beneath it")
    func contents() throws {
        let folder = try yearTree()
        let counted = try #require(FolderSource.contents(of: folder.url, cancellable: Cancellable()))
        #expect(counted.folders == 5, "2023, 2024, 9, 10 and notes; not .private")
        #expect(counted.pictures == 9)
        #expect(
            FolderSource.contents(of: folder.url.appendingPathComponent("missing"), cancellable: Cancellable()) == nil)
    }

    @Test("A tree sorted by date modified mixes its folders; ties and names keep the path order")
    func treeByDate() throws {
        let folder = try yearTree()
        func touch(_ name: String, _ seconds: Int) {
            var times = [
                timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0),
            ]
            _ = utimensat(AT_FDCWD, folder.url.appendingPathComponent(name).path, &times, 0)
        }
        for (index, name) in ["2024/01 January/b.png", "top.png", "2023/07 July/img9.png"].enumerated() {
            touch(name, 1_000_000 + index)
        }
        let newest = try readEntries(
            FolderSource(location: folder.url, order: PhotoOrder(key: .dateModified), includesSubfolders: true))
        #expect(Array(newest.prefix(3).map(\.name)) == ["2024/01 January/b.png", "top.png", "2023/07 July/img9.png"])
    }

    @Test(
        "A tree's order, made from each folder's names as they are read, is the natural order of its paths: case, accents, numbers, leading zeros, dots, a name that is not UTF-8"
    )
    func treeOrderIsPathOrder() throws {
        let folder = try ScratchFolder()
        let names = [
            "IMG_0010.JPG", "img_9.jpg", "Ärger 2.png", "ärger 10.png", "写真 3.jpg", "x000y007.png", "a.b.c.png",
            "photo 1 (2).jpg", "001.png", "1.png", "B.png", "a.png",
        ]
        for folderName in ["", "2023/", "2023/07 July/", "2023/7 july/", "Ärger/"] {
            for name in names { #expect(try folder.savePicture(folderName + name, format: "png")) }
        }
        // A name in Latin-1, as an old camera card may hold: shown as GLib renders it.
        let copied = try Data(contentsOf: folder.url.appendingPathComponent("a.png"))
        let path = folder.url.path.utf8CString.dropLast() + Array("/caf\u{E9}".utf8CString.dropLast())
        var raw = Array(path)
        raw[raw.count - 1] = CChar(bitPattern: 0xE9)
        raw += Array(".png".utf8CString)
        let file = raw.withUnsafeBufferPointer { open($0.baseAddress!, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
        #expect(file >= 0)
        _ = copied.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
        close(file)

        let entries = try readEntries(FolderSource(location: folder.url, includesSubfolders: true))
        #expect(entries.count == 5 * names.count + 1)
        #expect(entries.contains { $0.name.hasPrefix("caf") && !$0.name.hasPrefix("cafe") })
        let byPath = NaturalOrder.order(names: entries.map(\.name), links: entries.map(\.link))
        #expect(byPath == Array(entries.indices), "\(byPath.map { entries[$0].name })")
    }

    @Test("Natural order of paths below a folder: a folder's own names first, then each sub-folder's")
    func pathOrder() {
        let names = ["b/c.png", "a.png", "b.png", "b/a/z.png", "b/z.png", "B2/a.png", "b10/a.png", "b9/a.png"]
        let order = NaturalOrder.order(names: names, links: names)
        #expect(
            order.map { names[$0] } == [
                "a.png", "b.png", "b/c.png", "b/z.png", "b/a/z.png", "B2/a.png", "b9/a.png", "b10/a.png",
            ])
        #expect(NaturalOrder.compare("b/z.png", "b/a/z.png") < 0)
        #expect(NaturalOrder.compare("b9/a.png", "b10/a.png") < 0)
        #expect(NaturalOrder.compare("img2.png", "img10.png") < 0, "names without folders as before")
    }

    @Test(
        "Names alike but for numbers of one width are ordered by their bytes, as their keys order them; others by their keys"
    )
    func sameShapeNames() {
        var generator = SystemRandomNumberGenerator()
        func digits(_ count: Int) -> String {
            // Zeros often, so runs of them lead, end and fill a number.
            let bytes = (0..<count).map { _ -> UInt8 in
                Int.random(in: 0..<4, using: &generator) == 0 ? 0x30 : 0x30 + UInt8.random(in: 0...9, using: &generator)
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        let shapes: [(Int) -> String] = [
            { _ in "IMG_\(digits(4)).JPG" },
            { _ in "PXL_\(digits(8))_\(digits(9)).jpg" },
            { _ in "2023-\(digits(2))-\(digits(2)) 12.\(digits(2)).\(digits(3))" },
            { _ in "Été \(digits(3))" },
            { _ in digits(3) },
            // More digits than a number of 64 bits holds: by their bytes.
            { _ in "IMG_\(digits(12))_\(digits(12)).jpg" },
        ]
        let keys = NaturalKeys()
        for shape in shapes {
            for _ in 0..<20 {
                let names = Array(Set((0..<60).map(shape)))
                let prefix = "2023/07 Été/"
                let packed = PackedTexts(names.map { prefix + $0 })
                let links = PackedTexts(names.map { "file:///p/" + $0 })
                let expected = NaturalOrder.order(names: names, links: Array(links))
                #expect(
                    packed.withView { NaturalOrder.sameShapeOrder($0, after: prefix.utf8.count) }
                        != nil)
                #expect(
                    NaturalOrder.order(names: packed, after: prefix.utf8.count, links: links, keys: keys) == expected,
                    "\(names)")
            }
        }
        // Not one shape: lengths differ, a letter differs, or a number is too long to stand for
        // itself by its bytes; these go by their keys.
        let others = [
            ["IMG_9.jpg", "IMG_10.jpg", "img_1.jpg"], ["a1.jpg", "b1.jpg", "A2.jpg"],
            [String(repeating: "0", count: 50) + "1", String(repeating: "0", count: 51)],
            // Two names shown alike (not UTF-8 on disk): told apart by their addresses.
            ["a\u{FFFD}1.jpg", "a\u{FFFD}2.jpg", "a\u{FFFD}1.jpg"],
        ]
        for names in others {
            let packed = PackedTexts(names)
            let links = PackedTexts(names.indices.reversed().map { "file:///p/\($0)" })
            #expect(packed.withView { NaturalOrder.sameShapeOrder($0, after: 0) } == nil)
            #expect(
                NaturalOrder.order(names: packed, after: 0, links: links, keys: keys)
                    == NaturalOrder.order(names: names, links: Array(links)))
        }
    }

    @Test("A name's verdict is the same whatever names came before it (the last extension is remembered)")
    func verdictsInTurn() {
        let names = [
            "a.jpg", "b.jpg", "notes.txt", "c.jpg", "d.JPG", "e.png", "f.txt", "README", "g.jpg", "h.", "i.jpgx",
            "j.jpg",
        ]
        let types = PictureTypes()
        let inTurn = names.map { name in name.withCString { types.verdict(forName: $0) } }
        let alone = names.map { name in name.withCString { PictureTypes().verdict(forName: $0) } }
        #expect(inTurn == alone)
        #expect(inTurn[0] == .picture && inTurn[2] == .other && inTurn[3] == .picture)
    }

    @Test("The sidecars photo apps keep beside photos are no pictures by their names alone (none is opened to tell)")
    func sidecarsByName() {
        let types = PictureTypes()
        let names = ["IMG_1.CR2.xmp", "IMG_1.XMP", "IMG_1.jpg.pp3", "IMG_1.dop", "IMG_1.AAE", "IMG_1.jpg"]
        let verdicts = names.map { name in name.withCString { types.verdict(forName: $0) } }
        #expect(verdicts == [.other, .other, .other, .other, .other, .picture])
        // A photo whose whole name is an extension's (no dot) is still looked at.
        #expect("xmp".withCString { types.verdict(forName: $0) } == .unknown)
    }
}
