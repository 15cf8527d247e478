import CGLib
import Foundation
import GLibKit
@testable import PhotoPipeline
import Testing

/// A filter over the list: the views, the viewer and the actions see only the photos it passes,
/// in the list's order, while the feed goes on changing the whole list; photos hidden and shown
/// again are the same photos (identities, model items), and the model follows in one edit each.
@MainActor @Suite struct FilteredListTests {
    private func entries(_ names: [String]) -> [PhotoEntry] {
        names.map { PhotoEntry(name: $0, link: "file:///f/\($0)", base: nil) }
    }

    private func names(_ list: PhotoList) -> [String] { (0..<list.count).map { list.name(at: $0) } }

    private func modelNames(_ list: PhotoList) -> [String] {
        (0..<Int(g_list_model_get_n_items(list.model))).map { position in
            let item = g_list_model_get_item(list.model, guint(position))!
            defer { g_object_unref(item) }
            return list.name(at: list.position(of: PhotoList.id(ofItem: OpaquePointer(item)))!)
        }
    }

    @Test("Only the photos passed are shown, in order, while the whole list changes underneath")
    func showsThePhotosPassed() {
        let list = PhotoList()
        list.apply(.replaceAll(entries(["a1", "b", "c1", "d", "e1"])))
        let a = list.id(at: 0), b = list.id(at: 1), c = list.id(at: 2)
        let recordB = list.photos.makeRecord(for: b)!, recordC = list.photos.makeRecord(for: c)!
        let item = g_list_model_get_item(list.model, 2)!
        defer { g_object_unref(item) }
        var kept: (String) -> Bool = { $0.hasSuffix("1") }
        var emissions: [(UInt32, UInt32, UInt32)] = []
        let connection = SignalConnection.connect(
            UnsafeMutableRawPointer(list.model), "items-changed", uints: { emissions.append(($0, $1, $2)) })
        var changes: [PhotoListChange] = []
        list.observe { changes.append($0) }
        // The filter reads the whole list's names, as the window's reads marks.
        let whole = list.photos
        list.show(only: { id in kept(whole.name(at: whole.position(of: id)!)) })

        #expect(names(list) == ["a1", "c1", "e1"] && modelNames(list) == names(list))
        #expect(list.isFiltered && list.photosShown == 3 && list.photoTotal == 5)
        #expect(list.position(of: c) == 1 && list.position(of: b) == nil && list.wholePosition(of: c) == 2)
        #expect(changes.last?.edit == .refilter && Set(changes.last!.removed) == [b, list.photos.id(at: 3)])
        #expect(emissions.count == 1, "one edit of the model")
        #expect(recordC.position == 1 && recordB.position == -1, "records say where their photos are shown")
        // The item handed out for c1 before stands for it still.
        let again = g_list_model_get_item(list.model, 1)!
        defer { g_object_unref(again) }
        #expect(again == item)

        // The feed appends, inserts and removes in the whole list; the filter is asked of each.
        list.apply(.append(PackedEntries(entries(["f", "g1"]))))
        #expect(names(list) == ["a1", "c1", "e1", "g1"] && modelNames(list) == names(list))
        list.apply(.insert(entries(["b1"]), at: [1]))
        #expect(names(list) == ["a1", "b1", "c1", "e1", "g1"] && modelNames(list) == names(list))
        list.apply(.remove([a, b]))
        #expect(names(list) == ["b1", "c1", "e1", "g1"] && modelNames(list) == names(list))
        #expect(list.photoTotal == 6)
        let reversed = (0..<list.photos.count).reversed().map { list.photos.id(at: $0) }
        list.apply(.reorder(reversed))
        #expect(names(list) == ["g1", "e1", "c1", "b1"] && modelNames(list) == names(list))

        // What the filter reads changed: c1 leaves, f comes in, both by one edit.
        kept = { ["b1", "e1", "f", "g1"].contains($0) }
        let before = emissions.count
        list.refilter()
        #expect(names(list) == ["g1", "f", "e1", "b1"] && modelNames(list) == names(list))
        #expect(emissions.count == before + 1)
        #expect(changes.last!.removed == [c] && changes.last!.inserted.count == 1)

        // Off: every photo again, the same photos.
        list.show(only: nil)
        #expect(!list.isFiltered && names(list).count == 6 && modelNames(list) == names(list))
        #expect(list.position(of: c) == list.wholePosition(of: c))
        _ = connection
    }

    @Test("Ranked, the photos come highest first, ties in the list's order, sub-folders first; filtered too")
    func ranked() {
        let list = PhotoList()
        let folder = PhotoEntry(name: "sub", link: "file:///f/sub/", base: nil)
        list.apply(.replaceAll([folder] + entries(["a", "b", "c", "d", "e"])))
        let stars = ["a": 1, "b": 3, "c": 0, "d": 3, "e": -1]
        let whole = list.photos
        let rank = { (id: PhotoID) in stars[whole.name(at: whole.position(of: id)!)] ?? 0 }
        list.show(only: nil, rankedBy: rank)
        #expect(names(list) == ["sub", "b", "d", "a", "c", "e"] && modelNames(list) == names(list))
        #expect(!list.isFiltered && list.photosShown == 5)
        list.apply(.append(PackedEntries(entries(["f"]))))
        #expect(names(list) == ["sub", "b", "d", "a", "c", "f", "e"], "a photo without stars joins the others")
        list.show(only: { rank($0) > 0 }, rankedBy: rank)
        #expect(names(list) == ["sub", "b", "d", "a"] && modelNames(list) == names(list))
        list.show(only: nil)
        #expect(names(list) == ["sub", "a", "b", "c", "d", "e", "f"] && modelNames(list) == names(list))
    }

    @Test("Sub-folders stay while a filter is on: they are to go into")
    func foldersStay() {
        let list = PhotoList()
        let folder = PhotoEntry(name: "sub", link: "file:///f/sub/", base: nil)
        list.apply(.replaceAll([folder] + entries(["a", "b"])))
        list.show(only: { _ in false })
        #expect(names(list) == ["sub"] && list.firstPhoto == 1 && list.photosShown == 0 && list.photoTotal == 2)
    }

    @Test("A filter passes photos by their stars, rejects, labels and tags")
    func filterParts() {
        let marks = PhotoMarks(rating: 3, label: "Red", tags: ["Places|France|Paris", "Family"])
        #expect(PhotoFilter(minimumStars: 3).passes(marks) && !PhotoFilter(minimumStars: 4).passes(marks))
        #expect(!PhotoFilter(hidesRejected: true).passes(PhotoMarks(rating: -1)))
        #expect(PhotoFilter(hidesRejected: true).passes(.none) && !PhotoFilter(minimumStars: 1).passes(.none))
        #expect(PhotoFilter(labels: ["Red", "Blue"]).passes(marks) && !PhotoFilter(labels: ["Blue"]).passes(marks))
        for tag in ["Family", "Places|France", "France", "Paris", "Places|France|Paris"] {
            #expect(PhotoFilter(tag: tag).passes(marks), "\(tag)")
        }
        for tag in ["Places|Paris", "Fra", "family"] { #expect(!PhotoFilter(tag: tag).passes(marks), "\(tag)") }
        #expect(!PhotoFilter.none.isOn && PhotoFilter(tag: "").tag == nil)
    }

    @Test("The folder the index is read under is the deepest holding every photo")
    func commonFolder() {
        #expect(PhotoListFilter.commonFolder(of: ["/a/b/c.jpg", "/a/b/d.jpg"]) == "/a/b/")
        #expect(PhotoListFilter.commonFolder(of: ["/a/bc/1.jpg", "/a/bd/2.jpg", "/a/b"]) == "/a/")
        #expect(PhotoListFilter.commonFolder(of: ["/x.jpg", "/y/z.jpg"]) == "/")
        #expect(PhotoListFilter.commonFolder(of: []) == "")
    }

    @Test("The videos of a list are counted, in the whole list and among those a filter shows, by their names")
    func videoTally() async {
        let list = PhotoList()
        let names = (0..<3_000).map { n in n % 3 == 0 ? "clip\(n).MP4" : n % 3 == 1 ? "photo\(n).jpg" : "x\(n).webm.jpg"
        }
        list.apply(.replaceAll(entries(names) + [PhotoEntry(name: "web", link: "https://h/v.mov?x=1", base: nil)]))
        #expect(list.videoTallySource().tally() == VideoTally(whole: 1_001, shown: 1_001))
        let whole = list.photos
        list.show(only: { id in whole.name(at: whole.position(of: id)!).hasPrefix("clip1") })
        let source = list.videoTallySource()
        #expect(source.version == list.version)
        // Counted on another thread, as the window counts a big list.
        let tally = await Task.detached { source.tally() }.value
        #expect(tally == VideoTally(whole: 1_001, shown: names.filter { $0.hasPrefix("clip1") }.count))
        list.apply(.remove([list.photos.id(at: 0)]))
        #expect(list.videoTallySource().tally().whole == 1_000)
    }
}
