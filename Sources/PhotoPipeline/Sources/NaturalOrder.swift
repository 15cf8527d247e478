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
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        var bytes: [UInt8] = []
        for (index, part) in parts.enumerated() {
            bytes.append(index == parts.count - 1 ? 1 : 2)
            bytes += keys.key(String(part))
            bytes.append(0)
        }
        return bytes
    }

    /// The positions of `names` in display order. Equal keys fall back to the links, then to
    /// the position itself, so the order never depends on the sort algorithm.
    static func order(names: [String], links: [String]) -> [Int] {
        precondition(names.count == links.count)
        let count = names.count
        guard count > 1 else { return Array(0..<count) }
        let paths = names.contains(where: { $0.utf8.contains(slash) })
        let keys = UnsafeMutableBufferPointer<[UInt8]>.allocate(capacity: count)
        keys.initialize(repeating: [])
        defer { keys.deinitialize().deallocate() }
        // Making keys is most of the work (normalisation and strxfrm, per run of letters); the
        // cores share it. Each chunk writes its own slots of `keys`, and no other.
        nonisolated(unsafe) let slots = keys
        let chunks = count < parallelThreshold ? 1 : 8 * ProcessInfo.processInfo.activeProcessorCount
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            let maker = NaturalKeys()
            for i in (count * chunk / chunks)..<(count * (chunk + 1) / chunks) {
                slots[i] = paths ? pathKey(names[i], keys: maker) : maker.key(names[i])
            }
        }
        var order = (0..<Int32(count)).map { $0 }
        order.sort { a, b in
            let (keyA, keyB) = (keys[Int(a)], keys[Int(b)])
            if keyA != keyB { return keyA.lexicographicallyPrecedes(keyB) }
            let (linkA, linkB) = (links[Int(a)], links[Int(b)])
            return linkA != linkB ? linkA < linkB : a < b
        }
        return order.map(Int.init)
    }
}
