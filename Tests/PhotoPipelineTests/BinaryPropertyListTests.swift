import Foundation
@testable import PhotoPipeline
import Testing
import TestSupport

/// Writes binary property lists object by object, so tests can make ones no writer would:
/// wrong kinds in odd places, references that loop, strings in either encoding.
struct BinaryListBuilder {
    enum Object {
        case ascii(String)
        case utf16([UInt16])
        case integer(UInt8)
        case array([Int])
        case set([Int])
        case dictionary([(key: Int, value: Int)])
        /// Bytes written as they are, marker included.
        case raw([UInt8])
    }

    var objects: [Object] = []

    @discardableResult
    mutating func add(_ object: Object) -> Int {
        objects.append(object)
        return objects.count - 1
    }

    /// The file: header, objects, offset table, trailer.
    func build(root: Int = 0, referenceSize: Int = 1, offsetSize: Int = 2) -> [UInt8] {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        func bigEndian(_ value: UInt64, _ size: Int) -> [UInt8] {
            (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
        }
        func marker(_ kind: UInt8, _ count: Int) -> [UInt8] {
            if count < 15 { return [kind << 4 | UInt8(count)] }
            return [kind << 4 | 0xF, 0x13] + bigEndian(UInt64(count), 8)
        }
        func references(_ list: [Int]) -> [UInt8] {
            list.flatMap { bigEndian(UInt64($0), referenceSize) }
        }
        for object in objects {
            offsets.append(bytes.count)
            switch object {
            case .ascii(let text): bytes += marker(0x5, text.utf8.count) + Array(text.utf8)
            case .utf16(let units): bytes += marker(0x6, units.count) + units.flatMap { bigEndian(UInt64($0), 2) }
            case .integer(let value): bytes += [0x10, value]
            case .array(let items): bytes += marker(0xA, items.count) + references(items)
            case .set(let items): bytes += marker(0xC, items.count) + references(items)
            case .dictionary(let pairs):
                bytes += marker(0xD, pairs.count) + references(pairs.map(\.key)) + references(pairs.map(\.value))
            case .raw(let raw): bytes += raw
            }
        }
        let table = bytes.count
        bytes += offsets.flatMap { bigEndian(UInt64($0), offsetSize) }
        bytes += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        bytes += bigEndian(UInt64(objects.count), 8) + bigEndian(UInt64(root), 8) + bigEndian(UInt64(table), 8)
        return bytes
    }
}

/// The same list in the trailer's fields changed: `field` 0 is the object count, 1 the root
/// object, 2 the offset table's offset.
func withTrailerField(_ bytes: [UInt8], _ field: Int, _ value: UInt64) -> [UInt8] {
    var bytes = bytes
    let start = bytes.count - 24 + 8 * field
    for index in 0..<8 { bytes[start + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(7 - index))) }
    return bytes
}

/// Parses `bytes` as the list “list.plist”.
func parseList(_ bytes: [UInt8]) throws(PhotoSourceError) -> ParsedPhotoList {
    try PropertyListParser.parse(Data(bytes), name: "list.plist")
}

/// The rows of `list` as "name → link", sorted when the order does not count.
func rows(_ list: ParsedPhotoList) -> [String] {
    let rows = zip(list.names, list.links).map { "\($0) → \($1)" }
    return list.form == .dictionary ? rows.sorted() : rows
}

let notAPropertyList = PhotoSourceError.notAPropertyList(list: "list.plist")

@Suite struct BinaryPropertyListTests {
    func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
    }

    /// Names that need both string encodings, a long one (an extended length) and plain ones;
    /// enough rows that references take two bytes.
    var names: [String] {
        ["Café", "日本の写真", "Fish 🐟", "A & B <c>", String(repeating: "long name ", count: 12), "", "x"]
            + (0..<300).map { "photo \($0)" }
    }

    @Test("A binary dictionary gives the rows an XML one does, values that are not strings included")
    func dictionaryMatchesXML() throws {
        var dictionary: [String: Any] = [:]
        var xml = "<dict>"
        for (index, name) in names.enumerated() {
            let link = "https://example.org/\(index)/\(name).jpg"
            switch index % 9 {
            case 1:
                dictionary[name] = index
                xml += "<key>\(escaped(name))</key><integer>\(index)</integer>"
            case 2:
                dictionary[name] = 1.5
                xml += "<key>\(escaped(name))</key><real>1.5</real>"
            case 3:
                dictionary[name] = [link]
                xml += "<key>\(escaped(name))</key><array><string>\(escaped(link))</string></array>"
            case 4:
                dictionary[name] = ["url": link]
                xml += "<key>\(escaped(name))</key><dict><key>url</key><string>\(escaped(link))</string></dict>"
            case 5:
                dictionary[name] = Data([1, 2, 3])
                xml += "<key>\(escaped(name))</key><data>AQID</data>"
            case 6:
                dictionary[name] = Date(timeIntervalSinceReferenceDate: 0)
                xml += "<key>\(escaped(name))</key><date>2001-01-01T00:00:00Z</date>"
            default:
                dictionary[name] = link
                xml += "<key>\(escaped(name))</key><string>\(escaped(link))</string>"
            }
        }
        let binary = try PropertyListSerialization.data(fromPropertyList: dictionary, format: .binary, options: 0)
        #expect(binary.starts(with: Array("bplist00".utf8)))
        let fromBinary = try PropertyListParser.parse(binary, name: "list.plist")
        let fromXML = try PropertyListParser.parse(Data(plist(xml + "</dict>").utf8), name: "list.plist")
        #expect(fromBinary.form == .dictionary)
        #expect(fromBinary.count == names.count)
        #expect(rows(fromBinary) == rows(fromXML))
        #expect(fromBinary.names.contains("日本の写真") && fromBinary.names.contains("Fish 🐟"))
    }

    @Test("A binary array gives the rows an XML one does, in the same order")
    func arrayMatchesXML() throws {
        var items: [[String: Any]] = []
        var xml = "<array>"
        for (index, name) in names.enumerated() {
            let link = "img/\(index).jpg"
            let nameXML = "<key>name</key><string>\(escaped(name))</string>"
            switch index % 4 {
            case 1:
                items.append(["name": name])
                xml += "<dict>\(nameXML)</dict>"
            case 2:
                items.append(["name": name, "url": index])
                xml += "<dict>\(nameXML)<key>url</key><integer>\(index)</integer></dict>"
            case 3:
                items.append(["name": name, "url": link, "size": index, "tags": ["a", "b"]])
                xml +=
                    "<dict><key>size</key><integer>\(index)</integer><key>url</key><string>\(link)</string>"
                    + "\(nameXML)<key>tags</key><array><string>a</string><string>b</string></array></dict>"
            default:
                items.append(["name": name, "url": link])
                xml += "<dict>\(nameXML)<key>url</key><string>\(link)</string></dict>"
            }
        }
        let binary = try PropertyListSerialization.data(fromPropertyList: items, format: .binary, options: 0)
        let fromBinary = try PropertyListParser.parse(binary, name: "list.plist")
        let fromXML = try PropertyListParser.parse(Data(plist(xml + "</array>").utf8), name: "list.plist")
        #expect(fromBinary.form == .array)
        #expect(fromBinary.names == names)
        #expect(rows(fromBinary) == rows(fromXML))
    }

    @Test("Wrong shapes give the errors the XML reader gives")
    func shapes() throws {
        func binary(_ list: Any) throws -> [UInt8] {
            try [UInt8](PropertyListSerialization.data(fromPropertyList: list, format: .binary, options: 0))
        }
        let shapeError = PhotoSourceError.notAPhotoList
        #expect(throws: shapeError) { try parseList(binary("just a string")) }
        #expect(throws: shapeError) { try parseList(binary(12)) }
        #expect(throws: PhotoSourceError.itemNotADictionary(item: 1)) {
            try parseList(binary([["name": "A", "url": "a.jpg"], "b.jpg"]))
        }
        #expect(throws: PhotoSourceError.itemWithoutName(item: 1)) {
            try parseList(binary([["name": "A"], ["url": "b.jpg"]]))
        }
        #expect(throws: PhotoSourceError.itemWithoutName(item: 0)) {
            try parseList(binary([["name": 3, "url": "b.jpg"]]))
        }
        #expect(try parseList(binary([String: String]())).count == 0)
        #expect(try parseList(binary([Any]())).form == .array)
    }

    @Test("The list that crashed Foundation (a set among the values) reads, the set as a row without an address")
    func foundationCrash() throws {
        let data = Data(
            base64Encoded: "YnBsaXN0MDDSAQIDBlFjUWHBBAVRZBABUWIIDQ8RFBYYAAAAAAAAAQEAAAAAAAAABwAAAAAAAAAAAAAAAAAAABo=")!
        let list = try PropertyListParser.parse(data, name: "list.plist")
        #expect(rows(list) == ["a → b", "c → "])
        // The set as the root is not a list.
        var builder = BinaryListBuilder()
        builder.add(.set([1]))
        builder.add(.ascii("a"))
        #expect(throws: PhotoSourceError.notAPhotoList) { try parseList(builder.build()) }
    }

    @Test("References that loop back are not followed")
    func loops() throws {
        // A dictionary whose value is itself, and an array whose item is itself.
        var dictionary = BinaryListBuilder()
        dictionary.add(.dictionary([(1, 0), (2, 3)]))
        dictionary.add(.ascii("self"))
        dictionary.add(.ascii("other"))
        dictionary.add(.ascii("o.jpg"))
        #expect(rows(try parseList(dictionary.build())) == ["other → o.jpg", "self → "])
        var array = BinaryListBuilder()
        array.add(.array([1, 0]))
        array.add(.dictionary([(2, 4), (3, 4)]))
        array.add(.ascii("name"))
        array.add(.ascii("url"))
        array.add(.ascii("u.jpg"))
        #expect(throws: PhotoSourceError.itemNotADictionary(item: 1)) { try parseList(array.build()) }
        array.objects[0] = .array([1, 1])
        #expect(rows(try parseList(array.build())) == ["u.jpg → u.jpg", "u.jpg → u.jpg"])
        // An item whose name, and whose address, is the item.
        array.add(.dictionary([(2, 5), (3, 5)]))
        array.objects[0] = .array([5])
        #expect(throws: PhotoSourceError.itemWithoutName(item: 0)) { try parseList(array.build()) }
    }

    @Test("Strings in UTF-16 and ASCII; invalid text is replaced, never trapped on; keys must be strings")
    func strings() throws {
        var builder = BinaryListBuilder()
        builder.add(.dictionary([(1, 2), (3, 4), (5, 6)]))
        builder.add(.utf16([0x0043, 0x0061, 0x0066, 0x00E9])) // Café
        builder.add(.utf16([0xD83D, 0xDC1F, 0x002E, 0x006A])) // 🐟.j
        builder.add(.utf16([0xD800, 0x0041, 0xDC00])) // lone surrogates around "A"
        builder.add(.ascii("a.jpg"))
        builder.add(.raw([0x52, 0x41, 0xFF])) // ASCII with a byte that is not
        builder.add(.utf16([]))
        let list = try parseList(builder.build())
        #expect(rows(list) == ["A\u{FFFD} → ", "Café → 🐟.j", "\u{FFFD}A\u{FFFD} → a.jpg"])
        // A key that is not a string.
        builder.objects[0] = .dictionary([(1, 2), (7, 4)])
        builder.add(.integer(3))
        #expect(throws: notAPropertyList) { try parseList(builder.build()) }
        // The same in an item.
        builder.objects[0] = .array([8])
        builder.add(.dictionary([(7, 4)]))
        #expect(throws: notAPropertyList) { try parseList(builder.build()) }
    }

    @Test("UTF-16 text decodes as the standard library decodes it, surrogates good and bad")
    func utf16() throws {
        var generator = SplitMix64(state: 16)
        let pool: [UInt16] = [
            0x41, 0x7F, 0x80, 0xE9, 0x7FF, 0x800, 0x2013, 0xFFFD, 0xFFFF, 0xD7FF, 0xE000,
            0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xD83D, 0xDC1F,
        ]
        for _ in 0..<500 {
            let units = (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                Bool.random(using: &generator)
                    ? pool.randomElement(using: &generator)! : UInt16.random(in: 0...0xFFFF, using: &generator)
            }
            var builder = BinaryListBuilder()
            builder.add(.dictionary([(1, 2)]))
            builder.add(.ascii("k"))
            builder.add(.utf16(units))
            #expect(try parseList(builder.build()).links == [String(decoding: units, as: UTF16.self)], "\(units)")
        }
    }

    @Test("Other lists that are not XML are refused, OpenStep ones included")
    func notXML() {
        for text in ["{ a = \"a.jpg\"; }", "(\"a\")", "bplist01", "bplist00", "", "\u{FEFF}{}"] {
            #expect(throws: notAPropertyList, "\(text)") { try parseList(Array(text.utf8)) }
        }
    }

    /// A small list of either form, as Foundation writes it.
    func sampleLists() throws -> [[UInt8]] {
        let dictionary: [String: Any] = [
            "Café": "café.jpg", "img2": "2.jpg", "n": 7, "日本": "写真.jpg",
            "nested": ["x": ["y"]], String(repeating: "a", count: 20): "b",
        ]
        let array: [[String: Any]] = [
            ["name": "A", "url": "a.jpg"], ["name": "Bé", "url": 3.5],
            ["name": "C", "url": "c.jpg", "tags": ["t"]],
        ]
        return try [dictionary, array].map {
            try [UInt8](PropertyListSerialization.data(fromPropertyList: $0, format: .binary, options: 0))
        }
    }

    @Test("A binary list cut short at any length gives an error or a list, never a crash")
    func truncated() throws {
        for list in try sampleLists() + [
            Array(
                Data(
                    base64Encoded:
                        "YnBsaXN0MDDSAQIDBlFjUWHBBAVRZBABUWIIDQ8RFBYYAAAAAAAAAQEAAAAAAAAABwAAAAAAAAAAAAAAAAAAABo=")!)
        ] {
            #expect(throws: Never.self) { try parseList(list) }
            var cut = 0
            for length in 0..<list.count {
                // The end cut off; and the objects' start, with the header kept.
                if (try? parseList(Array(list[..<length]))) == nil { cut += 1 }
                _ = try? parseList(Array("bplist00".utf8) + list[min(8 + length / 2, list.count)...])
            }
            #expect(cut == list.count)
        }
    }

    @Test("20,000 lists with bytes changed at random each give an error or a list, never a crash")
    func mutants() throws {
        var generator = SplitMix64(state: 0x6270_6C69_7374_3030)
        let samples = try sampleLists()
        let interesting: [UInt8] = [0x00, 0x01, 0x0F, 0x10, 0x13, 0x5F, 0x6F, 0x7F, 0x80, 0xAF, 0xDF, 0xFF]
        let start = Date()
        var (lists, errors, tried) = (0, 0, 0)
        while tried < 20_000, Date().timeIntervalSince(start) < 10 {
            tried += 1
            var bytes = samples[tried % samples.count]
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                // Half the changes in the trailer and offset table, where sizes and offsets live.
                let index =
                    Bool.random(using: &generator) && bytes.count > 48
                    ? Int.random(in: (bytes.count - 48)..<bytes.count, using: &generator)
                    : Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes[index] ^= 1 << UInt8.random(in: 0..<8, using: &generator)
                case 1: bytes[index] = interesting.randomElement(using: &generator)!
                default: bytes[index] = UInt8.random(in: 0...255, using: &generator)
                }
            }
            do {
                _ = try parseList(bytes)
                lists += 1
            } catch {
                errors += 1
            }
        }
        #expect(tried == 20_000, "only \(tried) mutants in 10 s")
        // Both outcomes happen: the changes reach the structure and the text.
        #expect(lists > 100 && errors > 100, "\(lists) lists, \(errors) errors")
    }

    @Test("Huge counts, offsets and lengths are refused at once, with nothing big allocated")
    func hugeClaims() throws {
        var builder = BinaryListBuilder()
        builder.add(.dictionary([(1, 2)]))
        builder.add(.ascii("a"))
        builder.add(.ascii("a.jpg"))
        let list = builder.build()
        #expect(rows(try parseList(list)) == ["a → a.jpg"])
        let start = Date()
        var hostile: [[UInt8]] = []
        for value: UInt64 in [0, 4, 1 << 20, 1 << 40, UInt64(Int.max), .max] {
            hostile.append(withTrailerField(list, 0, value)) // object count
            hostile.append(withTrailerField(list, 1, value &+ 3)) // root object
            hostile.append(withTrailerField(list, 2, value)) // offset table
        }
        // Offsets of eight bytes: the table no longer fits.
        var wide = list
        wide[wide.count - 26] = 8
        hostile.append(wide)
        // A dictionary, a string and an array claiming 2⁶³ − 1 and 2⁶⁰ entries with an extended length.
        for kind: UInt8 in [0xD, 0x5, 0x6, 0xA, 0x4] {
            for size: UInt64 in [UInt64(Int.max), 1 << 60, 1 << 32, 300] {
                var claim = BinaryListBuilder()
                claim.add(
                    .raw(
                        [kind << 4 | 0xF, 0x13]
                            + (0..<8).reversed().map { UInt8(truncatingIfNeeded: size >> (8 * UInt64($0))) }))
                hostile.append(claim.build())
            }
        }
        // An offset table claiming more entries than fit, with a valid root.
        hostile.append(withTrailerField(list, 0, UInt64(list.count)))
        for bytes in hostile {
            let error = #expect(throws: PhotoSourceError.self) { try parseList(bytes) }
            #expect(error == notAPropertyList || error == .notAPhotoList)
        }
        #expect(Date().timeIntervalSince(start) < 1 * sanitizerSlowdown)
    }

    @Test("A few bytes of references to one long string are refused before they become gigabytes of rows")
    func textAllowance() throws {
        let long = String(repeating: "x", count: 1 << 20)
        var builder = BinaryListBuilder()
        let rowCount = 60_000
        builder.add(.dictionary(Array(repeating: (key: 1, value: 1), count: rowCount)))
        builder.add(.ascii(long))
        let bytes = builder.build()
        // 60,000 rows of 2 MiB each: 120 GiB from a file of 1.2 MB.
        #expect(bytes.count < 2 << 20)
        let start = Date()
        #expect(throws: notAPropertyList) { try parseList(bytes) }
        #expect(Date().timeIntervalSince(start) < 2 * sanitizerSlowdown)
        // The same string shared by a few rows is fine.
        builder.objects[0] = .dictionary(Array(repeating: (key: 1, value: 1), count: 20))
        #expect(try parseList(builder.build()).count == 20)
    }

    @Test("Many references to one item with many entries are refused before they take hours")
    func entryAllowance() throws {
        // 200,000 items, each the same dictionary of 150,000 entries: 3·10¹⁰ entries to look at.
        var builder = BinaryListBuilder()
        builder.add(.array(Array(repeating: 1, count: 200_000)))
        builder.add(.dictionary(Array(repeating: (key: 2, value: 3), count: 150_000)))
        builder.add(.ascii("name"))
        builder.add(.ascii("n"))
        let bytes = builder.build()
        #expect(bytes.count < 1 << 20)
        let start = Date()
        #expect(throws: notAPropertyList) { try parseList(bytes) }
        #expect(Date().timeIntervalSince(start) < 5 * sanitizerSlowdown)
        // A few rows sharing one item read as they are written.
        builder.objects[0] = .array(Array(repeating: 1, count: 3))
        builder.objects[1] = .dictionary([(2, 3)])
        #expect(rows(try parseList(builder.build())) == ["n → ", "n → ", "n → "])
    }
}
