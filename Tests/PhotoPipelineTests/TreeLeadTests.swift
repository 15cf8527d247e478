import CGLib
import Foundation
import GLibKit
@testable import PhotoPipeline
import Testing
import TestSupport

/// A big tree sorted by date shows its first rows from the index while its folders are read,
/// and the whole listing then goes in around them.
@Suite struct TreeLeadTests {
    /// The rows a list holds after `batches` (removals first, then entries at their positions
    /// or after the rest), as the window applies them.
    static func apply(_ batches: [PhotoSourceBatch]) -> [PhotoEntry] {
        var rows: [PhotoEntry] = []
        for batch in batches {
            for position in (batch.removing ?? []).reversed() { rows.remove(at: position) }
            if let positions = batch.positions {
                for (entry, position) in zip(batch.entries, positions) { rows.insert(entry, at: position) }
            } else {
                rows += batch.entries
            }
        }
        return rows
    }

    private func lead(_ links: [String]) -> TreeLead {
        TreeLead(entries: links.map { PhotoEntry(name: $0, link: "file:///t/" + $0, base: nil) })
    }

    /// The lead's rows, then the merge applied, as the list would hold them.
    private func merged(_ shown: [String], into listing: [String]) -> (TreeLead.Merge, [String]) {
        let lead = lead(shown)
        let merge = lead.merge(count: listing.count) { "file:///t/" + listing[$0] }
        var rows = shown
        for position in merge.removing.reversed() { rows.remove(at: position) }
        for position in merge.inserting { rows.insert(listing[position], at: position) }
        rows += listing[merge.appendingFrom...]
        return (merge, rows)
    }

    @Test(
        "A lead that begins the listing is followed by the rest; new rows go in between, rows the listing lacks or holds in another order are taken out"
    )
    func merges() {
        let listing = ["a", "b", "c", "d", "e"]
        var (merge, rows) = merged(["a", "b", "c"], into: listing)
        #expect(merge == TreeLead.Merge(appendingFrom: 3) && rows == listing)
        (merge, rows) = merged(["a", "c"], into: listing)
        #expect(merge == TreeLead.Merge(inserting: [1], appendingFrom: 3) && rows == listing)
        (merge, rows) = merged(["a", "x", "c"], into: listing)
        #expect(merge == TreeLead.Merge(removing: [1], inserting: [1], appendingFrom: 3) && rows == listing)
        (merge, rows) = merged(["c", "a"], into: listing)
        #expect(merge == TreeLead.Merge(removing: [0, 1], appendingFrom: 0) && rows == listing)
        (merge, rows) = merged(["x", "y"], into: listing)
        #expect(merge == TreeLead.Merge(removing: [0, 1], appendingFrom: 0) && rows == listing)
        (merge, rows) = merged(["a", "b"], into: [])
        #expect(merge == TreeLead.Merge(removing: [0, 1], appendingFrom: 0) && rows.isEmpty)
        (merge, rows) = merged(["a", "b", "c", "d", "e"], into: listing)
        #expect(merge == TreeLead.Merge(appendingFrom: 5) && rows == listing)

        // Any lead at all, against any listing: the list ends as the listing.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let listing = (0..<Int.random(in: 0...12, using: &generator)).map { "p\($0)" }
            let shown = Array((listing + ["gone1", "gone2"]).shuffled(using: &generator).prefix(Int.random(in: 1...6)))
            let ordered = Bool.random(using: &generator) ? shown.sorted() : shown
            #expect(merged(ordered, into: listing).1 == listing, "\(ordered) into \(listing)")
        }
    }

    /// A tree of `perFolder` × 7 pictures in year/month folders, dates unlike the names, and
    /// an index that knows them all.
    private func tree(perFolder: Int = 460) throws -> (folder: ScratchFolder, index: PhotoIndex) {
        let folder = try ScratchFolder()
        let dates = (0..<7).map { String(format: "20%02d:0%d:01 10:00:00", 20 - $0, 1 + $0 % 9) }
        for (n, month) in ["2020/01", "2020/02", "2021/01", "2021/05", "2022/03", "2022/04", "2023/11"].enumerated() {
            // Each folder's photos share two dates, the later half of the tree's dates earlier.
            _ = try TestPictures.linkDatedPhotos(
                in: folder.url.appendingPathComponent(month), count: perFolder,
                dates: [dates[n], dates[(n + 3) % 7]], prefix: "IMG_")
        }
        let index = try PhotoIndex(path: folder.url.appendingPathComponent(".cache/index.sqlite").path)
        return (folder, index)
    }

    /// Every picture's date read into `index`, as a first launch's background reading leaves it.
    private func remember(_ entries: [PhotoEntry], in index: PhotoIndex) {
        for entry in entries { _ = SortFacts.read(link: entry.link, taken: true, index: index) }
        index.flush()
    }

    private func read(
        _ folder: URL, index: PhotoIndex, lead: FolderSource.LeadPolicy, order: PhotoOrder = PhotoOrder(key: .dateTaken)
    ) throws -> [PhotoSourceBatch] {
        var batches: [PhotoSourceBatch] = []
        try FolderSource.readPictures(
            in: folder, selecting: nil, order: order, recursive: true, cancellable: Cancellable(), index: index,
            lead: lead
        ) { batches.append($0) }
        return batches
    }

    @Test(
        "A big tree's first rows by date come from the index before its listing, are its first rows, and the rest follows; without an index that knows it, none"
    )
    func leadFromIndex() throws {
        let (folder, index) = try tree()
        // The first reading finds no dates held: names first, the first of them from the first
        // folders, ahead of the rest.
        let cold = try read(folder.url, index: index, lead: .always)
        let everything = Self.apply(cold)
        let nameLead = try #require(cold.first)
        #expect(nameLead.folder == nil && nameLead.order == .byName && !nameLead.orderFromIndex)
        #expect(nameLead.entries.map(\.link) == everything.prefix(FolderSource.leadRows).map(\.link))
        #expect(cold.dropFirst().allSatisfy { $0.removing == nil && $0.positions == nil })
        #expect(cold[1].folder != nil && cold[1].order == .byName)
        // (Each folder's two source photos sit beside it, in its year's folder.)
        #expect(everything.count == 7 * 460 + 14)
        remember(everything, in: index)

        for order in [PhotoOrder(key: .dateTaken), PhotoOrder(key: .dateTaken, descending: true)] {
            let plain = Self.apply(try read(folder.url, index: index, lead: .never, order: order))
            let batches = try read(folder.url, index: index, lead: .always, order: order)
            let first = try #require(batches.first)
            // Shown ahead: no folder yet (it is watched once listed), the index's order.
            #expect(first.folder == nil && first.tree == nil && first.orderFromIndex)
            #expect(first.entries.count == FolderSource.leadRows)
            #expect(first.entries.map(\.link) == plain.prefix(FolderSource.leadRows).map(\.link))
            #expect(first.entries.map(\.name) == plain.prefix(FolderSource.leadRows).map(\.name))
            // The listing follows it: nothing taken out or put between.
            #expect(batches.dropFirst().allSatisfy { $0.removing == nil && $0.positions == nil })
            #expect(batches[1].folder != nil && batches[1].tree?.count == 12)
            #expect(Self.apply(batches).map(\.link) == plain.map(\.link))
            #expect(plain.map(\.link) != everything.map(\.link), "the order by date differs from the names'")
        }
    }

    @Test(
        "A lead leaves out what changed since the index saw it and what is hidden; rows the listing does not hold are taken out, new ones go in between"
    )
    func leadChecked() throws {
        let (folder, index) = try tree()
        let everything = Self.apply(try read(folder.url, index: index, lead: .never))
        remember(everything, in: index)
        let plainBefore = Self.apply(try read(folder.url, index: index, lead: .never))
        // A hidden folder and a file named in `.hidden`, both known to the index with the
        // earliest dates of all (as if each had been opened on its own once).
        let hidden = folder.url.appendingPathComponent("2020/.private")
        let secret = try TestPictures.linkDatedPhotos(
            in: hidden, count: 3, dates: ["1990:01:01 10:00:00"], prefix: "S_")
        let listed = folder.url.appendingPathComponent("2021/05/listed-hidden.jpg")
        try TestPictures.jpegWithExif(
            make: "Cam", model: "One", original: "1991:01:01 10:00:00", orientation: 1, little: true
        ).write(to: listed)
        try folder.write("2021/05/.hidden", "listed-hidden.jpg\n")
        // A folder that is a link to one read already: the listing reads it once, under its
        // own name, but the index knows a picture by the link's path, with an early date.
        try FileManager.default.createSymbolicLink(
            at: folder.url.appendingPathComponent("2023/zz-link"),
            withDestinationURL: folder.url.appendingPathComponent("2023/11"))
        let throughLink = folder.url.appendingPathComponent("2023/zz-link/IMG_00000.jpg")
        var status = stat()
        #expect(stat(throughLink.path, &status) == 0)
        index.remember(
            path: throughLink.path,
            PhotoIndex.Facts(
                size: SortFacts(status).size, modified: SortFacts(status).modified, taken: "1992-01-01 10:00:00"))
        remember(
            secret.map { PhotoEntry(name: $0, link: hidden.appendingPathComponent($0).absoluteString, base: nil) }
                + [PhotoEntry(name: "", link: listed.absoluteString, base: nil)], in: index)
        // The first photo by date, rewritten since (a new time): its date is read again, so it is
        // not shown ahead. A new photo, unknown to the index, earlier than every other.
        // (A copy of its own: its hard links keep their times.)
        let rewritten = try #require(plainBefore.first)
        let bytes = try Data(contentsOf: rewritten.url)
        try FileManager.default.removeItem(at: rewritten.url)
        try bytes.write(to: rewritten.url)
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: 1_700_000_000)], ofItemAtPath: rewritten.url.path)
        try TestPictures.jpegWithExif(
            make: "Cam", model: "One", original: "1999:01:01 10:00:00", orientation: 1, little: true
        ).write(to: folder.url.appendingPathComponent("2022/03/new.jpg"))

        // (Read with the lead first: reading the listing gives the new photo's date to the index.)
        let batches = try read(folder.url, index: index, lead: .always)
        let plain = Self.apply(try read(folder.url, index: index, lead: .never))
        let shown = try #require(batches.first?.entries)
        #expect(shown.count == FolderSource.leadRows)
        #expect(!shown.contains { $0.name.contains(".private") || $0.name.hasSuffix("listed-hidden.jpg") })
        #expect(!shown.contains { $0.link == rewritten.link })
        #expect(!shown.contains { $0.name.hasSuffix("new.jpg") })
        // The picture known through the link is shown ahead, first, and taken out once listed.
        #expect(shown.first?.name == "2023/zz-link/IMG_00000.jpg")
        #expect(!plain.contains { $0.name.hasPrefix("2023/zz-link/") })
        let merge = try #require(batches.dropFirst().first)
        #expect(merge.removing == [0])
        #expect(merge.positions?.first == 0 && merge.entries.first?.name == "2022/03/new.jpg")
        #expect(Self.apply(batches).map(\.link) == plain.map(\.link))
        #expect(plain.first?.name == "2022/03/new.jpg")
    }

    @Test(
        "A tree sorted by name (or by date, before the index knows it) shows its first 250 pictures from its first folders ahead of the rest; one with fewer shows none"
    )
    func leadByName() throws {
        let (folder, index) = try tree()
        let plain = Self.apply(try read(folder.url, index: index, lead: .never, order: .byName))
        let batches = try read(folder.url, index: index, lead: .always, order: .byName)
        #expect(batches.first?.folder == nil)
        #expect(batches.first?.entries.map(\.name) == plain.prefix(FolderSource.leadRows).map(\.name))
        #expect(Self.apply(batches).map(\.link) == plain.map(\.link))
        // 7 × 30 pictures and the 14 beside them: fewer than a lead, in either order.
        let (small, smallIndex) = try tree(perFolder: 30)
        remember(Self.apply(try read(small.url, index: smallIndex, lead: .never)), in: smallIndex)
        #expect(try read(small.url, index: smallIndex, lead: .always).first?.folder != nil)
        #expect(try read(small.url, index: smallIndex, lead: .always, order: .byName).first?.folder != nil)
    }
}
