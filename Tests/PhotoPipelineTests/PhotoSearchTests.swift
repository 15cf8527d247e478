import Foundation
import GLibKit
import Testing
import TestSupport

@testable import PhotoPipeline

/// Finding photos by words: each word typed is found in a word of a photo's name, its
/// sub-folders' names or its tags; accents and case aside; the list shows only those found, and all again
/// once the search ends.
@MainActor @Suite struct PhotoSearchTests {
    private func entries(_ names: [String]) -> [PhotoEntry] {
        names.map { PhotoEntry(name: $0, link: "file:///f/\($0)", base: nil) }
    }

    private func names(_ list: PhotoList) -> [String] { (0..<list.count).map { list.name(at: $0) } }

    @Test("Words are folded as GNOME's searches fold them: lower case, split at punctuation, accents as alternates")
    func words() {
        #expect(PhotoSearch.query("IMG_00") == [["img"], ["00"]])
        #expect(PhotoSearch.query("Café Łódź") == [["café", "cafe"], ["łódź", "lodz"]])
        #expect(PhotoSearch.query("  ") == [])
        #expect(PhotoSearch.query("Straße") == [["strasse"]])
    }

    @Test("ASCII names are folded quicker to the same words as GLib folds them")
    func asciiWordsAsGLibFoldsThem() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("aZ09 _-./~!@#$%^&*()[]{}'\"\\\t\u{1}mQx7")
        var texts = ["2021/07 Paris/IMG_0001.JPG", "", "---", "a", "DSC_3 (edited).jpeg", "A1b2-C3"]
        for _ in 0..<2_000 {
            texts.append(
                String(
                    (0..<Int.random(in: 0...24, using: &generator)).map { _ in
                        alphabet.randomElement(using: &generator)!
                    }))
        }
        for text in texts {
            var quick = PhotoSearch.Words(), folded = PhotoSearch.Words()
            quick.append(text)
            folded.appendFolded(text)
            #expect(quick.bytes == folded.bytes, "\(text)")
        }
    }

    @Test("Every word typed must be found in a word of the name, a sub-folder or a tag; sub-folders are not found")
    func matching() throws {
        let list = PhotoList()
        list.apply(
            .replaceAll(
                [PhotoEntry(name: "Paris", link: "file:///f/Paris/", base: nil)]
                    + entries([
                        "2023/07 Paris/IMG_0001.JPG", "2023/07 Paris/IMG_0002.JPG", "2021/12 Kraków/DSC_9.jpg",
                        "Cafe Lodz.png", "holiday.png",
                    ])))
        let snapshot = list.snapshot()
        let names = try #require(PhotoSearch.names(of: snapshot, after: PhotoSearch.Words(), cancelled: { false }))
        #expect(names.count == 6)
        func found(_ text: String, tags: [Int: [String]] = [:]) throws -> [String] {
            let verdicts = try #require(
                PhotoSearch.match(PhotoSearch.query(text), in: snapshot, names: names, tags: tags, cancelled: { false })
            )
            return (0..<snapshot.count).filter { verdicts[snapshot.arrival(at: $0)] }.map {
                snapshot.entry(at: $0).name
            }
        }
        #expect(try found("paris") == ["2023/07 Paris/IMG_0001.JPG", "2023/07 Paris/IMG_0002.JPG"])
        #expect(try found("paris 0002") == ["2023/07 Paris/IMG_0002.JPG"])
        #expect(try found("img_00") == ["2023/07 Paris/IMG_0001.JPG", "2023/07 Paris/IMG_0002.JPG"])
        #expect(try found("krakow") == ["2021/12 Kraków/DSC_9.jpg"], "an accent left out finds it")
        #expect(try found("café łódź") == ["Cafe Lodz.png"], "an accent typed finds the name without it")
        #expect(try found("0002") == ["2023/07 Paris/IMG_0002.JPG"], "within a word")
        #expect(try found("img0001") == [], "a word typed is not found across two")
        #expect(try found("2023 dsc") == [])
        // Tags, by the photo's arrival (holiday.png came sixth).
        #expect(try found("france", tags: [5: ["Places|France|Nice"]]) == ["holiday.png"])
        #expect(try found("nice holiday", tags: [5: ["Places|France|Nice"]]) == ["holiday.png"])
        // Stopped on the way, or without the names' words: no answer.
        #expect(PhotoSearch.names(of: snapshot, after: PhotoSearch.Words(), cancelled: { true }) == nil)
        #expect(
            PhotoSearch.match(
                PhotoSearch.query("paris"), in: snapshot, names: PhotoSearch.Words(), tags: [:], cancelled: { false })
                == nil)
    }

    @Test("A search narrows the list shown, words made once are kept, photos that come are matched, and \"\" shows all")
    func narrowsTheList() async throws {
        let processor = PhotoProcessor(fetcher: PhotoFetcher(), prefetchMargin: 0, maxPixelSize: 80)
        defer { processor.shutDown() }
        let list = processor.list
        let numbers = (0..<5_000).map { String(format: "%04d", $0) }
        list.apply(.replaceAll(entries(numbers.map { "IMG_\($0).JPG" } + ["beach.png"])))
        let filter = PhotoListFilter(list: list, processor: processor)
        defer { filter.close() }
        filter.setSearch("img_00")
        #expect(filter.isSearching)
        let expected = numbers.filter { $0.contains("00") }.count
        #expect(await waitUntil { list.count == expected }, "\(expected) numbers hold 00: \(list.count) shown")
        #expect(list.isFiltered && list.photoTotal == 5_001)
        #expect(filter.search.names.withLock { $0.words.count } == 5_001, "the names' words kept")
        filter.setSearch("beach")
        #expect(await waitUntil { names(list) == ["beach.png"] })
        // A photo that comes in is matched once the list is still.
        list.apply(.append(PackedEntries(entries(["beach 2.png"]))))
        #expect(await waitUntil { names(list) == ["beach.png", "beach 2.png"] })
        filter.setSearch("")
        #expect(!filter.isSearching && !list.isFiltered && list.count == 5_002)
    }

    @Test(
        "A search ended while it was to be made again stays ended; another list is searched, not shown whole; a renamed photo is found by its new name"
    )
    func followsTheList() async throws {
        let processor = PhotoProcessor(fetcher: PhotoFetcher(), prefetchMargin: 0, maxPixelSize: 80)
        defer { processor.shutDown() }
        let list = processor.list
        list.apply(.replaceAll(entries(["beach.png", "city.png"])))
        let filter = PhotoListFilter(list: list, processor: processor)
        defer { filter.close() }
        filter.setSearch("beach")
        #expect(await waitUntil { names(list) == ["beach.png"] })
        // A photo comes (the search is to be made again), and the search ends at once.
        list.apply(.append(PackedEntries(entries(["beach 2.png"]))))
        filter.setSearch("")
        // Had the search been made again, it would be on its way until its answer was shown.
        #expect(await waitUntil { !filter.searchSoon.isPending && filter.search.running == nil })
        #expect(!list.isFiltered && names(list) == ["beach.png", "city.png", "beach 2.png"])
        list.apply(.append(PackedEntries(entries(["forest.png"]))))
        #expect(list.count == 4, "a photo that comes after the search shows")

        // Another list while searching: searched, never shown whole.
        filter.setSearch("city")
        #expect(await waitUntil { names(list) == ["city.png"] })
        var seen: [[String]] = []
        list.observe { _ in seen.append(names(list)) }
        list.apply(.replaceAll(entries(["town.png", "city hall.png", "city.png"])))
        #expect(await waitUntil { names(list) == ["city hall.png", "city.png"] })
        #expect(!seen.contains { $0.contains("town.png") }, "the new list was shown unsearched: \(seen)")

        // A rename: found by the new name, no longer by the old.
        let id = try #require(list.photos.id(forLink: "file:///f/city.png"))
        list.apply(.move(id, to: 1, renamed: PhotoEntry(name: "harbour.png", link: "file:///f/harbour.png", base: nil)))
        #expect(await waitUntil { names(list) == ["city hall.png"] })
        filter.setSearch("harbour")
        #expect(await waitUntil { names(list) == ["harbour.png"] })
    }

    @Test("What the index knows of a photo finds it too: the year and month it was taken, its camera, its lens")
    func datesAndCameras() throws {
        let folder = try TestPictures.makeFolder("search-facts")
        defer { try? FileManager.default.removeItem(at: folder) }
        let index = try PhotoIndex(path: folder.appendingPathComponent("index.sqlite").path)
        let paths = ["a.jpg", "b.jpg", "c.jpg"].map { folder.appendingPathComponent($0).path }
        index.remember(
            path: paths[0],
            PhotoIndex.Facts(
                size: 1, modified: 1, taken: "2021-07-04 18:30:05", camera: "Canon EOS 5D",
                lens: "EF24-105mm f/4L IS USM"))
        index.remember(
            path: paths[1], PhotoIndex.Facts(size: 1, modified: 1, taken: "2019-03-01 09:00:00", camera: "Pixel 7"))
        index.flush()
        let list = PhotoList()
        list.apply(
            .replaceAll(
                paths.map {
                    PhotoEntry(
                        name: ($0 as NSString).lastPathComponent, link: URL(fileURLWithPath: $0).absoluteString,
                        base: nil)
                }))
        let snapshot = list.snapshot()
        let names = try #require(PhotoSearch.names(of: snapshot, after: PhotoSearch.Words(), cancelled: { false }))
        let facts = try #require(PhotoSearch.facts(of: snapshot, in: index, cancelled: { false }))
        func found(_ text: String) throws -> [String] {
            let verdicts = try #require(
                PhotoSearch.match(
                    PhotoSearch.query(text), in: snapshot, names: names, facts: facts, tags: [:], cancelled: { false }))
            return (0..<snapshot.count).filter { verdicts[snapshot.arrival(at: $0)] }.map {
                snapshot.entry(at: $0).name
            }
        }
        #expect(try found("2021") == ["a.jpg"])
        #expect(try found("july 2021") == ["a.jpg"])
        #expect(try found("jul") == ["a.jpg"])
        #expect(try found("march") == ["b.jpg"])
        #expect(try found("canon") == ["a.jpg"])
        #expect(try found("pixel 2019") == ["b.jpg"])
        #expect(try found("105mm") == ["a.jpg"] && found("usm canon") == ["a.jpg"])
        #expect(try found("2020") == [], "c.jpg: not read by the index yet")
        #expect(try found("uly") == [], "a date's words are found from their start")
        #expect(try found("202") == [] && found("20") == [], "a year is found whole")
        #expect(try found("ju") == [], "two letters find no month")
        #expect(PhotoSearch.words(taken: "2021-07-04 18:30:05").hasPrefix("2021 July"))
        #expect(PhotoSearch.words(taken: "") == "")
    }

    @Test(
        "The search bar has the index learn the dates, cameras, lenses and places of a folder's photos it lacks, read from their EXIF"
    )
    func learnsFacts() async throws {
        let folder = try TestPictures.makeFolder("search-learn")
        defer { try? FileManager.default.removeItem(at: folder) }
        let index = try PhotoIndex(path: folder.appendingPathComponent("index.sqlite").path)
        // A camera's photo without a position; then photos taken in Munich, in Rio de Janeiro
        // (south and west) and out in the Atlantic, far from any town.
        let photos: [(name: String, tags: [String])] = [
            (
                "IMG_1.jpg",
                [
                    "-DateTimeOriginal=2018:11:02 08:00:00", "-Make=NIKON", "-Model=NIKON D750",
                    "-LensModel=AF-S NIKKOR 85mm f/1.8G",
                ]
            ),
            (
                "IMG_2.jpg",
                ["-GPSLatitude=48.13743", "-GPSLatitudeRef=N", "-GPSLongitude=11.57549", "-GPSLongitudeRef=E"]
            ),
            (
                "IMG_3.jpg",
                ["-GPSLatitude=22.9068", "-GPSLatitudeRef=S", "-GPSLongitude=43.1729", "-GPSLongitudeRef=W"]
            ),
            ("IMG_4.jpg", ["-GPSLatitude=0.5", "-GPSLatitudeRef=N", "-GPSLongitude=30", "-GPSLongitudeRef=W"]),
        ]
        for (name, tags) in photos {
            try await CameraFiles.writeTagged(folder.appendingPathComponent(name), tags: tags)
        }
        let list = PhotoList()
        list.apply(
            .replaceAll(
                photos.map {
                    PhotoEntry(
                        name: $0.name, link: folder.appendingPathComponent($0.name).absoluteString, base: nil)
                }))
        let snapshot = list.snapshot()
        #expect(PhotoSearch.learn(snapshot, into: index, limit: 0, cancelled: { false }) == false, "over the limit")
        #expect(PhotoSearch.learn(snapshot, into: index, limit: 10, cancelled: { false }))
        // The positions as exiftool wrote them, signed by their hemispheres.
        let rio = try #require(index.facts(ofFileAt: folder.appendingPathComponent("IMG_3.jpg").path))
        #expect(abs(rio.latitude! + 22.9068) < 1e-6 && abs(rio.longitude! + 43.1729) < 1e-6, "\(rio)")
        #expect(index.facts(ofFileAt: folder.appendingPathComponent("IMG_1.jpg").path)?.latitude == nil)
        let facts = try #require(PhotoSearch.facts(of: snapshot, in: index, cancelled: { false }))
        let names = try #require(PhotoSearch.names(of: snapshot, after: PhotoSearch.Words(), cancelled: { false }))
        let expected: [(query: String, found: [Bool])] = [
            ("2018", [true, false, false, false]), ("2018 november", [true, false, false, false]),
            ("nikon d750", [true, false, false, false]), ("nikkor 85mm", [true, false, false, false]),
            ("munich", [false, true, false, false]), ("germany", [false, true, false, false]),
            ("mun", [false, true, false, false]), ("rio janeiro", [false, false, true, false]),
            ("brazil", [false, false, true, false]), ("munich brazil", [false, false, false, false]),
            ("atlantic", [false, false, false, false]),
        ]
        for (query, found) in expected {
            let verdicts = PhotoSearch.match(
                PhotoSearch.query(query), in: snapshot, names: names, facts: facts, tags: [:], cancelled: { false })
            #expect(verdicts == found, "“\(query)”")
        }
        #expect(PhotoSearch.learn(snapshot, into: index, limit: 10, cancelled: { false }) == false, "known now")
    }
}

/// The search over every folder the index knows.
@Suite struct IndexSearchTests {
    @Test(
        "Every indexed folder is searched by the same words (folders, names, tags, dates, cameras, places), latest first; the list found leaves out files gone"
    )
    func everyFolder() async throws {
        let folder = try TestPictures.makeFolder("search-index")
        defer { try? FileManager.default.removeItem(at: folder) }
        let index = try PhotoIndex(path: folder.appendingPathComponent("index.sqlite").path)
        let photos: [(path: String, tags: [String])] = [
            ("2021/07 Paris/IMG_1.jpg", ["-DateTimeOriginal=2021:07:14 10:00:00"]),
            (
                "2021/07 Paris/IMG_2.jpg",
                ["-DateTimeOriginal=2021:07:15 10:00:00", "-Make=Canon", "-Model=Canon EOS R6"]
            ),
            (
                "Trips/DSC_3.jpg",
                [
                    "-DateTimeOriginal=2019:05:01 12:00:00", "-GPSLatitude=48.13743", "-GPSLatitudeRef=N",
                    "-GPSLongitude=11.57549", "-GPSLongitudeRef=E",
                ]
            ),
            (
                "Trips/gone.jpg",
                [
                    "-DateTimeOriginal=2019:05:02 12:00:00", "-GPSLatitude=48.13743", "-GPSLatitudeRef=N",
                    "-GPSLongitude=11.57549", "-GPSLongitudeRef=E",
                ]
            ),
        ]
        for (path, tags) in photos {
            let photo = folder.appendingPathComponent(path)
            try await CameraFiles.writeTagged(photo, tags: tags)
            _ = photo.path.withCString { SortFacts.read(path: $0, taken: true, index: index) }
        }
        index.flush()
        let trips = folder.appendingPathComponent("Trips/DSC_3.jpg").path
        index.remember(marks: [
            (trips, PhotoIndex.HeldMarks(source: trips, size: 1, modified: 1, marks: PhotoMarks(tags: ["beer garden"])))
        ])
        try FileManager.default.removeItem(at: folder.appendingPathComponent("Trips/gone.jpg"))
        let search = try #require(IndexSearch.read(from: index, cancelled: { false }))
        #expect(search.count == 4)
        func found(_ text: String) throws -> [String] {
            try #require(search.find(PhotoSearch.query(text), cancelled: { false })).paths.map {
                String($0.dropFirst(folder.path.count + 1))
            }
        }
        #expect(try found("paris") == ["2021/07 Paris/IMG_2.jpg", "2021/07 Paris/IMG_1.jpg"], "latest first")
        #expect(try found("2021 canon") == ["2021/07 Paris/IMG_2.jpg"])
        #expect(try found("munich") == ["Trips/gone.jpg", "Trips/DSC_3.jpg"])
        // The list of what was found leaves out the file gone.
        let munich = try #require(search.find(PhotoSearch.query("munich"), cancelled: { false }))
        var listed: [PhotoEntry] = []
        try FoundPhotosSource(query: "munich", found: munich).read(using: PhotoFetcher(), cancellable: Cancellable()) {
            listed += $0.entries
        }
        #expect(listed.map(\.name) == ["DSC_3.jpg"])
        #expect(listed.first?.link == URL(fileURLWithPath: munich.paths[1]).absoluteString)
        // Past the first screenful, the files are checked once all are listed: one gone is
        // taken out then.
        var batches: [PhotoSourceBatch] = []
        try FoundPhotosSource(query: "munich", found: munich.reversed(), firstBatch: 1).read(
            using: PhotoFetcher(), cancellable: Cancellable()
        ) { batches.append($0) }
        #expect(batches.flatMap(\.entries).map(\.name) == ["DSC_3.jpg", "gone.jpg"])
        // (The rest come packed, their names and links the search's own.)
        #expect(batches[1].packed != nil)
        #expect(batches[1].entries.first?.link == URL(fileURLWithPath: munich.paths[0]).absoluteString)
        #expect(batches.last?.removing == [1] && batches.last?.count == 0)
        #expect(try found("germany 2019 may") == ["Trips/gone.jpg", "Trips/DSC_3.jpg"])
        #expect(try found("beer") == ["Trips/DSC_3.jpg"], "a tag")
        #expect(try found("dsc") == ["Trips/DSC_3.jpg"], "a name")
        #expect(try found("munich paris") == [])
        #expect(try found("") == [])
        #expect(search.find(PhotoSearch.query("paris"), cancelled: { true }) == nil)
    }

    @Test("A found photo's name is its path's last part")
    func fileNames() {
        let paths = ["/home/ann/Pictures/2021/07 Paris/IMG_1.jpg", "/home/ann/Bilder/München/Ä.jpg", "/x", "name"]
        #expect(paths.map(IndexSearch.fileName) == paths.map { ($0 as NSString).lastPathComponent })
    }
}

extension IndexSearch.Found {
    func reversed() -> Self { Self(allPaths: allPaths, fileNames: fileNames, links: links, rows: rows.reversed()) }
}
