import CGLib
import Foundation

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
        if a.utf8.contains(slash) || b.utf8.contains(slash) {
            let (keyA, keyB) = (pathKey(a), pathKey(b))
            return keyA == keyB ? 0 : keyA.lexicographicallyPrecedes(keyB) ? -1 : 1
        }
        let (keyA, keyB) = (key(a), key(b))
        defer { g_free(keyA); g_free(keyB) }
        return strcmp(keyA!, keyB!)
    }

    private static let slash = UInt8(ascii: "/")

    /// The sort key of a path relative to a folder shown with everything beneath it
    /// ("2023/07 July/IMG_0042.jpg"): the folder's own pictures first, then each sub-folder's,
    /// sub-folders in natural order, so every folder's pictures stay together and come in the
    /// order they have when the folder is shown alone. Each part is its natural key, after a
    /// byte saying whether it is a folder (2) or the picture (1), and before a 0, which no
    /// natural key holds.
    static func pathKey(_ path: String) -> [UInt8] {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        var bytes: [UInt8] = []
        for (index, part) in parts.enumerated() {
            bytes.append(index == parts.count - 1 ? 1 : 2)
            let key = key(String(part))!
            defer { g_free(key) }
            bytes.append(contentsOf: UnsafeRawBufferPointer(start: key, count: strlen(key)))
            bytes.append(0)
        }
        return bytes
    }

    /// The sort key of one name (to be freed with `g_free`).
    private static func key(_ name: String) -> UnsafeMutablePointer<CChar>? {
        var name = name
        return name.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { utf8 in
                // Case aside, as file managers sort: "IMG3" between "img2" and "img4" even
                // where the locale's collation (C, say) puts capitals first.
                let folded = g_utf8_casefold(utf8.baseAddress, utf8.count)
                defer { g_free(folded) }
                return g_utf8_collate_key_for_filename(folded, -1)
            }
        }
    }

    /// The positions of `names` in display order. Equal keys fall back to the links, then to
    /// the position itself, so the order never depends on the sort algorithm.
    static func order(names: [String], links: [String]) -> [Int] {
        precondition(names.count == links.count)
        let count = names.count
        guard count > 1 else { return Array(0..<count) }
        if names.contains(where: { $0.utf8.contains(slash) }) { return pathOrder(names: names, links: links) }
        let keys = UnsafeMutableBufferPointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: count)
        defer {
            for key in keys { g_free(key) }
            keys.deallocate()
        }
        // Making keys is most of the work (normalisation and strxfrm, per run of letters); the
        // cores share it. Each chunk writes its own slots of `keys`, and no other.
        nonisolated(unsafe) let slots = keys
        let chunks = count < parallelThreshold ? 1 : 8 * ProcessInfo.processInfo.activeProcessorCount
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            for i in (count * chunk / chunks)..<(count * (chunk + 1) / chunks) {
                slots[i] = key(names[i])
            }
        }
        var order = (0..<Int32(count)).map { $0 }
        order.sort { a, b in
            let difference = strcmp(keys[Int(a)]!, keys[Int(b)]!)
            if difference != 0 { return difference < 0 }
            let (linkA, linkB) = (links[Int(a)], links[Int(b)])
            return linkA != linkB ? linkA < linkB : a < b
        }
        return order.map(Int.init)
    }

    /// `order(names:links:)` for paths relative to a folder (see `pathKey`).
    private static func pathOrder(names: [String], links: [String]) -> [Int] {
        let count = names.count
        let keys = UnsafeMutableBufferPointer<[UInt8]>.allocate(capacity: count)
        keys.initialize(repeating: [])
        defer { keys.deinitialize().deallocate() }
        nonisolated(unsafe) let slots = keys
        let chunks = count < parallelThreshold ? 1 : 8 * ProcessInfo.processInfo.activeProcessorCount
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            for i in (count * chunk / chunks)..<(count * (chunk + 1) / chunks) {
                slots[i] = pathKey(names[i])
            }
        }
        return (0..<count).sorted { a, b in
            if keys[a] != keys[b] { return keys[a].lexicographicallyPrecedes(keys[b]) }
            return links[a] != links[b] ? links[a] < links[b] : a < b
        }
    }
}
