import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension DesktopGUITests {
    /// Where a photo was taken, in the details panel: the nearest town to its GPS position
    /// (libgweather's database, offline) over the coordinates, and Open in Maps handing a
    /// `geo:` address to the desktop's maps app.
    @Suite(.serialized) struct PlaceAppTests {
        @Test(
            "A photo taken by the Eiffel Tower: the details panel says Paris, France over its coordinates; Open in Maps gives the maps app geo:48.858400,2.294500"
        )
        func townAndMaps() throws {
            let folder = try TestPictures.makeFolder("place")
            let dataHome = try TestPictures.makeFolder("place-data")
            defer {
                try? FileManager.default.removeItem(at: folder)
                try? FileManager.default.removeItem(at: dataHome)
            }
            let photo = folder.appendingPathComponent("tower.jpg")
            try #require(TestPictures.write(photo, format: "jpeg", rgb: 0x8899AA, size: 400))
            let tagged = try run(
                URL(fileURLWithPath: "/usr/bin/exiftool"),
                [
                    "-q", "-overwrite_original", "-GPSLatitude=48.8584", "-GPSLatitudeRef=N", "-GPSLongitude=2.2945",
                    "-GPSLongitudeRef=E", photo.path,
                ])
            try #require(tagged.status == 0, "\(tagged.stderr)")

            // A maps app of the test's own: the desktop's default for geo: addresses, writing
            // down the address it was given (no mimeapps.list of the machine's user in the way:
            // the configuration folder is the test's too).
            let applications = dataHome.appendingPathComponent("applications", isDirectory: true)
            try FileManager.default.createDirectory(at: applications, withIntermediateDirectories: true)
            let given = dataHome.appendingPathComponent("maps-given.txt").path
            let script = applications.appendingPathComponent("fake-maps.sh").path
            try "#!/bin/sh\nprintf '%s' \"$1\" > '\(given)'\n".write(toFile: script, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script)
            try """
            [Desktop Entry]
            Type=Application
            Name=Test Maps
            Exec=\(script) %u
            MimeType=x-scheme-handler/geo;
            NoDisplay=true
            """.write(to: applications.appendingPathComponent("test-maps.desktop"), atomically: true, encoding: .utf8)
            try "[Default Applications]\nx-scheme-handler/geo=test-maps.desktop\n".write(
                to: applications.appendingPathComponent("mimeapps.list"), atomically: true, encoding: .utf8)

            let app = try AppSession(
                source: folder.path,
                environment: AppSession.tracingFrames.merging([
                    "XDG_DATA_HOME": dataHome.path,
                    "XDG_CONFIG_HOME": dataHome.appendingPathComponent("config").path,
                ]) { $1 })
            try app.waitFor("the row shown") { AppSession.rowStates($0)[0] == .filtered }
            try app.clickRow(0)
            try app.waitFor("the photo in the viewer") { events in
                events.contains { $0.event.name == .viewerImage && $0.event.row == 0 }
            }
            try app.xdotool(["key", "alt+Return"])
            let events = try app.waitFor("the town in the info") { events in
                events.contains { $0.event.viewerInfo?.info.place?.hasPrefix("Paris, France\n") == true }
            }
            let place = try #require(
                events.last { $0.event.viewerInfo?.info.place != nil }?.event.viewerInfo?.info.place)
            #expect(place == "Paris, France\n48.85840° N, 2.29450° E", "\(place)")
            // The panel on screen (the frame after the town came), to look at.
            let town = try #require(events.last { $0.event.viewerInfo?.info.place?.hasPrefix("Paris") == true })
            try app.waitForFrame(after: town.t)
            try app.screenshot(to: NSTemporaryDirectory() + "classic-photos-place.png")

            // Open in Maps by its mnemonic.
            try app.xdotool(["key", "alt+m"])
            let opened = try app.waitFor("the address handed to the maps app") { events in
                events.contains { $0.event.name == .viewerMaps }
            }
            #expect(
                opened.last { $0.event.name == .viewerMaps }?.event
                    == .viewerMaps(address: "geo:48.858400,2.294500", opened: true))
            try app.waitFor("the maps app started") { _ in
                (try? String(contentsOfFile: given, encoding: .utf8))?.isEmpty == false
            }
            #expect(try String(contentsOfFile: given, encoding: .utf8) == "geo:48.858400,2.294500")
            #expect(app.terminate() == 0)
        }
    }
}
