import CGLib
import Foundation
import GLibKit
@testable import PhotoPipeline
import Testing

/// The list's one owner: every edit changes the photos and the model views bind to together,
/// with one `items-changed` and one notification, and the model's items keep their identity.
@MainActor @Suite struct PhotoListTests {
    private func entries(_ names: [String]) -> [PhotoEntry] {
        names.map { PhotoEntry(name: $0, link: "file:///f/\($0)", base: nil) }
    }

    private func names(_ list: PhotoList) -> [String] { (0..<list.count).map { list.name(at: $0) } }

    /// The identities the model holds, row by row, read through GListModel as a view would.
    private func modelIDs(_ list: PhotoList) -> [PhotoID] {
        (0..<Int(g_list_model_get_n_items(list.model))).map { position in
            let item = g_list_model_get_item(list.model, guint(position))!
            defer { g_object_unref(item) }
            return PhotoList.id(ofItem: OpaquePointer(item))
        }
    }

    private func listIDs(_ list: PhotoList) -> [PhotoID] { (0..<list.count).map { list.id(at: $0) } }

    // MARK: Given a list and an observer; when each kind of edit is applied; then both agree

    @Test("Each edit changes the photos and the model alike, with one items-changed and one notification")
    func editsKeepModelAndPhotosEqual() {
        let list = PhotoList()
        var emissions: [(position: UInt32, removed: UInt32, added: UInt32)] = []
        let connection = SignalConnection.connect(
            UnsafeMutableRawPointer(list.model), "items-changed", uints: { emissions.append(($0, $1, $2)) })
        var notified: [PhotoListChange.Kind] = []
        var before: [PhotoListEdit] = []
        list.observe(willApply: { before.append($0) }, didApply: { notified.append($0.edit) })

        func check(_ expected: [String], _ kind: PhotoListChange.Kind) {
            #expect(names(list) == expected)
            #expect(modelIDs(list) == listIDs(list), "the model holds the photos' identities in order")
            #expect(notified.last == kind && notified.count == before.count)
        }

        list.apply(.replaceAll(entries(["a", "b", "c", "d", "e"])))
        check(["a", "b", "c", "d", "e"], .replaceAll)
        let (a, b, c, d, e) = (list.id(at: 0), list.id(at: 1), list.id(at: 2), list.id(at: 3), list.id(at: 4))
        list.apply(.append(PackedEntries(entries(["f"]))))
        check(["a", "b", "c", "d", "e", "f"], .append)
        #expect(emissions.last! == (5, 0, 1))

        // Removing b and d touches rows 1...3 only: c is put back in the same emission.
        list.apply(.remove([d, b]))
        check(["a", "c", "e", "f"], .remove)
        #expect(emissions.last! == (1, 3, 1))

        // Inserting at final positions 1 and 3.
        let inserted = list.apply(.insert(entries(["b2", "d2"]), at: [1, 3])).inserted
        check(["a", "b2", "c", "d2", "e", "f"], .insert)
        #expect(inserted.count == 2 && list.position(of: inserted[1]) == 3)
        #expect(emissions.last! == (1, 1, 3))

        list.apply(.move(e, to: 0, renamed: PhotoEntry(name: "z", link: "file:///f/z", base: nil)))
        check(["z", "a", "b2", "c", "d2", "f"], .move)
        #expect(list.id(forLink: "file:///f/z") == e && list.id(forLink: "file:///f/e") == nil)

        // A reorder that keeps the first and last rows emits for the middle only.
        let middle = [list.id(at: 0), list.id(at: 3), list.id(at: 2), list.id(at: 1), list.id(at: 4), list.id(at: 5)]
        list.apply(.reorder(middle))
        check(["z", "c", "b2", "a", "d2", "f"], .reorder)
        #expect(emissions.last! == (1, 3, 3))

        let count = emissions.count
        list.apply(.replace([c]))
        check(["z", "c", "b2", "a", "d2", "f"], .replace)
        #expect(emissions.count == count, "a rewritten photo stays bound: no items-changed")

        let generation = list.generation
        list.apply(.replaceAll(entries(["x"])))
        check(["x"], .replaceAll)
        #expect(list.generation == generation + 1)
        #expect(![a, b, c, d, e].contains(list.id(at: 0)) && list.position(of: a) == nil)
        _ = connection
    }

    @Test("A batch of 40,000 is packed a chunk a core, and every row reads back as it was, at the chunks' edges too")
    func bigBatchPacked() {
        let names = (0..<40_000).map { "IMG_\($0).jpg" }
        let packed = PackedEntries(entries(names))
        #expect(packed.count == 40_000)
        let list = PhotoList()
        list.apply(.append(PackedEntries(entries(["first"]))))
        list.apply(.append(packed))
        #expect(self.names(list) == ["first"] + names)
        for position in [1, 16_384, 16_385, 32_768, 32_769, 40_000] {
            #expect(list.entry(at: position).link == "file:///f/" + names[position - 1])
            #expect(list.id(forLink: "file:///f/" + names[position - 1]) == list.id(at: position))
        }
    }

    @Test("Rows picked from a source's packed names read back in its order, after its folders and the rows before")
    func pickedRowsReadBack() {
        let names = PackedTexts(["b/2.jpg", "a/1.jpg", "Été/3.jpg", "c/4.jpg"])
        let links = PackedTexts(names.map { "file:///top/" + $0 })
        let folder = PhotoEntry(name: "zzz", link: "file:///top/zzz/", base: nil)
        let order = [2, 1, 0, 3]
        let packed = PackedEntries(leading: [folder], names: names, links: links, order: order[1...])
        #expect(packed.count == 4)
        let list = PhotoList()
        list.apply(.append(PackedEntries(entries(["first"]))))
        list.apply(.append(packed))
        #expect(self.names(list) == ["first", "zzz", "a/1.jpg", "b/2.jpg", "c/4.jpg"])
        #expect(list.entry(at: 2).link == "file:///top/a/1.jpg")
        #expect(list.entry(at: 4).link == "file:///top/c/4.jpg")
        #expect(list.id(forLink: "file:///top/b/2.jpg") == list.id(at: 3))
        // Moved about and read from another thread's snapshot, each row keeps its texts.
        list.apply(.reorder((0..<5).reversed().map { list.id(at: $0) }))
        #expect(self.names(list) == ["c/4.jpg", "b/2.jpg", "a/1.jpg", "zzz", "first"])
        #expect(list.snapshot().entry(at: 0).link == "file:///top/c/4.jpg")
        // Only the order is made; packing from names alone gives the same rows.
        let picked = PackedEntries(names: names, links: links, order: order[...])
        #expect(picked.entries.map(\.name) == ["Été/3.jpg", "a/1.jpg", "b/2.jpg", "c/4.jpg"])
        #expect(picked.entries.allSatisfy { $0.base == nil })
    }

    @Test("A row taken out and put back in one splice is the same item, so views keep its widget and selection")
    func itemsKeepTheirIdentity() {
        let list = PhotoList()
        list.apply(.replaceAll(entries(["a", "b", "c"])))
        let held = g_list_model_get_item(list.model, 1)!
        let id = PhotoList.id(ofItem: OpaquePointer(held))
        list.apply(.reorder([list.id(at: 2), list.id(at: 1), list.id(at: 0)]))
        let again = g_list_model_get_item(list.model, 1)!
        #expect(again == held && PhotoList.id(ofItem: OpaquePointer(again)) == id)
        g_object_unref(again)
        g_object_unref(held)
    }

    @Test(
        "A reorder with rows in place leaves each item made at its position, standing for the photo that came there; one item a photo"
    )
    func reorderWithRowsInPlace() {
        let list = PhotoList()
        list.apply(.replaceAll(entries(["a", "b", "c", "d", "e", "f"])))
        var emissions: [(position: UInt32, removed: UInt32, added: UInt32)] = []
        let connection = SignalConnection.connect(
            UnsafeMutableRawPointer(list.model), "items-changed", uints: { emissions.append(($0, $1, $2)) })
        // The items a view holds for rows 1 to 4 (row 0 and 5 stay where they are).
        let held = (1...4).map { g_list_model_get_item(list.model, guint($0))! }
        defer { held.forEach { g_object_unref($0) } }
        let old = listIDs(list)
        let new = [old[0], old[3], old[4], old[1], old[2], old[5]]
        // The views stay put: the items made for rows stand for the photos that come to them.
        var asked = 0
        list.viewsStayPut = {
            asked += 1
            return true
        }
        let change = list.apply(.reorder(new, keepingInView: true))
        #expect(asked == 1 && change.keptInView && change.rowsInPlace)
        withExtendedLifetime(connection) {}

        #expect(names(list) == ["a", "d", "e", "b", "c", "f"])
        #expect(emissions.count == 1 && emissions[0] == (1, 4, 4), "one items-changed over the rows that moved")
        for (offset, item) in held.enumerated() {
            let position = offset + 1
            #expect(
                g_list_model_get_item(list.model, guint(position)).map {
                    g_object_unref($0); return $0
                } == item)
            #expect(
                PhotoList.id(ofItem: OpaquePointer(item)) == new[position], "row \(position) stands for its new photo")
        }
        #expect(modelIDs(list) == listIDs(list))

        // Without, an item keeps its photo wherever it goes.
        let first = g_list_model_get_item(list.model, 1)!
        defer { g_object_unref(first) }
        let photo = PhotoList.id(ofItem: OpaquePointer(first))
        list.apply(.reorder(Array(listIDs(list).reversed())))
        #expect(PhotoList.id(ofItem: OpaquePointer(first)) == photo)
        #expect(
            g_list_model_get_item(list.model, 4).map {
                g_object_unref($0); return $0
            } == first)
        #expect(modelIDs(list) == listIDs(list))
    }

    @Test("Neighbours are found by identity")
    func neighbours() {
        let list = PhotoList()
        list.apply(.replaceAll(entries(["a", "b", "c"])))
        let (a, b, c) = (list.id(at: 0), list.id(at: 1), list.id(at: 2))
        #expect(list.neighbour(of: b, -1) == a && list.neighbour(of: b, 1) == c)
        #expect(list.neighbour(of: a, -1) == nil && list.neighbour(of: c, 1) == nil)
        list.apply(.remove([b]))
        #expect(list.neighbour(of: a, 1) == c && list.neighbour(of: b, 1) == nil)
    }
}
