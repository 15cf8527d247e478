import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension GUITests {
    /// Folders on a network share: a WebDAV server on loopback (rclone), reached through GVfs
    /// on a D-Bus session of the test's own, as a photo double-clicked on a share in the file
    /// manager arrives (`dav://…`).
    @Suite(.serialized) struct RemoteFolderTests {
        /// A share whose `cam` folder holds `photos` copies of the bundled photos (cam/photoNN.jpg),
        /// a sub-folder with one photo, a hidden photo and a text file.
        private func share(
            photos: Int, kind: LoopbackShare.Kind = .webdav, bandwidth: String? = nil, freshListings: Bool = false,
            login: (user: String, password: String)? = nil
        ) throws -> (LoopbackShare, URL) {
            let root = try TestPictures.makeFolder("share")
            let cam = root.appendingPathComponent("cam")
            try FileManager.default.createDirectory(
                at: cam.appendingPathComponent("sub"), withIntermediateDirectories: true)
            let bundled = Products.packageRoot.appendingPathComponent("data/photos")
            let names = try FileManager.default.contentsOfDirectory(atPath: bundled.path).filter {
                $0.hasSuffix(".jpg")
            }
            .sorted()
            for n in 1...photos {
                try FileManager.default.copyItem(
                    at: bundled.appendingPathComponent(names[n % names.count]),
                    to: cam.appendingPathComponent(String(format: "photo%02d.jpg", n)))
            }
            try FileManager.default.copyItem(
                at: bundled.appendingPathComponent(names[0]), to: cam.appendingPathComponent("sub/inside.jpg"))
            try FileManager.default.copyItem(
                at: bundled.appendingPathComponent(names[0]), to: cam.appendingPathComponent(".hidden.jpg"))
            try Data("not a photo".utf8).write(to: cam.appendingPathComponent("notes.txt"))
            return (
                try LoopbackShare(
                    serving: root, kind: kind, bandwidth: bandwidth, freshListings: freshListings, login: login),
                root
            )
        }

        /// The app on `address`, with GVfs on `bus` (a D-Bus session of the test's own, which
        /// must outlive the app).
        private func open(_ address: String, bus: PrivateBus, environment: [String: String] = [:]) throws -> AppSession
        {
            try AppSession(
                arguments: [address], environment: environment.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 }
            )
        }

        /// Gives the keyboard to the dialog the mount opened over the app's window (its own
        /// window, with no title): with no window manager, nothing else does.
        private func focusDialog(_ app: AppSession) throws {
            var dialog: String?
            for _ in 0..<50 where dialog == nil {
                Thread.sleep(forTimeInterval: 0.1)
                let windows = try app.xdotool(["search", "--onlyvisible", "--class", "classic-photos"])
                dialog = try windows.split(separator: "\n").map(String.init).first {
                    try app.xdotool(["getwindowname", $0]).trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
                }
            }
            let window = try #require(dialog, "no dialog shown")
            // (--sync: until the X server has given it the keyboard; GTK takes the keys that
            // follow in order, after the focus.)
            try app.xdotool(["windowfocus", "--sync", window])
        }

        private func failures(_ events: [TraceRecord]) -> [(row: Int, reason: PhotoFailure.Reason)] {
            events.compactMap {
                if case .opFail(_, let row, _, _, let reason) = $0.event { (row, reason) } else { nil }
            }
        }

        @Test(
            "A dav:// folder is mounted and listed (its sub-folder first, hidden and other files left out), its rows shown in sepia; the sub-folder opens in place"
        )
        func folderOnShare() throws {
            let (share, root) = try share(photos: 12)
            defer { try? FileManager.default.removeItem(at: root) }
            let bus = try PrivateBus()
            let app = try open(share.address("cam/"), bus: bus)
            let loaded = try app.waitFor(event: .sourceLoaded)
            #expect(loaded.event.rows == 13, "one folder and twelve photos")
            let events = try app.waitFor("the first screen in sepia") { events in
                let states = AppSession.rowStates(events)
                return (1...5).allSatisfy { states[$0] == .filtered }
            }
            #expect(failures(events).isEmpty, "\(failures(events))")
            let shown = events.compactMap { record -> (Int, String, RowKind)? in
                if case .rowShown(let row, _, let name, let kind) = record.event { (row, name, kind) } else { nil }
            }
            #expect(shown.first { $0.0 == 0 }.map { ($0.1, $0.2) } ?? ("", .photo) == ("sub", .folder))
            #expect(shown.first { $0.0 == 1 }?.1 == "photo01.jpg")

            // The sub-folder opens in the same window, from the share.
            try app.clickRow(0)
            let inside = try app.waitFor("the sub-folder read") { events in
                events.contains {
                    if case .sourceLoaded(let url, 1, _) = $0.event { url.hasSuffix("/cam/sub/") } else { false }
                }
            }
            #expect(
                inside.contains {
                    if case .sourceStart(let url, _) = $0.event { url == share.address("cam/sub/") } else { false }
                })
            _ = try app.waitFor("its photo in sepia") { events in
                guard let start = events.last(where: { $0.event.name == .sourceStart }) else { return false }
                return events.contains {
                    if case .rowState(0, _, .filtered) = $0.event { $0.t > start.t } else { false }
                }
            }
            // Alt+Up: the folder it is in, on the share, with the sub-folder left selected.
            let before = app.events().count
            try app.xdotool(["key", "alt+Up"])
            _ = try app.waitFor("the folder above, the sub-folder selected") { events in
                let after = events.dropFirst(before)
                return after.contains {
                    if case .sourceLoaded(let url, 13, _) = $0.event { url == share.address("cam/") } else { false }
                } && after.contains { $0.event == .selectionChanged(count: 1) }
            }
            #expect(app.terminate() == 0)
        }

        @Test(
            "Include Sub-folders on a share (--recursive): every picture beneath, each folder's own first, named by its path, no folder items"
        )
        func wholeTreeOnShare() throws {
            let (share, root) = try share(photos: 3)
            defer { try? FileManager.default.removeItem(at: root) }
            let deeper = root.appendingPathComponent("cam/sub/deeper")
            try FileManager.default.createDirectory(at: deeper, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                at: root.appendingPathComponent("cam/photo01.jpg"), to: deeper.appendingPathComponent("deep.jpg"))
            let bus = try PrivateBus()
            let app = try AppSession(
                arguments: ["--recursive", share.address("cam/")],
                environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
            let loaded = try app.waitFor(event: .sourceLoaded)
            guard case .sourceLoaded(_, let rows, let recursive) = loaded.event else { return }
            #expect(rows == 5 && recursive, "\(loaded.event)")
            let events = try app.waitFor("every photo in sepia") { events in
                let states = AppSession.rowStates(events)
                return (0..<5).allSatisfy { states[$0] == .filtered }
            }
            var names: [Int: String] = [:]
            var kinds = Set<RowKind>()
            for case .rowShown(let row, _, let name, let kind) in events.map(\.event) {
                names[row] = name
                kinds.insert(kind)
            }
            #expect(
                (0..<5).map { names[$0] ?? "" }
                    == ["photo01.jpg", "photo02.jpg", "photo03.jpg", "sub/inside.jpg", "sub/deeper/deep.jpg"],
                "\(names)")
            #expect(kinds == [.photo])
            #expect(app.terminate() == 0)
        }

        @Test(
            "A share's folder seen before shows from the app's cache, its photos not read again; a photo changed since is read anew"
        )
        func cachedThumbnails() throws {
            let (share, root) = try share(photos: 6, freshListings: true)
            defer { try? FileManager.default.removeItem(at: root) }
            let cache = try TestPictures.makeFolder("share-cache")
            defer { try? FileManager.default.removeItem(at: cache) }
            let bus = try PrivateBus()
            func session() throws -> [String] {
                let before = share.requests("GET").count
                let app = try open(share.address("cam/"), bus: bus, environment: ["XDG_CACHE_HOME": cache.path])
                _ = try app.waitFor("every photo in sepia") { events in
                    let states = AppSession.rowStates(events)
                    return (1...6).allSatisfy { states[$0] == .filtered }
                }
                #expect(app.terminate() == 0)
                return Array(share.requests("GET").dropFirst(before))
            }
            let first = try session()
            #expect(Set(first) == Set((1...6).map { String(format: "/cam/photo%02d.jpg", $0) }), "\(first)")
            #expect(try session().isEmpty, "read again although kept")
            // photo03 rewritten (another photo, a later time): only it is read.
            let changed = root.appendingPathComponent("cam/photo03.jpg")
            try FileManager.default.removeItem(at: changed)
            try FileManager.default.copyItem(at: root.appendingPathComponent("cam/sub/inside.jpg"), to: changed)
            try FileManager.default.setAttributes(
                [.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: changed.path)
            let third = try session()
            #expect(Set(third) == ["/cam/photo03.jpg"], "\(third)")
        }

        @Test(
            "A share that cannot be reached fails its source with GIO's words and Retry, which mounts it once it is back"
        )
        func unreachableShare() throws {
            let (share, root) = try share(photos: 3)
            defer { try? FileManager.default.removeItem(at: root) }
            share.stop()
            let bus = try PrivateBus()
            let app = try open(share.address("cam/"), bus: bus)
            let failed = try app.waitFor(event: .sourceFailed)
            guard case .sourceFailed(let url, let error) = failed.event else {
                throw AppSessionError.timeout("no failure")
            }
            #expect(url == share.address("cam/"))
            #expect(error.hasPrefix("Could not connect to “\(share.address("cam/"))”: "), "\(error)")
            // The alert's Retry (its default answer) once the share is back (serving: `start`
            // returns once it answers): mounted and listed. With no window manager, the alert has
            // the keyboard once it has taken it itself.
            try share.start()
            let main = app.visibleWindows(named: "^Classic Photos$"), rootWindow = app.rootWindow
            try app.waitForFocus("the alert focused") { id, _ in !id.isEmpty && id != rootWindow && !main.contains(id) }
            try app.xdotool(["key", "Return"])
            #expect(try app.waitFor(event: .sourceLoaded).event.rows == 4)
            #expect(app.terminate() == 0)
        }

        @Test("A photo's address on a share opens its folder with that photo selected and shown in the viewer")
        func photoOnShare() throws {
            let (share, root) = try share(photos: 30)
            defer { try? FileManager.default.removeItem(at: root) }
            let bus = try PrivateBus()
            let app = try open(share.address("cam/photo25.jpg"), bus: bus)
            #expect(try app.waitFor(event: .sourceLoaded).event.rows == 31)
            // Shown ahead of its folder (first, alone, selected), then where it belongs among
            // the others, still selected.
            let events = try app.waitFor("the photo selected in its place") { events in
                events.last { $0.event.name == .listSelect }?.event.row == 25
            }
            let selections = events.filter { $0.event.name == .listSelect }
            #expect(selections.allSatisfy { $0.event.photoName == "photo25.jpg" })
            #expect(selections.first?.event.row == 0, "\(selections.map(\.event))")
            // In sepia, whether its picture was made while it stood first or once in its place
            // (a photo already made says nothing more when it moves): followed by identity.
            let named = try #require(
                selections.last.flatMap { if case .listSelect(_, let id, _) = $0.event { id } else { nil } })
            _ = try app.waitFor("the photo in sepia") { events in
                events.contains { if case .rowState(_, named, .filtered) = $0.event { true } else { false } }
            }
            // Large in the viewer, from the start (its row may take its place in the list before
            // the viewer has shown it); paging goes on through its folder.
            let opened = try app.waitFor("the photo in the viewer") { events in
                events.contains { $0.event.name == .viewerOpen }
            }.filter { $0.event.name == .viewerOpen }
            #expect(opened.first?.event.photoName == "photo25.jpg", "\(opened.map(\.event))")
            #expect(!opened.contains { $0.event.photoName != "photo25.jpg" }, "\(opened.map(\.event))")
            try app.xdotool(["key", "Right"])
            let paged = try app.waitFor("the next photo in the viewer") { events in
                events.last { $0.event.name == .viewerOpen }?.event.photoName == "photo26.jpg"
            }
            #expect(paged.last { $0.event.name == .viewerOpen }?.event.row == 26)
            #expect(app.terminate() == 0)
        }

        @Test(
            "A tree on a share shows its first folders' photos while the rest is still being listed, in the order of the whole"
        )
        func treeRowsAsListed() throws {
            let (share, root) = try share(photos: 2, bandwidth: "128k", freshListings: true)
            defer { try? FileManager.default.removeItem(at: root) }
            let photo = root.appendingPathComponent("cam/photo01.jpg")
            for n in 1...40 {
                let folder = root.appendingPathComponent(String(format: "cam/sub/f%02d", n))
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try FileManager.default.copyItem(at: photo, to: folder.appendingPathComponent("p\(n).jpg"))
            }
            let bus = try PrivateBus()
            let app = try AppSession(
                arguments: ["--recursive", share.address("cam/")],
                environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
            let loaded = try app.waitFor(event: .sourceLoaded)
            #expect(loaded.event.rows == 43, "\(loaded.event)")
            let events = app.events()
            // Each of the 42 folders is a request of its own: the first rows are shown in the
            // first half of the listing, not as it ends.
            let started = try #require(events.first { $0.event.name == .sourceStart })
            let firstShown = try #require(events.first { $0.event.name == .rowShown })
            #expect(
                firstShown.t - started.t < (loaded.t - started.t) / 2,
                "listed in \(loaded.t - started.t) s, the first row shown after \(firstShown.t - started.t) s")
            // The end of the list (End): the last folder's photo is last.
            _ = try app.xdotool(["key", "End"])
            let names = try app.waitFor("the last photos shown") { events in
                events.contains { record in
                    guard case .rowShown(42, _, "sub/f40/p40.jpg", _) = record.event else { return false }
                    return true
                }
            }
            var rows: [Int: String] = [:]
            for case .rowShown(let row, _, let name, _) in names.map(\.event) { rows[row] = name }
            #expect(rows[0] == "photo01.jpg" && rows[1] == "photo02.jpg" && rows[2] == "sub/inside.jpg", "\(rows)")
            #expect(rows[3] == "sub/f01/p1.jpg", "\(rows)")
            #expect(app.terminate() == 0)
        }

        @Test(
            "A share that wants a password asks for it in a dialog over the window; a wrong one is asked for again, the right one opens the folder; Cancel is not asked again, and fails the source in the window's status"
        )
        func passwordShare() throws {
            let (share, root) = try share(photos: 6, login: ("alice", "s3cret"))
            defer { try? FileManager.default.removeItem(at: root) }
            let bus = try PrivateBus()
            let app = try open(share.address("cam/"), bus: bus)
            func asked(_ times: Int) throws {
                _ = try app.waitFor("the password asked for (\(times))") { events in
                    events.filter { $0.event.name == .mountAsk }.count >= times
                }
                try focusDialog(app)
            }
            try asked(1)
            #expect(app.events().contains { $0.event == .mountAsk(url: share.address("cam/")) })
            // The user name's field has the focus; the password's is next.
            try app.xdotool(["type", "--delay", "15", "alice"])
            try app.xdotool(["key", "Tab", "type", "--delay", "15", "wrong"])
            try app.xdotool(["key", "Return"])
            try asked(2)
            #expect(!app.events().contains { $0.event.name == .sourceLoaded })
            // Asked again, the user name kept: the password alone.
            try app.xdotool(["type", "--delay", "15", "s3cret"])
            try app.xdotool(["key", "Return"])
            let loaded = try app.waitFor(event: .sourceLoaded)
            #expect(loaded.event.rows == 7, "one folder and six photos")
            _ = try app.waitFor("the first screen in sepia") { events in
                let states = AppSession.rowStates(events)
                return (1...6).allSatisfy { states[$0] == .filtered }
            }
            #expect(app.terminate() == 0)

            // Another session, the dialog cancelled: the source fails, with GIO's words. (Every
            // frame traced, for the check below.)
            let bus2 = try PrivateBus()
            let again = try open(share.address("cam/"), bus: bus2, environment: AppSession.tracingFrames)
            _ = try again.waitFor("the password asked for") { events in
                events.contains { $0.event.name == .mountAsk }
            }
            try focusDialog(again)
            try again.xdotool(["key", "Escape"])
            let failed = try again.waitFor(event: .sourceFailed)
            #expect(failed.event.error?.isEmpty == false, "\(failed.event)")
            #expect(again.events().filter { $0.event.name == .mountAsk }.count == 1, "asked again after Cancel")
            // The window's status says so, with Retry; no alert over it repeats what was just
            // answered. An alert would be shown as the failure is, before the frame that paints
            // the status, by which time GTK has sent the X server all it asked for.
            try again.waitForFrame(after: failed.t)
            let windows = try again.xdotool(["search", "--onlyvisible", "--class", "classic-photos"])
            #expect(windows.split(separator: "\n").count == 1, "another window is open: \(windows)")
            #expect(again.terminate() == 0)
        }

        @Test(
            "Open… takes a photo on a mounted share, its address typed into the file chooser, and shows it in the viewer"
        )
        func openFromChooser() throws {
            let (share, root) = try share(photos: 8)
            defer { try? FileManager.default.removeItem(at: root) }
            let bus = try PrivateBus()
            // GTK's chooser opens only what is mounted already (as the file manager, or the
            // chooser's Other Locations, does when a person connects to a server).
            let mounted = try run(
                URL(fileURLWithPath: "/usr/bin/gio"), ["mount", share.address()],
                environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
            #expect(mounted.status == 0, "\(mounted.stderr)")
            let folder = try TestPictures.makeFolder("chooser-start")
            defer { try? FileManager.default.removeItem(at: folder) }
            // (GTK's animations off: the chooser's location field is there at once.)
            let app = try open(folder.path, bus: bus, environment: AppSession.withoutAnimations)
            _ = try app.waitFor(event: .sourceLoaded)
            try app.xdotool(["key", "ctrl+o"])
            // With no desktop portal, GtkFileChooserNative shows GTK's own chooser, focused.
            func focused() -> String {
                ((try? app.xdotool(["getwindowfocus", "getwindowname"])) ?? "").trimmingCharacters(
                    in: .whitespacesAndNewlines)
            }
            for _ in 0..<100 where focused() != "Open Pictures or a Photo List" { usleep(100_000) }
            try #require(focused() == "Open Pictures or a Photo List", "no chooser focused: \(focused())")
            // GTK takes the keys in order: Ctrl+L opens the location field, which takes the
            // address typed. The chooser then asks the share about it, and takes it only once
            // the answer has come: its Open button turns from grey to black (Return before that
            // does nothing).
            try app.xdotool(["key", "ctrl+l", "type", "--delay", "10", share.address("cam/photo05.jpg")])
            let chooser = try app.xdotool(["getwindowfocus", "getwindowgeometry", "--shell"])
            var place: [String: Int] = [:]
            for line in chooser.split(separator: "\n") {
                let parts = line.split(separator: "=")
                if parts.count == 2 { place[String(parts[0])] = Int(parts[1]) }
            }
            let (right, bottom) = (
                (place["X"] ?? 0) + (place["WIDTH"] ?? 0), (place["Y"] ?? 0) + (place["HEIGHT"] ?? 0)
            )
            var darkest = 1.0
            try app.waitForScreenshot { shot in
                let read = try run(
                    URL(fileURLWithPath: "/usr/bin/convert"),
                    [
                        shot, "-crop", "70x30+\(right - 83)+\(bottom - 44)", "-colorspace", "gray", "-format",
                        "%[fx:minima]", "info:",
                    ])
                darkest = Double(read.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 1
                return darkest < 0.4
            }
            #expect(darkest < 0.4, "the chooser's Open button stayed grey (its darkest pixel \(darkest))")
            try app.xdotool(["key", "Return"])
            let shown = try app.waitFor("the photo in the viewer, its folder listed") { events in
                events.contains { $0.event.name == .viewerOpen && $0.event.photoName == "photo05.jpg" }
                    && events.contains {
                        if case .sourceLoaded(let url, _, _) = $0.event { url.hasPrefix("dav://") } else { false }
                    }
            }
            #expect(
                shown.contains {
                    if case .sourceLoaded(let url, 9, _) = $0.event {
                        url == share.address("cam/photo05.jpg")
                    } else {
                        false
                    }
                }, "\(shown.filter { $0.event.name == .sourceLoaded }.map(\.event))")
            #expect(app.terminate() == 0)
        }

        @Test(
            "A folder on a share whose backend watches folders (GVfs's localtest, as MTP phones and cameras do) follows changes: a photo that came shows in its place, one that went leaves"
        )
        func watchedShareFolder() throws {
            let folder = try TestPictures.makeFolder("watched")
            defer { try? FileManager.default.removeItem(at: folder) }
            let bundled = Products.packageRoot.appendingPathComponent("data/photos")
            let names = try FileManager.default.contentsOfDirectory(atPath: bundled.path).filter {
                $0.hasSuffix(".jpg")
            }
            .sorted()
            for n in 1...6 {
                try FileManager.default.copyItem(
                    at: bundled.appendingPathComponent(names[n % names.count]),
                    to: folder.appendingPathComponent("photo\(n).jpg"))
            }
            let bus = try PrivateBus()
            let address = "localtest://" + folder.path + "/"
            let app = try open(address, bus: bus)
            #expect(try app.waitFor(event: .sourceLoaded).event.rows == 6)
            _ = try app.waitFor("the photos in sepia") { events in
                let states = AppSession.rowStates(events)
                return (0..<6).allSatisfy { states[$0] == .filtered }
            }
            try FileManager.default.copyItem(
                at: bundled.appendingPathComponent(names[0]), to: folder.appendingPathComponent("photo3b.jpg"))
            try FileManager.default.removeItem(at: folder.appendingPathComponent("photo5.jpg"))
            let changed = try app.waitFor("the change shown") { events in
                let changes = events.compactMap { record -> (Int, Int)? in
                    if case .sourceChanged(_, let added, let removed, _, _) = record.event {
                        (added, removed)
                    } else {
                        nil
                    }
                }
                return changes.map(\.0).reduce(0, +) == 1 && changes.map(\.1).reduce(0, +) == 1
            }
            let change = try #require(changed.last { $0.event.name == .sourceChanged })
            #expect(change.event.rows == 6)
            _ = try app.waitFor("the new photo in sepia, in its place") { events in
                events.contains {
                    $0.event.name == .rowShown && $0.event.photoName == "photo3b.jpg" && $0.event.row == 3
                }
                    && events.contains {
                        if case .rowState(3, _, .filtered) = $0.event { $0.t > change.t } else { false }
                    }
            }
            #expect(app.terminate() == 0)
        }

        @Test(
            "An sftp:// folder is mounted and listed, its rows shown in sepia (heads read through GIO's seekable streams); a photo's address on it opens in the viewer"
        )
        func folderOnSFTP() throws {
            let (share, root) = try share(photos: 12, kind: .sftp)
            defer { try? FileManager.default.removeItem(at: root) }
            let bus = try PrivateBus()
            let app = try open(share.address("cam/"), bus: bus)
            let loaded = try app.waitFor("the folder listed") { events in
                events.contains { [.sourceLoaded, .sourceFailed].contains($0.event.name) }
            }
            let outcome = loaded.last { [.sourceLoaded, .sourceFailed].contains($0.event.name) }
            #expect(outcome?.event.rows == 13, "\(outcome?.event.error ?? "one folder and twelve photos")")
            let events = try app.waitFor("the first screen in sepia") { events in
                let states = AppSession.rowStates(events)
                return (1...5).allSatisfy { states[$0] == .filtered }
            }
            #expect(failures(events).isEmpty, "\(failures(events))")
            #expect(app.terminate() == 0)

            let photo = try open(share.address("cam/photo07.jpg"), bus: bus)
            let shown = try photo.waitFor("the photo in the viewer, its folder listed") { events in
                events.contains { $0.event.name == .viewerOpen && $0.event.photoName == "photo07.jpg" }
                    && events.contains { $0.event.name == .sourceLoaded }
            }
            #expect(shown.last { $0.event.name == .sourceLoaded }?.event.rows == 13)
            #expect(photo.terminate() == 0)
        }

        @Test(
            "A share's folder named by its FUSE path (as a portal's file chooser hands it over) is read as the share, and Alt+Up goes up on the share"
        )
        func fusePathOfShare() throws {
            let (share, root) = try share(photos: 12)
            defer { try? FileManager.default.removeItem(at: root) }
            let runtime = try TestPictures.makeFolder("runtime")
            defer { try? FileManager.default.removeItem(at: runtime) }
            let bus = try PrivateBus(environment: ["XDG_RUNTIME_DIR": runtime.path], fuse: true)
            let fuse = runtime.appendingPathComponent("gvfs")
            defer { _ = try? run(URL(fileURLWithPath: "/usr/bin/fusermount3"), ["-u", "-z", fuse.path]) }
            let mounted = try run(
                URL(fileURLWithPath: "/usr/bin/gio"), ["mount", share.address()],
                environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "XDG_RUNTIME_DIR": runtime.path])
            #expect(mounted.status == 0, "\(mounted.stderr)")
            let cam = fuse.appendingPathComponent("dav:host=127.0.0.1,port=\(share.port),ssl=false/cam")
            let deadline = Date().addingTimeInterval(20)
            while !FileManager.default.fileExists(atPath: cam.appendingPathComponent("photo01.jpg").path),
                Date() < deadline
            {
                usleep(50_000)
            }
            try #require(FileManager.default.fileExists(atPath: cam.path), "GVfs shows no FUSE view at \(fuse.path)")
            let app = try open(cam.path, bus: bus, environment: ["XDG_RUNTIME_DIR": runtime.path])
            let loaded = try app.waitFor(event: .sourceLoaded)
            #expect(loaded.event.rows == 13, "one folder and twelve photos")
            let events = try app.waitFor("the first screen in sepia") { events in
                let states = AppSession.rowStates(events)
                return (1...5).allSatisfy { states[$0] == .filtered }
            }
            #expect(failures(events).isEmpty, "\(failures(events))")
            // The folder above is the share's, not the FUSE folder's.
            try app.xdotool(["key", "alt+Up"])
            _ = try app.waitFor("the share's top") { events in
                events.contains {
                    if case .sourceStart(let url, _) = $0.event { url == share.address() } else { false }
                }
            }
            #expect(app.terminate() == 0)
        }

        @Test("Scrolling past rows whose photos are still coming over a slow share cancels their reads")
        func scrollingCancelsReads() throws {
            // 128 KB a second, shared by the reads: each photo takes the better part of a second.
            let (share, root) = try share(photos: 60, bandwidth: "128k")
            defer { try? FileManager.default.removeItem(at: root) }
            let bus = try PrivateBus()
            let app = try open(share.address("cam/"), bus: bus)
            // The whole folder listed first: End pressed while its last rows were still being
            // handed over went to the end of what was there (rows 40 to 51 of 61, under
            // ThreadSanitizer), and the last rows never came on screen.
            _ = try app.waitFor("the folder listed, reads under way") { events in
                events.contains { $0.event.name == .opStart && $0.event.kind == .download }
                    && events.contains { $0.event.name == .sourceLoaded }
            }
            try app.xdotool(["key", "End"])
            let events = try app.waitFor("the last screen in sepia") { events in
                let states = AppSession.rowStates(events)
                return (57...60).allSatisfy { states[$0] == .filtered }
            }
            let cancelled = events.compactMap { record -> Int? in
                if case .opCancel(.download, let row, _, true) = record.event { row } else { nil }
            }
            #expect(!cancelled.isEmpty, "no running read was cancelled")
            // A read cancelled is never finished.
            for row in cancelled {
                let finished = events.contains {
                    if case .opFinish(.download, row, _, _) = $0.event { true } else { false }
                }
                #expect(!finished, "row \(row) finished its read after it was cancelled")
            }
            #expect(failures(events).isEmpty, "\(failures(events))")
            #expect(app.terminate() == 0)
        }

        @Test(
            "The share stopped mid-scroll: the rows then on screen fail as transport and the app stays up; once it is back, Retry shows them"
        )
        func shareGoesAway() throws {
            let (share, root) = try share(photos: 60)
            defer { try? FileManager.default.removeItem(at: root) }
            let bus = try PrivateBus()
            let app = try open(share.address("cam/"), bus: bus)
            _ = try app.waitFor("the first screen in sepia") { events in
                let states = AppSession.rowStates(events)
                return (1...5).allSatisfy { states[$0] == .filtered }
            }
            share.stop()
            try app.xdotool(["key", "End"])
            let failed = try app.waitFor("the last rows failed") { events in
                let states = AppSession.rowStates(events)
                return (56...60).allSatisfy { states[$0] == .failed }
            }
            let reasons = Dictionary(failures(failed).map { ($0.row, $0.reason) }) { $1 }
            #expect((56...60).allSatisfy { reasons[$0] == .transport }, "\(reasons)")
            // Still up: the window answers keys.
            try app.xdotool(["key", "Home"])
            _ = try app.waitFor("scrolled back") { AppSession.visibleRanges($0).last?.contains(1) == true }

            try share.start()
            let home = app.events().count
            try app.xdotool(["key", "End"])
            // At rest at the end again: the rows where they are clicked.
            _ = try app.waitFor("at the end again") { events in
                events.dropFirst(home).last { $0.event.name == .scrollEnd }?.event.visibleRows?.contains(60) == true
            }
            // Each failed row's own Retry, at its right end (rows are 84 pixels apart; the last
            // one ends 5 above the window's bottom edge, under the failures notice).
            let window = try app.windowGeometry()
            let retried = app.events().count
            for row in 55...57 {
                let y = window.y + window.height - 5 - 42 - (60 - row) * 84
                try app.xdotool(["mousemove", "\(window.x + window.width - 25)", "\(y)", "click", "1"])
            }
            _ = try app.waitFor("the rows retried shown") { events in
                let states = AppSession.rowStates(Array(events.dropFirst(retried)))
                return (55...57).allSatisfy { states[$0] == .filtered }
            }
            #expect(app.terminate() == 0)
        }
    }
}
