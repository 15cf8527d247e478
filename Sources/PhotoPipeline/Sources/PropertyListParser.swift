import CGLib
import Foundation
import GLibKit

/// The rows of a photo list as written, before they are put in display order.
struct ParsedPhotoList {
    enum Form {
        /// Name → address: shown in natural order of the names.
        case dictionary
        /// `{name, url}` items: shown in the order written.
        case array
    }

    var form: Form
    var names: [String] = []
    var links: [String] = []

    var count: Int { names.count }

    mutating func append(name: String, link: String) {
        names.append(name)
        links.append(link)
    }
}

/// Reads the photo list formats: XML property lists with a streaming parser of its own, and
/// binary ones (`bplist00`) with a bounds-checked reader of its own. Foundation's parser is
/// not used: it can crash the process on a hostile binary list. Old-style (OpenStep) text
/// lists are refused as "not a property list".
///
/// The XML path runs on GLib's `GMarkupParseContext`, which knows no DTD and so expands no
/// entities but the five predefined ones and character references. It keeps what a
/// dictionary would lose: two rows with the same name are both shown. A row whose address is
/// missing or not a string stays in the list with an empty address (it fails alone when it is
/// loaded); only a list whose shape is wrong is rejected as a whole.
enum PropertyListParser {
    /// Parses `data`, the list called `name` (for messages). Checks `cancellable` now and then.
    static func parse(
        _ data: Data, name: String, cancellable: Cancellable? = nil
    ) throws(PhotoSourceError) -> ParsedPhotoList {
        let result: Result<ParsedPhotoList, PhotoSourceError> = data.withUnsafeBytes { raw in
            if raw.starts(with: BinaryPropertyListReader.header) {
                return Result { () throws(PhotoSourceError) in
                    try BinaryPropertyListReader.parse(raw, name: name, cancellable: cancellable)
                }
            }
            var bytes = raw.bindMemory(to: UInt8.self)[...]
            // A UTF-8 byte order mark is allowed before the XML declaration.
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
            let first = bytes.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
            guard first == UInt8(ascii: "<") else { return .failure(.notAPropertyList(list: name)) }
            return Result { () throws(PhotoSourceError) in
                try XMLListReader.parse(
                    UnsafeRawBufferPointer(rebasing: raw[bytes.startIndex...]),
                    name: name, cancellable: cancellable)
            }
        }
        return try result.get()
    }
}

/// The XML property list reader: a state machine fed by GMarkup's callbacks.
///
/// A struct the callbacks reach through a pointer: a class would pay a retain, a release and
/// a dynamic exclusivity check on every property for each of the millions of callbacks.
private struct XMLListReader {
    private enum Tag {
        case plist, dict, array, key, string, other

        init(_ name: UnsafePointer<CChar>) {
            // The first letter picks the one name to compare: this runs for every element.
            switch UInt8(bitPattern: name[0]) {
            case UInt8(ascii: "k"): self = strcmp(name, "key") == 0 ? .key : .other
            case UInt8(ascii: "s"): self = strcmp(name, "string") == 0 ? .string : .other
            case UInt8(ascii: "d"): self = strcmp(name, "dict") == 0 ? .dict : .other
            case UInt8(ascii: "a"): self = strcmp(name, "array") == 0 ? .array : .other
            case UInt8(ascii: "p"): self = strcmp(name, "plist") == 0 ? .plist : .other
            default: self = .other
            }
        }
    }

    /// What the text being collected will become.
    private enum Capture {
        case none, key, value
    }

    private let listName: String
    private var list = ParsedPhotoList(form: .dictionary)
    private var failure: PhotoSourceError?

    /// Element nesting depth (the element being read is at `depth`).
    private var depth = 0
    /// Depth of the root dictionary or array, once seen.
    private var rootDepth: Int?
    /// Set once the root dictionary or array has ended.
    private var finished = false
    /// Elements at or below this depth are skipped (a value that is not a string).
    private var skipFrom = Int.max

    private var capture = Capture.none
    private var text: [UInt8] = []
    /// The dictionary key read last, waiting for its value.
    private var key: String?
    /// The array item being read: its index, name and address.
    private var itemIndex = -1
    private var itemName: String?
    private var itemNameInvalid = false
    private var itemLink: String?

    private init(listName: String) {
        self.listName = listName
        text.reserveCapacity(256)
    }

    static func parse(
        _ bytes: UnsafeRawBufferPointer, name: String, cancellable: Cancellable?
    ) throws(PhotoSourceError) -> ParsedPhotoList {
        let reader = UnsafeMutablePointer<XMLListReader>.allocate(capacity: 1)
        reader.initialize(to: XMLListReader(listName: name))
        let parser = UnsafeMutablePointer<GMarkupParser>.allocate(capacity: 1)
        parser.initialize(
            to: GMarkupParser(
                start_element: { _, element, _, _, data, error in
                    CallbackData.value(data, as: XMLListReader.self).pointee.start(Tag(element!), error)
                },
                end_element: { _, element, data, error in
                    CallbackData.value(data, as: XMLListReader.self).pointee.end(error)
                },
                text: { _, text, length, data, _ in
                    CallbackData.value(data, as: XMLListReader.self).pointee.text(text!, Int(length))
                },
                passthrough: nil, error: nil))
        let context = g_markup_parse_context_new(parser, G_MARKUP_TREAT_CDATA_AS_TEXT, reader, nil)!
        defer {
            g_markup_parse_context_free(context)
            parser.deallocate()
            reader.deinitialize(count: 1)
            reader.deallocate()
        }
        var parsed: Bool
        do throws(GLibError) {
            parsed = try withGError { error in
                // In slices, to notice cancellation within a long list.
                let slice = 1 << 20
                var offset = 0
                while offset < bytes.count {
                    if cancellable?.isCancelled == true { return false }
                    let length = min(slice, bytes.count - offset)
                    let piece = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length])
                    guard g_markup_parse_context_parse(context, piece.cChars, length, error) != 0 else { return false }
                    offset += length
                }
                return g_markup_parse_context_end_parse(context, error) != 0
            }
        } catch {
            if let failure = reader.pointee.failure { throw failure }
            throw .notAPropertyList(list: name, flaw: .markup(error.message))
        }
        if !parsed { throw PhotoSourceError.cancelled }
        guard reader.pointee.rootDepth != nil else { throw .notAPhotoList }
        return reader.pointee.list
    }

    /// Stops the parse with `failure`, which `parse` then throws.
    private mutating func fail(
        _ failure: PhotoSourceError, _ error: UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?
    ) {
        self.failure = failure
        // The message is never shown: `parse` throws `failure` itself.
        g_set_error_literal(
            error, g_markup_error_quark(), Int32(G_MARKUP_ERROR_INVALID_CONTENT.rawValue),
            "not a photo list")
    }

    private mutating func start(_ tag: Tag, _ error: UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?) {
        depth += 1
        guard depth < skipFrom else { return }
        guard let rootDepth, !finished else {
            switch tag {
            case _ where finished: skipFrom = depth // a second root value is not part of the list
            case .plist where depth == 1: break
            case .dict: list.form = .dictionary; self.rootDepth = depth
            case .array: list.form = .array; self.rootDepth = depth
            case _ where depth == 1: fail(.notAPropertyList(list: listName), error)
            default: fail(.notAPhotoList, error)
            }
            return
        }
        switch (list.form, depth - rootDepth) {
        case (.dictionary, 1):
            if tag == .key {
                // Two keys in a row: the first names a row without an address.
                if let key { list.append(name: key, link: "") }
                capture = .key
            } else if let key {
                if tag == .string {
                    capture = .value
                } else {
                    // Not an address: the row stays, with an empty one.
                    list.append(name: key, link: "")
                    self.key = nil
                    skipFrom = depth
                }
            } else {
                fail(.notAPropertyList(list: listName, flaw: .valueWithoutKey), error)
            }
        case (.array, 1):
            itemIndex += 1
            guard tag == .dict else { return fail(.itemNotADictionary(item: itemIndex), error) }
            (itemName, itemNameInvalid, itemLink, key) = (nil, false, nil, nil)
        case (.array, 2):
            if tag == .key {
                capture = .key
            } else if let key {
                if tag == .string, key == "name" || key == "url" {
                    capture = .value
                } else {
                    if key == "name" { itemNameInvalid = true }
                    if key == "url" { itemLink = "" }
                    self.key = nil
                    skipFrom = depth
                }
            } else {
                fail(.notAPropertyList(list: listName, flaw: .valueWithoutKey), error)
            }
        default:
            // Inside a key or string: not part of any row.
            skipFrom = depth
        }
    }

    private mutating func end(_ error: UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?) {
        defer { depth -= 1 }
        if depth >= skipFrom {
            if depth == skipFrom { skipFrom = .max }
            return
        }
        switch capture {
        case .none:
            break
        case .key:
            capture = .none
            key = takeText()
            return
        case .value:
            capture = .none
            let value = takeText()
            if list.form == .dictionary {
                list.append(name: key!, link: value)
            } else if key == "name" {
                (itemName, itemNameInvalid) = (value, false)
            } else {
                itemLink = value
            }
            key = nil
            return
        }
        guard let rootDepth, !finished else { return }
        switch (list.form, depth - rootDepth) {
        case (.dictionary, 0):
            // A last key without a value: the row stays, without an address.
            if let key { list.append(name: key, link: "") }
            finished = true
        case (.array, 0):
            finished = true
        case (.array, 1):
            guard let itemName, !itemNameInvalid else { return fail(.itemWithoutName(item: itemIndex), error) }
            list.append(name: itemName, link: itemLink ?? "")
        default:
            break
        }
    }

    private mutating func text(_ bytes: UnsafePointer<CChar>, _ length: Int) {
        guard capture != .none, depth < skipFrom else { return }
        bytes.withMemoryRebound(to: UInt8.self, capacity: length) {
            text.append(contentsOf: UnsafeBufferPointer(start: $0, count: length))
        }
    }

    private mutating func takeText() -> String {
        defer { text.removeAll(keepingCapacity: true) }
        return String(decoding: text, as: UTF8.self)
    }
}
