import Foundation
import FoundationXML
import PhotoPipeline
import Testing
import TestSupport

/// The translations: complete in every language, and the template holding every message the
/// sources mark, so a string wrapped in `tr()` but never extracted (a new file, a multi-line
/// literal xgettext cannot read) fails here rather than showing in English.
@Suite struct LocalizationTests {
    static let po = Products.packageRoot.appendingPathComponent("po")

    static var languages: [String] {
        let text = (try? String(contentsOf: po.appendingPathComponent("LINGUAS"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map { $0.split(separator: "#", omittingEmptySubsequences: false)[0] }
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    @Test("po/LINGUAS names German and Spanish, each with a catalogue")
    func languagesListed() {
        #expect(Set(Self.languages).isSuperset(of: ["de", "es"]), "\(Self.languages)")
        for language in Self.languages {
            #expect(FileManager.default.fileExists(atPath: Self.po.appendingPathComponent("\(language).po").path))
        }
    }

    @Test("Every translation is complete: msgfmt counts every message of the template translated, none fuzzy")
    func translationsComplete() async throws {
        let template = try Catalogue(Self.po.appendingPathComponent("classic-photos.pot"))
        #expect(template.messages.count > 100, "the template holds only \(template.messages.count) messages")
        for language in Self.languages {
            let file = Self.po.appendingPathComponent("\(language).po")
            let result = try await run(
                URL(fileURLWithPath: "/usr/bin/msgfmt"), ["--check", "--statistics", "-o", "/dev/null", file.path])
            #expect(result.status == 0, "msgfmt --check \(language).po: \(result.stderr)")
            let statistics = result.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(
                statistics == "\(template.messages.count) translated messages.",
                "\(language).po: \(statistics) (the template has \(template.messages.count))")
            let catalogue = try Catalogue(file)
            #expect(
                Set(catalogue.messages.keys) == Set(template.messages.keys),
                "\(language).po and the template differ: run po/update.sh")
            #expect(catalogue.header.contains("Plural-Forms: nplurals=2; plural=(n != 1);"), "\(language).po")
        }
    }

    @Test("Every tr(), ntr() and translatable() literal in Sources is in the template")
    func sourcesExtracted() async throws {
        let template = try Catalogue(Self.po.appendingPathComponent("classic-photos.pot"))
        let sources = Products.packageRoot.appendingPathComponent("Sources")
        // Scanning every source takes seconds of a debug build: not on a thread tasks share,
        // where it would hold back the tests beside it.
        let calls = try await onOwnThread {
            let files =
                FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?
                .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
            return try files.flatMap { file in
                MarkedCall.all(in: try String(contentsOf: file, encoding: .utf8)).map { (file.lastPathComponent, $0) }
            }
        }
        var found = 0
        for (name, call) in calls {
            let place = "\(name): \(call.function)(\(call.arguments.first ?? "…"))"
            guard let singular = call.arguments.first else {
                Issue.record("\(place): the message must be one single-line literal, without interpolation")
                continue
            }
            found += 1
            #expect(template.messages[singular] != nil, "\(place) is not in po/classic-photos.pot")
            if call.function == "ntr" {
                #expect(
                    call.arguments.count == 2 && template.messages[singular] == call.arguments.last,
                    "\(place): its plural is not in po/classic-photos.pot")
            }
        }
        #expect(found > 80, "only \(found) marked messages found in Sources")
    }

    @Test(
        "A failed photo's few words are made from its typed value, its number or name put into the translated words",
        arguments: [
            ("de", "Nicht gefunden (404)", "Format nicht unterstützt (Photoshop-Bild)", "Serverfehler (503)"),
            ("es", "No encontrada (404)", "Formato no admitido (Photoshop-Bild)", "Error del servidor (503)"),
        ])
    func failureSummaries(language: String, notFound: String, format: String, serverError: String) throws {
        let catalogue = try Catalogue(Self.po.appendingPathComponent("\(language).po"))
        let translated = MessageCatalogue.Language { catalogue.translations[$0] ?? "(missing: \($0))" }
        let http = PhotoFailure.http(status: 404, phrase: "Not Found")
        #expect(http.kind == .http(status: 404) && http.reason == .http)
        #expect(http.summary(in: translated) == notFound)
        #expect(PhotoFailure.http(status: 503, phrase: "").summary(in: translated) == serverError)
        let unsupported = PhotoFailure(.formatNotSupported(name: "Photoshop-Bild"), detail: "")
        #expect(unsupported.reason == .unsupported)
        #expect(unsupported.summary(in: translated) == format)
        // English, as traced and asserted, is made the same way.
        #expect(http.summary == "Not found (404)" && unsupported.summary == "Format not supported (Photoshop-Bild)")
        // Every kind has its words in the catalogue.
        let kinds: [PhotoFailure.Kind] =
            PhotoFailure.Reason.allCases.map { .plain($0) }
            + [401, 404, 429, 500, 418].map { .http(status: $0) }
            + [
                .folder, .notRegularFile, .unsupportedAddress, .wrongPart, .damaged(format: "BMP"), .unsupportedPicture,
                .formatNotSupported(name: "JPEG XL"), .noRawPreview, .undecodable,
            ]
        for kind in kinds {
            let words = PhotoFailure(kind, detail: "").summary(in: translated)
            #expect(!words.contains("(missing: "), "\(language): \(kind): \(words)")
        }
    }

    @Test("The scanner sees what xgettext could not read")
    func scannerCatchesUnreadableLiterals() {
        let calls = MarkedCall.all(
            in: #"""
                let a = tr("Plain")
                let b = ntr("%@ photo", "%@ photos", n)
                let c = tr("Hello \(name)")
                let d = tr(
                    """
                    Several lines
                    """)
                let e = attr("not a call of ours")
                func tr(_ message: String) -> String { message }
                """#)
        #expect(calls.map(\.function) == ["tr", "ntr", "tr", "tr"])
        #expect(calls[0].arguments == ["Plain"])
        #expect(calls[1].arguments == ["%@ photo", "%@ photos"])
        #expect(calls[2].arguments.isEmpty)
        #expect(calls[3].arguments.isEmpty)
    }

    @Test("Every label, title and tooltip in the GtkBuilder files is marked translatable")
    func builderFilesMarked() throws {
        let resources = Products.packageRoot.appendingPathComponent("data/resources")
        let files =
            FileManager.default.enumerator(at: resources, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "ui" } ?? []
        #expect(files.count >= 6)
        let texts = try NSRegularExpression(
            pattern: #"<(property|attribute) name="(label|title|tooltip-text|heading|body)"([^>]*)>([^<]*)<"#)
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(text.contains("<interface domain=\"classic-photos\">"), "\(file.lastPathComponent)")
            for match in texts.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let attributes = String(text[Range(match.range(at: 3), in: text)!])
                let value = String(text[Range(match.range(at: 4), in: text)!])
                // Text with no word in it ("100 %") has nothing to translate.
                guard value.contains(where: \.isLetter) else { continue }
                #expect(
                    attributes.contains("translatable=\"yes\""),
                    "\(file.lastPathComponent): “\(value)” is not marked translatable")
            }
        }
    }

    @Test("Within each menu of the app, in every language, no two items share a mnemonic")
    func menuMnemonics() throws {
        // A letter two items share moves the focus between them rather than choosing one: in
        // the Sort By submenu, whose header is "Sort By", S never chose "Size".
        let folder = Products.packageRoot.appendingPathComponent("data/resources/ui")
        let menus = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".ui") }
            .flatMap { MenuLevels(try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8)).levels }
        #expect(menus.count >= 3, "menus read from the builder files: \(menus)")
        let catalogues =
            try [("en", nil)] + Self.languages.map { ($0, try Catalogue(Self.po.appendingPathComponent("\($0).po"))) }
        for (language, catalogue) in catalogues {
            for labels in menus {
                let shown = labels.map { catalogue?.translations[$0] ?? $0 }
                var seen: [Character: String] = [:]
                for label in shown {
                    guard let underscore = label.firstIndex(of: "_"), label.index(after: underscore) < label.endIndex
                    else { continue }
                    let key = Character(label[label.index(after: underscore)].lowercased())
                    #expect(seen[key] == nil, "\(language): \"\(label)\" and \"\(seen[key] ?? "")\" share \(key)")
                    seen[key] = label
                }
            }
        }
    }
}

/// A call of `tr`, `ntr` or `translatable` in Swift source, with its string arguments: each a
/// single-line literal without interpolation (what xgettext reads), or none when the first
/// argument is anything else.
struct MarkedCall {
    let function: String
    let arguments: [String]

    static func all(in text: String) -> [MarkedCall] {
        let scalars = Array(text.unicodeScalars)
        var calls: [MarkedCall] = []
        var index = 0
        func isIdentifier(_ s: Unicode.Scalar) -> Bool { s == "_" || CharacterSet.alphanumerics.contains(s) }
        while index < scalars.count {
            // Skip comments and string literals outside calls.
            if scalars[index] == "/", index + 1 < scalars.count, scalars[index + 1] == "/" {
                while index < scalars.count, scalars[index] != "\n" { index += 1 }
                continue
            }
            if scalars[index] == "\"" {
                index = skipLiteral(scalars, from: index)
                continue
            }
            guard isIdentifier(scalars[index]), index == 0 || !isIdentifier(scalars[index - 1]) else {
                index += 1
                continue
            }
            var end = index
            while end < scalars.count, isIdentifier(scalars[end]) { end += 1 }
            let name = String(String.UnicodeScalarView(scalars[index..<end]))
            index = end
            guard ["tr", "ntr", "translatable"].contains(name), end < scalars.count, scalars[end] == "(" else {
                continue
            }
            // The functions' own declarations are no calls.
            var before = index - name.unicodeScalars.count - 1
            while before >= 0, scalars[before] == " " { before -= 1 }
            if before >= 3, String(String.UnicodeScalarView(scalars[(before - 3)...before])) == "func" { continue }
            var arguments: [String] = []
            var position = end + 1
            while let (literal, next) = literal(scalars, at: position) {
                arguments.append(literal)
                position = next
                while position < scalars.count, scalars[position] == " " || scalars[position] == "\n" {
                    position += 1
                }
                guard position < scalars.count, scalars[position] == "," else { break }
                position += 1
            }
            if !arguments.isEmpty && name == "ntr" && arguments.count < 2 { arguments = [] }
            // A first argument that is not a plain literal is no message xgettext can read.
            let first = skipSpace(scalars, from: end + 1)
            let readable = first < scalars.count && scalars[first] == "\"" && !arguments.isEmpty
            calls.append(MarkedCall(function: name, arguments: readable ? arguments : []))
            if !readable, first < scalars.count, scalars[first] == "\"" { index = skipLiteral(scalars, from: first) }
        }
        return calls
    }

    private static func skipSpace(_ scalars: [Unicode.Scalar], from start: Int) -> Int {
        var index = start
        while index < scalars.count, scalars[index] == " " || scalars[index] == "\n" { index += 1 }
        return index
    }

    /// Past the string literal (single- or multi-line) starting at `start`.
    private static func skipLiteral(_ scalars: [Unicode.Scalar], from start: Int) -> Int {
        let triple = start + 2 < scalars.count && scalars[start + 1] == "\"" && scalars[start + 2] == "\""
        var index = start + (triple ? 3 : 1)
        while index < scalars.count {
            if scalars[index] == "\\" {
                index += 2
                continue
            }
            if scalars[index] == "\"" {
                if !triple { return index + 1 }
                if index + 2 < scalars.count, scalars[index + 1] == "\"", scalars[index + 2] == "\"" {
                    return index + 3
                }
            }
            if !triple, scalars[index] == "\n" { return index }
            index += 1
        }
        return index
    }

    /// The single-line, interpolation-free literal at `start` (after spaces) and what follows
    /// it, or nil.
    private static func literal(_ scalars: [Unicode.Scalar], at start: Int) -> (String, Int)? {
        var index = skipSpace(scalars, from: start)
        guard index < scalars.count, scalars[index] == "\"" else { return nil }
        if index + 1 < scalars.count, scalars[index + 1] == "\"", index + 2 < scalars.count,
            scalars[index + 2] == "\""
        {
            return nil // multi-line
        }
        index += 1
        var value = String.UnicodeScalarView()
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\n" { return nil }
            if scalar == "\"" { return (String(value), index + 1) }
            if scalar == "\\" {
                guard index + 1 < scalars.count else { return nil }
                let escaped = scalars[index + 1]
                switch escaped {
                case "n": value.append("\n")
                case "t": value.append("\t")
                case "\"", "\\", "'": value.append(escaped)
                default: return nil // interpolation, or an escape xgettext reads differently
                }
                index += 2
                continue
            }
            value.append(scalar)
            index += 1
        }
        return nil
    }
}

/// The messages of a `.po` or `.pot` file: msgid → msgid_plural (or "" for a message without
/// one), and the header.
struct Catalogue {
    /// Each message's plural ("" for none), by its `msgid`.
    var messages: [String: String] = [:]
    /// Each message's translation (its `msgstr`), by its `msgid`; none in the template.
    var translations: [String: String] = [:]
    var header = ""

    init(_ url: URL) throws {
        let text = try String(contentsOf: url, encoding: .utf8)
        var field = ""
        var values: [String: String] = [:]
        func finish() {
            if let id = values["msgid"] {
                if id.isEmpty {
                    header = values["msgstr"] ?? ""
                } else {
                    messages[id] = values["msgid_plural"] ?? ""
                    if let translation = values["msgstr"], !translation.isEmpty { translations[id] = translation }
                }
            }
            values = [:]
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("#~") { continue }
            if line.hasPrefix("msgid ") { finish() }
            if let space = line.firstIndex(of: " "), line.first?.isLetter == true {
                field = String(line[..<space])
                values[field] = Self.unquote(line[line.index(after: space)...])
            } else if line.hasPrefix("\"") {
                values[field, default: ""] += Self.unquote(line[...])
            }
        }
        finish()
    }

    private static func unquote(_ quoted: Substring) -> String {
        var text = quoted.trimmingCharacters(in: .whitespaces)
        guard text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 else { return "" }
        text = String(text.dropFirst().dropLast())
        var result = ""
        var escaping = false
        for character in text {
            if escaping {
                switch character {
                case "n": result.append("\n")
                case "t": result.append("\t")
                default: result.append(character)
                }
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                result.append(character)
            }
        }
        return result
    }
}

/// The labels each menu of a GtkBuilder file shows together: a menu's items and submenus
/// across its sections, and a submenu's items with its own label (its page's header).
struct MenuLevels {
    private(set) var levels: [[String]] = []

    init(_ ui: String) {
        final class Reader: NSObject, XMLParserDelegate {
            var stack: [[String]] = []
            var levels: [[String]] = []
            var inLabel = false
            var label = ""
            /// Whether the element whose label comes next is a submenu (its label belongs to
            /// the level above and to its own page).
            var kinds: [String] = []

            func parser(
                _ parser: XMLParser, didStartElement element: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]
            ) {
                switch element {
                case "menu": stack.append([])
                case "submenu": stack.append([]); kinds.append("submenu")
                case "item": kinds.append("item")
                case "attribute" where attributes["name"] == "label": inLabel = true; label = ""
                default: break
                }
            }

            func parser(_ parser: XMLParser, foundCharacters string: String) { if inLabel { label += string } }

            func parser(
                _ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?
            ) {
                switch element {
                case "attribute" where inLabel:
                    inLabel = false
                    if kinds.last == "submenu", stack.count >= 2 {
                        stack[stack.count - 2].append(label) // shown in the level above
                        stack[stack.count - 1].append(label) // and as its page's header
                    } else if !stack.isEmpty {
                        stack[stack.count - 1].append(label)
                    }
                case "item": kinds.removeLast()
                case "menu", "submenu":
                    if element == "submenu" { kinds.removeLast() }
                    if let level = stack.popLast() { levels.append(level) }
                default: break
                }
            }
        }
        let reader = Reader()
        let parser = XMLParser(data: Data(ui.utf8))
        parser.delegate = reader
        _ = parser.parse()
        levels = reader.levels
    }
}
