@testable import PhotoPipeline
import Testing

/// A list of photos as plain identities, changed by the tests as a folder would change.
private struct Photos: ViewerList {
    var ids: [PhotoID]
    init(_ raw: ClosedRange<UInt64>) { ids = raw.map(PhotoID.init(rawValue:)) }
    init(_ ids: [PhotoID]) { self.ids = ids }
    var count: Int { ids.count }
    func id(at position: Int) -> PhotoID { ids[position] }
    func position(of id: PhotoID) -> Int? { ids.firstIndex(of: id) }
    /// Sub-folders heading the list.
    var folders = 0
    var firstPhoto: Int { folders }
}

private func p(_ raw: UInt64) -> PhotoID { PhotoID(rawValue: raw) }

@Suite struct ViewerPagingTests {
    @Test("Sub-folders heading the list are passed over: not opened, not neighbours, not reached by Home")
    func foldersPassedOver() {
        var list = Photos(1...6)
        list.folders = 2 // 1 and 2 are folders
        var paging = ViewerPaging()
        #expect(paging.open(at: 1, in: list) == [] && !paging.isOpen)
        #expect(
            paging.open(at: 2, in: list) == [
                .show(p(3), position: 2, moved: true), .start(p(3), urgent: true), .start(p(4), urgent: false),
            ])
        #expect(paging.step(-1, in: list) == [])
        _ = paging.step(3, in: list)
        #expect(paging.shown == p(6))
        _ = paging.jump(toEnd: false, in: list)
        #expect(paging.shown == p(3) && paging.position == 2)
    }

    @Test("Opening shows the photo, loads it urgently and its neighbours after it")
    func open() {
        var paging = ViewerPaging()
        let list = Photos(1...5)
        #expect(
            paging.open(at: 2, in: list) == [
                .show(p(3), position: 2, moved: true), .start(p(3), urgent: true),
                .start(p(2), urgent: false), .start(p(4), urgent: false),
            ])
        #expect(paging.isOpen && paging.shown == p(3) && paging.position == 2)
        #expect(
            paging.held == [p(2): .loading(urgent: false), p(3): .loading(urgent: true), p(4): .loading(urgent: false)])
        // The first photo has one neighbour; a position outside the list does nothing.
        var first = ViewerPaging()
        #expect(
            first.open(at: 0, in: list) == [
                .show(p(1), position: 0, moved: true), .start(p(1), urgent: true), .start(p(2), urgent: false),
            ])
        #expect(first.open(at: 9, in: list) == [] && first.shown == p(1))
        var none = ViewerPaging()
        #expect(none.open(at: 0, in: Photos([])) == [] && !none.isOpen)
    }

    @Test("Stepping lets go of what is no longer a neighbour, hurries the new photo shown, and stops at the ends")
    func step() {
        var paging = ViewerPaging()
        let list = Photos(1...5)
        _ = paging.open(at: 1, in: list)
        paging.loadEnded(p(2))
        #expect(
            paging.step(1, in: list) == [
                .show(p(3), position: 2, moved: true), .drop(p(1)), .hurry(p(3)), .start(p(4), urgent: false),
            ])
        // p(2), loaded, is held as the neighbour it now is, without loading again.
        #expect(paging.held[p(2)] == .done)
        #expect(
            paging.jump(toEnd: true, in: list) == [
                .show(p(5), position: 4, moved: true), .drop(p(2)), .drop(p(3)), .start(p(5), urgent: true),
            ])
        #expect(paging.step(1, in: list) == [])
        #expect(paging.jump(toEnd: false, in: list).first == .show(p(1), position: 0, moved: true))
        #expect(Set(paging.held.keys) == [p(1), p(2)])
    }

    @Test("When rows come and go the photo shown stays, by identity; if it leaves, the one in its place shows")
    func listChanges() {
        var paging = ViewerPaging()
        var list = Photos(1...5)
        _ = paging.open(at: 2, in: list)
        for id in [p(2), p(3), p(4)] { paging.loadEnded(id) }
        // A photo added just before it: p(3) is now at 3, and its new neighbour p(9) loads.
        list.ids.insert(p(9), at: 2)
        #expect(
            paging.listChanged(in: list) == [
                .show(p(3), position: 3, moved: true), .drop(p(2)), .start(p(9), urgent: false),
            ])
        // Nothing moved: shown again without a move, nothing loads.
        #expect(paging.listChanged(in: list) == [.show(p(3), position: 3, moved: false)])
        // p(3) itself goes: the photo that took its place (p(4)) shows.
        list.ids.remove(at: 3)
        #expect(
            paging.listChanged(in: list) == [
                .show(p(4), position: 3, moved: true), .drop(p(3)), .start(p(5), urgent: false),
            ])
        #expect(paging.shown == p(4) && paging.held[p(4)] == .done)
        // The last photos go: the new last shows; an empty list closes.
        list.ids.removeLast(2)
        #expect(paging.listChanged(in: list).first == .show(p(9), position: 2, moved: true))
        list.ids.removeAll()
        let closing = paging.listChanged(in: list)
        #expect(closing.last == .close && !paging.isOpen && paging.held.isEmpty)
    }

    @Test("A rewritten photo is dropped and loaded again; others' changes do nothing")
    func photoChanged() {
        var paging = ViewerPaging()
        let list = Photos(1...5)
        _ = paging.open(at: 2, in: list)
        for id in [p(2), p(3), p(4)] { paging.loadEnded(id) }
        #expect(paging.photoChanged(p(5), in: list) == [])
        #expect(
            paging.photoChanged(p(3), in: list) == [
                .drop(p(3)), .show(p(3), position: 2, moved: false), .start(p(3), urgent: true),
            ])
        #expect(
            paging.photoChanged(p(4), in: list) == [
                .drop(p(4)), .show(p(3), position: 2, moved: false), .start(p(4), urgent: false),
            ])
    }

    @Test("Retry reloads the photo shown; memory pressure keeps only it; closing lets go of everything")
    func reloadMemoryClose() {
        var paging = ViewerPaging()
        let list = Photos(1...5)
        #expect(paging.reload() == [])
        _ = paging.open(at: 2, in: list)
        paging.loadEnded(p(3))
        #expect(paging.reload() == [.start(p(3), urgent: true)] && paging.held[p(3)] == .loading(urgent: true))
        #expect(paging.memoryWarning() == [.drop(p(2)), .drop(p(4))])
        #expect(paging.held.keys.sorted() == [p(3)])
        // The next move loads the neighbours again.
        #expect(
            paging.step(-1, in: list) == [
                .show(p(2), position: 1, moved: true), .start(p(2), urgent: true), .start(p(1), urgent: false),
            ])
        #expect(paging.close() == [.drop(p(1)), .drop(p(2)), .drop(p(3)), .close])
        #expect(!paging.isOpen && paging.position == nil && paging.close() == [])
        paging.loadEnded(p(2))
        #expect(paging.held.isEmpty)
    }
}
