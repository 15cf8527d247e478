import Foundation
@testable import PhotoPipeline
import Testing

/// The collection as a folder changes under it, and the orders a folder can be sorted in.
@MainActor @Suite struct FolderChangeTests {
    private func entries(_ names: [String]) -> [PhotoEntry] {
        names.map { PhotoEntry(name: $0, link: "file:///f/\($0)", base: nil) }
    }

    private func names(_ photos: PhotoCollection) -> [String] { (0..<photos.count).map { photos.name(at: $0) } }

    @Test("Removing, inserting, moving and renaming keep every photo's identity and position straight")
    func collectionChanges() {
        let photos = PhotoCollection()
        photos.append(entries(["a", "b", "c", "d"]))
        let (a, b, c, d) = (photos.id(at: 0), photos.id(at: 1), photos.id(at: 2), photos.id(at: 3))
        let recordC = photos.makeRecord(for: c)!
        #expect(photos.remove([b]) == [1])
        #expect(names(photos) == ["a", "c", "d"] && photos.count == 3)
        #expect(photos.position(of: b) == nil && photos.position(of: c) == 1 && recordC.position == 1)
        let e = photos.insert(entries(["e"])[0], at: 0)
        #expect(names(photos) == ["e", "a", "c", "d"])
        #expect(photos.position(of: e) == 0 && photos.position(of: d) == 3 && recordC.position == 2)
        photos.move(d, to: 1)
        #expect(names(photos) == ["e", "d", "a", "c"])
        photos.rename(a, to: PhotoEntry(name: "z", link: "file:///f/z", base: nil))
        #expect(photos.name(at: 2) == "z" && photos.id(at: 2) == a)
        #expect(photos.id(forLink: "file:///f/z") == a && photos.id(forLink: "file:///f/a") == nil)
        #expect(photos.id(forLink: "file:///f/b") == nil, "removed photos are not found by address")
        // Appending after changes still goes last, and the order can still be permuted.
        photos.append(entries(["f"]))
        #expect(names(photos) == ["e", "d", "z", "c", "f"])
        photos.reorder([4, 3, 2, 1, 0])
        #expect(names(photos) == ["f", "c", "z", "d", "e"] && recordC.position == 1)
        #expect(photos.remove([photos.id(at: 0), photos.id(at: 4)]) == [0, 4])
        #expect(names(photos) == ["c", "z", "d"])
    }

    @Test("Orders: natural names, date taken, date modified and size, either way, ties by name")
    func orders() {
        let names = ["img10.jpg", "img2.jpg", "IMG3.jpg", "img1.jpg"]
        let links = names.map { "file:///f/\($0)" }
        let facts: [SortFacts?] = [
            SortFacts(modified: 30, size: 500, taken: "2021-01-01 00:00:00"),
            SortFacts(modified: 10, size: 100, taken: "2023-01-01 00:00:00"),
            SortFacts(modified: 20, size: 100, taken: "2022-01-01 00:00:00"),
            nil, // could not be read: last
        ]
        func ordered(_ key: PhotoOrder.Key, _ descending: Bool = false) -> [String] {
            PhotoOrder(key: key, descending: descending).order(names: names, links: links, facts: facts).map {
                names[$0]
            }
        }
        #expect(ordered(.name) == ["img1.jpg", "img2.jpg", "IMG3.jpg", "img10.jpg"])
        #expect(ordered(.name, true) == ["img10.jpg", "IMG3.jpg", "img2.jpg", "img1.jpg"])
        #expect(ordered(.dateTaken) == ["img10.jpg", "IMG3.jpg", "img2.jpg", "img1.jpg"])
        #expect(ordered(.dateModified) == ["img2.jpg", "IMG3.jpg", "img10.jpg", "img1.jpg"])
        #expect(ordered(.dateModified, true) == ["img10.jpg", "IMG3.jpg", "img2.jpg", "img1.jpg"])
        // Equal sizes tie: name order decides.
        #expect(ordered(.size) == ["img2.jpg", "IMG3.jpg", "img10.jpg", "img1.jpg"])
        #expect(ordered(.size, true) == ["img10.jpg", "img2.jpg", "IMG3.jpg", "img1.jpg"])
        // One photo against another agrees with the whole order.
        let order = PhotoOrder(key: .dateTaken)
        #expect(order.precedes(facts[0], named: names[0], facts[2], named: names[2]))
        #expect(!order.precedes(facts[1], named: names[1], facts[2], named: names[2]))
    }

    @Test("The date taken is read from a photo's first bytes even when its EXIF block goes on past them")
    func dateTakenFromHead() throws {
        // A JPEG start with an EXIF APP1 segment claiming 60,000 bytes, of which the first part
        // holds IFD0 with DateTime, cut short after it.
        var tiff: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00] // little-endian, IFD0 at 8
        tiff += [0x01, 0x00] // one entry
        tiff += [0x32, 0x01, 0x02, 0x00, 0x14, 0x00, 0x00, 0x00, 0x1A, 0x00, 0x00, 0x00] // DateTime, ASCII, 20, at 26
        tiff += [0x00, 0x00, 0x00, 0x00] // no next IFD
        tiff += Array("2020:02:29 12:34:56\u{0}".utf8)
        let segment: [UInt8] = [0xFF, 0xE1, 0xEA, 0x60] + Array("Exif".utf8) + [0, 0] + tiff
        let head = Data([0xFF, 0xD8] + segment)
        #expect(ExifReader.dateTaken(head) == "2020-02-29 12:34:56")
        #expect(ExifReader.dateTaken(Data([0xFF, 0xD8, 0xFF, 0xDB, 0x00, 0x04, 0, 0])) == nil)
    }
}
