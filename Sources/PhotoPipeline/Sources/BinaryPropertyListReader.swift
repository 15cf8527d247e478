import GLibKit

/// Reads a photo list written as a binary property list (`bplist00`), checking every offset,
/// length and reference against the bytes before it is used.
///
/// The format: an eight-byte header, the objects, a table of their offsets, and a 32-byte
/// trailer giving the width of an offset, the width of an object reference, the number of
/// objects, the root object and where the offset table starts. Each object begins with a
/// marker byte: its kind in the high four bits, its length (or 0xF, and the length as an
/// integer object after it) in the low four.
///
/// Only what a photo list needs is read, and never deeper than the list's own shape: the root
/// dictionary or array, the item dictionaries of an array, and their keys and values. An
/// object that is looked at is checked whole (its marker is known and its contents lie before
/// the offset table); objects nothing leads to, and the contents of values that are not
/// strings, are never followed, so references that loop back are harmless. Values of keys
/// other than `name` and `url` in an item are not looked at either.
///
/// Rules where the format leaves room:
/// - A dictionary key that is not a string makes the file "not a property list" (it is not
///   one in Apple's model, and no writer produces it).
/// - Two equal keys in the root dictionary give two rows, as in the XML reader; in an item,
///   the last `name` and the last `url` win.
/// - ASCII strings with bytes above 0x7F, and UTF-16 strings with lone surrogates, are
///   decoded with U+FFFD in place of what is invalid.
/// - Shared objects are read again for each reference, so what may be read is bounded by
///   the file's size: at most `textAllowance` bytes of text (a few bytes of references to
///   one long string must not become gigabytes of rows), and at most `entryAllowance` item
///   entries looked at (many references to one item with many keys must not take hours).
///   Past either, the file is "not a property list".
struct BinaryPropertyListReader {
    static let header: [UInt8] = Array("bplist00".utf8)

    /// An object, as far as a photo list cares.
    private enum Object {
        /// `count` bytes of ASCII, or `count` big-endian UTF-16 code units, from `start`.
        case string(utf16: Bool, start: Int, count: Int)
        /// `count` key references from `start`, then `count` value references.
        case dictionary(start: Int, count: Int)
        /// `count` references from `start`.
        case array(start: Int, count: Int)
        /// Anything else: a number, date, data, UID, set, null or Boolean.
        case other
    }

    private struct Malformed: Error {}

    private let bytes: UnsafeRawBufferPointer
    private let offsetSize: Int
    private let referenceSize: Int
    private let objectCount: Int
    private let rootObject: Int
    /// Where the offset table starts, which is also where the objects must end.
    private let tableStart: Int
    /// Text bytes left to decode before the list is refused as too large.
    private var textLeft: Int
    /// Item entries left to look at before the list is refused as too large.
    private var entriesLeft: Int

    /// Reads the trailer and checks that the offset table fits between the objects and it.
    private init(_ bytes: UnsafeRawBufferPointer) throws(Malformed) {
        let header = Self.header.count, trailer = 32
        guard bytes.count >= header + trailer + 1, bytes.starts(with: Self.header) else { throw Malformed() }
        self.bytes = bytes
        let trailerStart = bytes.count - trailer
        // Five unused bytes and the sort version, then the fields.
        offsetSize = Int(bytes[trailerStart + 6])
        referenceSize = Int(bytes[trailerStart + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else { throw Malformed() }
        let objects = Self.unsigned(bytes, at: trailerStart + 8, size: 8)
        let root = Self.unsigned(bytes, at: trailerStart + 16, size: 8)
        let table = Self.unsigned(bytes, at: trailerStart + 24, size: 8)
        // Objects lie between the header and the table; the table before the trailer, with
        // room for one offset per object. Compared as unsigned before any conversion, so no
        // claimed size can overflow or make anything be allocated.
        guard table > UInt64(header), table < UInt64(trailerStart) else { throw Malformed() }
        tableStart = Int(table)
        guard objects >= 1, objects <= UInt64((trailerStart - tableStart) / offsetSize), root < objects else {
            throw Malformed()
        }
        objectCount = Int(objects)
        rootObject = Int(root)
        textLeft = Self.textAllowance(forFileSize: bytes.count)
        entriesLeft = Self.entryAllowance(forFileSize: bytes.count)
    }

    /// The most text bytes a list of `size` bytes may decode to: eight times its size, and
    /// 64 MiB more for small files that share a few long strings.
    static func textAllowance(forFileSize size: Int) -> Int {
        allowance(size, times: 8, plus: 64 << 20)
    }

    /// The most item entries a list of `size` bytes may have looked at. An entry takes at least
    /// two bytes of references, so a list without shared items needs less than half its size.
    static func entryAllowance(forFileSize size: Int) -> Int {
        allowance(size, times: 8, plus: 1 << 20)
    }

    private static func allowance(_ size: Int, times factor: Int, plus extra: Int) -> Int {
        let (scaled, tooMany) = size.multipliedReportingOverflow(by: factor)
        let (total, tooManyMore) = scaled.addingReportingOverflow(extra)
        return tooMany || tooManyMore ? .max : total
    }

    /// Parses `bytes`, which start with `header`, as the list called `name` (for messages).
    static func parse(
        _ bytes: UnsafeRawBufferPointer, name: String,
        cancellable: Cancellable?
    ) throws(PhotoSourceError) -> ParsedPhotoList {
        do {
            var reader = try BinaryPropertyListReader(bytes)
            return try reader.list(cancellable: cancellable)
        } catch let error as PhotoSourceError {
            throw error
        } catch {
            throw .notAPropertyList(list: name)
        }
    }

    // MARK: The list

    private mutating func list(cancellable: Cancellable?) throws -> ParsedPhotoList {
        switch try object(rootObject) {
        case .dictionary(let start, let count):
            var list = ParsedPhotoList(form: .dictionary)
            list.names.reserveCapacity(count)
            list.links.reserveCapacity(count)
            for index in 0..<count {
                if index & 0x3FFF == 0x3FFF, cancellable?.isCancelled == true { throw PhotoSourceError.cancelled }
                let key = try object(reference(start, index))
                let value = try object(reference(start, count + index))
                guard case .string = key else { throw Malformed() }
                let name = try text(key)
                list.append(name: name, link: try text(value))
            }
            return list
        case .array(let start, let count):
            var list = ParsedPhotoList(form: .array)
            list.names.reserveCapacity(count)
            list.links.reserveCapacity(count)
            for index in 0..<count {
                if index & 0x3FFF == 0x3FFF, cancellable?.isCancelled == true { throw PhotoSourceError.cancelled }
                guard case .dictionary(let itemStart, let itemCount) = try object(reference(start, index)) else {
                    throw PhotoSourceError.itemNotADictionary(item: index)
                }
                guard itemCount <= entriesLeft else { throw Malformed() }
                entriesLeft -= itemCount
                var name: Object?, link: Object?
                for entry in 0..<itemCount {
                    let key = try object(reference(itemStart, entry))
                    guard case .string = key else { throw Malformed() }
                    if isString(key, "name") {
                        name = try object(reference(itemStart, itemCount + entry))
                    } else if isString(key, "url") {
                        link = try object(reference(itemStart, itemCount + entry))
                    }
                }
                guard let name, case .string = name else { throw PhotoSourceError.itemWithoutName(item: index) }
                let nameText = try text(name)
                let linkText = if let link { try text(link) } else { "" }
                list.append(name: nameText, link: linkText)
            }
            return list
        case .string, .other:
            throw PhotoSourceError.notAPhotoList
        }
    }

    // MARK: Objects

    /// The object number `index`, checked to lie whole before the offset table.
    private func object(_ index: Int) throws(Malformed) -> Object {
        // `index` < `objectCount`, and the whole table was checked to fit before the trailer.
        let offset = Self.unsigned(bytes, at: tableStart + index * offsetSize, size: offsetSize)
        guard offset >= UInt64(Self.header.count), offset < UInt64(tableStart) else { throw Malformed() }
        var position = Int(offset)
        let marker = bytes[position]
        position += 1
        let kind = marker >> 4, info = Int(marker & 0x0F)
        switch kind {
        case 0x0:
            // Null, false, true, fill.
            guard [0x0, 0x8, 0x9, 0xF].contains(info) else { throw Malformed() }
            return .other
        case 0x1, 0x2, 0x3:
            // Integers of 1 to 16 bytes, reals of 4 or 8, dates of 8.
            let valid = kind == 0x1 ? info <= 4 : kind == 0x2 ? info == 2 || info == 3 : info == 3
            guard valid else { throw Malformed() }
            try require(1 << info, bytesFrom: position)
            return .other
        case 0x8:
            // A UID of 1 to 16 bytes.
            try require(info + 1, bytesFrom: position)
            return .other
        case 0x4, 0x5, 0x6, 0xA, 0xB, 0xC, 0xD:
            let count = try length(info, at: &position)
            // Checked by division, so no product can overflow.
            let unit =
                switch kind {
                case 0x4, 0x5: 1
                case 0x6: 2
                case 0xD: 2 * referenceSize
                default: referenceSize
                }
            guard count <= (tableStart - position) / unit else { throw Malformed() }
            switch kind {
            case 0x5: return .string(utf16: false, start: position, count: count)
            case 0x6: return .string(utf16: true, start: position, count: count)
            case 0xA: return .array(start: position, count: count)
            case 0xD: return .dictionary(start: position, count: count)
            default: return .other // data, ordered set, set
            }
        default:
            throw Malformed()
        }
    }

    /// The length in a marker's low four bits, or after it as an integer object when they are
    /// all set; `position` moves past it.
    private func length(_ info: Int, at position: inout Int) throws(Malformed) -> Int {
        guard info == 0xF else { return info }
        try require(1, bytesFrom: position)
        let marker = bytes[position]
        guard marker >> 4 == 0x1, marker & 0x0F <= 3 else { throw Malformed() }
        let size = 1 << Int(marker & 0x0F)
        try require(size, bytesFrom: position + 1)
        let value = Self.unsigned(bytes, at: position + 1, size: size)
        guard value <= UInt64(tableStart) else { throw Malformed() }
        position += 1 + size
        return Int(value)
    }

    /// The object number in reference `number` of the list of references from `start`
    /// (whose extent `object` has checked).
    private func reference(_ start: Int, _ number: Int) throws(Malformed) -> Int {
        let value = Self.unsigned(bytes, at: start + number * referenceSize, size: referenceSize)
        guard value < UInt64(objectCount) else { throw Malformed() }
        return Int(value)
    }

    /// Throws unless `count` bytes from `position` lie before the offset table.
    private func require(_ count: Int, bytesFrom position: Int) throws(Malformed) {
        guard position <= tableStart, count <= tableStart - position else { throw Malformed() }
    }

    /// Whether `object` is a string equal to `ascii`, compared without decoding it.
    private func isString(_ object: Object, _ ascii: StaticString) -> Bool {
        guard case .string(let utf16, let start, let count) = object, count == ascii.utf8CodeUnitCount else {
            return false
        }
        let expected = UnsafeBufferPointer(start: ascii.utf8Start, count: count)
        if utf16 {
            return expected.indices.allSatisfy {
                bytes[start + 2 * $0] == 0 && bytes[start + 2 * $0 + 1] == expected[$0]
            }
        }
        return expected.indices.allSatisfy { bytes[start + $0] == expected[$0] }
    }

    /// The text of a string object; empty for any other object.
    private mutating func text(_ object: Object) throws -> String {
        guard case .string(let utf16, let start, let count) = object else { return "" }
        let size = utf16 ? 2 * count : count
        guard size <= textLeft else { throw Malformed() }
        textLeft -= size
        if !utf16 {
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<start + count]), as: UTF8.self)
        }
        return decodeUTF16(start: start, count: count)
    }

    /// `count` big-endian UTF-16 code units from `start` as a string, each lone surrogate
    /// replaced by U+FFFD (as `String(decoding:as:)` does, without its slow generic path).
    private func decodeUTF16(start: Int, count: Int) -> String {
        // Three UTF-8 bytes at most per unit: a pair of units makes four.
        String(unsafeUninitializedCapacity: 3 * count) { utf8 in
            var written = 0, index = 0
            while index < count {
                let unit = UInt32(bytes[start + 2 * index]) << 8 | UInt32(bytes[start + 2 * index + 1])
                index += 1
                var scalar = unit
                if unit & 0xF800 == 0xD800 {
                    scalar = 0xFFFD
                    if unit < 0xDC00, index < count {
                        let low = UInt32(bytes[start + 2 * index]) << 8 | UInt32(bytes[start + 2 * index + 1])
                        if low & 0xFC00 == 0xDC00 {
                            scalar = 0x10000 + (unit - 0xD800) << 10 + (low - 0xDC00)
                            index += 1
                        }
                    }
                }
                switch scalar {
                case ..<0x80:
                    utf8[written] = UInt8(scalar)
                    written += 1
                case ..<0x800:
                    utf8[written] = UInt8(0xC0 | scalar >> 6)
                    utf8[written + 1] = UInt8(0x80 | scalar & 0x3F)
                    written += 2
                case ..<0x10000:
                    utf8[written] = UInt8(0xE0 | scalar >> 12)
                    utf8[written + 1] = UInt8(0x80 | scalar >> 6 & 0x3F)
                    utf8[written + 2] = UInt8(0x80 | scalar & 0x3F)
                    written += 3
                default:
                    utf8[written] = UInt8(0xF0 | scalar >> 18)
                    utf8[written + 1] = UInt8(0x80 | scalar >> 12 & 0x3F)
                    utf8[written + 2] = UInt8(0x80 | scalar >> 6 & 0x3F)
                    utf8[written + 3] = UInt8(0x80 | scalar & 0x3F)
                    written += 4
                }
            }
            return written
        }
    }

    /// The big-endian unsigned integer of `size` (1 to 8) bytes at `position`, which the
    /// caller has checked to lie within `bytes`.
    private static func unsigned(_ bytes: UnsafeRawBufferPointer, at position: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in position..<position + size { value = value << 8 | UInt64(bytes[index]) }
        return value
    }
}
