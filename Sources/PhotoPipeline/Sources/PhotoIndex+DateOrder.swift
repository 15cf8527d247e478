import CSQLite
import Foundation

/// Sorting a big tree by date taken from what the index holds: every date as a number, and the
/// files that come first found on the way.
extension PhotoIndex {
    /// The files that come first by date taken in a folder and below it, asked of
    /// `dateNumbersByPathKey` in the same pass over its rows: the first `limit` (latest first
    /// with `descending`; ties by path, as `firstByDateTaken` orders them), given to `found`
    /// with how many files the index holds there, or nil where a date is not in the numbers'
    /// form. `found` is called once, before the numbers are put in their table.
    struct FirstRows: Sendable {
        var limit: Int
        var descending: Bool
        var found: @Sendable (_ rows: [(path: String, facts: SortFacts)]?, _ held: Int) -> Void
    }

    /// The date taken of every file in the folder at `folderPath` and below it, as the index
    /// last saw it, as a number (`PhotoOrder.dateNumber`), by each path's `PathKey`; nil where
    /// a date is not in the form the numbers take (the caller then asks `sortFactsByPathKey`).
    /// Sorting a big tree by date needs nothing else: no text is made of the dates either.
    /// With `first`, the files that come first are found on the way (see `FirstRows`).
    func dateNumbersByPathKey(inFolder folderPath: String, first: FirstRows? = nil) -> PathKeyTable<Int64>? {
        var keys: [UInt64] = []
        var numbers: [Int64] = []
        var readable = true
        var leading = FirstRowsFound(first)
        forEachRow(inFolder: folderPath, columns: "path, taken, size, modified") { statement, path, length in
            guard readable, let taken = sqlite3_column_text(statement, 1) else { return }
            let text = UnsafeBufferPointer(start: taken, count: Int(sqlite3_column_bytes(statement, 1)))
            guard let number = PhotoOrder.dateNumber(text) else {
                readable = false
                return
            }
            let pathBytes = UnsafeBufferPointer(start: path, count: length)
            keys.append(PathKey.of(pathBytes))
            numbers.append(number)
            leading.consider(number, path: pathBytes, taken: text) {
                (sqlite3_column_int64(statement, 2), sqlite3_column_int64(statement, 3))
            }
        }
        first?.found(readable ? leading.rows() : nil, keys.count)
        guard readable else { return nil }
        return PathKeyTable(keys: keys, values: numbers)
    }

    /// The rows that may come first, kept while the rows are read: at most a few times the
    /// limit, trimmed back to it now and then, and none kept after that that comes after the
    /// last of those.
    private struct FirstRowsFound {
        struct Candidate {
            var number: Int64
            var path: [UInt8]
            var taken: [UInt8]
            var size: Int64
            var modified: Int64
        }
        let limit: Int
        let descending: Bool
        var candidates: [Candidate] = []
        /// The date of the last row kept at the last trim.
        var bound: Int64?

        init(_ first: FirstRows?) {
            limit = first?.limit ?? 0
            descending = first?.descending ?? false
        }

        func precedes(_ a: Candidate, _ b: Candidate) -> Bool {
            if a.number != b.number { return descending ? a.number > b.number : a.number < b.number }
            return a.path.lexicographicallyPrecedes(b.path)
        }

        mutating func consider(
            _ number: Int64, path: UnsafeBufferPointer<UInt8>, taken: UnsafeBufferPointer<UInt8>,
            status: () -> (size: Int64, modified: Int64)
        ) {
            guard limit > 0 else { return }
            if let bound, descending ? number < bound : number > bound { return }
            let (size, modified) = status()
            candidates.append(
                Candidate(number: number, path: Array(path), taken: Array(taken), size: size, modified: modified))
            if candidates.count >= 4 * limit { trim() }
        }

        mutating func trim() {
            candidates.sort(by: precedes)
            if candidates.count > limit { candidates.removeLast(candidates.count - limit) }
            bound = candidates.last?.number
        }

        /// The first rows, in order; a path that is not UTF-8 is left to the listing (which
        /// names it its own way).
        mutating func rows() -> [(path: String, facts: SortFacts)] {
            trim()
            return candidates.compactMap { candidate in
                guard let path = String(validating: candidate.path, as: UTF8.self) else { return nil }
                return (
                    path,
                    SortFacts(
                        modified: candidate.modified, size: candidate.size,
                        taken: String(decoding: candidate.taken, as: UTF8.self))
                )
            }
        }
    }
}
