import Foundation
import PhotoPipeline
import Testing
import TestSupport

@Suite struct PhotoListTests {
    let bundled = Products.packageRoot.appendingPathComponent("data/ClassicPhotos.plist")

    @Test("The bundled list parses: names sorted, relative URLs resolved, broken entries present")
    func bundledList() throws {
        let entries = try PhotoList.parse(Data(contentsOf: bundled), base: bundled)
        #expect(entries.count == 18)
        let names = entries.map(\.name)
        #expect(names == names.sorted { $0.localizedStandardCompare($1) == .orderedAscending })
        #expect(names.first == "Astronaut")
        let folder = bundled.deletingLastPathComponent().appendingPathComponent("photos")
        for entry in entries {
            #expect(entry.url.isFileURL)
            #expect(entry.url.deletingLastPathComponent().standardizedFileURL == folder.standardizedFileURL)
        }
        // The two deliberately broken entries: a missing file and a file that is not an image.
        let lighthouse = try #require(entries.first { $0.name == "Lighthouse" })
        #expect(!FileManager.default.fileExists(atPath: lighthouse.url.path))
        let notes = try #require(entries.first { $0.name == "Field Notes" })
        #expect(notes.url.lastPathComponent == "notes.txt")
        #expect(FileManager.default.fileExists(atPath: notes.url.path))
        let existing = entries.filter { FileManager.default.fileExists(atPath: $0.url.path) }
        #expect(existing.count == 17)
    }

    @Test("An array of {name, url} keeps its order; relative and absolute URLs both work")
    func arrayForm() throws {
        let base = URL(string: "https://example.org/lists/today.plist")!
        let items: [[String: String]] = [
            ["name": "Zebra", "url": "img/zebra.jpg"],
            ["name": "Apple", "url": "https://cdn.example.org/apple.jpg"],
            ["name": "Mango", "url": "/root/mango.jpg"],
        ]
        let data = try PropertyListSerialization.data(fromPropertyList: items, format: .binary, options: 0)
        let entries = try PhotoList.parse(data, base: base)
        #expect(entries.map(\.name) == ["Zebra", "Apple", "Mango"])
        #expect(entries.map(\.url.absoluteString) == [
            "https://example.org/lists/img/zebra.jpg", "https://cdn.example.org/apple.jpg", "https://example.org/root/mango.jpg",
        ])
    }

    @Test("Bad lists give clear errors", arguments: [
        ("not a plist at all", "is not a property list"),
        ("<plist><string>x</string></plist>", "must be a dictionary"),
        ("<plist><dict><key>A</key><integer>3</integer></dict></plist>", "“A” has no address"),
        ("<plist><array><dict><key>name</key><string>B</string></dict></array></plist>", "Item 1"),
    ])
    func badLists(text: String, message: String) {
        let error = #expect(throws: PhotoListError.self) {
            try PhotoList.parse(Data(text.utf8), base: URL(fileURLWithPath: "/tmp/list.plist"))
        }
        #expect(error?.description.contains(message) == true, "\(String(describing: error))")
    }

    @Test("Command-line arguments become list URLs")
    func locations() {
        #expect(PhotoList.location(of: "https://example.org/a.plist").absoluteString == "https://example.org/a.plist")
        #expect(PhotoList.location(of: "lists/a.plist", relativeTo: URL(fileURLWithPath: "/home/me")).path == "/home/me/lists/a.plist")
        #expect(PhotoList.location(of: "/abs/b.plist").path == "/abs/b.plist")
    }
}

extension PhotoEntry {
    var url: URL { try! resolvedURL() }
}
