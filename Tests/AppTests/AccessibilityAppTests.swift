import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension DesktopGUITests {
    /// The app as a screen reader meets it: its accessibility tree read over AT-SPI (the
    /// accessibility bus a session bus of the test's own starts, read with pyatspi as Orca does).
    @Suite(.serialized) struct AccessibilityAppTests {
        /// Presses `keys` with the pointer over the window's header (which gives it the keys).
        private func key(_ app: AppSession, _ keys: String...) throws {
            let window = try app.windowGeometry()
            _ = try app.xdotool(["mousemove", "\(window.x + window.width / 2)", "\(window.y + 20)"])
            _ = try app.xdotool(["key", "--delay", "80"] + keys)
        }

        /// A folder of four photos (one with three stars and a label, one taken on a known
        /// date), a file that is no photo, and a sub-folder of two.
        private func makeFolder() throws -> URL {
            let folder = try TestPictures.makeFolder("a11y")
            for n in 1...3 {
                try #require(
                    TestPictures.write(
                        folder.appendingPathComponent("p\(n).png"), format: "png", rgb: UInt32(0x224466 * n)))
            }
            try TestPictures.jpegWithExif(
                make: "Canon", model: "Canon EOS R6", original: "2021:07:04 18:30:00", orientation: 1, little: true
            ).write(to: folder.appendingPathComponent("p4.jpg"))
            let sidecar = """
                <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
                <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/">\
                <xmp:Rating>3</xmp:Rating><xmp:Label>Red</xmp:Label></rdf:Description></rdf:RDF></x:xmpmeta>
                """
            try Data(sidecar.utf8).write(to: folder.appendingPathComponent("p2.png.xmp"))
            try Data("not a photo at all".utf8).write(to: folder.appendingPathComponent("p5.jpg"))
            let sub = folder.appendingPathComponent("trip", isDirectory: true)
            try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
            for n in 1...2 {
                try #require(TestPictures.write(sub.appendingPathComponent("t\(n).png"), format: "png"))
            }
            return folder
        }

        /// `makeFolder`'s photos open in the app with accessibility on, every photo final.
        private func openedFolder() throws -> (URL, AccessibilityBus, AppSession) {
            let folder = try makeFolder()
            let a11y = try AccessibilityBus()
            let app = try a11y.app(source: folder.path)
            try app.waitFor("photos final") {
                AppSession.rowStates($0).values.filter { $0 == .filtered || $0 == .failed }.count >= 5
            }
            return (folder, a11y, app)
        }

        /// The items (rows or cells) of the view named `view` ("Photo List", "Photo Grid"), if
        /// it is the one shown.
        private func items(_ tree: AccessibleNode, of view: String) -> [AccessibleNode] {
            tree.shown.filter { $0.role == "table" && $0.name == view }.flatMap(\.children).filter {
                $0.role == "table cell" && $0.isVisible
            }
        }

        /// Waits until the tree has `count` showing items that say all of `words` between them.
        private func waitForItems(
            _ a11y: AccessibilityBus, _ app: AppSession, view: String, count: Int, saying words: [String]
        ) throws -> [AccessibleNode] {
            var last: [AccessibleNode] = []
            var said = ""
            do {
                try app.waitFor("the items to say \(words)") { _ in
                    last = (try? a11y.tree(of: app)).map { items($0, of: view) } ?? []
                    said = last.map { $0.name + " — " + $0.description }.joined(separator: "\n")
                    return last.count >= count && words.allSatisfy(said.contains)
                }
            } catch {
                Issue.record("\(error)\nthe items said:\n\(said)")
            }
            return last
        }

        @Test(
            "Every row of the list and cell of the grid is named for its photo and says its marks, date, state, failure and place in the list; a sub-folder says it is one and what it holds"
        )
        func rowsAndCellsSpeak() throws {
            let folder = try makeFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let cache = try TestPictures.makeFolder("a11y-cache")
            defer { try? FileManager.default.removeItem(at: cache) }
            let a11y = try AccessibilityBus()
            // A first run sorted by date indexes the photos' dates; the second (sorted by name,
            // the photos in the order of their names) takes them from the index.
            do {
                let sorted = try GUITests.privateSettings(["sort-by": "'date-taken'"])
                let first = try a11y.app(
                    source: folder.path, environment: sorted.merging(["XDG_CACHE_HOME": cache.path]) { $1 })
                try first.waitFor("photos final") {
                    AppSession.rowStates($0).values.filter { $0 == .filtered || $0 == .failed }.count >= 5
                }
                #expect(first.terminate() == 0)
            }
            let app = try a11y.app(source: folder.path, environment: ["XDG_CACHE_HOME": cache.path])
            try app.waitFor("photos final") {
                AppSession.rowStates($0).values.filter { $0 == .filtered || $0 == .failed }.count >= 5
            }
            for view in ["Photo List", "Photo Grid"] {
                if view == "Photo Grid" { try key(app, "ctrl+2") }
                let shown = try waitForItems(
                    a11y, app, view: view, count: 6,
                    saying: ["3 stars", "taken 4 July 2021", "failed:", "photo 5 of 5"])
                let said = shown.map { $0.name + " — " + $0.description }.joined(separator: "\n")
                print("\(view):\n\(said)")
                // 100 %: every item on screen has a name of its own and says something of it.
                #expect(shown.count == 6, "\(view): \(said)")
                for item in shown {
                    #expect(item.hasOwnName && !item.description.isEmpty, "\(view): \(item.name) — \(item.description)")
                }
                let byName = Dictionary(shown.map { ($0.name, $0.description) }) { first, _ in first }
                #expect(byName["trip"]?.hasPrefix("folder") == true, "\(view): \(said)")
                // (A photo with no date of its own is dated by its file, as the date sort has it.)
                #expect(byName["p1.png"]?.hasSuffix(", sepia, photo 1 of 5") == true, "\(view): \(said)")
                #expect(byName["p2.png"]?.hasPrefix("3 stars · Red label, taken ") == true, "\(view): \(said)")
                #expect(byName["p2.png"]?.hasSuffix(", sepia, photo 2 of 5") == true, "\(view): \(said)")
                #expect(byName["p4.jpg"]?.contains("taken 4 July 2021, 18:30") == true, "\(view): \(said)")
                #expect(byName["p5.jpg"]?.contains("failed: ") == true, "\(view): \(said)")
                #expect(byName["p5.jpg"]?.hasSuffix("photo 5 of 5") == true, "\(view): \(said)")
                // The thumbnail inside says nothing of its own: the item speaks for it.
                let inside = shown.flatMap { $0.children.flatMap(\.all) }
                #expect(!inside.contains { $0.role == "image" }, "\(view)")
            }
            #expect(app.terminate() == 0)
        }

        @Test(
            "Every control a person can reach in the window and the viewer has a name a screen reader can say (no widget class names)"
        )
        func controlsNamed() throws {
            let (folder, a11y, app) = try openedFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            func unnamed(_ tree: AccessibleNode) -> [String] {
                tree.shown.filter { $0.isFocusable && !$0.hasOwnName }.map { "\($0.role) “\($0.name)”" }
            }
            var tree = try a11y.tree(of: app)
            let windowControls = tree.shown.filter(\.isFocusable)
            print("window: \(windowControls.count) controls: \(windowControls.map(\.name))")
            #expect(unnamed(tree).isEmpty, "\(unnamed(tree))")
            #expect(windowControls.count >= 10)

            // The viewer, opened on the first photo (the sub-folder comes first).
            try app.clickRow(1)
            try app.waitFor(event: .viewerOpen)
            tree = try a11y.tree(of: app)
            let viewerControls = tree.shown.filter(\.isFocusable)
            print("viewer: \(viewerControls.count) controls: \(viewerControls.map(\.name))")
            #expect(unnamed(tree).isEmpty, "\(unnamed(tree))")

            // Tab goes round the viewer's controls (and the header bar's), never to the photos
            // behind it.
            let tabbed = try AccessibilityTree.tabThrough(
                pid: app.processIdentifier, busAddress: a11y.bus.address, display: app.display.name, presses: 20)
            print("viewer, Tab: \(tabbed.map { $0?.name ?? "-" })")
            let tabbedNames = Set(tabbed.compactMap { $0?.name })
            for control in ["Close", "Next Photo", "Zoom In", "Properties", "Photo Menu", "p1.png"] {
                #expect(tabbedNames.contains(control), "\(control) never reached: \(tabbedNames.sorted())")
            }
            #expect(!tabbed.contains { $0?.role == "table cell" }, "Tab went to the photos behind the viewer")

            // The editor's controls (E).
            try key(app, "e")
            try app.waitFor(event: .editBegin)
            var editorControls: [AccessibleNode] = []
            try app.waitFor("the editor's controls") { _ in
                tree = (try? a11y.tree(of: app)) ?? tree
                editorControls = tree.shown.filter(\.isFocusable)
                return editorControls.contains { $0.name == "Rotate Left" }
            }
            print("editor: \(editorControls.count) controls: \(editorControls.map(\.name))")
            #expect(unnamed(tree).isEmpty, "\(unnamed(tree))")
            #expect(app.terminate() == 0)
        }

        @Test(
            "Tab and Shift+Tab reach every control of the window's header bar and the photos, F10 the main menu and the Menu key a photo's, each said by a name of its own; the window's last word is in its status bar"
        )
        func keyboardReachesEverything() throws {
            let (folder, a11y, app) = try openedFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            // What the window last told (the count, then the notice of the photo that failed),
            // in the status bar a screen reader reads on request.
            var status: [String] = []
            do {
                try app.waitFor("the status bar to tell of the failure") { _ in
                    status = ((try? a11y.tree(of: app))?.all ?? []).filter { $0.role == "status bar" }.map(\.name)
                    return status.contains("1 photo could not be loaded")
                }
            } catch {
                Issue.record("\(error): the status bar said \(status)")
                return
            }
            let window = try app.windowGeometry()
            _ = try app.xdotool(["mousemove", "\(window.x + window.width / 2)", "\(window.y + window.height - 5)"])
            let forward = try AccessibilityTree.tabThrough(
                pid: app.processIdentifier, busAddress: a11y.bus.address, display: app.display.name, presses: 14)
            let backward = try AccessibilityTree.tabThrough(
                pid: app.processIdentifier, busAddress: a11y.bus.address, display: app.display.name, presses: 14,
                key: "shift+Tab")
            let reached = (forward + backward).compactMap { $0 }
            print("Tab: \(forward.map { $0.map { "\($0.role) “\($0.name)”" } ?? "-" })")
            print("Shift+Tab: \(backward.map { $0.map { "\($0.role) “\($0.name)”" } ?? "-" })")
            let names = Set(reached.map(\.name))
            for control in ["Open…", "Filter", "Search", "List", "Grid", "Main Menu"] {
                #expect(names.contains(control), "\(control) was never reached: \(names.sorted())")
            }
            #expect(reached.contains { $0.role == "table cell" }, "the photos were never reached")
            let unnamed = reached.filter { $0.name.isEmpty || $0.name.hasPrefix("Gtk") }
            #expect(unnamed.isEmpty, "\(unnamed)")

            // F10 opens the main menu; Down goes through every item in it, each named.
            _ = try app.xdotool(["key", "F10"])
            var items: [AccessibleNode] = []
            try app.waitFor("the main menu open") { _ in
                items = ((try? a11y.tree(of: app))?.shown ?? []).filter { $0.role.contains("menu item") }
                return items.count >= 5
            }
            let walked = try AccessibilityTree.tabThrough(
                pid: app.processIdentifier, busAddress: a11y.bus.address, display: app.display.name,
                presses: items.count + 1, key: "Down")
            print("menu: \(items.map(\.name)); Down: \(walked.map { $0?.name ?? "-" })")
            // Right on Sort By opens its submenu; Down goes through it.
            let sortBy = try #require(walked.firstIndex { $0?.name == "Sort By" }, "Sort By never reached")
            let sorting = try AccessibilityTree.press(
                ["Escape", "F10"] + Array(repeating: "Down", count: sortBy + 1) + ["Right"]
                    + Array(repeating: "Down", count: 7),
                pid: app.processIdentifier, busAddress: a11y.bus.address, display: app.display.name)
            print("Sort By: \(sorting.map { $0?.name ?? "-" })")
            let walkedNames = Set((walked + sorting).compactMap { $0?.name })
            let missed = items.map(\.name).filter { !walkedNames.contains($0) }
            #expect(missed.isEmpty, "menu items Down never reached: \(missed)")
            #expect(items.allSatisfy { $0.hasOwnName }, "\(items.map { $0.name })")

            // The Menu key on a photo opens its menu (as a right click does).
            _ = try app.xdotool(["key", "Escape"])
            try app.clickRow(1)
            try app.waitFor(event: .viewerOpen)
            try key(app, "Escape")
            try app.waitFor(event: .viewerClose)
            _ = try app.xdotool(["key", "Menu"])
            var photoMenu: [String] = []
            try app.waitFor("the photo's menu open") { _ in
                photoMenu = ((try? a11y.tree(of: app))?.shown ?? []).filter { $0.role.contains("menu item") }.map(
                    \.name)
                return photoMenu.contains("Move to Trash")
            }
            print("photo menu: \(photoMenu)")
            #expect(photoMenu.allSatisfy { !$0.isEmpty && !$0.hasPrefix("_") }, "\(photoMenu)")
            #expect(app.terminate() == 0)
        }

        /// The app on the photos of `makeFolder`, in the list, on a display whose XSETTINGS say
        /// `dpi` (as GNOME's settings daemon says the text scale), in high contrast or not:
        /// how red its failed row's placeholder is (the mean of red over green there), how tall
        /// a row's name is (AT-SPI's extents), and a screenshot.
        private func lookOf(
            _ folder: URL, highContrast: Bool, dpi: Int, shot: String
        ) throws -> (redness: Double, nameHeight: Int) {
            let display = try XvfbDisplay(width: 1000, height: 800)
            let settings = NSTemporaryDirectory() + "classic-photos-xsettings-\(UUID().uuidString)"
            try "Xft/DPI \(dpi * 1024)\n".write(toFile: settings, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: settings) }
            let daemon = Process()
            daemon.executableURL = URL(fileURLWithPath: "/usr/bin/xsettingsd")
            daemon.arguments = ["-c", settings]
            daemon.environment = ["DISPLAY": display.name]
            daemon.standardOutput = FileHandle.nullDevice
            daemon.standardError = FileHandle.nullDevice
            try daemon.run()
            defer {
                kill(daemon.processIdentifier, SIGKILL)
                daemon.waitUntilExit()
            }
            let a11y = try AccessibilityBus()
            let app = try a11y.app(
                source: folder.path,
                environment: [
                    "ADW_DEBUG_HIGH_CONTRAST": highContrast ? "1" : "0", "ADW_DEBUG_COLOR_SCHEME": "prefer-light",
                ],
                display: display)
            try app.waitFor("photos final") {
                AppSession.rowStates($0).values.filter { $0 == .filtered || $0 == .failed }.count >= 5
            }
            var name: (x: Int, y: Int, width: Int, height: Int)?
            try app.waitFor("a row's name laid out") { _ in
                name = try? AccessibilityTree.extents(
                    pid: app.processIdentifier, busAddress: a11y.bus.address, role: "label", name: "p1.png")
                return (name?.height ?? 0) > 0
            }
            let window = try app.windowGeometry()
            let failedRow = try app.rowPoint(5)
            let region = (window.x + 6, failedRow.y - 40, 80, 80)
            let stats = try app.waitForScreen(region: region, keeping: shot) { _ in true }
            #expect(app.terminate() == 0)
            return (stats.meanColour.r - stats.meanColour.g, name?.height ?? 0)
        }

        @Test(
            "With the desktop's high contrast, a failed photo's placeholder is drawn strong (the error icon in the error colour); with its text 1.5 times larger, the names grow with it (screenshots kept)"
        )
        func highContrastAndLargeText() throws {
            let folder = try makeFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let plain = try lookOf(
                folder, highContrast: false, dpi: 96, shot: NSTemporaryDirectory() + "classic-photos-plain.png")
            let contrast = try lookOf(
                folder, highContrast: true, dpi: 144, shot: NSTemporaryDirectory() + "classic-photos-high-contrast.png")
            print(
                "plain: redness \(plain.redness), name \(plain.nameHeight) px; high contrast, 1.5 × text: redness \(contrast.redness), name \(contrast.nameHeight) px"
            )
            #expect(contrast.redness > plain.redness + 8, "the failed placeholder is not drawn stronger")
            #expect(Double(contrast.nameHeight) >= 1.3 * Double(plain.nameHeight), "the names did not grow")
        }

        /// What the viewer's picture says to a screen reader: its name and description.
        private func pictureSpeech(_ a11y: AccessibilityBus, _ app: AppSession) throws -> (String, String)? {
            let tree = try a11y.tree(of: app)
            return tree.shown.last { $0.role == "image" && $0.isFocusable }.map { ($0.name, $0.description) }
        }

        private func exiftool(_ arguments: [String]) throws -> String {
            let result = try run(URL(fileURLWithPath: "/usr/bin/exiftool"), arguments, timeout: 60)
            try #require(result.status == 0, "\(result.stderr)")
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        @Test(
            "Alt text exiftool wrote is what the viewer's picture says; alt text typed in the details panel is saved to the sidecar, where exiftool reads it, and said at once"
        )
        func altTextRoundTrip() throws {
            let folder = try TestPictures.makeFolder("a11y-alt")
            defer { try? FileManager.default.removeItem(at: folder) }
            let coffee = folder.appendingPathComponent("a-coffee.jpg"),
                grass = folder.appendingPathComponent("b-grass.png")
            try FileManager.default.copyItem(
                at: Products.packageRoot.appendingPathComponent("data/photos/coffee.jpg"), to: coffee)
            try #require(TestPictures.write(grass, format: "png", rgb: 0x44AA33, size: 200))
            _ = try exiftool([
                "-q", "-overwrite_original", "-XMP-iptcCore:AltTextAccessibility=A cup of coffee on a saucer",
                coffee.path,
            ])
            let a11y = try AccessibilityBus()
            // A window wide enough for the details panel beside the photo, all of it in view.
            let app = try a11y.app(
                source: folder.path, environment: GUITests.privateSettings(width: 1200, height: 850),
                display: XvfbDisplay(width: 1400, height: 1000))
            try app.waitFor("photos final") { AppSession.rowStates($0).values.filter { $0 == .filtered }.count >= 2 }

            // Written by exiftool, said here.
            try app.clickRow(0)
            try app.waitFor(event: .viewerOpen)
            var said: (String, String)?
            try app.waitFor("the picture to say its alt text") { _ in
                said = try? pictureSpeech(a11y, app)
                return said?.1.hasPrefix("A cup of coffee on a saucer") == true
            }
            #expect(said?.0 == "a-coffee.jpg")
            #expect(said?.1 == "A cup of coffee on a saucer, photo 1 of 2")

            // Written here: the next photo, the details panel, its alt text typed.
            try key(app, "Right")
            try app.waitFor("the next photo said") { _ in (try? pictureSpeech(a11y, app))?.0 == "b-grass.png" }
            try key(app, "F9")
            try app.waitFor("the alt text entry shown") { _ in
                (try? a11y.click(app, role: "text", name: "Alt Text")) ?? false
            }
            let before = app.events().count
            _ = try app.xdotool(["type", "--delay", "30", "A green square, 1 by 1 cm exactly"])
            _ = try app.xdotool(["key", "Return"])
            let events = try app.waitFor("the alt text saved") { events in
                events.dropFirst(before).contains { $0.event.name == .altTextSaved }
            }
            let saved = events.dropFirst(before).compactMap { record -> (String, String, String)? in
                if case .altTextSaved(_, let text, let path, let error) = record.event {
                    (text, path, error)
                } else {
                    nil
                }
            }.first
            #expect(
                saved.map { $0 == ("A green square, 1 by 1 cm exactly", grass.path + ".xmp", "") } == true,
                "\(String(describing: saved))")
            // The digits, x and c typed were the entry's: no stars, reject or compare came of them.
            let stray = events.dropFirst(before).filter {
                [.photoMarked, .compareOpen, .editBegin].contains($0.event.name)
            }
            #expect(stray.isEmpty, "\(stray.map(\.event))")
            #expect(
                try exiftool(["-s3", "-XMP-iptcCore:AltTextAccessibility", grass.path + ".xmp"])
                    == "A green square, 1 by 1 cm exactly")
            try app.waitFor("the picture to say the new alt text") { _ in
                (try? pictureSpeech(a11y, app))?.1 == "A green square, 1 by 1 cm exactly, photo 2 of 2"
            }
            #expect(app.terminate() == 0)
        }
    }
}
