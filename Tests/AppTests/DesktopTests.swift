import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension DesktopGUITests {
    /// The app as a desktop app: one instance per session, and its keyboard shortcuts, driven
    /// with real key events.
    @Suite(.serialized) struct DesktopTests {
        /// Clicks into the window so that key events go to it.
        private func focus(_ app: AppSession) throws {
            let window = try app.windowGeometry()
            try app.xdotool(["mousemove", "\(window.x + window.width / 2)", "\(window.y + 200)", "click", "1"])
        }

        private func folder(_ name: String, pictures: Int) throws -> URL {
            let folder = try TestPictures.makeFolder(name)
            for n in 1...pictures {
                TestPictures.write(folder.appendingPathComponent("\(name)\(n).png"), format: "png")
            }
            return folder
        }

        @Test("A second launch hands its source to the running app, which opens it, and exits at once")
        func secondLaunchHandsOver() throws {
            let bus = try PrivateBus()
            let first = try folder("first", pictures: 3), second = try folder("second", pictures: 2)
            defer { try? FileManager.default.removeItem(at: first); try? FileManager.default.removeItem(at: second) }
            let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address]
            let app = try AppSession(arguments: [first.path], environment: environment, separateInstance: false)
            try app.waitFor(event: .sourceLoaded)

            let started = Date()
            let launch = try run(
                Products.executable("classic-photos"), [second.path],
                environment: environment.merging(app.display.gtkEnvironment) { $1 }, timeout: 20)
            let seconds = Date().timeIntervalSince(started)
            print("second launch handed over and exited with \(launch.status) after \(Int(seconds * 1000)) ms")
            #expect(launch.status == 0 && !launch.timedOut, "\(launch.stderr)")
            #expect(seconds < 5)

            let events = try app.waitFor("the second source loaded by the first app") { events in
                events.filter { $0.event.name == .sourceLoaded }.count == 2
            }
            let loaded = events.filter { $0.event.name == .sourceLoaded }
            #expect(loaded.last?.event.rows == 2)
            let starts = events.compactMap { record -> String? in
                if case .sourceStart(let url, _) = record.event { return url }
                return nil
            }
            #expect(starts.count == 2 && starts.last?.contains(second.lastPathComponent) == true, "\(starts)")
            #expect(app.terminate() == 0)
        }

        @Test("F5 reloads the list and Ctrl+Q quits")
        func reloadAndQuit() throws {
            let photos = try folder("reload", pictures: 4)
            defer { try? FileManager.default.removeItem(at: photos) }
            let app = try AppSession(source: photos.path)
            try app.waitFor(event: .sourceLoaded)
            try focus(app)
            try app.xdotool(["key", "Escape"]) // the click opens the viewer, where F5 starts the slideshow
            try app.xdotool(["key", "F5"])
            try app.waitFor("a second source.start after F5") { events in
                events.filter { $0.event.name == .sourceStart }.count == 2
                    && events.filter { $0.event.name == .sourceLoaded }.count == 2
            }
            try app.xdotool(["key", "ctrl+q"])
            #expect(app.waitForExit(timeout: 10) == 0)
            #expect(app.events().last?.event == .appQuit)
        }

        @Test(
            "The window follows the desktop's dark style", arguments: [("prefer-light", false), ("prefer-dark", true)])
        func colourScheme(scheme: String, dark: Bool) throws {
            let photos = try folder("style", pictures: 2)
            defer { try? FileManager.default.removeItem(at: photos) }
            // libadwaita reads the desktop's preference through the settings portal; with none
            // under Xvfb, this variable stands in for it.
            let app = try AppSession(source: photos.path, environment: ["ADW_DEBUG_COLOR_SCHEME": scheme])
            try app.waitFor("rows settled") { AppSession.rowStates($0).values.filter { $0 == .filtered }.count == 2 }
            let window = try app.windowGeometry()
            let shot = NSTemporaryDirectory() + "classic-photos-\(scheme).png"
            // Screenshots until the window shows the style looked for (its first frames may not).
            let stats = try app.waitForScreen(
                region: (window.x, window.y, window.width, window.height), keeping: shot
            ) { dark ? $0.meanLuminance < 80 : $0.meanLuminance > 170 }
            print("\(scheme): \(stats)")
            if dark {
                #expect(stats.meanLuminance < 80, "\(stats)")
            } else {
                #expect(stats.meanLuminance > 170, "\(stats)")
            }
            #expect(app.terminate() == 0)
        }

        @Test("With the settings schema installed, the app reopens the last sources and remembers the window size")
        func remembersLastSources() throws {
            let photos = try folder("remember", pictures: 2)
            let state = try TestPictures.makeFolder("settings")
            defer { try? FileManager.default.removeItem(at: photos); try? FileManager.default.removeItem(at: state) }
            // The schema as an install provides it, and settings kept in a file of the test's own.
            let compiled = try run(
                URL(fileURLWithPath: "/usr/bin/glib-compile-schemas"),
                ["--strict", "--targetdir=\(state.path)", Products.packageRoot.appendingPathComponent("data").path])
            #expect(compiled.status == 0, "\(compiled.stderr)")
            let environment = [
                "GSETTINGS_SCHEMA_DIR": state.path, "GSETTINGS_BACKEND": "keyfile",
                "XDG_CONFIG_HOME": state.path,
            ]

            let first = try AppSession(arguments: [photos.path], environment: environment)
            try first.waitFor(event: .sourceLoaded)
            try focus(first)
            try first.xdotool(["key", "ctrl+q"])
            #expect(first.waitForExit(timeout: 10) == 0)

            // No source named: the last one opens again.
            let second = try AppSession(arguments: [], environment: environment)
            let started = try second.waitFor(event: .sourceStart)
            if case .sourceStart(let url, _) = started.event {
                #expect(
                    url == photos.absoluteString || url == photos.absoluteString + "/"
                        || URL(string: url)?.path == photos.path,
                    "reopened \(url)")
            }
            let loaded = try second.waitFor(event: .sourceLoaded)
            #expect(loaded.event.rows == 2)
            #expect(second.terminate() == 0)
            let keyfile = try String(
                contentsOf: state.appendingPathComponent("glib-2.0/settings/keyfile"), encoding: .utf8)
            #expect(keyfile.contains("last-sources") && keyfile.contains("window-width"), "\(keyfile)")
        }

        @Test("A folder and a web link dragged from another app and dropped on the window open as its list")
        func dropFilesAndLinks() throws { try dropFromAnotherApp(probeMode: "drag-source") }

        @Test(
            "A drop whose file list the document portal cannot serve is read as text/uri-list and opens all the same"
        )
        func dropThroughBrokenPortal() throws { try dropFromAnotherApp(probeMode: "drag-source-broken-portal") }

        /// Drags a folder and a web link from another app (`glibkit-probe probeMode`) onto the
        /// window, and checks both open as its list.
        private func dropFromAnotherApp(probeMode: String) throws {
            let first = try folder("before-drop", pictures: 3), dropped = try folder("dropped", pictures: 2)
            defer { try? FileManager.default.removeItem(at: first); try? FileManager.default.removeItem(at: dropped) }
            let server = try LoopbackServer()
            let link = server.url("/list.plist?rows=4").absoluteString
            // On a desktop the document portal runs before apps start (GTK reads a drag's files
            // through it only when it was there at start): started first where it is installed.
            _ = try? run(
                URL(fileURLWithPath: "/usr/bin/gdbus"),
                [
                    "call", "--session", "--dest", "org.freedesktop.portal.Documents", "--object-path",
                    "/org/freedesktop/portal/documents", "--method", "org.freedesktop.portal.Documents.GetMountPoint",
                ])
            let app = try AppSession(source: first.path)
            try app.waitFor(event: .sourceLoaded)

            // Another app offers the folder and the link as a file list, as a file manager or a
            // browser does; the pointer drags them from it onto the photo list.
            let source = Process()
            source.executableURL = Products.executable("glibkit-probe")
            source.arguments = [probeMode, dropped.absoluteString, link]
            source.environment = ProcessInfo.processInfo.environment.merging(app.display.gtkEnvironment) { $1 }
            try source.run()
            // SIGKILL: the test runner blocks SIGTERM, and its children inherit the mask.
            defer { kill(source.processIdentifier, SIGKILL); source.waitUntilExit() }
            var sourceWindow: String?
            for _ in 0..<100 where sourceWindow == nil {
                sourceWindow = try app.xdotool(["search", "--onlyvisible", "--name", "Drag Source"])
                    .split(separator: "\n").first.map(String.init)
                if sourceWindow == nil { usleep(100_000) }
            }
            let id = try #require(sourceWindow, "the drag source's window never showed")
            let window = try app.windowGeometry()
            let (fromX, fromY) = (window.x + window.width + 150, window.y + 150)
            // (--sync: until the server has it there.)
            try app.xdotool(["windowmove", "--sync", id, "\(fromX - 100)", "\(fromY - 100)"])
            try app.xdotool(["mousemove", "\(fromX)", "\(fromY)", "mousedown", "1"])
            let (toX, toY) = (window.x + window.width / 2, window.y + window.height / 2)
            for step in 1...8 { // a drag starts once the pointer has moved a few pixels with the button down
                try app.xdotool([
                    "mousemove", "\(fromX + (toX - fromX) * step / 8)", "\(fromY + (toY - fromY) * step / 8)",
                ])
                usleep(80_000)
            }
            try app.xdotool(["mouseup", "1"])

            let events = try app.waitFor("both dropped sources loaded") { events in
                events.filter { $0.event.name == .sourceLoaded }.count == 3
            }
            let starts = events.compactMap { record -> String? in
                if case .sourceStart(let url, _) = record.event { return url }
                return nil
            }
            #expect(starts.count == 3, "\(starts)")
            #expect(starts.dropFirst().first.map { URL(string: $0)?.path == dropped.path } == true, "\(starts)")
            #expect(starts.last == link, "\(starts)")
            #expect(events.filter { $0.event.name == .sourceLoaded }.map(\.event.rows) == [3, 2, 4])
            #expect(app.terminate() == 0)
        }

        @Test(
            "A folder's thumbnails go to the desktop's shared cache, and the next launch reads them instead of decoding"
        )
        func sharedThumbnailCache() throws {
            let photos = try folder("thumbnailed", pictures: 5)
            let cacheHome = try TestPictures.makeFolder("cache-home")
            defer {
                try? FileManager.default.removeItem(at: photos); try? FileManager.default.removeItem(at: cacheHome)
            }
            let cache = ThumbnailCache(directory: cacheHome.appendingPathComponent("thumbnails"))
            func launch() throws {
                let app = try AppSession(source: photos.path, environment: ["XDG_CACHE_HOME": cacheHome.path])
                try app.waitFor("rows settled") {
                    AppSession.rowStates($0).values.filter { $0 == .filtered }.count == 5
                }
                #expect(app.terminate() == 0)
            }
            func thumbnails() throws -> [String: Date] {
                var found: [String: Date] = [:]
                for n in 1...5 {
                    let key = try #require(cache.key(for: photos.appendingPathComponent("thumbnailed\(n).png")))
                    for size in ThumbnailCache.Size.allCases {
                        let path = cache.location(of: key, size: size).path
                        if let attributes = try? FileManager.default.attributesOfItem(atPath: path) {
                            found[path] = attributes[.modificationDate] as? Date
                        }
                    }
                }
                return found
            }
            try launch()
            let first = try thumbnails()
            #expect(first.count == 5, "\(first.keys.sorted())")
            // Until a file written now would have a later modification time than theirs (at once
            // where the file system keeps nanoseconds; a second where it keeps seconds), so that
            // a rewrite would show.
            let probe = cacheHome.appendingPathComponent("mtime-probe")
            let latest = try #require(first.values.max())
            let deadline = Date().addingTimeInterval(5)
            while Date() < deadline {
                try Data().write(to: probe)
                let written = try FileManager.default.attributesOfItem(atPath: probe.path)[.modificationDate] as? Date
                if let written, written > latest { break }
                usleep(20_000)
            }
            try launch()
            #expect(try thumbnails() == first, "the second launch wrote the thumbnails again")
        }

        @Test("Photos a server lets clients keep come from the disk cache on the next launch, until Clear Cache")
        func httpDiskCache() throws {
            let server = try LoopbackServer()
            let names = ["astronaut", "coffee", "retina", "grass", "gravel", "cameraman"]
            let entries = names.map { "<key>\($0)</key><string>/cacheable/\($0).jpg</string>" }.joined()
            server.setList(
                Data(#"<?xml version="1.0"?><plist version="1.0"><dict>\#(entries)</dict></plist>"#.utf8),
                for: "cached.plist")
            let cacheHome = try TestPictures.makeFolder("http-cache-home")
            defer { try? FileManager.default.removeItem(at: cacheHome) }
            let photoRequests = { names.reduce(0) { $0 + server.requestCount("/cacheable/\($1).jpg") } }
            func launch() throws -> AppSession {
                let app = try AppSession(
                    source: server.url("/lists/cached.plist").absoluteString,
                    environment: AppSession.withoutAnimations.merging(["XDG_CACHE_HOME": cacheHome.path]) { $1 })
                try app.waitFor("every row filtered") {
                    AppSession.rowStates($0).values.filter { $0 == .filtered }.count == names.count
                }
                return app
            }
            var app = try launch()
            #expect(app.terminate() == 0)
            // Each photo's head first; those longer than it (and with no thumbnail inside)
            // then whole. Only whole responses go into the disk cache (a 206 never does).
            let first = photoRequests()
            let whole = names.reduce(0) {
                $0 + server.requestCount("/cacheable/\($1).jpg") - server.rangeRequestCount("/cacheable/\($1).jpg")
            }
            #expect(first >= names.count && whole >= 1, "\(first) requests, \(whole) whole")
            let cacheFolder = cacheHome.appendingPathComponent("classic-photos/http")
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: cacheFolder.path)) ?? []).count > whole)

            // The second launch shows every photo without asking the server for any.
            app = try launch()
            #expect(photoRequests() == first)

            // Clear Cache, from the main menu with the keyboard (F10, then its mnemonic; with GTK's
            // animations off the menu takes the C as soon as the F10 has opened it).
            try focus(app)
            try app.xdotool(["key", "Escape"]) // the click may have opened the viewer
            try app.xdotool(["key", "F10", "c"])
            let cleared = try app.waitFor(event: .cacheCleared)
            #expect((cleared.event.bytes ?? 0) > 100_000, "\(cleared.event)")
            #expect(app.terminate() == 0)
            // (The viewer, if the click opened it, fetched its photos whole meanwhile.)
            let beforeRelaunch = photoRequests()
            app = try launch()
            #expect(photoRequests() - beforeRelaunch == first, "every photo asked for again, as at the first launch")
            #expect(app.terminate() == 0)
        }

        @Test("Ctrl+W closes the window, and with it the app")
        func closeWindow() throws {
            let photos = try folder("close", pictures: 2)
            defer { try? FileManager.default.removeItem(at: photos) }
            let app = try AppSession(source: photos.path)
            try app.waitFor(event: .sourceLoaded)
            try focus(app)
            try app.xdotool(["key", "ctrl+w"])
            #expect(app.waitForExit(timeout: 10) == 0)
            #expect(app.events().last?.event == .appQuit)
        }
    }
}
