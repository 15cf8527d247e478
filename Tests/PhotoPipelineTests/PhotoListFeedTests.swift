import Foundation
import GLibKit
@testable import PhotoPipeline
import Testing
import TestSupport

/// The list's model on its own, with no window: a folder read into the list, kept up to date,
/// sorted, and the actions' edits, each seen as the edits the views observe.
@Suite(.serialized) @MainActor struct PhotoListFeedTests {
    /// A folder of three "photos" of different sizes (a listing reads names only; sorting by
    /// size reads the files' sizes), and a feed reading it.
    private func feedOfFolder() async throws -> (PhotoListFeed, ScratchFolder) {
        let folder = try ScratchFolder()
        try folder.write("a.jpg", String(repeating: "a", count: 100))
        try folder.write("b.jpg", String(repeating: "b", count: 300))
        try folder.write("c.jpg", String(repeating: "c", count: 200))
        let feed = PhotoListFeed(loader: PhotoSourceLoader(fetcher: PhotoFetcher()))
        var loaded = false
        feed.onEvent = { event in if case .loaded = event { loaded = true } }
        feed.read([FolderSource(location: folder.url)])
        #expect(await waitUntil { loaded }, "the folder is read")
        return (feed, folder)
    }

    private func names(_ list: PhotoList) -> [String] { (0..<list.count).map { list.name(at: $0) } }

    @Test("A folder read through the model fills the list, and a photo saved in it later arrives by itself")
    func readsAndWatches() async throws {
        let (feed, folder) = try await feedOfFolder()
        defer { feed.close() }
        #expect(names(feed.list) == ["a.jpg", "b.jpg", "c.jpg"])
        #expect(feed.shownFolder?.standardizedFileURL == folder.url.standardizedFileURL)
        #expect(feed.folderOrder == PhotoOrder(key: .name))
        var inserted: [PhotoID] = []
        feed.list.observe { change in inserted += change.inserted }
        try folder.write("b2.jpg", "new")
        #expect(await waitUntil(30) { feed.list.count == 4 }, "the new photo arrives")
        #expect(names(feed.list) == ["a.jpg", "b.jpg", "b2.jpg", "c.jpg"], "in the folder's order")
        #expect(inserted == [feed.list.id(at: 2)])
    }

    @Test(
        "A sort asked of the model is one reorder that keeps the photo in view, and the views are asked once whether they stay put"
    )
    func sortKeepsPhotoInView() async throws {
        let (feed, folder) = try await feedOfFolder()
        defer {
            feed.close()
            withExtendedLifetime(folder) {} // removed when let go
        }
        let ids = (0..<3).map { feed.list.id(at: $0) }
        var changes: [PhotoListChange] = []
        var edits: [PhotoListEdit] = []
        feed.list.observe(willApply: { edits.append($0) }, didApply: { changes.append($0) })
        var asked = 0
        feed.list.viewsStayPut = {
            asked += 1
            return false
        }
        feed.sort(by: PhotoOrder(key: .size, descending: true))
        #expect(await waitUntil { !changes.isEmpty }, "the sort is applied")
        #expect(names(feed.list) == ["b.jpg", "c.jpg", "a.jpg"])
        #expect(changes.count == 1 && changes[0].edit == .reorder && changes[0].keptInView)
        #expect(!changes[0].rowsInPlace && asked == 1)
        if case .reorder(_, let keepingInView) = edits.first {
            #expect(keepingInView)
        } else {
            Issue.record("no reorder")
        }
        // The photos keep who they are.
        #expect(Set((0..<3).map { feed.list.id(at: $0) }) == Set(ids))
        #expect(feed.folderOrder == PhotoOrder(key: .size, descending: true))
    }

    @Test(
        "Photos taken out by an action come back where the folder's order puts them, and the watch passes over the app's own changes"
    )
    func actionsEdits() async throws {
        let (feed, folder) = try await feedOfFolder()
        defer { feed.close() }
        feed.sort(by: PhotoOrder(key: .size))
        #expect(await waitUntil { names(feed.list) == ["a.jpg", "c.jpg", "b.jpg"] }, "sorted by size")
        let b = feed.list.id(at: 2)
        let entry = feed.list.entry(at: 2)
        let path = folder.url.appendingPathComponent("b.jpg").path
        feed.remove([b])
        #expect(names(feed.list) == ["a.jpg", "c.jpg"])
        #expect(!feed.list.contains(b))
        // Put back at position 0, it goes where its size puts it: last.
        let back = feed.putBack([(entry, path, 0, nil)])
        #expect(names(feed.list) == ["a.jpg", "c.jpg", "b.jpg"])
        #expect(back.count == 1 && feed.list.position(of: back[0]) == 2 && back[0] != b, "a new identity")
        #expect(feed.sortFacts(of: back[0])?.size == 300, "its facts kept: the next placed are not read again")

        // A file the app itself rewrites: its watch's report is not an edit of the list.
        var edits = 0
        feed.list.observe { _ in edits += 1 }
        feed.ownChangesBegan([path])
        #expect(feed.isOwnChange(path))
        try Data("rewritten by the app".utf8).write(to: URL(fileURLWithPath: path))
        try folder.write("d.jpg", "someone else's")
        #expect(await waitUntil(30) { feed.list.count == 4 }, "another program's photo still arrives")
        #expect(edits == 1, "one edit: the new photo, nothing for the app's own rewrite")
        let arrived = try #require((0..<feed.list.count).first { feed.list.name(at: $0) == "d.jpg" })
        #expect(
            feed.sortFacts(of: feed.list.id(at: arrived))?.size == 14,
            "a photo that arrived keeps the facts its plan read")
        feed.ownChangesEnded([path])
        #expect(feed.isOwnChange(path), "for a few seconds after")
        feed.forgetOwnChanges([path])
        #expect(!feed.isOwnChange(path))

        // Rewritten files stay, their pictures to be made again.
        var replaced: [PhotoID] = []
        feed.list.observe { replaced += $0.replaced }
        feed.rewritten([back[0]])
        #expect(replaced == [back[0]])
    }
}
