import CGLib
import Foundation
import GLibKit

/// The order a file manager shows names in: digits compared as numbers ("img2" before
/// "img10"), letters by the locale's collation, case aside.
///
/// Each name's sort key (`g_utf8_collate_key_for_filename`) is computed once, and the keys are
/// compared bytewise, instead of a locale comparison for every pair the sort looks at.
enum NaturalOrder {
    /// Below this many names, keys are made on the calling thread alone.
    static let parallelThreshold = 4096

    /// How `a` compares with `b` in display order: negative, zero or positive.
    static func compare(_ a: String, _ b: String) -> Int32 {
        let keys = NaturalKeys()
        let (keyA, keyB) =
            a.utf8.contains(slash) || b.utf8.contains(slash)
            ? (pathKey(a, keys: keys), pathKey(b, keys: keys)) : (keys.key(a), keys.key(b))
        return keyA == keyB ? 0 : keyA.lexicographicallyPrecedes(keyB) ? -1 : 1
    }

    private static let slash = UInt8(ascii: "/")

    /// The sort key of a path relative to a folder shown with everything beneath it
    /// ("2023/07 July/IMG_0042.jpg"): the folder's own pictures first, then each sub-folder's,
    /// sub-folders in natural order, so every folder's pictures stay together and come in the
    /// order they have when the folder is shown alone. Each part is its natural key, after a
    /// byte saying whether it is a folder (2) or the picture (1), and before a 0, which no
    /// natural key holds.
    static func pathKey(_ path: String, keys: NaturalKeys = NaturalKeys()) -> [UInt8] {
        var bytes: [UInt8] = []
        appendPathKey(path, keys: keys, to: &bytes)
        return bytes
    }

    /// Appends the `pathKey` of `path` to `bytes`.
    static func appendPathKey(_ path: String, keys: NaturalKeys, to bytes: inout [UInt8]) {
        var path = path
        path.withUTF8 { utf8 in
            let parts = utf8.split(separator: slash, omittingEmptySubsequences: true)
            for (index, part) in parts.enumerated() {
                bytes.append(index == parts.count - 1 ? 1 : 2)
                keys.appendKey(utf8: UnsafeBufferPointer(rebasing: part), to: &bytes)
                bytes.append(0)
            }
        }
    }

    /// The positions of `names` in display order. Equal keys fall back to the links, then to
    /// the position itself, so the order never depends on the sort algorithm.
    static func order<Names: RandomAccessCollection<String> & Sendable, Links: RandomAccessCollection<String>>(
        names: Names, links: Links
    ) -> [Int] where Names.Index == Int, Links.Index == Int {
        precondition(names.count == links.count)
        let count = names.count
        guard count > 1 else { return Array(0..<count) }
        let paths = names.contains { name in
            var name = name
            return name.withUTF8 { $0.contains(slash) }
        }
        // Making keys is most of the work (normalisation and strxfrm, per run of letters); the
        // cores share it, each chunk of names making its own run of bytes. The keys are kept
        // as ranges of those bytes, and compared with `memcmp`: a key an array of its own, and
        // compared as a sequence, made sorting a folder cost more than reading it.
        let chunks = count < parallelThreshold ? 1 : 8 * ProcessInfo.processInfo.activeProcessorCount
        let made = Locked([(bytes: [UInt8], ends: [Int])?](repeating: nil, count: chunks))
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            let maker = NaturalKeys()
            var bytes: [UInt8] = []
            var ends: [Int] = []
            let range = (count * chunk / chunks)..<(count * (chunk + 1) / chunks)
            bytes.reserveCapacity(range.count * 24)
            ends.reserveCapacity(range.count)
            for i in range {
                if paths {
                    appendPathKey(names[i], keys: maker, to: &bytes)
                } else {
                    maker.appendKey(names[i], to: &bytes)
                }
                ends.append(bytes.count)
            }
            made.withLock { $0[chunk] = (bytes, ends) }
        }
        var bytes: [UInt8] = []
        var ends: [Int] = []
        ends.reserveCapacity(count)
        for case (let chunkBytes, let chunkEnds)? in made.withLock({ $0 }) {
            let offset = bytes.count
            bytes += chunkBytes
            ends += chunkEnds.lazy.map { $0 + offset }
        }
        return order(keyBytes: bytes, keyEnds: ends, links: links)
    }

    /// The positions in display order of one folder's `names`, each `prefixLength` bytes of
    /// the folder's own path and then the picture's name (whose key `keys` makes).
    ///
    /// A camera's or a phone's folder names every picture alike but for a number of the same
    /// width ("IMG_0042.JPG", "PXL_20230705_101112345.jpg"): where every name is as long as the
    /// others, and wherever two of them differ both hold a digit, they are in the same order
    /// byte for byte as by their keys, and no key is made (making and comparing the keys of a
    /// tree's 100,000 names took a third of the time its folders were read in).
    static func order(names: PackedTexts, after prefixLength: Int, links: PackedTexts, keys: NaturalKeys) -> [Int] {
        names.withView { view in
            if let order = sameShapeOrder(view, after: prefixLength) { return order }
            var bytes: [UInt8] = []
            var ends: [Int] = []
            ends.reserveCapacity(names.count)
            for index in 0..<names.count {
                keys.appendKey(
                    utf8: UnsafeBufferPointer(rebasing: view.utf8(index).dropFirst(prefixLength)), to: &bytes)
                ends.append(bytes.count)
            }
            return order(keyBytes: bytes, keyEnds: ends, links: links)
        }
    }

    /// The digits a number may have for the byte order to stand in for the keys' order: a key
    /// ends with the counts of its numbers' leading zeros, a byte each, which stay below a
    /// digit's byte (0x30), as the order needs, while numbers are shorter than this.
    static let sameShapeDigits = 48

    /// The order of `names` where they are of one shape (see `order(names:after:links:keys:)`),
    /// or nil where they are not.
    static func sameShapeOrder(_ names: PackedTexts.View, after prefixLength: Int) -> [Int]? {
        let count = names.count
        guard count > 1 else { return Array(0..<count) }
        let first = names.utf8(0)
        var digits = 0
        for byte in first.dropFirst(prefixLength) {
            digits = NaturalKeys.isDigit(byte) ? digits + 1 : 0
            if digits >= sameShapeDigits { return nil }
        }
        // Where any name differs from the first (in order): a digit in every name there.
        var differing = [Bool](repeating: false, count: first.count)
        for index in 1..<count {
            let name = names.utf8(index)
            guard name.count == first.count else { return nil }
            for at in 0..<name.count where name[at] != first[at] {
                guard NaturalKeys.isDigit(name[at]), NaturalKeys.isDigit(first[at]) else { return nil }
                differing[at] = true
            }
        }
        // (A place where only others differ from each other is a digit in both of them, as
        // well as in the first.) The names are then in the order of the number their digits at
        // those places make, if it fits in 64 bits; else in the order of their bytes.
        let places = differing.indices.filter { differing[$0] }
        var order = (0..<Int32(count)).map { $0 }
        // Two names the same (two names on disk shown alike) go to the keys, which tell them
        // apart by their addresses.
        var same = false
        if places.count <= 19 {
            let numbers = (0..<count).map { index in
                let name = names.utf8(index)
                return places.reduce(UInt64(0)) { $0 &* 10 &+ UInt64(name[$1] &- 0x30) }
            }
            order.sort { numbers[Int($0)] < numbers[Int($1)] }
            same = zip(order, order.dropFirst()).contains { numbers[Int($0)] == numbers[Int($1)] }
        } else {
            func compare(_ a: Int32, _ b: Int32) -> Int32 {
                let (nameA, nameB) = (names.utf8(Int(a)), names.utf8(Int(b)))
                return memcmp(nameA.baseAddress!, nameB.baseAddress!, nameA.count)
            }
            order.sort { compare($0, $1) < 0 }
            same = zip(order, order.dropFirst()).contains { compare($0, $1) == 0 }
        }
        return same ? nil : order.map(Int.init)
    }

    /// The positions in display order of names whose keys are made already: name `i`'s the
    /// bytes of `keyBytes` up to `keyEnds[i]` from the end of the one before.
    static func order<Links: RandomAccessCollection<String>>(
        keyBytes bytes: [UInt8], keyEnds ends: [Int], links: Links
    ) -> [Int] where Links.Index == Int {
        precondition(ends.count == links.count)
        var order = (0..<Int32(ends.count)).map { $0 }
        bytes.withUnsafeBufferPointer { bytes in
            ends.withUnsafeBufferPointer { ends in
                let base = bytes.baseAddress ?? UnsafePointer<UInt8>(bitPattern: 1)!
                order.sort { a, b in
                    let (startA, endA) = (a == 0 ? 0 : ends[Int(a) - 1], ends[Int(a)])
                    let (startB, endB) = (b == 0 ? 0 : ends[Int(b) - 1], ends[Int(b)])
                    let (lengthA, lengthB) = (endA - startA, endB - startB)
                    let common = memcmp(base + startA, base + startB, min(lengthA, lengthB))
                    if common != 0 { return common < 0 }
                    if lengthA != lengthB { return lengthA < lengthB }
                    let (linkA, linkB) = (links[Int(a)], links[Int(b)])
                    return linkA != linkB ? linkA < linkB : a < b
                }
            }
        }
        return order.map(Int.init)
    }
}
