import CGLib
import Foundation

/// Names' natural sort keys: the bytes GLib's `g_utf8_collate_key_for_filename` gives for the
/// name with its case folded (`g_utf8_casefold`), made with fewer calls into the locale.
///
/// GLib's key is the name cut at dots and runs of digits: each run of other characters is
/// turned into the locale's collation key (`g_utf8_collate_key`: normalisation, then
/// `strxfrm`), a dot into a marker, a number into a marker, one `:` for each digit after its
/// first and its digits, and the leading zeros' counts go at the end. A folder of camera
/// photos repeats the same few runs ("img_", "jpg") in every name, and their collation keys
/// were most of the time ordering a tree of 100,000 took (1.4 µs a name). Here each run's
/// collation key is asked of the locale once and kept; the rest is put together as GLib puts
/// it. The tests hold the result to GLib's own, byte for byte.
///
/// One maker is used on one thread at a time.
final class NaturalKeys {
    /// What is kept between names: each run of characters met (its bytes, case folded) and
    /// its collation key, found by the run's `PathKey` hash, and buffers reused for every name.
    private struct Store {
        /// A run's place in `runs` and `keys`, by its hash.
        var places: [UInt64: Int] = [:]
        var runs: [[UInt8]] = []
        var keys: [[UInt8]] = []
        /// The name's folded bytes, the key as it is put together, and the counts of leading
        /// zeros.
        var folded: [UInt8] = []
        var result: [UInt8] = []
        var zeros: [UInt8] = []
    }

    private var store = Store()

    /// What GLib puts before a dot's or a number's part: it sorts before any key `strxfrm` makes.
    private static let sentinel: [UInt8] = [1, 1, 1]

    /// The key of `name`.
    func key(_ name: String) -> [UInt8] {
        // Worked on as a local: a class's own arrays are checked for exclusive access at every
        // use, which cost more than the work itself.
        var store = Store()
        swap(&store, &self.store)
        defer { swap(&store, &self.store) }
        var name = name
        store.folded.removeAll(keepingCapacity: true)
        name.withUTF8 { bytes in
            if bytes.allSatisfy({ $0 < 0x80 }) {
                // ASCII folds to lower case, byte for byte, as `g_utf8_casefold` folds it.
                for byte in bytes { store.folded.append((0x41...0x5A).contains(byte) ? byte | 0x20 : byte) }
            } else {
                bytes.withMemoryRebound(to: CChar.self) { utf8 in
                    let made = g_utf8_casefold(utf8.baseAddress, utf8.count)!
                    store.folded.append(contentsOf: UnsafeRawBufferPointer(start: made, count: strlen(made)))
                    g_free(made)
                }
            }
        }
        Self.makeKey(&store)
        return store.result
    }

    /// The key of the name in `store.folded`, put together in `store.result`.
    private static func makeKey(_ store: inout Store) {
        store.result.removeAll(keepingCapacity: true)
        store.zeros.removeAll(keepingCapacity: true)
        let folded = store.folded
        var runStart = 0
        var at = 0
        let count = folded.count
        while at < count {
            let byte = folded[at]
            if byte == UInt8(ascii: ".") {
                appendRun(folded[runStart..<at], to: &store)
                store.result += sentinel
                store.result.append(1)
                at += 1
                runStart = at
            } else if isDigit(byte) {
                appendRun(folded[runStart..<at], to: &store)
                store.result += sentinel
                store.result.append(2)
                // Leading zeros are counted apart; an all-zero number is one digit and the rest
                // leading zeros, unless it ends the name (GLib counts it so only where
                // something follows).
                let start = at
                var leadingZeros = 0
                var digits = 0
                while at < count, isDigit(folded[at]) {
                    if folded[at] == UInt8(ascii: "0"), digits == 0 {
                        leadingZeros += 1
                    } else {
                        digits += 1
                    }
                    at += 1
                }
                if digits == 0, at < count {
                    digits = 1
                    leadingZeros -= 1
                }
                for _ in 1..<max(1, digits) { store.result.append(UInt8(ascii: ":")) }
                if leadingZeros > 0 { store.zeros.append(UInt8(truncatingIfNeeded: leadingZeros)) }
                store.result += folded[(start + leadingZeros)..<at]
                runStart = at
            } else {
                at += 1
            }
        }
        appendRun(folded[runStart..<count], to: &store)
        // GLib appends the counts as text: a count that is a multiple of 256 ends it there.
        store.result += store.zeros.prefix { $0 != 0 }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    /// Appends the locale's collation key of `run`, asked once.
    private static func appendRun(_ run: ArraySlice<UInt8>, to store: inout Store) {
        guard !run.isEmpty else { return }
        let hash = PathKey.of(run)
        let place = store.places[hash]
        if let place, store.runs[place].elementsEqual(run) {
            store.result += store.keys[place]
            return
        }
        let bytes = Array(run)
        let made = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { text -> [UInt8] in
                guard let key = g_utf8_collate_key(text.baseAddress, text.count) else { return [] }
                defer { g_free(key) }
                return Array(UnsafeRawBufferPointer(start: key, count: strlen(key)))
            }
        }
        // (Two runs with one hash: the first is kept, the other asked each time.)
        if place == nil {
            store.places[hash] = store.runs.count
            store.runs.append(bytes)
            store.keys.append(made)
        }
        store.result += made
    }
}
