import Foundation
import PhotoPipeline
import Testing
import TestSupport

extension DesktopGUITests {
    /// The real window in German and Spanish: its words from the build's catalogues, and counts
    /// grouped the way the language groups digits.
    @Suite(.serialized) struct TranslatedWindowTests {
        /// A folder of 10,001 empty files named like JPEGs: listed by name at once, and each
        /// row that loads fails as an empty file.
        static func bigFolder() throws -> URL {
            let folder = try TestPictures.makeFolder("translated")
            for n in 1...10_001 {
                _ = FileManager.default.createFile(
                    atPath: folder.appendingPathComponent(String(format: "IMG_%05d.jpg", n)).path, contents: nil)
            }
            return folder
        }

        /// Whether the C library can switch to `locale` (meson-helpers/setup.sh generates it).
        static func available(_ locale: String) -> Bool {
            let result = try? run(URL(fileURLWithPath: "/usr/bin/locale"), ["-a"])
            let wanted = locale.lowercased().replacingOccurrences(of: "utf-8", with: "utf8")
            return result?.stdout.lowercased().split(separator: "\n").contains { $0 == wanted } ?? false
        }

        @Test(
            "The window speaks the user's language and groups digits its way", .serialized,
            arguments: [
                ("de", "de_DE.UTF-8", "Wird geladen …", "10.001 Fotos", "fehlgeschlagen", "Leere Datei"),
                ("es", "es_ES.UTF-8", "Cargando…", "10.001 fotos", "con error", "Archivo vacío"),
            ])
        func translated(
            language: String, locale: String, loading: String, photos: String, failed: String, emptyFile: String
        ) throws {
            try #require(Self.available(locale), "the \(locale) locale is missing: run meson-helpers/setup.sh")
            let folder = try Self.bigFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let app = try AppSession(
                source: folder.path,
                environment: ["LANGUAGE": language, "LANG": locale, "LC_ALL": locale])
            // The subtitle once the rows on screen have failed ("10.001 Fotos, 8 fehlgeschlagen"),
            // and a failed row's status line. The count may come first: it also counts the rows
            // loaded ahead below the screen, which have no status line to show.
            let events = try app.waitFor("the subtitle counting failed photos, and a failed row") { events in
                events.contains { $0.event.name == .windowSubtitle && ($0.event.text ?? "").contains(failed) }
                    && events.contains { $0.event.name == .rowStatus }
            }
            let subtitles = events.filter { $0.event.name == .windowSubtitle }.compactMap(\.event.text)
            #expect(subtitles.first == loading, "subtitles: \(subtitles)")
            let last = subtitles.last ?? ""
            #expect(last.hasPrefix(photos + ", "), "\(last)")
            // Each failed row says why in the language.
            let statuses = events.filter { $0.event.name == .rowStatus }.compactMap(\.event.text)
            #expect(!statuses.isEmpty && statuses.allSatisfy { $0 == emptyFile }, "\(statuses)")
            // The trace stays machine-readable whatever the language writes numbers like (a
            // German decimal comma would not parse): every line was read back as an event.
            #expect(events.first?.event.name == .appStart)
            #expect(app.terminate() == 0)
        }

        @Test(
            "A failed photo's reason in German, numbers and all, also when the decoder helper gave it"
        )
        func failureReasons() throws {
            try #require(Self.available("de_DE.UTF-8"), "the de_DE.UTF-8 locale is missing: run meson-helpers/setup.sh")
            let server = try LoopbackServer()
            let cases = [
                ("/status/404", "Nicht gefunden (404)"), ("/status/503", "Serverfehler (503)"),
                ("/text", "Kein Bild"), ("/empty", "Leere Datei"),
            ]
            let list = try TestPictures.makeFolder("translated-failures").appendingPathComponent("list.plist")
            defer { try? FileManager.default.removeItem(at: list.deletingLastPathComponent()) }
            let items =
                cases.enumerated().map {
                    ["name": "Fall \($0.offset)", "url": server.url($0.element.0).absoluteString]
                }
                + [["name": "Fehlt", "url": "no-such-file.jpg"]]
            try PropertyListSerialization.data(fromPropertyList: items, format: .xml, options: 0).write(to: list)
            let app = try AppSession(
                source: list.path, environment: ["LANGUAGE": "de", "LANG": "de_DE.UTF-8", "LC_ALL": "de_DE.UTF-8"])
            let events = try app.waitFor("every row failed with a status shown") { events in
                Set(events.filter { $0.event.name == .rowStatus }.compactMap(\.event.row)).count == cases.count + 1
            }
            let statuses = events.filter { $0.event.name == .rowStatus }
            for (row, text) in (cases.map(\.1) + ["Datei nicht gefunden"]).enumerated() {
                #expect(statuses.last { $0.event.row == row }?.event.text == text, "row \(row)")
            }
            // The trace's reasons stay English.
            let errors = events.filter { $0.event.name == .opFail }.compactMap(\.event.error)
            #expect(errors.contains { $0.contains("404") }, "\(errors)")
            #expect(app.terminate() == 0)
        }

        @Test("Without a translation for the language, the window speaks English")
        func english() throws {
            let folder = try Self.bigFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let app = try AppSession(
                source: folder.path, environment: ["LANGUAGE": "", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"])
            let events = try app.waitFor("the subtitle counting failed photos, and a failed row") { events in
                events.contains { $0.event.name == .windowSubtitle && ($0.event.text ?? "").contains("failed") }
                    && events.contains { $0.event.name == .rowStatus }
            }
            let subtitles = events.filter { $0.event.name == .windowSubtitle }.compactMap(\.event.text)
            #expect(subtitles.first == "Loading…", "subtitles: \(subtitles)")
            #expect(subtitles.last?.hasPrefix("10001 photos, ") == true, "subtitles: \(subtitles)")
            let statuses = events.filter { $0.event.name == .rowStatus }.compactMap(\.event.text)
            #expect(!statuses.isEmpty && statuses.allSatisfy { $0 == "Empty file" }, "\(statuses)")
            #expect(app.terminate() == 0)
        }
    }
}
