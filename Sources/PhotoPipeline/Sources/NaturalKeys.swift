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
    /// its collation key, found by the run's `PathKey` hash.
    private struct Store {
        /// A run's place in `runs` and `keys`, by its hash.
        var places: [UInt64: Int] = [:]
        var runs: [[UInt8]] = []
        var keys: [[UInt8]] = []
        /// The places of the last few runs looked up in `places`, the latest first.
        var recent: [Int] = []
    }

    private var store = Store()

    /// The key of `name`.
    func key(_ name: String) -> [UInt8] {
        var key: [UInt8] = []
        appendKey(name, to: &key)
        return key
    }

    /// Appends the key of `name` to `bytes`.
    func appendKey(_ name: String, to bytes: inout [UInt8]) {
        var name = name
        name.withUTF8 { appendKey(utf8: $0, to: &bytes) }
    }

    /// Appends the key of the name whose (valid) UTF-8 is `utf8` to `bytes`.
    func appendKey(utf8: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        // Worked on as a local: a class's own arrays are checked for exclusive access at every
        // use, which cost more than the work itself.
        var store = Store()
        swap(&store, &self.store)
        defer { swap(&store, &self.store) }
        var ascii = true
        for byte in utf8 where byte >= 0x80 {
            ascii = false
            break
        }
        if ascii {
            // ASCII folds to lower case, byte for byte, as `g_utf8_casefold` folds it.
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(1, utf8.count)) { folded in
                for (at, byte) in utf8.enumerated() { folded[at] = byte &- 0x41 < 26 ? byte | 0x20 : byte }
                Self.makeKey(UnsafeBufferPointer(rebasing: folded[..<utf8.count]), store: &store, to: &bytes)
            }
        } else {
            utf8.withMemoryRebound(to: CChar.self) { text in
                let made = g_utf8_casefold(text.baseAddress, text.count)!
                defer { g_free(made) }
                let count = strlen(made)
                made.withMemoryRebound(to: UInt8.self, capacity: count) { folded in
                    Self.makeKey(UnsafeBufferPointer(start: folded, count: count), store: &store, to: &bytes)
                }
            }
        }
    }

    /// Appends the key of the case-folded name `folded` to `out`.
    private static func makeKey(_ folded: UnsafeBufferPointer<UInt8>, store: inout Store, to out: inout [UInt8]) {
        let count = folded.count
        // The counts of leading zeros, one a number, which go at the end.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(1, count)) { zeros in
            var zeroCounts = 0
            var runStart = 0
            var at = 0
            // A dot's or a number's part begins as GLib's does, with three 1s (before any key
            // `strxfrm` makes) and its kind: 1 a dot, 2 a number.
            while at < count {
                let byte = folded[at]
                if byte == UInt8(ascii: ".") {
                    appendRun(UnsafeBufferPointer(rebasing: folded[runStart..<at]), store: &store, to: &out)
                    out.append(contentsOf: [1, 1, 1, 1] as [UInt8])
                    at += 1
                    runStart = at
                } else if isDigit(byte) {
                    appendRun(UnsafeBufferPointer(rebasing: folded[runStart..<at]), store: &store, to: &out)
                    out.append(contentsOf: [1, 1, 1, 2] as [UInt8])
                    // Leading zeros are counted apart; an all-zero number is one digit and the
                    // rest leading zeros, unless it ends the name (GLib counts it so only where
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
                    for _ in 1..<max(1, digits) { out.append(UInt8(ascii: ":")) }
                    if leadingZeros > 0 {
                        zeros[zeroCounts] = UInt8(truncatingIfNeeded: leadingZeros)
                        zeroCounts += 1
                    }
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: folded[(start + leadingZeros)..<at]))
                    runStart = at
                } else {
                    at += 1
                }
            }
            appendRun(UnsafeBufferPointer(rebasing: folded[runStart..<count]), store: &store, to: &out)
            // GLib appends the counts as text: a count that is a multiple of 256 ends it there.
            out.append(contentsOf: UnsafeBufferPointer(rebasing: zeros[..<zeroCounts]).prefix { $0 != 0 })
        }
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    /// Appends the locale's collation key of `run`, asked once.
    private static func appendRun(_ run: UnsafeBufferPointer<UInt8>, store: inout Store, to out: inout [UInt8]) {
        guard !run.isEmpty else { return }
        // The runs met last are tried first: a folder's names repeat the same one or two.
        for place in store.recent where store.runs[place].count == run.count {
            let same = store.runs[place].withUnsafeBufferPointer {
                memcmp($0.baseAddress!, run.baseAddress!, run.count) == 0
            }
            if same {
                out += store.keys[place]
                return
            }
        }
        let hash = PathKey.of(run)
        let place = store.places[hash]
        if let place, store.runs[place].elementsEqual(run) {
            out += store.keys[place]
            remember(place, in: &store)
            return
        }
        let made = run.withMemoryRebound(to: CChar.self) { text -> [UInt8] in
            guard let key = g_utf8_collate_key(text.baseAddress, text.count) else { return [] }
            defer { g_free(key) }
            return Array(UnsafeRawBufferPointer(start: key, count: strlen(key)))
        }
        // (Two runs with one hash: the first is kept, the other asked each time.)
        if place == nil {
            store.places[hash] = store.runs.count
            remember(store.runs.count, in: &store)
            store.runs.append(Array(run))
            store.keys.append(made)
        }
        out += made
    }

    /// Puts `place` first among the runs tried before the table.
    private static func remember(_ place: Int, in store: inout Store) {
        if store.recent.count == 4 { store.recent.removeLast() }
        store.recent.insert(place, at: 0)
    }
}
