import Foundation
@testable import PhotoPipeline
import Testing

/// The texts of a folder's listing, packed one after another: each comes back whole and in
/// its place, however it was added.
@Suite struct PackedTextsTests {
    @Test("Texts added whole, in two parts or as a list joined come back as they were, empty and accented ones too")
    func roundTrip() {
        var first = PackedTexts(["IMG_0001.jpg", "", "Été à Noël/🌅 sunrise.heic"])
        var second = PackedTexts()
        let prefix = Array("2024/05 May/".utf8)
        let name = Array("a photo #1 ü.png".utf8)
        prefix.withUnsafeBufferPointer { prefix in
            name.withUnsafeBufferPointer { second.append(prefix, $0) }
            "IMG_0002.JPG".withCString { second.append(prefix, cString: $0) }
        }
        second.append("last")
        first.append(contentsOf: second)
        let expected = [
            "IMG_0001.jpg", "", "Été à Noël/🌅 sunrise.heic", "2024/05 May/a photo #1 ü.png",
            "2024/05 May/IMG_0002.JPG", "last",
        ]
        #expect(Array(first) == expected)
        #expect(first.count == 6)
        #expect(first.byteCount == expected.reduce(0) { $0 + $1.utf8.count })
        #expect(first.withUTF8(3) { Array($0) } == prefix + name)
        first.withView { view in
            #expect(String(decoding: view.utf8(5), as: UTF8.self) == "last")
            #expect(view.utf8(1).isEmpty)
        }
    }
}

/// The index's values by path key: every key finds its own value, a key not held finds none.
@Suite struct PathKeyTableTests {
    @Test(
        "Keys find their values among 20,000 (runs of taken slots among them), zero is a key, a repeated key keeps its last value"
    )
    func lookups() {
        var generator = SystemRandomNumberGenerator()
        let keys = (0..<20_000).map { _ in UInt64.random(in: 1...UInt64.max, using: &generator) } + [0]
        let values = keys.indices.map { Int64($0) }
        let table = PathKeyTable(keys: keys + [keys[7]], values: values + [-1])
        #expect(table.count == keys.count)
        #expect(keys.indices.allSatisfy { $0 == 7 || table[keys[$0]] == values[$0] })
        #expect(table[keys[7]] == -1)
        let held = Set(keys)
        let absent = (0..<1_000).map { _ in UInt64.random(in: 1...UInt64.max, using: &generator) }
        #expect(absent.allSatisfy { held.contains($0) || table[$0] == nil })
        #expect(PathKeyTable<Int64>(keys: [], values: [])[5] == nil)
    }
}
