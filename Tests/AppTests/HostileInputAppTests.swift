import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension DesktopGUITests {
    /// The real app on a list made to hurt: bombs, a server that drips and one that never
    /// answers, a device, and names with line breaks, NUL, bidi overrides and thousands of
    /// characters. Limits come from the settings (a keyfile of the test's own), set short.
    @Suite(.serialized) struct HostileInputAppTests {
        /// Settings with short deadlines, through the installed schema and a keyfile backend.
        private func settings(in folder: URL) throws -> [String: String] {
            let compiled = try run(
                URL(fileURLWithPath: "/usr/bin/glib-compile-schemas"),
                ["--strict", "--targetdir=\(folder.path)", Products.packageRoot.appendingPathComponent("data").path])
            #expect(compiled.status == 0, "\(compiled.stderr)")
            let keyfile = folder.appendingPathComponent("glib-2.0/settings/keyfile")
            try FileManager.default.createDirectory(
                at: keyfile.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(
                """
                [io/github/classicphotos/ClassicPhotos]
                connect-timeout-seconds=1.0
                silence-timeout-seconds=5.0
                photo-timeout-seconds=2.0
                photo-max-megabytes=5
                window-height=900

                """.utf8
            ).write(to: keyfile)
            return [
                "GSETTINGS_SCHEMA_DIR": folder.path, "GSETTINGS_BACKEND": "keyfile", "XDG_CONFIG_HOME": folder.path,
            ]
        }

        /// Rows of the list: name, address, and the reason the row must fail with (nil: loads).
        private func rows(
            server: LoopbackServer, folder: URL
        ) throws -> [(name: String, url: String, reason: PhotoFailure.Reason?)] {
            let photo = server.url("/photos/coffee.jpg").absoluteString
            try HostilePictures.pngBomb().write(to: folder.appendingPathComponent("bomb.png"))
            var rows: [(String, String, PhotoFailure.Reason?)] = [
                ("JPEG bomb", server.url("/bomb/jpeg").absoluteString, .tooManyPixels),
                ("PNG bomb", "bomb.png", .tooManyPixels),
                ("GIF bomb", server.url("/bomb/gif").absoluteString, .tooManyPixels),
                ("Drip", server.url("/drip?ms=1000").absoluteString, .timeout),
                ("Silent", server.url("/silent").absoluteString, .timeout),
                ("Endless", server.url("/endless").absoluteString, .tooLarge),
                ("Zero device", "file:///dev/zero", .blockedScheme),
                ("Bad address", "ht!tp://x", .invalidAddress),
                ("Line one\nline two\nline three\nline four\nline five\nline six", photo + "?1", nil),
                ("nul\u{0}hidden end", photo + "?2", nil),
                ("invoice\u{202E}gpj.exe", photo + "?3", nil),
                (String(repeating: "A very long name ", count: 400), photo + "?4", nil),
                ("tabs\tand\r\nbreaks\u{2028}\u{2029}\u{85}", photo + "?5", nil),
            ]
            while rows.count < 24 { rows.append(("Photo \(rows.count)", photo + "?\(rows.count)", nil)) }
            return rows
        }

        /// The hostile rows, first in the list: the window (900 pixels high) shows ten or
        /// more rows, and the two after them are loaded ahead.
        static let hostileRows = 13

        /// Writes the list as a binary property list (XML cannot carry NUL) and runs the app on it
        /// until the hostile rows and every row on screen are final.
        private func runApp(
            _ rows: [(name: String, url: String, reason: PhotoFailure.Reason?)], folder: URL,
            environment: [String: String], waitingFor first: Int
        ) throws
            -> (app: AppSession, events: [TraceRecord], window: (x: Int, y: Int, width: Int, height: Int))
        {
            let list = folder.appendingPathComponent("list-\(UUID().uuidString).plist")
            let items = rows.map { ["name": $0.name, "url": $0.url] }
            try PropertyListSerialization.data(fromPropertyList: items, format: .binary, options: 0).write(to: list)
            let app = try AppSession(source: list.path, environment: environment)
            let loaded = try app.waitFor(event: .sourceLoaded)
            #expect(loaded.event.rows == rows.count)
            let window = try app.windowGeometry()
            // On a timeout the trace so far is checked anyway, so the test says what went wrong.
            let events =
                (try? app.waitFor("rows final", timeout: 40) { events in
                    guard let range = AppSession.visibleRanges(events).last else { return false }
                    let states = AppSession.rowStates(events)
                    // A failure is traced by the worker (row.state) before the row shows it (row.status).
                    let shown = Set(events.filter { $0.event.name == .rowStatus }.compactMap(\.event.row))
                    func ended(_ row: Int) -> Bool {
                        states[row] == .filtered || (states[row] == .failed && shown.contains(row))
                    }
                    // The first rows, as far as they are on screen or loaded ahead (two rows).
                    return (0..<min(first, range.upperBound + 3)).allSatisfy(ended) && range.allSatisfy(ended)
                })
                ?? {
                    Issue.record("the rows did not all end within 40 s"); return app.events()
                }()
            return (app, events, window)
        }

        @Test(
            "Bombs, drips, silence, a device and hostile names: each row fails with its code, the loop never stalls, rows keep their height"
        )
        func hostileList() throws {
            let server = try LoopbackServer()
            let folder = try TestPictures.makeFolder("hostile-app")
            defer { try? FileManager.default.removeItem(at: folder) }
            let environment = try settings(in: folder)
            let rows = try rows(server: server, folder: folder)

            let (app, events, window) = try runApp(
                rows, folder: folder, environment: environment, waitingFor: Self.hostileRows)
            let visible = try #require(AppSession.visibleRanges(events).last)
            #expect(visible.count >= 9, "rows on screen: \(visible)")
            let fails = events.filter { $0.event.name == .opFail }
            let statuses = events.filter { $0.event.name == .rowStatus }
            let states = AppSession.rowStates(events)
            for (row, expected) in rows.enumerated() where row < Self.hostileRows {
                let fail = fails.last { $0.event.row == row }
                if let reason = expected.reason {
                    #expect(
                        fail?.event.reason == reason, "row \(row) \(expected.name): \(String(describing: fail?.event))")
                    let text = statuses.last { $0.event.row == row }?.event.text
                    #expect(
                        text == PhotoFailure(reason, detail: "").summary
                            || (reason == .blockedScheme && text == "Not a regular file"),
                        "row \(row): \(text ?? "no status")")
                } else {
                    #expect(
                        states[row] == .filtered,
                        "row \(row) \(expected.name): \(String(describing: states[row])) \(String(describing: fail?.event))"
                    )
                }
            }
            // The trace keeps each name as the list has it.
            let shown = events.compactMap { record -> (Int, String)? in
                guard case .rowShown(let row, _, let name, _) = record.event else { return nil }
                return (row, name)
            }
            #expect(shown.first { $0.0 == 9 }?.1 == rows[9].name)
            let stalls = events.compactMap { $0.event.name == .mainloopStall ? $0.event.ms : nil }
            print(
                "hostile list: rows \(visible), longest stall \(stalls.max() ?? 0) ms, \(stalls.count) stalls over 16 ms"
            )
            #expect(stalls.allSatisfy { $0 < 200 }, "main loop stalls: \(stalls)")
            // Decoding the bombs would take 190 MB (the JPEG, at 1/8) to 14 GB (the PNG).
            let peak = app.peakResidentBytes ?? 0
            print("hostile list: peak resident memory \(peak >> 20) MB")
            // Not under a sanitizer, whose allocator keeps freed memory in quarantine and adds shadow memory.
            if !runsUnderSanitizer {
                #expect(peak > 0 && peak < 300 << 20, "peak resident memory \(peak >> 20) MB")
            }
            #expect(app.terminate() == 0)

            // The same list with plain names and good photos shows exactly as many rows: no
            // name made its row taller.
            let plain = rows.enumerated().map {
                (
                    name: "Photo \($0.offset)", url: server.url("/photos/coffee.jpg?p\($0.offset)").absoluteString,
                    reason: PhotoFailure.Reason?.none
                )
            }
            // The first run stored its window's size on quitting: the same settings again.
            _ = try settings(in: folder)
            let (plainApp, plainEvents, plainWindow) = try runApp(
                plain, folder: folder, environment: environment, waitingFor: 0)
            let plainVisible = try #require(AppSession.visibleRanges(plainEvents).last)
            #expect(window.height == plainWindow.height, "windows \(window) and \(plainWindow)")
            #expect(visible == plainVisible, "hostile names: rows \(visible); plain names: rows \(plainVisible)")
            print("plain list: peak resident memory \((plainApp.peakResidentBytes ?? 0) >> 20) MB")
            #expect(plainApp.terminate() == 0)
        }
    }
}
