import Foundation

/// Texts kept one after another as UTF-8 in one buffer, read back as `String`s.
///
/// A folder's listing names each picture twice (its name, and its address), and most of those
/// texts are too long to be stored inside a `String` value: as strings, each was an allocation
/// made while the folder was read, a reference counted as the tree's folders were put
/// together, and a free when the listing went. Packed, a picture costs two copies into a
/// buffer that grows by doubling, and the list reads them where they are (`PackedEntries`):
/// a listing's texts stay as long as the list that shows them.
struct PackedTexts: RandomAccessCollection, Sendable {
    private var bytes: [UInt8] = []
    /// Text `i` is the bytes up to `ends[i]`, from the end of the one before.
    private var ends: [Int] = []

    init() {}

    init(_ texts: some Sequence<String>) {
        for text in texts { append(text) }
    }

    var startIndex: Int { 0 }
    var endIndex: Int { ends.count }

    subscript(position: Int) -> String {
        withUTF8(position) { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the UTF-8 of text `position` (valid during the call).
    func withUTF8<Result>(_ position: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try withView { try body($0.utf8(position)) }
    }

    /// Calls `body` with a view of every text that counts no references as it reads (for
    /// reading many of them, on several threads at once).
    func withView<Result>(_ body: (View) throws -> Result) rethrows -> Result {
        try bytes.withUnsafeBufferPointer { bytes in
            try ends.withUnsafeBufferPointer { ends in
                try body(View(bytes: bytes, ends: ends))
            }
        }
    }

    /// The texts' bytes and ends, borrowed.
    struct View {
        let bytes: UnsafeBufferPointer<UInt8>
        let ends: UnsafeBufferPointer<Int>

        var count: Int { ends.count }

        /// The UTF-8 of text `position`.
        func utf8(_ position: Int) -> UnsafeBufferPointer<UInt8> {
            let start = position == 0 ? 0 : ends[position - 1]
            return UnsafeBufferPointer(rebasing: bytes[start..<ends[position]])
        }
    }

    mutating func reserveCapacity(texts: Int, bytes count: Int) {
        ends.reserveCapacity(texts)
        bytes.reserveCapacity(count)
    }

    /// The number of bytes the texts hold.
    var byteCount: Int { bytes.count }

    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
        ends.append(bytes.count)
    }

    /// Appends one text made of `first` and `second` (each UTF-8).
    mutating func append(_ first: UnsafeBufferPointer<UInt8>, _ second: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: first)
        bytes.append(contentsOf: second)
        ends.append(bytes.count)
    }

    /// Appends one text made of `first` and the zero-terminated UTF-8 `second`.
    mutating func append(_ first: UnsafeBufferPointer<UInt8>, cString second: UnsafePointer<CChar>) {
        let count = strlen(second)
        second.withMemoryRebound(to: UInt8.self, capacity: count) {
            append(first, UnsafeBufferPointer(start: $0, count: count))
        }
    }

    mutating func append(contentsOf other: PackedTexts) {
        let offset = bytes.count
        bytes += other.bytes
        ends.reserveCapacity(ends.count + other.ends.count)
        for end in other.ends { ends.append(end + offset) }
    }
}
