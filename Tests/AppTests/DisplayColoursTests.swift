import CGtk
import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension DesktopGUITests {
    /// The display's own colour profile, as the X session names it (the root window's
    /// `_ICC_PROFILE`, set here with xprop as colord would): rows and the viewer show pictures
    /// turned into it.
    @Suite(.serialized) struct DisplayColoursTests {
        /// A display profile with red and blue the other way round: what is red in sRGB is sent
        /// to the display as blue (easy to see on a screenshot).
        static let swappedDisplay = ColourDescription.rgbProfile(
            red: (0.15, 0.06), green: (0.30, 0.60), blue: (0.64, 0.33), gamma: 2.2, name: "Swapped display")!

        /// Sets a property of 8-bit values (of type CARDINAL) on the root window of `display`,
        /// as colord sets `_ICC_PROFILE`, through libX11 (xprop sets at most 64 values). The
        /// server runs with -noreset, so the property outlives this connection.
        static func setRootProperty(_ name: String, _ bytes: Data, on display: XvfbDisplay) throws {
            guard let connection = XOpenDisplay(display.name) else { throw AppSessionError.timeout("no X connection") }
            let cardinal: Atom = 6 // XA_CARDINAL
            _ = bytes.withUnsafeBytes { raw in
                XChangeProperty(
                    connection, XDefaultRootWindow(connection), XInternAtom(connection, name, 0), cardinal, 8,
                    PropModeReplace, raw.bindMemory(to: UInt8.self).baseAddress, Int32(raw.count))
            }
            _ = XCloseDisplay(connection) // flushes the request
        }

        typealias RGB = (r: Int, g: Int, b: Int)

        /// Sepia red as it is: warm, red over blue.
        static let warm: @Sendable (RGB) -> Bool = { $0.r > $0.b + 30 }
        /// Sepia red on the swapped display (or a photo whose profile swaps them): blue over red.
        static let cool: @Sendable (RGB) -> Bool = { $0.b > $0.r + 30 }

        /// The screen's colours at `points`, from screenshots taken until they are `expected`
        /// (what the test then checks), or 15 s have passed: the last ones read. A row's
        /// picture, or the viewer's, reaches the screen a frame after the trace says it is ready.
        private func colours(
            _ app: AppSession, at points: [(x: Int, y: Int)], until expected: ([RGB]) -> Bool
        ) throws -> [RGB] {
            let shot = NSTemporaryDirectory() + "classic-photos-display-\(UUID().uuidString).png"
            defer { try? FileManager.default.removeItem(atPath: shot) }
            let format = points.map { point in
                ["r", "g", "b"].map { "%[fx:int(255*p{\(point.x),\(point.y)}.\($0))]" }.joined(separator: ",")
            }.joined(separator: ",")
            let deadline = Date().addingTimeInterval(15)
            while true {
                try app.screenshot(to: shot)
                let read = try run(URL(fileURLWithPath: "/usr/bin/convert"), [shot, "-format", format, "info:"])
                let values = read.stdout.split(separator: ",").compactMap {
                    Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
                }
                guard values.count == 3 * points.count else {
                    throw AppSessionError.timeout("no colour read: \(read.stdout) \(read.stderr)")
                }
                let read3 = stride(from: 0, to: values.count, by: 3).map {
                    (r: values[$0], g: values[$0 + 1], b: values[$0 + 2])
                }
                if expected(read3) || Date() > deadline { return read3 }
                usleep(100_000)
            }
        }

        /// The screen's colour at `point`, read until it is `expected` (see `colours`).
        private func colour(
            _ app: AppSession, at point: (x: Int, y: Int), until expected: @escaping (RGB) -> Bool
        ) throws -> RGB {
            try colours(app, at: [point]) { expected($0[0]) }[0]
        }

        /// The colour in the middle of the picture on the clipboard (Ctrl+C in the viewer), as a
        /// program pasting it gets it.
        private func clipboardColour(_ app: AppSession) throws -> (r: Int, g: Int, b: Int) {
            try app.xdotool(["key", "ctrl+c"])
            let file = NSTemporaryDirectory() + "classic-photos-pasted-\(UUID().uuidString).png"
            defer { try? FileManager.default.removeItem(atPath: file) }
            let (targets, _) = try app.pastePicture(to: file)
            let read = try run(
                URL(fileURLWithPath: "/usr/bin/convert"),
                [
                    file, "-format",
                    "%[fx:int(255*p{w/2,h/2}.r)],%[fx:int(255*p{w/2,h/2}.g)],%[fx:int(255*p{w/2,h/2}.b)]", "info:",
                ])
            let values = read.stdout.split(separator: ",").compactMap {
                Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            guard values.count == 3 else {
                throw AppSessionError.timeout("no picture on the clipboard (\(targets)): \(read.stderr)")
            }
            return (values[0], values[1], values[2])
        }

        /// The thumbnail of row 0 and the middle of the viewer, on a display with `profile`.
        /// `toggled`: row 0 again after Match Display Colours was turned off in the main menu;
        /// `about`: what About's Troubleshooting page said before that.
        private func shown(
            profile: Data?
        ) throws -> (
            row: (r: Int, g: Int, b: Int), viewer: (r: Int, g: Int, b: Int), name: String,
            toggled: (r: Int, g: Int, b: Int), copied: (r: Int, g: Int, b: Int), about: String
        ) {
            let folder = try TestPictures.makeFolder("display-colours")
            defer { try? FileManager.default.removeItem(at: folder) }
            try #require(CameraFiles.jpeg(width: 800, height: 600, rgb: 0xD0_20_10)).write(
                to: folder.appendingPathComponent("red.jpg"))
            let display = try XvfbDisplay()
            if let profile { try Self.setRootProperty("_ICC_PROFILE", profile, on: display) }
            let app = try AppSession(
                arguments: [folder.path], environment: AppSession.withoutAnimations, display: display)
            let named = try app.waitFor(event: .displayProfile)
            guard case .displayProfile(let name) = named.event else { throw AppSessionError.timeout("no profile") }
            // Shown as it is, or turned into the swapped display's colours.
            let onDisplay = profile == nil ? Self.warm : Self.cool
            try app.waitFor("the row filtered") { AppSession.rowStates($0)[0] == .filtered }
            let window = try app.windowGeometry()
            let rowPoint = (window.x + 47, window.y + AppSession.headerHeight + 40)
            let row = try colour(app, at: rowPoint, until: onDisplay)
            try app.clickRow(0)
            try app.waitFor("the viewer shows it") { events in
                events.contains { if case .viewerImage(0, _, _, _, .filtered, _, _) = $0.event { true } else { false } }
            }
            let viewer = try colour(
                app, at: (window.x + window.width / 2, window.y + window.height / 2), until: onDisplay)
            let copied = try clipboardColour(app)
            // The viewer closed, then About from the main menu (F10, then A): with GTK's
            // animations off, the menu takes the A as soon as the F10 has opened it.
            try app.xdotool(["key", "Escape"])
            try app.waitFor(event: .viewerClose)
            try app.xdotool(["key", "F10", "a"])
            let opened = try app.waitFor(event: .aboutShown)
            guard case .aboutShown(let about) = opened.event else { throw AppSessionError.timeout("no About") }
            // About closed once it has the keyboard; the keys then go to the window under the
            // pointer: the main menu (F10) and its Match Display Colours (M), off.
            try app.waitForFocus("About focused") { _, name in name == "About" }
            try app.xdotool(["key", "Escape"])
            try app.waitForFocus("About closed") { _, name in name != "About" }
            try app.xdotool(["key", "F10", "m"])
            try app.waitFor("the setting turned off") { events in
                events.filter { $0.event.name == .displayProfile }.count == 2
            }
            let toggled = try colour(app, at: rowPoint, until: Self.warm)
            #expect(app.terminate() == 0)
            return (row, viewer, name, toggled, copied, about)
        }

        @Test(
            "With a display profile named by the X session, rows and the viewer are turned into it; without one, shown as sRGB"
        )
        func displayProfile() throws {
            let plain = try shown(profile: nil)
            #expect(plain.name == "")
            // About → Troubleshooting says what pictures are turned into.
            #expect(plain.about.contains("The display names no colour profile"), "\(plain.about)")
            // Sepia red: warm, red over blue.
            #expect(plain.row.r > plain.row.b + 30, "row without a display profile: \(plain.row)")
            #expect(plain.viewer.r > plain.viewer.b + 30, "viewer without a display profile: \(plain.viewer)")
            let swapped = try shown(profile: Self.swappedDisplay)
            #expect(swapped.name == "Swapped display")
            #expect(
                swapped.about.contains("Pictures are turned from sRGB into the display's profile, “Swapped display”"),
                "\(swapped.about)")
            #expect(swapped.about.contains("Colours\nPictures are turned into sRGB from their own colour profiles"))
            #expect(swapped.row.b > swapped.row.r + 30, "row on the swapped display: \(swapped.row)")
            #expect(swapped.viewer.b > swapped.viewer.r + 30, "viewer on the swapped display: \(swapped.viewer)")
            // Turned off in the menu: the row is shown as sRGB again, at once.
            #expect(swapped.toggled.r > swapped.toggled.b + 30, "row with the setting off: \(swapped.toggled)")
            // Copy puts the photo in sRGB on the clipboard, whatever the display.
            for copied in [plain.copied, swapped.copied] {
                #expect(copied.r > copied.b + 30, "copied: \(copied)")
            }
        }

        @Test(
            "A display profile set while the app runs is followed at once (rows turned into it), and so is one set back to sRGB"
        )
        func profileChangedWhileRunning() throws {
            let folder = try TestPictures.makeFolder("display-colours-live")
            defer { try? FileManager.default.removeItem(at: folder) }
            try #require(CameraFiles.jpeg(width: 800, height: 600, rgb: 0xD0_20_10)).write(
                to: folder.appendingPathComponent("red.jpg"))
            let display = try XvfbDisplay()
            let app = try AppSession(arguments: [folder.path], display: display)
            try app.waitFor("the row filtered") { AppSession.rowStates($0)[0] == .filtered }
            func profileNames(_ events: [TraceRecord]) -> [String] {
                events.compactMap { if case .displayProfile(let name) = $0.event { name } else { nil } }
            }
            let window = try app.windowGeometry()
            let point = (window.x + 47, window.y + AppSession.headerHeight + 40)
            let before = try colour(app, at: point, until: Self.warm)
            #expect(Self.warm(before), "row before: \(before)")

            try Self.setRootProperty("_ICC_PROFILE", Self.swappedDisplay, on: display)
            try app.waitFor("the new profile used") { profileNames($0) == ["", "Swapped display"] }
            let swapped = try colour(app, at: point, until: Self.cool)
            #expect(Self.cool(swapped), "row on the swapped display: \(swapped)")

            // A profile of sRGB's primaries, named as sRGB is: nothing to turn.
            let srgb = try #require(
                ColourDescription.rgbProfile(
                    red: (0.64, 0.33), green: (0.30, 0.60), blue: (0.15, 0.06), gamma: 2.2, name: "sRGB IEC61966-2.1"))
            try Self.setRootProperty("_ICC_PROFILE", srgb, on: display)
            try app.waitFor("back to sRGB") { profileNames($0) == ["", "Swapped display", ""] }
            let after = try colour(app, at: point, until: Self.warm)
            #expect(Self.warm(after), "row back in sRGB: \(after)")
            #expect(app.terminate() == 0)
        }

        @Test(
            "A photo with a profile of its own: its row and the viewer show it turned into sRGB, the trace names the profile, Copy puts the turned pixels on the clipboard"
        )
        func embeddedProfile() throws {
            let folder = try TestPictures.makeFolder("embedded-profile")
            let profiles = try TestPictures.makeFolder("embedded-profile-icc")
            defer {
                try? FileManager.default.removeItem(at: folder)
                try? FileManager.default.removeItem(at: profiles)
            }
            // The same red pixels twice: with a profile that puts red where blue is, and without.
            let pixels = try #require(CameraFiles.jpeg(width: 800, height: 600, rgb: 0xD0_20_10))
            let profiled = folder.appendingPathComponent("a-profiled.jpg")
            try pixels.write(to: profiled)
            try pixels.write(to: folder.appendingPathComponent("b-plain.jpg"))
            let icc = profiles.appendingPathComponent("swapped.icc")
            try #require(
                ColourDescription.rgbProfile(
                    red: (0.15, 0.06), green: (0.30, 0.60), blue: (0.64, 0.33), gamma: 2.2, name: "Swapped photo")
            ).write(to: icc)
            let tagged = try run(
                URL(fileURLWithPath: "/usr/bin/exiftool"),
                ["-q", "-overwrite_original", "-icc_profile<=\(icc.path)", profiled.path])
            try #require(tagged.status == 0, "\(tagged.stderr)")

            let app = try AppSession(
                arguments: [folder.path],
                environment: AppSession.withoutAnimations.merging(AppSession.tracingFrames) { $1 },
                display: try XvfbDisplay())
            try app.waitFor("both rows filtered") {
                AppSession.rowStates($0)[0] == .filtered && AppSession.rowStates($0)[1] == .filtered
            }
            let window = try app.windowGeometry()
            let rowX = window.x + 47, rowY = window.y + AppSession.headerHeight + 40
            // The sepia is made from the turned colours: from blue, darker than from red.
            let darker: ([RGB]) -> Bool = { $0[0].r + $0[0].g + $0[0].b + 60 < $0[1].r + $0[1].g + $0[1].b }
            let rows = try colours(app, at: [(rowX, rowY), (rowX, rowY + 80)], until: darker)
            let (profiledRow, plainRow) = (rows[0], rows[1])
            #expect(darker(rows), "rows: profiled \(profiledRow), plain \(plainRow)")

            try app.clickRow(0)
            var events = try app.waitFor("the viewer shows it") { events in
                events.contains { if case .viewerImage(0, _, _, _, .filtered, _, _) = $0.event { true } else { false } }
            }
            let profileNames = events.compactMap { record -> String? in
                if case .viewerImage(0, _, _, _, _, _, let profile) = record.event { profile } else { nil }
            }
            #expect(profileNames.last == "Swapped photo", "viewer.image profiles: \(profileNames)")
            // The original (S): the red pixels are shown, and copied, as the blue they are.
            try app.xdotool(["key", "s"])
            events = try app.waitFor("the original shown") { events in
                events.contains { if case .viewerImage(0, _, _, _, .original, _, _) = $0.event { true } else { false } }
            }
            try app.xdotool(["mousemove", "\(window.x + 20)", "\(window.y + window.height - 20)"])
            let blue: (RGB) -> Bool = { $0.b > $0.r + 60 }
            let shown = try colour(app, at: (window.x + window.width / 2, window.y + window.height / 2), until: blue)
            #expect(blue(shown), "the original in the viewer: \(shown)")
            let copied = try clipboardColour(app)
            #expect(copied.b > copied.r + 60, "the original copied: \(copied)")
            // The details panel names the profile (kept to look at with CLASSIC_PHOTOS_KEEP_SCREENSHOTS=1).
            try app.xdotool(["key", "alt+Return"])
            let info = try app.waitFor("the info open") { events in
                events.contains { $0.event.viewerInfo?.shown == true }
            }
            #expect(
                info.last { $0.event.viewerInfo?.shown == true }?.event.viewerInfo?.info.profile == "Swapped photo",
                "\(info.filter { $0.event.name == .viewerInfo }.map(\.event))")
            if ProcessInfo.processInfo.environment["CLASSIC_PHOTOS_KEEP_SCREENSHOTS"] != nil {
                // The panel on screen: the frame after it opened.
                try app.waitForFrame(after: try #require(info.last { $0.event.viewerInfo?.shown == true }).t)
                let path = NSTemporaryDirectory() + "classic-photos-profiled-viewer.png"
                try app.screenshot(to: path)
                print("screenshot \(path)")
            }
            // The next photo (the same pixels, no profile), the details panel still open: sRGB is
            // only assumed, and it says so.
            try app.xdotool(["key", "Right"])
            try app.waitFor("the plain photo shown") { events in
                events.contains { if case .viewerImage(1, _, _, _, _, _, _) = $0.event { true } else { false } }
            }
            let plainInfo = try app.waitFor("the plain photo's info") { events in
                events.contains {
                    $0.event.viewerInfo?.shown == true && $0.event.viewerInfo?.info.name == "b-plain.jpg"
                }
            }
            #expect(
                plainInfo.last { $0.event.viewerInfo?.info.name == "b-plain.jpg" }?.event.viewerInfo?.info.profile
                    == "sRGB (assumed)")
            #expect(app.terminate() == 0)
        }
    }
}
