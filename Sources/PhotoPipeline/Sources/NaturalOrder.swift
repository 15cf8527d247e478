import CGLib

/// The order a file manager shows names in: digits compared as numbers ("img2" before
/// "img10"), letters by the locale's collation.
///
/// Each name's sort key (`g_utf8_collate_key_for_filename`) is computed once, and the keys are
/// compared bytewise, instead of a locale comparison for every pair the sort looks at.
enum NaturalOrder {
    /// The positions of `count` names in display order. Equal keys fall back to `link(i)`, then
    /// to the position itself, so the order never depends on the sort algorithm.
    static func order(count: Int, name: (Int) -> String, link: (Int) -> String) -> [Int] {
        guard count > 1 else { return Array(0..<count) }
        let keys = UnsafeMutableBufferPointer<UnsafeMutablePointer<CChar>>.allocate(capacity: count)
        defer {
            for key in keys { g_free(key) }
            keys.deallocate()
        }
        for i in 0..<count {
            var text = name(i)
            keys[i] = text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { g_utf8_collate_key_for_filename($0.baseAddress, bytes.count) }
            }!
        }
        var order = (0..<Int32(count)).map { $0 }
        order.sort { a, b in
            let difference = strcmp(keys[Int(a)], keys[Int(b)])
            if difference != 0 { return difference < 0 }
            let (linkA, linkB) = (link(Int(a)), link(Int(b)))
            return linkA != linkB ? linkA < linkB : a < b
        }
        return order.map(Int.init)
    }
}
