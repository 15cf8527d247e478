import CGLib
import Foundation
@testable import PhotoPipeline
import Testing

/// Natural sort keys made a run at a time are GLib's own.
@Suite struct NaturalKeysTests {
    /// GLib's key for `name`, as the order used it before: the case folded, then
    /// `g_utf8_collate_key_for_filename`.
    private func glibKey(_ name: String) -> [UInt8] {
        let folded = g_utf8_casefold(name, -1)!
        defer { g_free(folded) }
        let key = g_utf8_collate_key_for_filename(folded, -1)!
        defer { g_free(key) }
        return Array(UnsafeRawBufferPointer(start: key, count: strlen(key)))
    }

    @Test(
        "Keys are GLib's byte for byte: digits, leading zeros (all-zero numbers too, at the end or not), dots, case, accents, other scripts"
    )
    func sameAsGLib() {
        var names = [
            "", "a", "A", ".", "..", ".hidden", "0", "00", "000", "0.jpg", "00.jpg", "img0", "img00", "img000.jpg",
            "IMG_0042.JPG", "img_42.jpg", "img10.png", "img9.png", "a.b.c", "a..b", "photo 1 (2).jpg", "2023-07-04",
            "x000y007z0", "Ärger.png", "ärger.png", "Straße 12.jpg", "STRASSE 12.jpg", "École.jpg", "ecole.jpg",
            "写真 3.jpg", "写真 12.jpg", "ΣΊΣΥΦΟΣ.png", "файл 5.jpg", "🙂 1.png", "e\u{301}.jpg", "é.jpg", "１２.jpg",
            "name:with:colons 3", String(repeating: "0", count: 300) + "1",
            "b" + String(repeating: "0", count: 257) + "x", "b" + String(repeating: "0", count: 256),
            "c" + String(repeating: "0", count: 512) + "7.jpg",
        ]
        // Many more, from pieces people's names are made of.
        let pieces = [
            "img", "IMG", "_", "-", " ", ".", "0", "00", "7", "42", "0100", "jpg", "JPEG", "é", "Ü", "ß", "写", "～", "(",
            ")",
            ":", "~", "DSC", "holiday", "Å",
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3_000 {
            names.append(
                (0..<Int.random(in: 1...7, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
                    .joined())
        }
        let keys = NaturalKeys()
        var differ: [String] = []
        for name in names where keys.key(name) != glibKey(name) { differ.append(name) }
        #expect(differ.isEmpty, "\(differ.prefix(5).map { $0.debugDescription })")
        // Made again from what the maker keeps, the same.
        for name in names.prefix(200) where keys.key(name) != glibKey(name) { differ.append(name) }
        #expect(differ.isEmpty)
    }
}
