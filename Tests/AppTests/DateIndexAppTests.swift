import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension GUITests {
    /// The index of dates taken, on the real app: a folder sorted by date, opened twice with
    /// the same cache.
    @Suite(.serialized) struct DateIndexAppTests {
        @Test("The second launch of a folder sorted by date takes its dates from the index (index.read)")
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
            #expect(
                FileManager.default.fileExists(
                    atPath: state.appendingPathComponent("cache/classic-photos/index.sqlite").path))
        }
    }
}
