import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension GUITests {
    /// The index of dates taken, on the real app: a folder sorted by date, opened twice with
    /// the same cache.
    @Suite(.serialized) struct DateIndexAppTests {
        /// The app's trace from a launch with `arguments`, once `name` is traced and `then` holds
        /// on the trace (what the test goes on to check of it); the app is then quit.
        static func events(
            of arguments: [String], environment: [String: String], until name: TraceEvent.Name,
            then condition: @escaping ([TraceRecord]) -> Bool = { _ in true }
        ) throws -> [TraceRecord] {
            let app = try AppSession(arguments: arguments, environment: environment)
            let events = try app.waitFor("\(name), then what is checked", timeout: 120) { events in
                events.contains { $0.event.name == name } && condition(events)
            }
            #expect(app.terminate() == 0)
            return events
        }

        @Test(
            "The second launch of a folder sorted by date takes its dates from the index (index.read); a photo rewritten is read again; an index of garbage is made again"
        )
        func secondLaunchFromIndex() throws {
            let folder = try TestPictures.makeFolder("dated")
            let state = try TestPictures.makeFolder("dated-state")
            defer {
                try? FileManager.default.removeItem(at: folder)
                try? FileManager.default.removeItem(at: state)
            }
            let dates = ["2019:05:01 10:00:00", "2021:05:01 10:00:00", "2020:05:01 10:00:00"]
            for (n, date) in dates.enumerated() {
                let jpeg = try TestPictures.jpegWithExif(
                    make: "Cam", model: "One", original: date, orientation: 1, little: true)
                try jpeg.write(to: folder.appendingPathComponent("photo\(n + 1).jpg"))
            }
            let compiled = try run(
                URL(fileURLWithPath: "/usr/bin/glib-compile-schemas"),
                ["--strict", "--targetdir=\(state.path)", Products.packageRoot.appendingPathComponent("data").path])
            #expect(compiled.status == 0, "\(compiled.stderr)")
            let environment = [
                "GSETTINGS_SCHEMA_DIR": state.path, "GSETTINGS_BACKEND": "keyfile", "XDG_CONFIG_HOME": state.path,
                "XDG_CACHE_HOME": state.appendingPathComponent("cache").path,
            ]
            let set = try run(
                URL(fileURLWithPath: "/usr/bin/gsettings"), ["set", AppInfo.applicationID, "sort-by", "date-taken"],
                environment: environment, timeout: 30)
            #expect(set.status == 0, "\(set.stderr)")
            func launch() throws -> (read: TraceRecord, names: [String]) {
                let app = try AppSession(arguments: [folder.path], environment: environment)
                let events = try app.waitFor("the folder shown") { events in
                    events.contains { $0.event.name == .sourceLoaded }
                        && events.filter { $0.event.name == .rowShown }.count >= 3
                }
                #expect(app.terminate() == 0)
                let read = try #require(events.first { $0.event.name == .indexRead })
                var names: [Int: String] = [:]
                for case .rowShown(let row, _, let name, _) in events.map(\.event) { names[row] = name }
                return (read, (0..<3).compactMap { names[$0] })
            }
            let first = try launch()
            #expect(first.read.event == .indexRead(rows: 3, hits: 0))
            #expect(first.names == ["photo1.jpg", "photo3.jpg", "photo2.jpg"])
            let second = try launch()
            #expect(second.read.event == .indexRead(rows: 3, hits: 3))
            #expect(second.names == first.names)
            let index = state.appendingPathComponent("cache/classic-photos/index.sqlite")
            #expect(FileManager.default.fileExists(atPath: index.path))

            // A photo rewritten in place (another date, the same name) is read again; the
            // others still come from the index.
            try TestPictures.jpegWithExif(
                make: "Cam", model: "One", original: "2018:05:01 10:00:00", orientation: 1, little: true
            ).write(to: folder.appendingPathComponent("photo2.jpg"))
            let rewritten = try launch()
            #expect(rewritten.read.event == .indexRead(rows: 3, hits: 2))
            #expect(rewritten.names == ["photo2.jpg", "photo1.jpg", "photo3.jpg"])

            // An index overwritten with garbage is set aside and made again: the dates are read
            // from the files, and the launch after takes them from the new index.
            for file in ["index.sqlite", "index.sqlite-wal", "index.sqlite-shm"] {
                try? FileManager.default.removeItem(at: index.deletingLastPathComponent().appendingPathComponent(file))
            }
            try Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 37) }).write(to: index)
            let rebuilt = try launch()
            #expect(rebuilt.read.event == .indexRead(rows: 3, hits: 0))
            #expect(rebuilt.names == rewritten.names)
            let again = try launch()
            #expect(again.read.event == .indexRead(rows: 3, hits: 3))
        }

        @Test(
            "Sorted by date taken: a JPEG, a PNG's eXIf, a HEIC's Exif item, a DNG's own IFD and another JPEG, whose dates run against their names"
        )
        func datesFromEveryKind() throws {
            let folder = try TestPictures.makeFolder("dated-kinds")
            defer { try? FileManager.default.removeItem(at: folder) }
            // By name 1 … 5; by date taken 5 (2015), 4 (2016), 3 (2018), 2 (2021), 1 (2022).
            try TestPictures.jpegWithExif(
                make: "Cam", model: "One", original: "2022:01:01 10:00:00", orientation: 1, little: true
            ).write(to: folder.appendingPathComponent("1.jpg"))
            let png = folder.appendingPathComponent("2.png")
            #expect(TestPictures.write(png, format: "png"))
            let tagged = try run(
                URL(fileURLWithPath: "/usr/bin/exiftool"),
                ["-q", "-overwrite_original", "-DateTimeOriginal=2021:01:01 10:00:00", png.path], timeout: 30)
            #expect(tagged.status == 0, "\(tagged.stderr)")
            let source = folder.appendingPathComponent("heic-source.jpeg.tmp")
            try TestPictures.jpegWithExif(
                make: "Cam", model: "One", original: "2018:01:01 10:00:00", orientation: 1, little: false
            ).write(to: source)
            let encoded = try run(
                URL(fileURLWithPath: "/usr/bin/heif-enc"),
                ["-q", "50", "-o", folder.appendingPathComponent("3.heic").path, source.path], timeout: 60)
            #expect(encoded.status == 0, "\(encoded.stderr)")
            try FileManager.default.removeItem(at: source)
            let preview = try #require(CameraFiles.jpeg(width: 64, height: 48, rgb: 0x80_60_40))
            try CameraFiles.dng(
                preview: preview, previewWidth: 64, previewHeight: 48, width: 32, height: 24, orientation: 1,
                dateTime: "2016:01:01 10:00:00"
            ).write(to: folder.appendingPathComponent("4.dng"))
            try TestPictures.jpegWithExif(
                make: "Cam", model: "One", original: "2015:01:01 10:00:00", orientation: 1, little: true
            ).write(to: folder.appendingPathComponent("5.jpg"))

            let environment = try privateSettings(["sort-by": "'date-taken'"])
            let app = try AppSession(arguments: [folder.path], environment: environment)
            let events = try app.waitFor("the folder shown") { events in
                events.contains { $0.event.name == .sourceLoaded }
                    && Set(events.compactMap { if case .rowShown(let row, _, _, _) = $0.event { row } else { nil } })
                        .count >= 5
            }
            #expect(app.terminate() == 0)
            var names: [Int: String] = [:]
            for case .rowShown(let row, _, let name, _) in events.map(\.event) { names[row] = name }
            #expect((0..<5).compactMap { names[$0] } == ["5.jpg", "4.dng", "3.heic", "2.png", "1.jpg"])
        }
        @Test(
            "A folder of more than 3,000 photos shows at once in the index's date order the second time, is checked against its files after, and a photo saved anew since moves to its date"
        )
        func bigFolderCheckedAfter() throws {
            let folder = try TestPictures.makeFolder("dated-big")
            defer { try? FileManager.default.removeItem(at: folder) }
            let photos = folder.appendingPathComponent("photos")
            // Even names taken in 2022, odd ones in 2021.
            let count = 3_200
            try TestPictures.linkDatedPhotos(
                in: photos, count: count, dates: ["2022:01:01 10:00:00", "2021:01:01 10:00:00"])
            var environment = try privateSettings(["sort-by": "'date-taken'"])
            environment["XDG_CACHE_HOME"] = folder.appendingPathComponent("cache").path
            func launch(
                until name: TraceEvent.Name, then condition: @escaping ([TraceRecord]) -> Bool = { _ in true }
            ) throws -> [TraceRecord] {
                try Self.events(of: [photos.path], environment: environment, until: name, then: condition)
            }
            func firstRow(_ events: [TraceRecord]) -> String? {
                events.lazy.compactMap { if case .rowShown(0, _, let name, _) = $0.event { name } else { nil } }.first
            }
            // The first time, names first; the dates are read in the background and the order
            // settles: the top row is bound again to the first photo taken.
            let cold = try launch(until: .listSorted) { events in
                events.contains { if case .rowShown(0, _, "p00001.jpg", _) = $0.event { true } else { false } }
            }
            #expect(firstRow(cold) == "p00000.jpg")
            #expect(!cold.contains { $0.event.name == .indexRead })
            // Nothing was chosen and the view was at the top: it stays there, its rows showing
            // the first photos taken (before, it went after the photo that had been first, to
            // row 1,600, and bound the rows there).
            #expect(cold.contains { if case .rowShown(0, _, "p00001.jpg", _) = $0.event { true } else { false } })
            let far = cold.filter { if case .rowShown(let row, _, _, _) = $0.event { row >= 1_000 } else { false } }
            #expect(far.isEmpty, "\(far.prefix(3).map(\.event))")
            // The second time, the index's order at once, checked after: nothing moves.
            let warm = try launch(until: .indexChecked)
            #expect(warm.contains { $0.event == .indexRead(rows: count, hits: count) })
            #expect(firstRow(warm) == "p00001.jpg", "an odd name, taken in 2021, first")
            #expect(warm.contains { $0.event == .indexChecked(rows: count, reordered: false) })
            #expect(!warm.contains { $0.event.name == .listSorted })
            // A photo saved anew (another file, another date): shown where the index had it,
            // then moved to its date when the check finds it.
            let resaved = photos.appendingPathComponent("p00000.jpg")
            try FileManager.default.removeItem(at: resaved)
            try TestPictures.jpegWithExif(
                make: "Cam", model: "One", original: "2019:01:01 10:00:00", orientation: 1, little: true
            ).write(to: resaved)
            let changed = try launch(until: .listSorted)
            #expect(changed.contains { $0.event == .indexRead(rows: count, hits: count) })
            #expect(changed.contains { $0.event == .indexChecked(rows: count, reordered: true) })
            #expect(firstRow(changed) == "p00001.jpg")
        }

        @Test(
            "A tree of more than 3,000 photos sorted by date shows its first rows from the index while its folders are read (index.lead); one the listing does not hold is taken out, one new goes in first"
        )
        func treeLeadFromIndex() throws {
            let folder = try TestPictures.makeFolder("dated-tree")
            defer { try? FileManager.default.removeItem(at: folder) }
            let photos = folder.appendingPathComponent("Pictures")
            // Two folders, even names taken in 2022, odd ones in 2021.
            for month in ["2021/05", "2022/01"] {
                try TestPictures.linkDatedPhotos(
                    in: photos.appendingPathComponent(month), count: 1_700,
                    dates: ["2022:01:01 10:00:00", "2021:01:01 10:00:00"])
            }
            var environment = try privateSettings(["sort-by": "'date-taken'"])
            environment["XDG_CACHE_HOME"] = folder.appendingPathComponent("cache").path
            environment["CLASSIC_PHOTOS_TREE_LEAD"] = "always"
            func launch(
                until name: TraceEvent.Name, then condition: @escaping ([TraceRecord]) -> Bool = { _ in true }
            ) throws -> [TraceRecord] {
                try Self.events(
                    of: ["--recursive", photos.path], environment: environment, until: name, then: condition)
            }
            func shown(_ events: [TraceRecord]) -> [Int: String] {
                var names: [Int: String] = [:]
                for case .rowShown(let row, _, let name, _) in events.map(\.event) { names[row] = name }
                return names
            }
            // The first time, no lead from the index, which knows nothing (the first rows come
            // from the first folders, by name); the dates are read after.
            let cold = try launch(until: .listSorted)
            #expect(!cold.contains { $0.event.name == .indexLead })
            // The index knows a photo by a path the listing does not give (a folder reached
            // through a link to one it reads under its own name), dated before every other.
            try FileManager.default.createSymbolicLink(
                at: photos.appendingPathComponent("2022/zz-link"),
                withDestinationURL: photos.appendingPathComponent("2022/01"))
            let linked = photos.appendingPathComponent("2022/zz-link/p00000.jpg").path
            var status = stat()
            #expect(stat(linked, &status) == 0)
            do {
                let index = try PhotoIndex(
                    path: folder.appendingPathComponent("cache/classic-photos/index.sqlite").path)
                index.remember(
                    path: linked,
                    PhotoIndex.Facts(
                        size: Int64(status.st_size),
                        modified: Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec),
                        taken: "2020-01-01 10:00:00"))
                index.flush()
            }
            // A photo the index does not know, taken before every other.
            try TestPictures.jpegWithExif(
                make: "Cam", model: "One", original: "2019:01:01 10:00:00", orientation: 1, little: true
            ).write(to: photos.appendingPathComponent("2022/01/new.jpg"))
            // Until the rows the listing put first are bound (checked below).
            let warm = try launch(until: .indexChecked) { events in
                let rows = shown(events)
                return rows[0] == "2022/01/new.jpg" && rows[1] == "2021/05-1.jpg"
            }
            let lead = try #require(warm.firstIndex { $0.event.name == .indexLead })
            let loaded = try #require(warm.firstIndex { $0.event.name == .sourceLoaded })
            #expect(lead < loaded && warm[lead].event == .indexLead(rows: 250))
            // The linked photo came first, shown ahead; the listing took it out and put the new
            // one first (whether a frame showed the linked one before is the frame clock's affair).
            #expect(warm.contains { if case .sourceLoaded(_, 3_405, true) = $0.event { true } else { false } })
            let rows = shown(warm)
            #expect(rows[0] == "2022/01/new.jpg", "\(rows[0] ?? "none")")
            #expect(rows[1] == "2021/05-1.jpg", "\(rows[1] ?? "none")")
            #expect(warm.contains { $0.event == .indexChecked(rows: 3_405, reordered: false) })
        }
    }
}
