import Foundation

/// Turning a HEIF picture (a HEIC from a phone) without decoding it: HEIF says how a picture
/// is to be shown by properties of its item, among them `irot` (quarter turns
/// counter-clockwise), as phones turn their photos. A quarter turn gives the picture (and its
/// thumbnails) a new `irot`; the coded picture is not touched, so not a pixel changes and it
/// takes milliseconds (encoding it again took seconds, and lost some of its quality each
/// time). A mirror is not made this way: readers disagree on which way HEIF's `imir` mirrors
/// (libheif 1.15 reads its axis the other way round from the standard's first edition), so a
/// flip is encoded again.
///
/// Only the `meta` box changes: its property container (`ipco`) gains the properties needed,
/// the associations (`ipma`) of the picture and its thumbnails change, and the item locations
/// (`iloc`) of data after the `meta` box move with it. The EXIF orientation, which HEIF readers
/// leave aside but other programs read, is set to the same turn in place. A file this cannot
/// change safely (a picture cropped by `clap` or mirrored, an image sequence, anything malformed) is left
/// to be encoded again: `turned` gives nil.
///
/// The file is untrusted: every size and offset is checked against the bytes there are.
enum HEIFTurn {
    /// The file `file` turned by `turn` (as the picture is shown now), or nil where that cannot
    /// be done this way.
    static func turned(_ file: Data, by turn: PictureTurn) -> Data? {
        var reader = Reader(bytes: [UInt8](file))
        return reader.turned(by: turn)
    }

    /// Whether a file whose first bytes are `head` can be turned this way (its `meta` box is
    /// within them).
    static func canTurn(head: Data) -> Bool {
        var reader = Reader(bytes: [UInt8](head))
        return reader.plan(by: .upright, needsWholeFile: false) != nil
    }

    /// A box: its type, where it starts, where its body starts and where it ends.
    struct Box {
        let type: String
        let start: Int
        let body: Int
        let end: Int
    }

    /// What is to change: the `meta` box and its parts, and each picture's new turn.
    private struct Plan {
        let meta: Box
        let metaChildren: [Box]
        let properties: [Box]
        let ipco: Box
        let ipma: Box
        let iprp: Box
        let associations: [(item: UInt32, list: [(essential: Bool, index: Int)])]
        let ipmaVersion: UInt8
        let ipmaFlags: UInt32
        /// The items to turn, with the turn each is to show.
        let turns: [UInt32: PictureTurn]
        /// The picture's item (`pitm`).
        let primary: UInt32
    }

    private struct Reader {
        let bytes: [UInt8]

        func number(_ at: Int, _ length: Int) -> UInt64? {
            guard length >= 0, length <= 8, at >= 0, at <= bytes.count - length else { return nil }
            var value: UInt64 = 0
            for i in 0..<length { value = value << 8 | UInt64(bytes[at + i]) }
            return value
        }

        /// The boxes one after another from `start` to `end`; nil if one is malformed or runs
        /// past the end (or `start` is past it).
        func boxes(from start: Int, to end: Int) -> [Box]? {
            guard start <= end else { return nil }
            return boxes(in: start..<end)
        }

        /// The boxes one after another in `range`; nil if one is malformed or runs past it.
        func boxes(in range: Range<Int>) -> [Box]? {
            var found: [Box] = []
            var at = range.lowerBound
            while at < range.upperBound {
                guard found.count < 4_096, let size32 = number(at, 4), let type = number(at + 4, 4) else { return nil }
                var size = Int(size32), header = 8
                if size32 == 1 {
                    guard let large = number(at + 8, 8), large <= UInt64(range.upperBound - at) else { return nil }
                    size = Int(large)
                    header = 16
                } else if size32 == 0 {
                    size = range.upperBound - at
                }
                guard size >= header, size <= range.upperBound - at else { return nil }
                let name = String(decoding: withUnsafeBytes(of: UInt32(type).bigEndian) { Array($0) }, as: UTF8.self)
                found.append(Box(type: name, start: at, body: at + header, end: at + size))
                at += size
            }
            return found
        }

        /// The current turn of an item with these associations: nil if it has a property this
        /// cannot compose with (a crop, `clap`) or one that is not there.
        func turn(of list: [(essential: Bool, index: Int)], _ properties: [Box]) -> PictureTurn? {
            var turn = PictureTurn.upright
            for association in list where association.index > 0 {
                guard association.index <= properties.count else { return nil }
                let property = properties[association.index - 1]
                switch property.type {
                case "irot":
                    guard let angle = number(property.body, 1) else { return nil }
                    turn = turn.then(PictureTurn(quarterTurns: 4 - Int(angle & 3)))
                // Readers disagree on which way `imir` mirrors (libheif 1.15 reads its axis
                // the other way round from the standard's first edition): a picture mirrored
                // by it is left alone, as is one cropped (`clap`).
                case "imir", "clap": return nil
                default: break
                }
            }
            return turn
        }

        /// What turning by `turn` changes; nil if it cannot be done. `needsWholeFile`: every
        /// top-level box must be there whole (else only `meta` is looked at).
        mutating func plan(by turn: PictureTurn, needsWholeFile: Bool) -> Plan? {
            guard bytes.count >= 12, number(4, 4) == 0x6674_7970 else { return nil } // ftyp
            // The top-level boxes, as far as they are there.
            var top: [Box] = []
            var at = 0
            while at + 8 <= bytes.count, top.count < 64 {
                guard let size32 = number(at, 4) else { return nil }
                var size = Int(size32)
                if size32 == 1 {
                    guard let large = number(at + 8, 8), large < UInt64(Int.max / 2) else { return nil }
                    size = Int(large)
                } else if size32 == 0 {
                    size = bytes.count - at
                }
                guard size >= (size32 == 1 ? 16 : 8) else { return nil }
                let type = String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self)
                if type != "meta", !needsWholeFile, at + size > bytes.count { break }
                guard at + size <= bytes.count else { return nil }
                top.append(Box(type: type, start: at, body: at + (size32 == 1 ? 16 : 8), end: at + size))
                at += size
            }
            // (A whole file ends with its last box.)
            guard !needsWholeFile || at == bytes.count else { return nil }
            // An image sequence's track data is placed by offsets of its own.
            guard !top.contains(where: { $0.type == "moov" }) else { return nil }
            let metas = top.filter { $0.type == "meta" }
            guard metas.count == 1, let meta = metas.first, let children = boxes(from: meta.body + 4, to: meta.end),
                let pitm = children.first(where: { $0.type == "pitm" }), let version = number(pitm.body, 1),
                let primary = number(pitm.body + 4, version == 0 ? 2 : 4).map(UInt32.init),
                let iprp = children.first(where: { $0.type == "iprp" }), let parts = boxes(in: iprp.body..<iprp.end),
                let ipco = parts.first(where: { $0.type == "ipco" }), parts.filter({ $0.type == "ipma" }).count == 1,
                let ipma = parts.first(where: { $0.type == "ipma" }), let properties = boxes(in: ipco.body..<ipco.end),
                children.contains(where: { $0.type == "iloc" })
            else { return nil }
            guard let associations = self.associations(ipma) else { return nil }
            // The picture, and its thumbnails (items that are `thmb` of it).
            var items: Set<UInt32> = [primary]
            if let iref = children.first(where: { $0.type == "iref" }) {
                guard let thumbnails = thumbnails(of: primary, iref) else { return nil }
                items.formUnion(thumbnails)
            }
            var turns: [UInt32: PictureTurn] = [:]
            for (item, list) in associations.entries where items.contains(item) {
                guard let now = self.turn(of: list, properties) else { return nil }
                turns[item] = now.then(turn)
            }
            guard turns[primary] != nil else { return nil }
            return Plan(
                meta: meta, metaChildren: children, properties: properties, ipco: ipco, ipma: ipma, iprp: iprp,
                associations: associations.entries, ipmaVersion: associations.version, ipmaFlags: associations.flags,
                turns: turns, primary: primary)
        }

        /// The item property associations: each item's list, in order.
        func associations(
            _ ipma: Box
        ) -> (version: UInt8, flags: UInt32, entries: [(item: UInt32, list: [(essential: Bool, index: Int)])])? {
            guard let versionFlags = number(ipma.body, 4), let count = number(ipma.body + 4, 4), count < 65_536 else {
                return nil
            }
            let version = UInt8(versionFlags >> 24), flags = UInt32(versionFlags & 0xFF_FFFF)
            let idLength = version < 1 ? 2 : 4, wide = flags & 1 == 1
            var at = ipma.body + 8
            var entries: [(UInt32, [(Bool, Int)])] = []
            for _ in 0..<count {
                guard let id = number(at, idLength), let listed = number(at + idLength, 1) else { return nil }
                at += idLength + 1
                var list: [(Bool, Int)] = []
                for _ in 0..<listed {
                    guard let value = number(at, wide ? 2 : 1) else { return nil }
                    at += wide ? 2 : 1
                    let top: UInt64 = wide ? 0x8000 : 0x80
                    list.append((value & top != 0, Int(value & (top - 1))))
                }
                entries.append((UInt32(id), list))
            }
            guard at <= ipma.end else { return nil }
            return (version, flags, entries)
        }

        /// The items that are thumbnails of `primary`, by the item references `iref`.
        func thumbnails(of primary: UInt32, _ iref: Box) -> [UInt32]? {
            guard let version = number(iref.body, 1), let references = boxes(from: iref.body + 4, to: iref.end) else {
                return nil
            }
            let idLength = version == 0 ? 2 : 4
            var found: [UInt32] = []
            for reference in references where reference.type == "thmb" {
                guard let from = number(reference.body, idLength), let count = number(reference.body + idLength, 2)
                else { return nil }
                for n in 0..<Int(count) {
                    guard let to = number(reference.body + idLength + 2 + n * idLength, idLength) else { return nil }
                    if UInt32(to) == primary { found.append(UInt32(from)) }
                }
            }
            return found
        }

        mutating func turned(by turn: PictureTurn) -> Data? {
            guard let plan = plan(by: turn, needsWholeFile: true) else { return nil }
            // The properties the turned items need: those there are where the same is there
            // (turning again and again does not make the file grow), else added once each.
            var added: [[UInt8]] = []
            let bytes = bytes
            func index(of type: String, _ body: [UInt8]) -> Int {
                if let there = plan.properties.firstIndex(where: {
                    $0.type == type && bytes[$0.body..<$0.end].elementsEqual(body)
                }) {
                    return there + 1
                }
                let property = Self.box(type, body)
                if let there = added.firstIndex(of: property) { return plan.properties.count + there + 1 }
                added.append(property)
                return plan.properties.count + added.count
            }
            var lists: [(item: UInt32, list: [(essential: Bool, index: Int)])] = []
            for (item, list) in plan.associations {
                guard let wanted = plan.turns[item] else {
                    lists.append((item, list))
                    continue
                }
                // (A mirror is no property this writes: see `turn(of:_:)`.)
                guard !wanted.mirrored else { return nil }
                var kept = list.filter { association in
                    association.index == 0 || plan.properties[association.index - 1].type != "irot"
                }
                if wanted.quarterTurns != 0 {
                    kept.append((true, index(of: "irot", [UInt8((4 - wanted.quarterTurns) % 4)])))
                }
                guard kept.count <= 255 else { return nil }
                lists.append((item, kept))
            }
            let highest = lists.flatMap { $0.list.map(\.index) }.max() ?? 0
            guard highest < 0x8000 else { return nil }
            let wide = plan.ipmaFlags & 1 == 1 || highest > 0x7F
            // The new ipma.
            var ipma: [UInt8] = []
            let flags = plan.ipmaFlags | (wide ? 1 : 0)
            Self.append(UInt64(plan.ipmaVersion) << 24 | UInt64(flags), 4, to: &ipma)
            Self.append(UInt64(lists.count), 4, to: &ipma)
            for (item, list) in lists {
                Self.append(UInt64(item), plan.ipmaVersion < 1 ? 2 : 4, to: &ipma)
                Self.append(UInt64(list.count), 1, to: &ipma)
                for (essential, index) in list {
                    let top: UInt64 = wide ? 0x8000 : 0x80
                    Self.append((essential ? top : 0) | UInt64(index), wide ? 2 : 1, to: &ipma)
                }
            }
            let ipco = Self.box("ipco", Array(bytes[plan.ipco.body..<plan.ipco.end]) + added.flatMap { $0 })
            var iprpBody: [UInt8] = []
            for part in (boxes(in: plan.iprp.body..<plan.iprp.end) ?? []) {
                switch part.type {
                case "ipco": iprpBody += ipco
                case "ipma": iprpBody += Self.box("ipma", ipma)
                default: iprpBody += bytes[part.start..<part.end]
                }
            }
            var metaBody = Array(bytes[plan.meta.body..<(plan.meta.body + 4)])
            var ilocAt: Int?
            for child in plan.metaChildren {
                // (Where its body will be, after the new box's header of 8 bytes.)
                if child.type == "iloc" { ilocAt = 8 + metaBody.count + (child.body - child.start) }
                metaBody += child.type == "iprp" ? Self.box("iprp", iprpBody) : Array(bytes[child.start..<child.end])
            }
            var meta = Self.box("meta", metaBody)
            guard let ilocAt,
                moveLocations(
                    in: &meta, at: ilocAt, from: plan.meta, by: meta.count - (plan.meta.end - plan.meta.start))
            else { return nil }
            var file = Array(bytes[0..<plan.meta.start]) + meta + bytes[plan.meta.end...]
            setExifOrientation(in: &file, plan: plan)
            return Data(file)
        }

        /// Moves the places of the item data after the old `meta` box by `delta` bytes, in the
        /// `iloc` box whose body starts at `ilocAt` in `meta` (the new box). False if that
        /// cannot be done (data within the old box, a place too far for its field).
        func moveLocations(in meta: inout [UInt8], at ilocAt: Int, from old: Box, by delta: Int) -> Bool {
            let local = Reader(bytes: meta)
            guard let versionFlags = local.number(ilocAt, 4), let sizes = local.number(ilocAt + 4, 2) else {
                return false
            }
            let version = Int(versionFlags >> 24)
            guard version <= 2 else { return false }
            let offsetSize = Int(sizes >> 12), lengthSize = Int(sizes >> 8 & 0xF)
            let baseSize = Int(sizes >> 4 & 0xF), indexSize = version >= 1 ? Int(sizes & 0xF) : 0
            guard [0, 4, 8].contains(offsetSize), [0, 4, 8].contains(lengthSize), [0, 4, 8].contains(baseSize),
                [0, 4, 8].contains(indexSize)
            else { return false }
            let countLength = version < 2 ? 2 : 4
            var at = ilocAt + 6
            guard let count = local.number(at, countLength) else { return false }
            at += countLength
            var patches: [(at: Int, length: Int, value: UInt64)] = []
            for _ in 0..<count {
                at += countLength // item ID
                var method: UInt64 = 0
                if version >= 1 {
                    guard let value = local.number(at, 2) else { return false }
                    method = value & 0xF
                    at += 2
                }
                guard let base = local.number(at + 2, baseSize), let extents = local.number(at + 2 + baseSize, 2)
                else { return false }
                let baseAt = at + 2
                at += 2 + baseSize + 2
                var places: [(at: Int, offset: UInt64)] = []
                for _ in 0..<extents {
                    at += indexSize
                    guard let offset = local.number(at, offsetSize), local.number(at + offsetSize, lengthSize) != nil
                    else { return false }
                    places.append((at, offset))
                    at += offsetSize + lengthSize
                }
                // Only data placed in the file itself moves.
                guard method == 0 else { continue }
                let starts = places.isEmpty ? [base] : places.map { base &+ $0.offset }
                let after = starts.map { $0 >= UInt64(old.end) }
                guard after.allSatisfy({ $0 }) || starts.allSatisfy({ $0 < UInt64(old.start) }) else { return false }
                guard after.first == true, delta != 0 else { continue }
                if baseSize > 0 {
                    guard let moved = Self.moved(base, by: delta) else { return false }
                    patches.append((baseAt, baseSize, moved))
                } else {
                    guard offsetSize > 0 else { return false }
                    for place in places {
                        guard let moved = Self.moved(place.offset, by: delta) else { return false }
                        patches.append((place.at, offsetSize, moved))
                    }
                }
            }
            for patch in patches {
                guard patch.length == 8 || patch.value <= UInt64(UInt32.max) else { return false }
                for i in 0..<patch.length {
                    meta[patch.at + i] = UInt8(truncatingIfNeeded: patch.value >> (8 * (patch.length - 1 - i)))
                }
            }
            return true
        }

        /// `offset` moved by `delta`; nil where that leaves the numbers there are.
        static func moved(_ offset: UInt64, by delta: Int) -> UInt64? {
            guard let signed = Int64(exactly: offset) else { return nil }
            let (sum, overflow) = signed.addingReportingOverflow(Int64(delta))
            return overflow || sum < 0 ? nil : UInt64(sum)
        }

        /// Sets the EXIF orientation of the file's `Exif` item (in place, where the tag is) to
        /// the picture's new turn.
        func setExifOrientation(in file: inout [UInt8], plan: Plan) {
            let data = Data(file)
            guard let turn = plan.turns[plan.primary],
                let range = HEIFExif.itemRange(in: data), range.upperBound <= file.count,
                let tiff = HEIFExif.tiffBlock(ofItem: data[range]),
                let at = ExifOrientation.orientationValueOffset(inTIFF: tiff)
            else { return }
            let little = tiff.first == UInt8(ascii: "I")
            let value = UInt16(turn.exifOrientation)
            let place = tiff.startIndex + at
            file[place] = UInt8(truncatingIfNeeded: little ? value : value >> 8)
            file[place + 1] = UInt8(truncatingIfNeeded: little ? value >> 8 : value)
        }

        static func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
            var made: [UInt8] = []
            append(UInt64(8 + body.count), 4, to: &made)
            return made + Array(type.utf8) + body
        }

        static func append(_ value: UInt64, _ length: Int, to bytes: inout [UInt8]) {
            for i in (0..<length).reversed() { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * i))) }
        }
    }
}
