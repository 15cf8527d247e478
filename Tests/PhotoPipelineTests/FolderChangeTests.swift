import Foundation
@testable import PhotoPipeline
import Testing
import TestSupport

/// The collection as a folder changes under it, and the orders a folder can be sorted in.
@MainActor @Suite struct FolderChangeTests {
    private func entries(_ names: [String]) -> [PhotoEntry] {
        names.map { PhotoEntry(name: $0, link: "file:///f/\($0)", base: nil) }
    }

    private func names(_ photos: PhotoCollection) -> [String] { (0..<photos.count).map { photos.name(at: $0) } }
    private func names(_ list: PhotoList) -> [String] { (0..<list.count).map { list.name(at: $0) } }

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

    @Test(
        "Every order of many photos agrees with comparing them two at a time, with unread facts, unknown dates and ties"
    )
    func ordersAgreeWithComparison() {
        var generator = SystemRandomNumberGenerator()
        let count = 600
        let names = (0..<count).map { "photo\($0 % 250).jpg" + ($0 >= 250 ? " (\($0))" : "") }
        let links = names.map { "file:///f/\($0)" }
        let facts: [SortFacts?] = (0..<count).map { _ in
            let roll = Int.random(in: 0..<10, using: &generator)
            if roll == 0 { return nil }
            let day = Int.random(in: 1...3, using: &generator)
            return SortFacts(
                modified: Int64.random(in: -2...2, using: &generator) * 1_000_000_000,
                size: Int64.random(in: 0...3, using: &generator),
                taken: roll == 1
                    ? nil : String(format: "2021-07-%02d 18:30:%02d", day, Int.random(in: 0...1, using: &generator)))
        }
        for key in PhotoOrder.Key.allCases where key != .name {
            for descending in [false, true] {
                let order = PhotoOrder(key: key, descending: descending)
                let sorted = order.order(names: names, links: links, facts: facts)
                #expect(Set(sorted).count == count)
                let agrees = zip(sorted, sorted.dropFirst()).allSatisfy { a, b in
                    !order.precedes(facts[b], named: names[b], facts[a], named: names[a])
                }
                #expect(agrees, "\(key) \(descending ? "descending" : "ascending")")
            }
        }
        #expect(PhotoOrder.dateNumber("2021-07-04 18:30:05") == 20_210_704_183_005)
        #expect(PhotoOrder.dateNumber("2021:07:04 18:30:05") == nil)
        #expect(PhotoOrder.dateNumber("2021-07-04 18:30") == nil)
    }

    @Test(
        "Entries handed over as a share lists them, in pages in no order, end in the order the whole listing sorts to, in every order, for a folder and a tree, with a photo held ahead"
    )
    func arrivalsAgreeWithWholeOrder() {
        var generator = SystemRandomNumberGenerator()
        func facts() -> SortFacts? {
            Int.random(in: 0..<8, using: &generator) == 0
                ? nil
                : SortFacts(
                    modified: Int64.random(in: 0...3, using: &generator),
                    size: Int64.random(in: 0...3, using: &generator),
                    taken: nil)
        }
        let folder =
            (0..<300).map { "IMG_\($0 % 120).jpg" + ($0 >= 120 ? " (\($0))" : "") } + ["b", "a", "Z", "c10", "c9"]
        let tree = (0..<300).map { ["", "2023/", "2023/07 July/", "2021/", "b/"][$0 % 5] + "p\($0 % 37)-\($0).jpg" }
        for (names, folders) in [(folder, 5), (tree, 0)] {
            let isFolder = names.indices.map { $0 >= names.count - folders }
            let links = names.indices.map { "file:///h/\(names[$0])" + (isFolder[$0] ? "/" : "") }
            let allFacts = names.indices.map { isFolder[$0] ? nil : facts() }
            for key in PhotoOrder.Key.allCases where key != .dateTaken {
                for descending in [false, true] {
                    let order = PhotoOrder(key: key, descending: descending)
                    let expected = order.order(names: names, links: links, facts: allFacts).map { names[$0] }
                    var arrivals = ArrivalOrder(order: order)
                    var shown: [String] = []
                    var pending = Array(names.indices).shuffled(using: &generator)
                    if Bool.random(using: &generator), let ahead = pending.firstIndex(where: { !isFolder[$0] }) {
                        let index = pending.remove(at: ahead)
                        arrivals.hold(
                            .init(name: names[index], link: links[index], facts: allFacts[index], isFolder: false))
                        shown = [names[index]]
                    }
                    while !pending.isEmpty {
                        let page = pending.prefix(Int.random(in: 1...60, using: &generator))
                        pending.removeFirst(page.count)
                        for index in page {
                            arrivals.add(
                                .init(
                                    name: names[index], link: links[index], facts: allFacts[index],
                                    isFolder: isFolder[index]))
                        }
                        let (entries, positions) = arrivals.take()
                        guard let positions else {
                            shown += entries.map(\.name)
                            continue
                        }
                        #expect(zip(positions, positions.dropFirst()).allSatisfy { $0 < $1 })
                        var next: [String?] = Array(repeating: nil, count: shown.count + entries.count)
                        for (entry, position) in zip(entries, positions) { next[position] = entry.name }
                        var old = shown.makeIterator()
                        shown = next.map { $0 ?? old.next()! }
                    }
                    #expect(!arrivals.hasArrivals)
                    let differs = zip(shown, expected).enumerated().first { $0.element.0 != $0.element.1 }
                    #expect(
                        shown == expected,
                        "\(key) \(descending ? "descending" : "ascending"): \(String(describing: differs))")
                }
            }
        }
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

    @Test("The date taken is read from a PNG's eXIf chunk and from a TIFF-based file's own IFDs")
    func dateTakenFromPNGAndTIFF() throws {
        var tiff: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08] // big-endian, IFD0 at 8
        tiff += [0x00, 0x01] // one entry
        tiff += [0x01, 0x32, 0x00, 0x02, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x1A] // DateTime, at 26
        tiff += [0x00, 0x00, 0x00, 0x00]
        tiff += Array("2019:07:04 18:30:05\u{0}".utf8)
        // A TIFF (or a RAW file built on TIFF, as DNG and NEF are): its own IFD0.
        #expect(ExifReader.dateTaken(Data(tiff)) == "2019-07-04 18:30:05")
        // A PNG: the signature, an IHDR, then eXIf holding the same TIFF block.
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let length = UInt32(body.count)
            return [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
                + Array(type.utf8) + body + [0, 0, 0, 0]
        }
        let png =
            PictureSignature.png + chunk("IHDR", [0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]) + chunk("eXIf", tiff)
            + chunk("IEND", [])
        #expect(ExifReader.dateTaken(Data(png)) == "2019-07-04 18:30:05")
        // A PNG without one says nothing.
        let plain = PictureSignature.png + chunk("IHDR", [0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]) + chunk("IEND", [])
        #expect(ExifReader.dateTaken(Data(plain)) == nil)
    }

    @Test("The date taken is read from a HEIC's and an AVIF's Exif item; damaged HEIF boxes yield nothing")
    func dateTakenFromHEIF() throws {
        let folder = try ScratchFolder()
        let jpeg = folder.url.appendingPathComponent("taken.jpg")
        #expect(
            try run(URL(fileURLWithPath: "/usr/bin/convert"), ["-size", "64x48", "xc:gray", jpeg.path]).status == 0)
        let tagged = try run(
            URL(fileURLWithPath: "/usr/bin/exiftool"),
            ["-q", "-overwrite_original", "-DateTimeOriginal=2019:03:04 05:06:07", jpeg.path])
        #expect(tagged.status == 0, "\(tagged.stderr)")
        for (name, extra) in [("taken.heic", [String]()), ("taken.avif", ["-A"])] {
            let heif = folder.url.appendingPathComponent(name)
            let made = try run(
                URL(fileURLWithPath: "/usr/bin/heif-enc"), ["-q", "50"] + extra + ["-o", heif.path, jpeg.path])
            #expect(made.status == 0, "\(made.stderr)")
            #expect(SortFacts.read(path: heif.path, taken: true)?.taken == "2019-03-04 05:06:07", "\(name)")
            // Every byte of its boxes' headers changed in turn, and the file cut short: no date
            // or another, never a read out of bounds.
            let bytes = try Data(contentsOf: heif)
            for at in 0..<min(bytes.count, 400) {
                for value: UInt8 in [0x00, 0xFF, bytes[at] ^ 0x80] {
                    var damaged = bytes
                    damaged[at] = value
                    if let range = HEIFExif.itemRange(in: damaged) {
                        #expect(range.lowerBound >= 0 && range.count <= 1 << 24)
                    }
                }
                _ = HEIFExif.itemRange(in: bytes.prefix(at))
            }
        }
        // A picture that is no HEIF has no Exif item.
        #expect(HEIFExif.itemRange(in: try Data(contentsOf: jpeg)) == nil)
    }

    // MARK: Bursts of changes, planned

    /// A list of the folder `/f` holding `names`, and the plan of `changes` to it by name.
    private func plan(
        _ changes: [FolderChange], in names: [String], order: PhotoOrder = .byName,
        facts: [String: SortFacts] = [:]
    ) -> (list: PhotoList, plan: FolderChangePlan) {
        let list = PhotoList()
        list.apply(.replaceAll(entries(names)))
        let plan = FolderChanges.plan(
            changes, list: list.snapshot(), order: order, link: { "file://\($0)" },
            entry: { path in
                let name = URL(fileURLWithPath: path).lastPathComponent
                return name.hasPrefix(".") || name.hasSuffix(".txt")
                    ? nil
                    : PhotoEntry(
                        name: name, link: "file://\(path)", base: nil)
            },
            facts: { facts[$0.name] })
        return (list, plan)
    }

    @Test("A burst of new files is one sorted merge, applied in slices whose positions hold at every step")
    func burstMerges() {
        let existing = (1...20).map { "img\($0 * 2)" } // img2, img4, …, img40
        let new = (1...20).map { "img\($0 * 2 - 1)" }.shuffled() + ["a0", "zz"] // odd ones, one before, one after
        let (list, plan) = plan(new.map { .created("/f/\($0)") } + [.created("/f/notes.txt")], in: existing)
        #expect(plan.added == 22 && plan.removedCount == 0 && plan.changed == 0)
        #expect(plan.insertedAt == plan.insertedAt.sorted())
        let edits = plan.edits(slice: 5)
        #expect(edits.count == 5, "22 new photos in slices of at most 5")
        let ids = (0..<list.count).map { list.id(at: $0) }
        for edit in edits { list.apply(edit) }
        let expected = ["a0"] + (1...40).map { "img\($0)" } + ["zz"]
        #expect(names(list) == expected)
        #expect(ids.allSatisfy(list.contains), "the photos there before keep their identity")
    }

    @Test("Removed, renamed, rewritten and editors' save-by-rename files give the edits the list needs")
    func mixedBurst() {
        let (list, plan) = plan(
            [
                .deleted("/f/b"),
                .renamed(from: "/f/c", to: "/f/zz"), // moves to the end, same photo
                .changed("/f/d"), // rewritten
                .created("/f/.d.tmp"), .renamed(from: "/f/.d.tmp", to: "/f/e"), // an editor saving e
                .created("/f/new"), .changed("/f/new"), // its writing done: no change of its own
                .created("/f/gone"), .deleted("/f/gone"), // came and went in the same burst
                .renamed(from: "/f/a", to: "/f/a.txt"), // no longer a picture by its name
            ], in: ["a", "b", "c", "d", "e"])
        let (a, b, c, d, e) = (list.id(at: 0), list.id(at: 1), list.id(at: 2), list.id(at: 3), list.id(at: 4))
        #expect(plan.added == 2 && plan.removedCount == 3 && plan.changed == 3)
        #expect(Set(plan.removed) == [a, b])
        #expect(plan.moved.map(\.id) == [c] && plan.moved.first?.entry.name == "zz")
        #expect(Set(plan.rewritten) == [d, e])
        #expect(plan.inserted.map(\.name) == ["new"])
        for edit in plan.edits(slice: 100) { list.apply(edit) }
        #expect(names(list) == ["d", "e", "new", "zz"])
        #expect(list.id(at: 3) == c, "a renamed photo stays who it is")
    }

    @Test("A sub-folder made, renamed and removed while its parent is shown: its item comes first, moves and goes")
    func folderItems() {
        let list = PhotoList()
        list.apply(
            .replaceAll([
                PhotoEntry(name: "old", link: "file:///f/old/", base: nil),
                PhotoEntry(name: "a.jpg", link: "file:///f/a.jpg", base: nil),
            ]))
        let folders: Set<String> = ["/f/new", "/f/renamed"]
        func apply(_ changes: [FolderChange]) -> FolderChangePlan {
            let plan = FolderChanges.plan(
                changes, list: list.snapshot(), order: .byName, link: { "file://\($0)" },
                entry: { path in
                    let name = URL(fileURLWithPath: path).lastPathComponent
                    return PhotoEntry(
                        name: name, link: "file://\(path)" + (folders.contains(path) ? "/" : ""), base: nil)
                }, facts: { _ in nil })
            for edit in plan.edits(slice: 100) { list.apply(edit) }
            return plan
        }
        // Made: its contents' changes reported on it are nothing to its item.
        let made = apply([.created("/f/new"), .changed("/f/new")])
        #expect(made.added == 1 && made.changed == 0)
        #expect(names(list) == ["new", "old", "a.jpg"])
        let renamed = apply([.renamed(from: "/f/old", to: "/f/renamed"), .changed("/f/new")])
        #expect(renamed.changed == 1 && renamed.added == 0 && renamed.removedCount == 0)
        #expect(names(list) == ["new", "renamed", "a.jpg"])
        let removed = apply([.deleted("/f/new")])
        #expect(removed.removedCount == 1)
        #expect(names(list) == ["renamed", "a.jpg"])
    }

    @Test("In an order that needs facts, new photos go by them, and only the photos compared are read")
    func burstByDate() {
        let taken: [String: SortFacts] = [
            "p1": SortFacts(modified: 10, size: 1), "p2": SortFacts(modified: 30, size: 1),
            "p3": SortFacts(modified: 50, size: 1), "late": SortFacts(modified: 60, size: 1),
            "early": SortFacts(modified: 5, size: 1), "mid": SortFacts(modified: 40, size: 1),
        ]
        let (list, plan) = plan(
            [.created("/f/late"), .created("/f/early"), .created("/f/mid")], in: ["p1", "p2", "p3"],
            order: PhotoOrder(key: .dateModified), facts: taken)
        for edit in plan.edits(slice: 1) { list.apply(edit) }
        #expect(names(list) == ["early", "p1", "p2", "mid", "p3", "late"])
        #expect(plan.factsRead.count <= 3, "facts of the photos already shown are read as compared")
        #expect(plan.insertedFacts == plan.inserted.map { taken[$0.name] }, "the new photos' facts, kept with them")
    }

    @Test("In an order of facts, a rewritten photo's new facts are read with the plan, not left to the main thread")
    func rewrittenFactsRead() {
        let facts: [String: SortFacts] = [
            "p1": SortFacts(modified: 10, size: 1), "p2": SortFacts(modified: 70, size: 9),
            "p3": SortFacts(modified: 50, size: 1), "q": SortFacts(modified: 20, size: 1),
        ]
        let (list, plan) = plan(
            [.changed("/f/p2")], in: ["p1", "p2", "p3"], order: PhotoOrder(key: .dateModified), facts: facts)
        let p2 = list.id(at: 1)
        #expect(plan.rewritten == [p2])
        #expect(plan.factsRead == [p2: facts["p2"]!], "the rewritten photo's facts, as its file has them now")
        let (renamedIn, renaming) = self.plan(
            [.renamed(from: "/f/p3", to: "/f/q")], in: ["p1", "p2", "p3"], order: PhotoOrder(key: .dateModified),
            facts: facts)
        #expect(renaming.factsRead[renamedIn.id(at: 2)] == facts["q"], "the renamed photo's, as its new file has them")
        let byName = self.plan([.changed("/f/p2")], in: ["p1", "p2", "p3"], facts: facts).plan
        #expect(byName.factsRead.isEmpty, "an order by name reads nothing")
    }

    @Test("A photo put back goes where the order places it")
    func positionOfOne() {
        let list = PhotoList()
        list.apply(.replaceAll(entries(["img1", "img3", "img10"])))
        let back = entries(["img4"])[0]
        #expect(FolderChanges.position(of: back, in: list.snapshot(), order: .byName, facts: { _ in nil }) == 2)
        let descending = PhotoOrder(key: .name, descending: true)
        list.apply(.reorder([list.id(at: 2), list.id(at: 1), list.id(at: 0)]))
        #expect(FolderChanges.position(of: back, in: list.snapshot(), order: descending, facts: { _ in nil }) == 1)
    }

    @Test(
        "Thousands put back at once each go where the order places it, as it would alone",
        arguments: [PhotoOrder.byName, PhotoOrder(key: .name, descending: true)])
    func positionsOfMany(order: PhotoOrder) {
        // A folder of 3,000 where every third photo was moved to the trash, and those coming
        // back, with a few from its ends and some already there again (ties).
        let all = (0..<3_000).map { "IMG_\($0)" }
        let list = PhotoList()
        let shown = all.enumerated().filter { $0.offset % 3 != 0 }.map(\.element)
        let sorted = order.descending ? shown.reversed() : shown
        list.apply(.replaceAll(entries(Array(sorted))))
        let back = entries(
            all.enumerated().filter { $0.offset % 3 == 0 }.map(\.element).shuffled() + ["IMG_1", "A", "Z"])
        var compared = 0
        let many = FolderChanges.positions(of: back, in: list.snapshot(), order: order) { _ in
            compared += 1
            return nil
        }
        let alone = back.map { FolderChanges.position(of: $0, in: list.snapshot(), order: order, facts: { _ in nil }) }
        #expect(many == alone)
        // Each as the order places it: after every photo shown that precedes it.
        let snapshot = list.snapshot()
        for (entry, position) in zip(back, many).prefix(50) {
            let before = (0..<snapshot.count).filter {
                !order.precedes(nil, named: entry.name, nil, named: snapshot.entry(at: $0).name)
            }.count
            #expect(position == before, "\(entry.name)")
        }
        #expect(compared == 0, "no facts are read in an order by name")
    }

    @Test("Photos put back among sub-folders, in an order of facts: only photos' facts are read, each once")
    func positionsAmongFolders() {
        // Five sub-folders first, then 200 photos by size; the list knows none of their facts.
        let folders = (0..<5).map { PhotoEntry(name: "folder \($0)", link: "file:///f/folder%20\($0)/", base: nil) }
        let photos = (0..<200).map { PhotoEntry(name: "p\($0).jpg", link: "file:///f/p\($0).jpg", base: nil) }
        let list = PhotoList()
        list.apply(.replaceAll(folders + photos))
        var reads: [String: Int] = [:]
        let size = { (entry: PhotoEntry) -> SortFacts? in
            reads[entry.link, default: 0] += 1
            // A photo's size is its number; p13's file cannot be read.
            guard let number = Int(entry.name.dropFirst().dropLast(4)), number != 13 else { return nil }
            return SortFacts(modified: 0, size: Int64(number) * 2, taken: nil)
        }
        let back = [101, 3, 57, 399, 0].map {
            PhotoEntry(name: "p\($0).jpg", link: "file:///f/back\($0).jpg", base: nil)
        }
        let positions = FolderChanges.positions(
            of: back, in: list.snapshot(), order: PhotoOrder(key: .size), facts: size)
        // pN (size 2N, ties broken by name) goes after the photos of size up to N.
        #expect(positions.allSatisfy { $0 >= folders.count }, "\(positions)")
        #expect(reads.keys.allSatisfy { !$0.hasSuffix("/") }, "a folder's facts were read: \(reads.keys.sorted())")
        #expect(reads.values.allSatisfy { $0 == 1 }, "read more than once: \(reads.filter { $0.value > 1 })")
    }
}
