import CExempi
import Foundation
import GLibKit

/// The marks in an XMP packet, read and changed with Exempi (Adobe's XMP toolkit, as Debian
/// packages it). A packet is parsed whole and written back whole, so every property other apps
/// keep there (darktable's edit history, digiKam's face regions, Lightroom's develop settings)
/// stays as it was; only the marks that changed are touched. These parse what came from files:
/// the app calls them through `Decoding`, which runs them in a decoder helper.
public enum XMPMarks {
    static let basic = "http://ns.adobe.com/xap/1.0/"
    static let dublinCore = "http://purl.org/dc/elements/1.1/"
    static let lightroom = "http://ns.adobe.com/lightroom/1.0/"
    /// IPTC Core, whose `AltTextAccessibility` (2021) holds a photo's alt text.
    static let iptcCore = "http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/"

    /// Whether Exempi is set up (once in the process); holding it, one caller at a time: the
    /// toolkit keeps its last error for the whole process.
    private static let toolkit = Locked<Bool>(false)

    private static func withToolkit<R>(_ body: () throws(PhotoFailure) -> R) throws(PhotoFailure) -> R {
        let outcome: Result<R, PhotoFailure> = toolkit.withLock { ready in
            if !ready {
                // Lightroom's namespace is not among the toolkit's own: without it, a packet
                // made here could not hold `lr:hierarchicalSubject`.
                ready = xmp_init() && xmp_register_namespace(lightroom, "lr", nil)
            }
            guard ready else { return .failure(PhotoFailure(.unsupported, detail: "The XMP toolkit did not start")) }
            do throws(PhotoFailure) {
                return .success(try body())
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    // MARK: Reading

    /// The marks of the XMP packet in `bytes` (a sidecar, or a photo's first bytes, where its
    /// packet is found as the XMP specification's packet scanning finds it in any file); nil
    /// when `bytes` hold no XMP that can be read.
    public static func read(_ bytes: Data) -> PhotoMarks? {
        guard let packet = packet(in: bytes) else { return nil }
        return try? withToolkit { () throws(PhotoFailure) -> PhotoMarks? in
            guard let xmp = parse(packet) else { return nil }
            defer { xmp_free(xmp) }
            // A number, in the range (a file may say "nan" or "1e999": not a number to turn into
            // an integer).
            let rating = property(xmp, basic, "Rating").flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
                .flatMap { $0.isFinite ? min(max($0, -1), 5) : nil }
            return PhotoMarks(
                rating: rating.map { Int($0.rounded()) } ?? 0,
                label: property(xmp, basic, "Label"),
                tags: tags(
                    subjects: items(xmp, dublinCore, "subject"), paths: items(xmp, lightroom, "hierarchicalSubject")))
        }
    }

    /// The alt text of the XMP packet in `bytes` (`Iptc4xmpCore:AltTextAccessibility`, in the
    /// default language); nil when there is none, or no XMP that can be read.
    public static func altText(_ bytes: Data) -> String? {
        guard let packet = packet(in: bytes) else { return nil }
        return try? withToolkit { () throws(PhotoFailure) -> String? in
            guard let xmp = parse(packet) else { return nil }
            defer { xmp_free(xmp) }
            let value = xmp_string_new()!, language = xmp_string_new()!
            defer {
                xmp_string_free(value)
                xmp_string_free(language)
            }
            guard xmp_get_localized_text(xmp, iptcCore, "AltTextAccessibility", "", "x-default", language, value, nil),
                let text = xmp_string_cstr(value)
            else { return nil }
            let trimmed = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
            return trimmed.isEmpty ? nil : trimmed
        }
    }

    /// The tags a person sees from a packet's two lists, in `dc:subject`'s order: each keyword
    /// there, or, for a level of a path of `lr:hierarchicalSubject` ("Places|France|Paris";
    /// Lightroom writes every level of a path as a keyword too), the path, once; then the paths
    /// none of whose levels were keywords.
    static func tags(subjects: [String], paths: [String]) -> [String] {
        var pathOfLevel: [String: String] = [:]
        for path in paths {
            for level in path.split(separator: "|") {
                let name = level.trimmingCharacters(in: .whitespaces)
                if pathOfLevel[name] == nil { pathOfLevel[name] = path }
            }
        }
        return PhotoMarks.unique(subjects.map { pathOfLevel[$0] ?? $0 } + paths)
    }

    /// The XMP packet in `bytes`: its `x:xmpmeta` element (a sidecar's, or one inside a photo's
    /// JPEG, TIFF, PNG or DNG bytes), or the whole of `bytes` when they are a bare RDF document.
    static func packet(in bytes: Data) -> Data? {
        for (opening, closing) in [("<x:xmpmeta", "</x:xmpmeta>"), ("<rdf:RDF", "</rdf:RDF>")] {
            if let start = find(opening, in: bytes, from: bytes.startIndex),
                let end = find(closing, in: bytes, from: start.upperBound)
            {
                return bytes[start.lowerBound..<end.upperBound]
            }
        }
        return nil
    }

    /// Where `text` first is in `bytes` at or after `from`: each `<` found by `memchr`, then
    /// compared (a photo's first 256 KB are searched for each photo marked, and Foundation's
    /// search took 1.5 ms for it).
    private static func find(_ text: String, in bytes: Data, from: Data.Index) -> Range<Data.Index>? {
        let needle = Array(text.utf8)
        return bytes.withUnsafeBytes { raw -> Range<Data.Index>? in
            guard let base = raw.baseAddress else { return nil }
            var offset = from - bytes.startIndex
            while offset + needle.count <= raw.count {
                guard let hit = memchr(base + offset, Int32(needle[0]), raw.count - offset) else { return nil }
                let at = UnsafeRawPointer(hit) - base
                guard at + needle.count <= raw.count else { return nil }
                if memcmp(base + at, needle, needle.count) == 0 {
                    return bytes.startIndex + at..<bytes.startIndex + at + needle.count
                }
                offset = at + 1
            }
            return nil
        }
    }

    // MARK: Writing

    /// The packet in `bytes` (nil or none there: a new one) with the marks that differ between
    /// `old` and `new` set as `new` has them, and nothing else changed; as a sidecar holds it
    /// (an XML document, without the packet wrapper that is only needed inside a file), or,
    /// `wrapped`, as a photo holds it (in its packet wrapper, with room to grow in place).
    /// `altText`, where given, sets the alt text too.
    public static func update(
        _ bytes: Data?, from old: PhotoMarks, to new: PhotoMarks, altText: AltTextChange? = nil, wrapped: Bool = false
    ) throws(PhotoFailure) -> Data {
        let packet = bytes.flatMap(packet(in:))
        if bytes?.isEmpty == false, packet == nil {
            throw PhotoFailure(.damagedOrUnsupported, detail: "The sidecar holds no XMP")
        }
        return try withToolkit { () throws(PhotoFailure) -> Data in
            guard let xmp = packet.map(parse) ?? xmp_new_empty() else {
                throw PhotoFailure(.damagedOrUnsupported, detail: "The sidecar's XMP could not be read")
            }
            defer { xmp_free(xmp) }
            if new.rating != old.rating {
                set(xmp, basic, "Rating", new.rating == 0 ? nil : String(new.rating))
            }
            if new.label != old.label { set(xmp, basic, "Label", new.label) }
            if new.tags != old.tags { setTags(xmp, new.tags) }
            if let altText { setAltText(xmp, altText.text) }
            let text = xmp_string_new()!
            defer { xmp_string_free(text) }
            guard xmp_serialize(xmp, text, wrapped ? 0 : UInt32(XMP_SERIAL_OMITPACKETWRAPPER), 0),
                let serialized = xmp_string_cstr(text)
            else {
                throw PhotoFailure(.damagedOrUnsupported, detail: "The XMP could not be written out")
            }
            let body = Data(bytes: serialized, count: xmp_string_len(text))
            return wrapped ? body : Data("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n".utf8) + body
        }
    }

    /// Sets `dc:subject` (every keyword, and every level of each path) and
    /// `lr:hierarchicalSubject` (the paths) to `tags`, or removes them when there are none.
    private static func setTags(_ xmp: XmpPtr, _ tags: [String]) {
        xmp_delete_property(xmp, dublinCore, "subject")
        xmp_delete_property(xmp, lightroom, "hierarchicalSubject")
        let paths = tags.filter { $0.contains("|") }
        var subjects: [String] = []
        for tag in tags {
            for level in tag.split(separator: "|").map(String.init) where !subjects.contains(level) {
                subjects.append(level)
            }
        }
        let bag = UInt32(XMP_PROP_VALUE_IS_ARRAY.rawValue)
        for subject in subjects { xmp_append_array_item(xmp, dublinCore, "subject", bag, subject, 0) }
        for path in paths { xmp_append_array_item(xmp, lightroom, "hierarchicalSubject", bag, path, 0) }
    }

    /// Sets `Iptc4xmpCore:AltTextAccessibility` to `text` in the default language (the only
    /// one kept: a text in other languages would no longer say what the new one says), or
    /// removes it.
    private static func setAltText(_ xmp: XmpPtr, _ text: String?) {
        xmp_delete_property(xmp, iptcCore, "AltTextAccessibility")
        guard let text, !text.isEmpty else { return }
        xmp_set_localized_text(xmp, iptcCore, "AltTextAccessibility", "", "x-default", text, 0)
    }

    // MARK: Exempi

    private static func parse(_ packet: Data) -> XmpPtr? {
        guard let xmp = xmp_new_empty() else { return nil }
        let parsed = packet.withUnsafeBytes { xmp_parse(xmp, $0.cChars, $0.count) }
        guard parsed else {
            xmp_free(xmp)
            return nil
        }
        return xmp
    }

    private static func property(_ xmp: XmpPtr, _ schema: String, _ name: String) -> String? {
        let value = xmp_string_new()!
        defer { xmp_string_free(value) }
        guard xmp_get_property(xmp, schema, name, value, nil), let text = xmp_string_cstr(value) else { return nil }
        let string = String(cString: text)
        return string.isEmpty ? nil : string
    }

    /// The items of the array property `name` (a bag, a sequence or an alternative), in order.
    private static func items(_ xmp: XmpPtr, _ schema: String, _ name: String) -> [String] {
        let value = xmp_string_new()!
        defer { xmp_string_free(value) }
        var found: [String] = []
        // Exempi counts items from 1; a photo with more tags than this is not a photo's tags.
        for index in 1...4_096 {
            guard xmp_get_array_item(xmp, schema, name, Int32(index), value, nil), let text = xmp_string_cstr(value)
            else { break }
            found.append(String(cString: text))
        }
        return found
    }

    private static func set(_ xmp: XmpPtr, _ schema: String, _ name: String, _ value: String?) {
        if let value {
            xmp_set_property(xmp, schema, name, value, 0)
        } else {
            xmp_delete_property(xmp, schema, name)
        }
    }
}
