import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension GUITests {
    /// The photo viewer, driven as a person would: real clicks and key presses (xdotool) on the
    /// real app, photos from real files and a real loopback HTTP server, checked in the trace.
    @Suite(.serialized) struct ViewerTests {
        private func rowPoint(_ app: AppSession, _ row: Int) throws -> (x: Int, y: Int) { try app.rowPoint(row) }

        static let headerHeight = AppSession.headerHeight

        private func click(_ app: AppSession, row: Int) throws { try app.clickRow(row) }

        private func key(_ app: AppSession, _ keys: String...) throws {
            try app.xdotool(["key", "--delay", "80"] + keys)
        }

        /// `count` pictures of `width`×`height` (JPEG, smooth gradients), named p01.jpg, p02.jpg…
        private func bigPictures(_ name: String, count: Int, width: Int = 2400, height: Int = 1600) throws -> URL {
            let folder = try TestPictures.makeFolder(name)
            for n in 1...count {
                let file = folder.appendingPathComponent(String(format: "p%02d.jpg", n))
                try #require(
                    TestPictures.writeGradient(
                        file, width: Int32(width), height: Int32(height),
                        rgb: UInt32(n * 0x3F6A91 % 0xFFFFFF)))
            }
            return folder
        }

        private func images(_ events: [TraceRecord], row: Int? = nil, state: ViewerImageState? = nil) -> [TraceRecord] {
            events.filter {
                $0.event.name == .viewerImage && (row == nil || $0.event.row == row)
                    && (state == nil || $0.event.viewerState == state)
            }
        }

        private func zoomLevels(_ events: [TraceRecord]) -> [Double] { events.compactMap(\.event.zoomLevel) }

        @Test(
            "On a HiDPI display (scale 2) the photo is decoded for the viewer's size in device pixels, not its logical size"
        )
        func hiDPI() throws {
            let folder = try bigPictures("viewer-hidpi", count: 3)
            defer { try? FileManager.default.removeItem(at: folder) }
            // A screen large enough for the default window at twice the size.
            let display = try XvfbDisplay(width: 2048, height: 1800)
            let app = try AppSession(arguments: [folder.path], environment: ["GDK_SCALE": "2"], display: display)
            try app.waitFor(event: .sourceLoaded)
            try app.waitFor("first rows shown") { $0.contains { $0.event.name == .rowShown && $0.event.row == 2 } }
            let window = try app.windowGeometry() // in device pixels
            let header = 2 * Self.headerHeight
            // Row 1, in device pixels: rows are 80 logical pixels high.
            try app.xdotool([
                "mousemove", "\(window.x + window.width / 2)", "\(window.y + header + 2 * (80 + 40))", "click",
                "--repeat", "2", "--delay", "80", "1",
            ])
            let events = try app.waitFor("row 1 shown filtered in the viewer") {
                !images($0, row: 1, state: .filtered).isEmpty
            }
            let size = try #require(images(events, row: 1, state: .filtered).last?.event.imageSize)
            let area = (width: Double(window.width), height: Double(window.height - header))
            let fit = min(area.width / 2400, area.height / 1600, 1)
            print(
                "HiDPI viewer area \(Int(area.width))×\(Int(area.height)) device pixels, decoded \(size.w)×\(size.h), "
                    + "fitted \(Int(2400 * fit))×\(Int(1600 * fit))")
            // Sharp: at least the fitted size in device pixels (twice the logical size), not whole.
            #expect(
                Double(size.w) >= (2400 * fit).rounded(.down) - 1 && Double(size.h) >= (1600 * fit).rounded(.down) - 2)
            #expect(size.w < 2400)
            let level = try #require(zoomLevels(events).last)
            #expect(abs(level - fit) < 0.01, "fit zoom \(level), expected \(fit) (image pixels per device pixel)")
            try app.screenshot(to: NSTemporaryDirectory() + "classic-photos-viewer-hidpi.png")
            #expect(app.terminate() == 0)
        }

        @Test(
            "A click opens the viewer on that row's photo, decoded for the viewer's size but not whole; Right, End, + and Ctrl+0, Ctrl+1 and Escape"
        )
        func openPageZoomClose() throws {
            let folder = try bigPictures("viewer", count: 12)
            defer { try? FileManager.default.removeItem(at: folder) }
            let app = try AppSession(source: folder.path)
            try app.waitFor(event: .sourceLoaded)
            try app.waitFor("first rows shown") { $0.contains { $0.event.name == .rowShown && $0.event.row == 3 } }
            let window = try app.windowGeometry()

            // A click on row 1 opens it.
            try click(app, row: 1)
            var events = try app.waitFor("row 1 shown filtered in the viewer") {
                !images($0, row: 1, state: .filtered).isEmpty
            }
            let opened = events.first { $0.event.name == .viewerOpen }
            #expect(opened?.event.row == 1 && opened?.event.photoName == "p02.jpg", "\(String(describing: opened))")
            let size = try #require(images(events, row: 1, state: .filtered).last?.event.imageSize)
            // At least what fits the viewer (the window below the header bar), never the whole image.
            let area = (width: Double(window.width), height: Double(window.height - Self.headerHeight))
            let fit = min(area.width / 2400, area.height / 1600, 1)
            print(
                "viewer area \(Int(area.width))×\(Int(area.height)), decoded \(size.w)×\(size.h), fitted \(Int(2400 * fit))×\(Int(1600 * fit))"
            )
            #expect(
                Double(size.w) >= (2400 * fit).rounded(.down) - 1 && Double(size.h) >= (1600 * fit).rounded(.down) - 1)
            #expect(size.w < 2400 && size.h < 1600)
            let fitLevel = try #require(zoomLevels(events).last)
            #expect(abs(fitLevel - fit) < 0.01, "fit zoom \(fitLevel), expected \(fit)")

            // Right: the next row's photo.
            try key(app, "Right")
            events = try app.waitFor("row 2 in the viewer") { !images($0, row: 2, state: .filtered).isEmpty }
            #expect(events.last { $0.event.name == .viewerOpen }?.event.row == 2)
            // End: the last photo, and the list behind follows it into view.
            try key(app, "End")
            events = try app.waitFor("row 11 in the viewer and the list scrolled to it") { events in
                !images(events, row: 11, state: .filtered).isEmpty
                    && AppSession.visibleRanges(events).last.map { $0.contains(11) } == true
            }
            // Neighbours loaded ahead at low priority were cancelled as the viewer moved on, or
            // had finished; none of the photos in between (3…9) was loaded.
            let viewLoads = events.filter { $0.event.name == .opStart && $0.event.kind == .view }.compactMap(
                \.event.row)
            #expect(Set(viewLoads).isSubset(of: [0, 1, 2, 3, 10, 11]), "viewer loads for rows \(viewLoads)")

            // + zooms in around the centre, Ctrl+0 fits again.
            let before = zoomLevels(events).count
            try key(app, "plus")
            events = try app.waitFor("zoomed in") { zoomLevels($0).count > before }
            let zoomedIn = zoomLevels(events).last!
            #expect(abs(zoomedIn - fitLevel * 1.25) < 0.01, "zoom \(zoomedIn) after + from \(fitLevel)")
            try key(app, "ctrl+0")
            events = try app.waitFor("fitted again") { zoomLevels($0).count > before + 1 }
            #expect(abs(zoomLevels(events).last! - fitLevel) < 0.01)

            // Ctrl+1: 100 %, past the decoded size: decoded again, whole.
            try key(app, "ctrl+1")
            events = try app.waitFor("decoded whole at 100 %") { events in
                images(events, row: 11, state: .filtered).contains { $0.event.imageSize?.w == 2400 }
            }
            #expect(zoomLevels(events).contains(1.0))
            let whole = images(events, row: 11, state: .filtered).last!.event.imageSize!
            #expect(whole.w == 2400 && whole.h == 1600)

            // Escape closes it.
            try key(app, "Escape")
            let closed = try app.waitFor(event: .viewerClose)
            #expect(closed.event.row == 11)
            #expect(app.terminate() == 0)
        }

        @Test(
            "Pointer and keys in the viewer: double-click toggles 100 % and fit, Ctrl+wheel zooms in, Ctrl+C copies, S shows the original"
        )
        func pointerZoomAndOriginal() throws {
            let folder = try bigPictures("pointer", count: 3)
            defer { try? FileManager.default.removeItem(at: folder) }
            let app = try AppSession(source: folder.path)
            try app.waitFor(event: .sourceLoaded)
            try app.waitFor("first rows shown") { $0.contains { $0.event.name == .rowShown && $0.event.row == 2 } }
            let window = try app.windowGeometry()
            try click(app, row: 0)
            var events = try app.waitFor("row 0 in the viewer") { !images($0, row: 0, state: .filtered).isEmpty }
            let fit = try #require(zoomLevels(events).last)
            #expect(fit < 1)
            let centre = (
                x: window.x + window.width / 2,
                y: window.y + Self.headerHeight + (window.height - Self.headerHeight) / 2
            )

            // Double-click: 100 %; again: fit.
            try app.xdotool(["mousemove", "\(centre.x)", "\(centre.y)", "click", "--repeat", "2", "--delay", "60", "1"])
            events = try app.waitFor("100 % after a double-click") { zoomLevels($0).last == 1.0 }
            let zoomedIn = Date()
            // At 100 % the photo is decoded again, whole; the second double-click waits for it.
            // Sent while that picture was still on its way (under ThreadSanitizer in CI, with the
            // main loop stalled as it came), no second toggle was seen.
            events = try app.waitFor("decoded whole at 100 %") { events in
                images(events, row: 0, state: .filtered).contains { $0.event.imageSize?.w == 2400 }
            }
            var count = zoomLevels(events).count
            // Past the double-click time since the first, as a person's next double-click is.
            AppSession.pastDoubleClickTime(since: zoomedIn)
            // The first press wanders two pixels, as a hand does: at 100 % the photo can pan, and it
            // used to follow the tremor.
            let pans = events.filter { $0.event.name == .viewerPan }.count
            try app.xdotool(["mousedown", "1", "mousemove_relative", "--", "2", "0", "mouseup", "1", "click", "1"])
            events = try app.waitFor("fitted after a second double-click") { zoomLevels($0).count > count }
            #expect(abs(zoomLevels(events).last! - fit) < 0.01, "\(zoomLevels(events))")
            #expect(events.filter { $0.event.name == .viewerPan }.count == pans, "a double-click panned the photo")

            // Ctrl+wheel up: zoomed in around the pointer, beyond fit.
            count = zoomLevels(events).count
            try app.xdotool(["keydown", "ctrl", "click", "4", "keyup", "ctrl"])
            events = try app.waitFor("zoomed in by Ctrl+wheel") { zoomLevels($0).count > count }
            let wheeled = zoomLevels(events).last!
            #expect(wheeled > fit + 0.01, "zoom \(wheeled) after Ctrl+wheel from \(fit)")

            // Ctrl+C: the photo shown is on the clipboard, as a picture another program can paste.
            try key(app, "ctrl+c")
            let file = NSTemporaryDirectory() + "classic-photos-pasted-\(UUID().uuidString).png"
            defer { try? FileManager.default.removeItem(atPath: file) }
            let (targets, pasted) = try app.pastePicture(to: file)
            #expect(targets.contains("image/png"), "clipboard offers: \(targets)")
            let png = try Data(contentsOf: URL(fileURLWithPath: file))
            #expect(
                pasted.status == 0 && png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 1000,
                "pasted \(png.count) bytes: \(pasted.stderr)")

            // S: the original photo (not sepia) is shown.
            try key(app, "s")
            // (The first picture of a photo is its original, shown until the sepia one is ready: the
            // last picture is what counts.)
            events = try app.waitFor("the original shown") { images($0, row: 0).last?.event.viewerState == .original }
            #expect(images(events, row: 0, state: .original).last?.event.imageSize != nil)
            // The wheel alone never zoomed: still where Ctrl+wheel left it.
            #expect(zoomLevels(events).last == wheeled)
            try key(app, "Escape")
            try app.waitFor(event: .viewerClose)
            #expect(app.terminate() == 0)
        }

        /// A photo list on a loopback server: a 12-megapixel JPEG, two bundled photos, a missing one.
        private func servedList() throws -> (server: LoopbackServer, list: URL, folder: URL) {
            let folder = try TestPictures.makeFolder("served")
            let big = folder.appendingPathComponent("twelve-megapixels.jpg")
            let made = try run(
                URL(fileURLWithPath: "/usr/bin/convert"),
                ["-size", "4000x3000", "plasma:", "-quality", "90", big.path],
                timeout: 120)
            try #require(made.status == 0, "convert failed: \(made.stderr)")
            for name in ["coffee.jpg", "rocket-launch.jpg", "retina.jpg"] {
                try FileManager.default.copyItem(
                    at: Products.packageRoot.appendingPathComponent("data/photos/\(name)"),
                    to: folder.appendingPathComponent(name))
            }
            let server = try LoopbackServer(photos: folder)
            let items: [[String: String]] = [
                ["name": "Coffee", "url": server.url("/photos/coffee.jpg").absoluteString],
                ["name": "Twelve megapixels", "url": server.url("/photos/twelve-megapixels.jpg").absoluteString],
                ["name": "Missing", "url": server.url("/status/404").absoluteString],
                ["name": "Rocket", "url": server.url("/photos/rocket-launch.jpg").absoluteString],
                ["name": "Retina", "url": server.url("/photos/retina.jpg").absoluteString],
            ]
            let list = folder.appendingPathComponent("list.plist")
            try PropertyListSerialization.data(fromPropertyList: items, format: .xml, options: 0).write(to: list)
            return (server, list, folder)
        }

        /// Seconds from `viewer.open` of `row` to its first picture and to its sepia picture.
        private func openToImage(_ events: [TraceRecord], row: Int) -> (first: Double, sepia: Double)? {
            guard let open = events.last(where: { $0.event.name == .viewerOpen && $0.event.row == row }),
                let first = images(events, row: row).first(where: { $0.t >= open.t }),
                let sepia = images(events, row: row, state: .filtered).first(where: { $0.t >= open.t })
            else { return nil }
            return (first.t - open.t, sepia.t - open.t)
        }

        @Test(
            "Over HTTP: click-to-photo times (measured), a failed photo shows its reason, Escape cancels the viewer's work"
        )
        func servedPhotos() throws {
            let (server, list, folder) = try servedList()
            defer { try? FileManager.default.removeItem(at: folder) }
            // GTK's animations off: the viewer is gone at once when it closes, so the next click
            // reaches the list.
            let app = try AppSession(source: list.path, environment: AppSession.withoutAnimations)
            try app.waitFor(event: .sourceLoaded)
            // The rows settle first, so the measurement is the viewer's own work.
            try app.waitFor("rows settled") {
                AppSession.rowStates($0).count == 5
                    && AppSession.rowStates($0).values.allSatisfy { $0 == .filtered || $0 == .failed }
            }

            // A bundled photo (600×400, 56 kB).
            var clicked = Date()
            try click(app, row: 0)
            var events = try app.waitFor("coffee in the viewer") { !images($0, row: 0, state: .filtered).isEmpty }
            let wall = Date().timeIntervalSince(clicked)
            if let times = openToImage(events, row: 0) {
                print(
                    String(
                        format:
                            "viewer, bundled 600×400 JPEG over loopback: open → picture %.0f ms, → sepia %.0f ms (click → sepia seen in the trace %.0f ms)",
                        times.first * 1000, times.sepia * 1000, wall * 1000))
            }
            try key(app, "Escape")
            try app.waitFor("closed") { $0.contains { $0.event.name == .viewerClose } }

            // The 12-megapixel JPEG (3.3 MB); its neighbours were not loaded ahead (the viewer was closed).
            clicked = Date()
            try click(app, row: 1)
            events = try app.waitFor("12 MP photo in the viewer", timeout: 60) {
                !images($0, row: 1, state: .filtered).isEmpty
            }
            let wallBig = Date().timeIntervalSince(clicked)
            let times = try #require(openToImage(events, row: 1))
            let big = images(events, row: 1, state: .filtered).last!.event.imageSize!
            print(
                String(
                    format:
                        "viewer, 4000×3000 JPEG (3.3 MB) over loopback: open → picture %.0f ms, → sepia %.0f ms (click → sepia seen in the trace %.0f ms); decoded %d×%d",
                    times.first * 1000, times.sepia * 1000, wallBig * 1000, big.w, big.h))
            #expect(big.w < 4000, "decoded whole: \(big)")

            // Right: the missing photo, failed large with its reason.
            try key(app, "Right")
            events = try app.waitFor("failed photo shown") {
                $0.contains { $0.event.name == .viewerStatus && $0.event.row == 2 }
            }
            let status = events.last { $0.event.name == .viewerStatus }!.event.text ?? ""
            #expect(status.contains("404"), "shown reason: \(status)")
            #expect(!images(events, row: 2, state: .failed).isEmpty)
            #expect(
                events.contains {
                    $0.event.name == .opFail && $0.event.kind == .view && $0.event.row == 2 && $0.event.reason == .http
                })

            // A slow photo: Escape while it loads cancels the load, and nothing is shown after.
            try key(app, "Escape")
            try app.waitFor("closed again") { $0.filter { $0.event.name == .viewerClose }.count == 2 }
            server.photoLatencyMs.store(3_000, ordering: .relaxed)
            let rocket = "/photos/rocket-launch.jpg"
            let asked = server.requestCount(rocket)
            try click(app, row: 3)
            try app.waitFor("slow load running") { events in
                events.contains { $0.event.name == .opStart && $0.event.kind == .view && $0.event.row == 3 }
            }
            // Its request is at the server, which answers it 3 s after.
            let deadline = Date().addingTimeInterval(20)
            while server.requestCount(rocket) == asked, Date() < deadline { usleep(20_000) }
            try #require(server.requestCount(rocket) > asked, "the viewer never asked for the photo")
            try key(app, "Escape")
            events = try app.waitFor("load cancelled") { events in
                events.contains {
                    $0.event.name == .opCancel && $0.event.kind == .view && $0.event.row == 3
                        && $0.event.running == true
                }
            }
            let closedAt = try #require(events.last { $0.event.name == .viewerClose })
            let openedAt = try #require(events.last { $0.event.name == .viewerOpen })
            #expect(closedAt.event.row == 3 && openedAt.event.row == 3)
            // The answer, due 3 s after the request, finds the app gone: the cancel closed the
            // connection, so no picture can come of it.
            while server.heldOrDelayedResponses(rocket) == (0, 0), Date() < deadline { usleep(50_000) }
            let outcome = server.heldOrDelayedResponses(rocket)
            #expect(
                outcome == (0, 1),
                "the delayed photo was \(outcome.delivered) times sent whole, \(outcome.abandoned) times abandoned")
            events = app.events().filter { $0.t > openedAt.t }
            #expect(!images(events, row: 3).contains { $0.t > closedAt.t }, "a picture was shown after closing")
            #expect(
                !events.contains { $0.event.name == .opFinish && $0.event.kind == .view && $0.event.row == 3 },
                "the cancelled load finished")
            #expect(app.terminate() == 0)
        }

        @Test("`classic-photos PICTURE` shows its folder and that picture in the viewer")
        func openSinglePicture() throws {
            let folder = try bigPictures("single", count: 5, width: 800, height: 600)
            defer { try? FileManager.default.removeItem(at: folder) }
            let app = try AppSession(source: folder.appendingPathComponent("p04.jpg").path)
            // The list's end is handed over after the picture's row, and may come after the
            // picture is shown: waited for as well.
            let events = try app.waitFor("the picture in the viewer, and the whole folder") {
                !images($0, state: .filtered).isEmpty && $0.contains { $0.event.name == .sourceLoaded }
            }
            let selected = try #require(events.first { $0.event.name == .listSelect })
            let opened = try #require(events.first { $0.event.name == .viewerOpen })
            #expect(selected.event.row == 3 && opened.event.row == 3 && opened.event.photoName == "p04.jpg")
            #expect(events.first { $0.event.name == .sourceLoaded }?.event.rows == 5)
            // Decoded for the viewer (its longest side), not larger than the picture.
            let size = try #require(images(events, state: .filtered).first?.event.imageSize)
            let window = try app.windowGeometry()
            let side = min(800, max(window.width - 10, window.height - Self.headerHeight - 10))
            #expect(
                max(size.w, size.h) >= side && size.w <= 800 && size.h <= 600
                    && abs(Double(size.w) / Double(size.h) - 4.0 / 3) < 0.01,
                "decoded \(size.w)×\(size.h) in a \(window.width)×\(window.height) window")
            #expect(app.terminate() == 0)
        }

        /// The window's `_NET_WM_STATE`, as the window manager set it.
        private func windowState(_ app: AppSession) throws -> String {
            let id =
                try app.xdotool(["search", "--onlyvisible", "--name", "Classic Photos"]).split(separator: "\n").first
                .map(String.init) ?? ""
            return try run(
                URL(fileURLWithPath: "/usr/bin/xprop"), ["-id", id, "_NET_WM_STATE"],
                environment: ["DISPLAY": app.display.name]
            ).stdout
        }

        /// Waits until the window manager has taken the app's window in: it set its `WM_STATE`.
        private func managed(_ app: AppSession) throws {
            let deadline = Date().addingTimeInterval(20)
            func state() -> String {
                let id = app.visibleWindows(named: "Classic Photos").first ?? ""
                return
                    (try? run(
                        URL(fileURLWithPath: "/usr/bin/xprop"), ["-id", id, "WM_STATE"],
                        environment: ["DISPLAY": app.display.name]
                    ).stdout) ?? ""
            }
            while !state().contains("Normal"), Date() < deadline { usleep(50_000) }
            try #require(state().contains("Normal"), "the window manager never took the window in: \(state())")
        }

        @Test("F11 makes the window fullscreen; Escape leaves fullscreen first, then closes the viewer")
        func fullscreen() throws {
            // Fullscreen is the window manager's to grant: a small one runs on the test's display
            // (its own F11 binding off, so the key reaches the app).
            let wm = URL(fileURLWithPath: "/usr/bin/matchbox-window-manager")
            try #require(
                FileManager.default.isExecutableFile(atPath: wm.path),
                "a window manager is needed to go fullscreen (meson-helpers/setup.sh installs matchbox-window-manager)")
            let folder = try bigPictures("fullscreen", count: 3, width: 1200, height: 1600)
            let noKeys = folder.appendingPathComponent("kbdconfig")
            try Data().write(to: noKeys)
            defer { try? FileManager.default.removeItem(at: folder) }
            let display = try XvfbDisplay()
            let manager = Process()
            manager.executableURL = wm
            manager.arguments = ["-use_titlebar", "no", "-kbdconfig", noKeys.path]
            manager.environment = ["DISPLAY": display.name]
            manager.standardOutput = FileHandle.nullDevice
            manager.standardError = FileHandle.nullDevice
            try manager.run()
            defer { kill(manager.processIdentifier, SIGKILL); manager.waitUntilExit() }
            // The manager is up once it names itself on the root window.
            let root = {
                (try? run(
                    URL(fileURLWithPath: "/usr/bin/xprop"), ["-root", "_NET_SUPPORTING_WM_CHECK"],
                    environment: ["DISPLAY": display.name]
                ).stdout) ?? ""
            }
            let started = Date().addingTimeInterval(20)
            while !root().contains("window id #"), Date() < started { usleep(50_000) }
            try #require(root().contains("window id #"), "the window manager did not start: \(root())")

            let app = try AppSession(arguments: [folder.path], display: display)
            try app.waitFor(event: .sourceLoaded)
            try app.waitFor("rows shown") { $0.contains { $0.event.name == .rowShown && $0.event.row == 2 } }
            // The manager has taken the window in (and placed it) once it has set its WM_STATE.
            try managed(app)
            try click(app, row: 0)
            var events = try app.waitFor("photo in the viewer") { !images($0, row: 0, state: .filtered).isEmpty }
            #expect(!(try windowState(app)).contains("FULLSCREEN"))
            let zooms = zoomLevels(events).count
            try key(app, "F11")
            var state = ""
            for _ in 0..<50 where !state.contains("_NET_WM_STATE_FULLSCREEN") {
                usleep(100_000)
                state = try windowState(app)
            }
            #expect(state.contains("_NET_WM_STATE_FULLSCREEN"), "\(state)")
            // The header bar hides: the photo has more room, and the zoom that fits it grows.
            events = try app.waitFor("zoom follows the larger area") { zoomLevels($0).count > zooms }
            #expect(zoomLevels(events).last! > zoomLevels(events)[zooms - 1])

            try key(app, "Escape")
            for _ in 0..<50 where state.contains("_NET_WM_STATE_FULLSCREEN") {
                usleep(100_000)
                state = try windowState(app)
            }
            #expect(!state.contains("_NET_WM_STATE_FULLSCREEN"), "still fullscreen: \(state)")
            #expect(!app.events().contains { $0.event.name == .viewerClose }, "the first Escape closed the viewer")
            try key(app, "Escape")
            try app.waitFor(event: .viewerClose)
            #expect(app.terminate() == 0)
        }

        // MARK: Save As, the info popover, dragging, low memory

        /// The name of the window with the keyboard focus, or "".
        private func focusedWindowName(_ app: AppSession) -> String {
            ((try? app.xdotool(["getwindowfocus", "getwindowname"])) ?? "").trimmingCharacters(
                in: .whitespacesAndNewlines)
        }

        /// Ctrl+S, then types `path` into the file chooser's name field and presses Enter. With no
        /// desktop portal, GtkFileChooserNative shows a GtkFileChooserDialog: a window of its
        /// own, focused, its name field holding the suggested name, selected.
        private func saveAs(_ app: AppSession, to path: String) throws {
            try key(app, "ctrl+s")
            for _ in 0..<100 where focusedWindowName(app) != "Save Photo As" { usleep(100_000) }
            try #require(
                focusedWindowName(app) == "Save Photo As", "no focused Save As dialog: \(focusedWindowName(app))")
            // Shown with its name field focused, before it took the keyboard: the keys that
            // follow reach the field, in order.
            try app.xdotool(["key", "ctrl+a", "type", "--delay", "15", path])
            try app.xdotool(["key", "Return"])
        }

        /// ImageMagick's description of a picture file: its format and size ("PNG 1600 1200").
        private func identify(_ path: String) throws -> String {
            let result = try run(URL(fileURLWithPath: "/usr/bin/identify"), ["-format", "%m %w %h", path], timeout: 30)
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// Waits for the outcome of saving to `path` (saved or failed) and returns it.
        private func saveOutcome(_ app: AppSession, _ path: String) throws -> TraceRecord {
            let events = try app.waitFor("\(path) saved") { events in
                events.contains {
                    ($0.event.name == .viewerSaved || $0.event.name == .viewerSaveFailed) && $0.event.path == path
                }
            }
            return events.last { $0.event.path == path }!
        }

        @Test(
            "Ctrl+S and the file chooser save the photo shown at full size: PNG, or JPEG for a .jpg name; sepia or original as shown"
        )
        func saveAsFile() throws {
            let folder = try bigPictures("save", count: 2, width: 1600, height: 1200)
            let saved = try TestPictures.makeFolder("saved")
            defer {
                try? FileManager.default.removeItem(at: folder)
                try? FileManager.default.removeItem(at: saved)
            }
            let app = try AppSession(source: folder.path)
            try app.waitFor(event: .sourceLoaded)
            try app.waitFor("rows shown") { $0.contains { $0.event.name == .rowShown && $0.event.row == 1 } }
            try click(app, row: 0)
            var events = try app.waitFor("row 0 in the viewer, sepia") { !images($0, row: 0, state: .filtered).isEmpty }
            // The viewer shows a smaller decode: the file must have the photo's own size.
            let shown = try #require(images(events, row: 0, state: .filtered).last?.event.imageSize)
            #expect(shown.w < 1600, "the viewer decoded \(shown.w)×\(shown.h)")

            // The sepia photo, as PNG (the name's ending).
            let png = saved.appendingPathComponent("sepia copy.png").path
            try saveAs(app, to: png)
            let pngSaved = try saveOutcome(app, png)
            #expect(pngSaved.event.name == .viewerSaved, "not saved: \(pngSaved.event.error ?? "")")
            #expect(
                pngSaved.event.savedFormat == "png" && pngSaved.event.imageSize?.w == 1600
                    && pngSaved.event.imageSize?.h == 1200)
            let pngData = try Data(contentsOf: URL(fileURLWithPath: png))
            #expect(
                pngData.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
                "not a PNG: \(pngData.prefix(8).map { $0 })")
            #expect(try identify(png) == "PNG 1600 1200")
            // Sepia: warm (the photo itself is blue-green, 0x3F6A91 fading to black).
            let sepia = try ScreenshotStats(path: png).meanColour
            #expect(sepia.r > sepia.b + 5, "saved colours \(sepia)")

            // S shows the original; saved as JPEG, by its name.
            try key(app, "s")
            events = try app.waitFor("the original shown") { images($0, row: 0).last?.event.viewerState == .original }
            let jpeg = saved.appendingPathComponent("original.jpg").path
            try saveAs(app, to: jpeg)
            let jpegSaved = try saveOutcome(app, jpeg)
            #expect(jpegSaved.event.name == .viewerSaved, "not saved: \(jpegSaved.event.error ?? "")")
            #expect(
                jpegSaved.event.savedFormat == "jpeg" && jpegSaved.event.imageSize?.w == 1600
                    && jpegSaved.event.imageSize?.h == 1200)
            let jpegData = try Data(contentsOf: URL(fileURLWithPath: jpeg))
            #expect(jpegData.starts(with: [0xFF, 0xD8, 0xFF]), "not a JPEG: \(jpegData.prefix(4).map { $0 })")
            #expect(try identify(jpeg) == "JPEG 1600 1200")
            let original = try ScreenshotStats(path: jpeg).meanColour
            #expect(original.b > original.r + 20, "saved colours \(original)")
            // Nothing else was written, and the viewer is still open on the photo.
            #expect(
                Set(try FileManager.default.contentsOfDirectory(atPath: saved.path)) == [
                    "sepia copy.png", "original.jpg",
                ])
            #expect(!app.events().contains { $0.event.name == .viewerClose })
            #expect(app.terminate() == 0)
        }

        /// The info button's centre: the first of the six round buttons at the viewer's top right.
        private func infoButton(_ window: (x: Int, y: Int, width: Int, height: Int)) -> (x: Int, y: Int) {
            (window.x + window.width - 234, window.y + Self.headerHeight + 39)
        }

        private func infoEvents(_ events: [TraceRecord]) -> [(shown: Bool, info: ViewerInfoText)] {
            events.compactMap(\.event.viewerInfo)
        }

        @Test(
            "The details panel (Alt+Return, F9 or the info button) beside the viewer shows name, source, size, file size, format, and EXIF camera and date"
        )
        func infoPanel() throws {
            let folder = try TestPictures.makeFolder("info")
            defer { try? FileManager.default.removeItem(at: folder) }
            // A camera JPEG (600×400, turned a quarter by its EXIF orientation) and a PNG with no EXIF.
            let exif = folder.appendingPathComponent("a-camera.jpg")
            try TestPictures.jpegWithExif(
                make: "Canon", model: "Canon EOS 5D", original: "2021:07:04 18:30:05",
                orientation: 6, little: true
            ).write(to: exif)
            let png = folder.appendingPathComponent("b-plain.png")
            try #require(TestPictures.write(png, format: "png", rgb: 0x33AA66, size: 96))
            // Every frame traced: a screenshot is taken once a frame painted what it is to show.
            let app = try AppSession(source: folder.path, environment: AppSession.tracingFrames)
            try app.waitFor(event: .sourceLoaded)
            try app.waitFor("rows shown") { $0.contains { $0.event.name == .rowShown && $0.event.row == 1 } }
            let window = try app.windowGeometry()
            try click(app, row: 0)
            try app.waitFor("the camera photo in the viewer") { !images($0, row: 0, state: .filtered).isEmpty }
            // The pointer leaves the photo, so no tooltip covers what the screenshots compare.
            try app.xdotool(["mousemove", "\(window.x + 20)", "\(window.y + window.height - 20)"])
            // The panel's side of the window, below its facts' first lines.
            let area = (x: window.x + window.width - 280, y: window.y + window.height - 160, width: 200, height: 100)
            // Kept to look at with CLASSIC_PHOTOS_KEEP_SCREENSHOTS=1 (the path is printed).
            let keepScreenshots = ProcessInfo.processInfo.environment["CLASSIC_PHOTOS_KEEP_SCREENSHOTS"] != nil
            let screenshots = try TestPictures.makeFolder("info-screens")
            defer { if !keepScreenshots { try? FileManager.default.removeItem(at: screenshots) } }

            // Alt+Return opens it.
            try key(app, "alt+Return")
            var events = try app.waitFor("info shown") { infoEvents($0).last?.shown == true }
            let camera = try #require(infoEvents(events).last?.info)
            #expect(camera.name == "a-camera.jpg" && camera.source == exif.path, "\(camera)")
            #expect(camera.width == 400 && camera.height == 600, "size \(camera.width)×\(camera.height)")
            #expect(camera.bytes == (try FileManager.default.attributesOfItem(atPath: exif.path)[.size] as? Int))
            #expect(camera.format == "JPEG", "format \(camera.format)")
            #expect(camera.camera == "Canon EOS 5D" && camera.date == "2021-07-04 18:30:05", "\(camera)")
            // And it is on screen: the light panel beside the dark viewer (on the frame painted
            // after it opened, and on the one after it closed, its slide over).
            try app.waitForFrame(after: try #require(events.last { $0.event.name == .viewerInfo }).t)
            let open = screenshots.appendingPathComponent("info-open.png").path
            try app.screenshot(to: open)

            // F9 closes the panel only; the viewer stays.
            try key(app, "F9")
            events = try app.waitFor("info closed") { infoEvents($0).last?.shown == false }
            #expect(!events.contains { $0.event.name == .viewerClose })
            try app.waitForFrame(after: try #require(events.last { $0.event.name == .viewerInfo }).t)
            let closed = screenshots.appendingPathComponent("info-closed.png").path
            try app.screenshot(to: closed)
            let dark = try ScreenshotStats(path: closed, region: area),
                light = try ScreenshotStats(path: open, region: area)
            print(
                "details panel beside the viewer, open: \(light); closed: \(dark)"
                    + (keepScreenshots ? "; screenshots \(open), \(closed)" : ""))
            #expect(light.meanLuminance > dark.meanLuminance + 80, "open: \(light); closed: \(dark)")

            // The PNG, and the info button clicked: no EXIF rows.
            try key(app, "Right")
            try app.waitFor("the PNG in the viewer") { !images($0, row: 1, state: .filtered).isEmpty }
            let button = infoButton(window)
            try app.xdotool(["mousemove", "\(button.x)", "\(button.y)", "click", "1"])
            events = try app.waitFor("info shown again") { infoEvents($0).last?.shown == true }
            let plain = try #require(infoEvents(events).last?.info)
            #expect(
                plain.name == "b-plain.png" && plain.source == png.path && plain.width == 96 && plain.height == 96,
                "\(plain)")
            #expect(plain.format == "PNG" && plain.camera == nil && plain.date == nil, "\(plain)")
            #expect(plain.bytes == (try FileManager.default.attributesOfItem(atPath: png.path)[.size] as? Int))
            try key(app, "F9")
            try app.waitFor("info closed again") { infoEvents($0).last?.shown == false }
            try key(app, "Escape")
            try app.waitFor(event: .viewerClose)
            #expect(app.terminate() == 0)
        }

        /// The middle of the viewer's area (the window below the header bar), on screen.
        private func viewerCentre(_ window: (x: Int, y: Int, width: Int, height: Int)) -> (x: Int, y: Int) {
            (window.x + window.width / 2, window.y + Self.headerHeight + (window.height - Self.headerHeight) / 2)
        }

        /// A real pointer drag: press at `from`, move by (`dx`, `dy`) in `steps` motion events,
        /// release. Afterwards the pointer rests where it was let go.
        private func drag(_ app: AppSession, from: (x: Int, y: Int), by dx: Int, _ dy: Int, steps: Int = 8) throws {
            var arguments = ["mousemove", "\(from.x)", "\(from.y)", "mousedown", "1"]
            for step in 1...steps {
                arguments += [
                    "sleep", "0.02", "mousemove", "\(from.x + dx * step / steps)", "\(from.y + dy * step / steps)",
                ]
            }
            arguments += ["sleep", "0.05", "mouseup", "1"]
            try app.xdotool(arguments)
        }

        // (A drag needs no pause after the one before: a press within the double-click time of
        // the last makes a double-click, which zooms, but not after a press that moved past the
        // double-click distance.)

        private func pans(_ events: [TraceRecord]) -> [(x: Double, y: Double)] { events.compactMap(\.event.panCenter) }

        @Test("At 100 % a pointer drag pans the photo (and stays on it); the same drag at fit pages to the next photo")
        func dragPansWhenZoomed() throws {
            let folder = try bigPictures("pan", count: 3)
            defer { try? FileManager.default.removeItem(at: folder) }
            let app = try AppSession(source: folder.path)
            try app.waitFor(event: .sourceLoaded)
            try app.waitFor("rows shown") { $0.contains { $0.event.name == .rowShown && $0.event.row == 2 } }
            let window = try app.windowGeometry()
            let centre = viewerCentre(window)
            try click(app, row: 0)
            var events = try app.waitFor("row 0 in the viewer") { !images($0, row: 0, state: .filtered).isEmpty }
            let fit = try #require(zoomLevels(events).last)

            // Ctrl+1: 100 % around the centre, so the photo's middle (1200, 800) is at the view's centre.
            try app.xdotool(["mousemove", "\(centre.x)", "\(centre.y)"])
            try key(app, "ctrl+1")
            events = try app.waitFor("100 %") { zoomLevels($0).last == 1.0 }
            #expect(pans(events).isEmpty)
            // Dragged 240 pixels left and 60 up: the view moves right and down over the photo,
            // its centre to (1440, 860) with the drag's last motion.
            try drag(app, from: centre, by: -240, -60)
            events = try app.waitFor("panned to where the drag ended") { events in
                pans(events).last.map { abs($0.x - 1440) < 1 && abs($0.y - 860) < 1 } == true
            }
            let panned = try #require(pans(events).last)
            print("panned by a drag to (\(panned.x), \(panned.y)) in \(pans(events).count) steps")
            #expect(pans(events).count >= 4, "\(pans(events).count) pan events")
            #expect(zoomLevels(events).last == 1.0)

            // Ctrl+0: fit. The same drag is now a swipe to the next photo, and pans nothing. (The key
            // comes after the first drag's release: had that paged, the trace says so first.)
            try key(app, "ctrl+0")
            events = try app.waitFor("fitted") { zoomLevels($0).last.map { abs($0 - fit) < 0.001 } == true }
            #expect(events.filter { $0.event.name == .viewerOpen }.count == 1, "the drag paged")
            let pansBefore = pans(events).count
            try drag(app, from: centre, by: -240, -60)
            events = try app.waitFor("paged to row 1") {
                $0.contains { $0.event.name == .viewerOpen && $0.event.row == 1 }
            }
            #expect(pans(events).count == pansBefore, "a fitted photo panned")
            try key(app, "Escape")
            try app.waitFor(event: .viewerClose)
            #expect(app.terminate() == 0)
        }

        @Test(
            "At fit a horizontal drag pages: to the left the next photo, to the right the previous; short or vertical drags do not"
        )
        func swipePaging() throws {
            let folder = try bigPictures("swipe", count: 4, width: 1200, height: 900)
            defer { try? FileManager.default.removeItem(at: folder) }
            let app = try AppSession(source: folder.path)
            try app.waitFor(event: .sourceLoaded)
            try app.waitFor("rows shown") { $0.contains { $0.event.name == .rowShown && $0.event.row == 3 } }
            let centre = viewerCentre(try app.windowGeometry())
            try click(app, row: 1)
            try app.waitFor("row 1 in the viewer") { !images($0, row: 1, state: .filtered).isEmpty }
            let opens = { (events: [TraceRecord]) in
                events.filter { $0.event.name == .viewerOpen }.compactMap(\.event.row)
            }

            // To the left: the next photo.
            try drag(app, from: centre, by: -150, 10)
            var events = try app.waitFor("swiped to row 2") { opens($0).last == 2 }
            #expect(opens(events) == [1, 2])
            try app.waitFor("row 2 shown") { !images($0, row: 2, state: .filtered).isEmpty }
            // To the right: the previous one.
            try drag(app, from: centre, by: 150, -10)
            events = try app.waitFor("swiped back to row 1") { opens($0).count == 3 }
            #expect(opens(events) == [1, 2, 1])

            // Too short (under 80 pixels), or more vertical than horizontal: no page.
            try drag(app, from: centre, by: -50, 0)
            try drag(app, from: centre, by: -100, 150)
            // The photo still pages from here (the drags above were seen, and refused): the
            // next page is the one this drag makes, traced after anything the two above did.
            try drag(app, from: centre, by: 150, 0)
            events = try app.waitFor("swiped to row 0") { opens($0).count == 4 }
            #expect(opens(events) == [1, 2, 1, 0], "a short or vertical drag paged")
            try key(app, "Escape")
            try app.waitFor(event: .viewerClose)
            #expect(app.terminate() == 0)
        }

        @Test(
            "A low-memory warning drops the photos the viewer loaded ahead, keeping the one shown; the next move reads its photo again"
        )
        func lowMemoryDropsNeighbours() throws {
            let monitor = try FakeLowMemoryMonitor()
            let folder = try bigPictures("viewer-memory", count: 4)
            defer { try? FileManager.default.removeItem(at: folder) }
            let app = try AppSession(source: folder.path, environment: ["DBUS_SYSTEM_BUS_ADDRESS": monitor.busAddress])
            try app.waitFor(event: .sourceLoaded)
            try app.waitFor("rows shown") { $0.contains { $0.event.name == .rowShown && $0.event.row == 3 } }
            try click(app, row: 1)
            // The photo shown, and both neighbours loaded ahead and filtered.
            try app.waitFor("row 1 shown, rows 0 and 2 loaded ahead") { events in
                let filtered = Set(
                    events.filter { $0.event.name == .opFinish && $0.event.kind == .viewFilter }.compactMap(\.event.row)
                )
                return !images(events, row: 1, state: .filtered).isEmpty && filtered.isSuperset(of: [0, 2])
            }

            try monitor.warn(level: 100)
            var events = try app.waitFor("neighbours dropped") { events in
                Set(events.filter { $0.event.name == .viewerDropped }.compactMap(\.event.row)).isSuperset(of: [0, 2])
            }
            let warned = try #require(events.first { $0.event.name == .memoryLow })
            #expect(warned.event.level == 100)
            // The photo shown stays, with its original: S shows it without reading it again.
            try key(app, "s")
            events = try app.waitFor("the original shown") { events in
                images(events, row: 1, state: .original).contains { $0.t > warned.t }
            }
            // (S came after the warning, so whatever the warning dropped is traced before.)
            let dropped = events.filter { $0.event.name == .viewerDropped }.compactMap(\.event.row)
            #expect(dropped.sorted() == [0, 2], "dropped rows \(dropped)")

            // Right: the photo that was loaded ahead is read and decoded again.
            try key(app, "Right")
            events = try app.waitFor("row 2 in the viewer") { !images($0, row: 2).isEmpty }
            let after = events.filter { $0.t > warned.t }
            #expect(
                after.contains { $0.event.name == .opStart && $0.event.kind == .view && $0.event.row == 2 },
                "row 2 was shown from the viewer's cache after the warning")
            #expect(
                !after.contains { $0.event.name == .opStart && $0.event.kind == .view && $0.event.row == 1 },
                "the photo shown was read again")
            try key(app, "Escape")
            try app.waitFor(event: .viewerClose)
            #expect(app.terminate() == 0)
        }
    }
}
