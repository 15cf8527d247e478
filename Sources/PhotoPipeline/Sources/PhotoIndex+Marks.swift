import CDecoderSandbox
import CSQLite
import Foundation

/// The marks of photos (`PhotoMarks`), kept in the index beside their facts: a folder of
/// 10,000 photos with sidecars opens with its stars without reading 10,000 sidecars again.
/// Each is kept with the file it was read from (the sidecar, or the photo itself) and that
/// file's size and time, so that a sidecar another app changed is read again. Marks no file
/// holds (a sidecar that could not be written: a card, a read-only share) are kept as the
/// user's own, not a cache's: Clear Cache leaves them.
extension PhotoIndex {
    /// The marks the index holds for a photo, and what they were read from.
    public struct HeldMarks: Sendable, Equatable {
        /// The file they were read from or written to: the photo's sidecar, or the photo.
        public var source: String
        public var size: Int64
        /// Modification time, in nanoseconds since 1970.
        public var modified: Int64
        public var marks: PhotoMarks
        /// Given in the app but held by no file: the sidecar could not be written.
        public var unsaved: Bool

        public init(source: String, size: Int64, modified: Int64, marks: PhotoMarks, unsaved: Bool = false) {
            self.source = source
            self.size = size
            self.modified = modified
            self.marks = marks
            self.unsaved = unsaved
        }
    }

    static let marksTable = """
        CREATE TABLE marks (
            path TEXT PRIMARY KEY NOT NULL, source TEXT NOT NULL, size INTEGER NOT NULL,
            modified INTEGER NOT NULL, rating INTEGER NOT NULL, label TEXT, tags TEXT NOT NULL,
            unsaved INTEGER NOT NULL
        ) WITHOUT ROWID;
        """

    /// Tags are kept as one text, a tag a line (a tag has no line break: `PhotoMarks` keeps
    /// the words of one line).
    private static let tagSeparator = "\n"

    /// What the index holds for the photo at `path`.
    public func marks(path: String) -> HeldMarks? {
        var found: HeldMarks?
        withDatabase { database in
            var statement: OpaquePointer?
            guard
                sqlite3_prepare_v2(
                    database,
                    "SELECT source, size, modified, rating, label, tags, unsaved FROM marks WHERE path = ?1", -1,
                    &statement, nil) == SQLITE_OK
            else { return }
            defer { sqlite3_finalize(statement) }
            sqlite3_bind_text(statement, 1, path, -1, cp_sqlite_transient())
            guard sqlite3_step(statement) == SQLITE_ROW, let source = sqlite3_column_text(statement, 0) else { return }
            let label = sqlite3_column_text(statement, 4).map { String(cString: $0) }
            let tags = sqlite3_column_text(statement, 5).map { String(cString: $0) } ?? ""
            found = HeldMarks(
                source: String(cString: source), size: sqlite3_column_int64(statement, 1),
                modified: sqlite3_column_int64(statement, 2),
                marks: PhotoMarks(
                    rating: Int(sqlite3_column_int64(statement, 3)), label: label,
                    tags: tags.split(separator: Self.tagSeparator).map(String.init)),
                unsaved: sqlite3_column_int64(statement, 6) != 0)
        }
        return found
    }

    /// The marks the index holds for every photo whose path begins with `prefix` (a folder's
    /// path and "/"; anything else: all), by path, as last read or given: one pass over that part of
    /// the table, for a filter to see every photo of a list without reading a file.
    public func marks(under prefix: String) -> [String: PhotoMarks] {
        var found: [String: PhotoMarks] = [:]
        withDatabase { database in
            var statement: OpaquePointer?
            // The paths from the folder's up to the first text after all that begin with it
            // ("0" follows "/"; paths are compared byte by byte).
            let end = prefix.hasSuffix("/") ? String(prefix.dropLast()) + "0" : nil
            let query =
                "SELECT path, rating, label, tags FROM marks"
                + (end == nil ? "" : " WHERE path >= ?1 AND path < ?2")
            guard sqlite3_prepare_v2(database, query, -1, &statement, nil) == SQLITE_OK else { return }
            defer { sqlite3_finalize(statement) }
            if let end {
                sqlite3_bind_text(statement, 1, prefix, -1, cp_sqlite_transient())
                sqlite3_bind_text(statement, 2, end, -1, cp_sqlite_transient())
            }
            while sqlite3_step(statement) == SQLITE_ROW, let path = sqlite3_column_text(statement, 0) {
                let label = sqlite3_column_text(statement, 2).map { String(cString: $0) }
                let tags = sqlite3_column_text(statement, 3).map { String(cString: $0) } ?? ""
                found[String(cString: path)] = PhotoMarks(
                    rating: Int(sqlite3_column_int64(statement, 1)), label: label,
                    tags: tags.isEmpty ? [] : tags.split(separator: Self.tagSeparator).map(String.init))
            }
        }
        return found
    }

    /// Keeps `held` for each photo (by path), in one transaction.
    public func remember(marks held: [(path: String, marks: HeldMarks)]) {
        guard !held.isEmpty else { return }
        withDatabase { database in
            Self.inTransaction(
                database,
                """
                INSERT OR REPLACE INTO marks (path, source, size, modified, rating, label, tags, unsaved)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                """
            ) { statement in
                for (path, held) in held {
                    sqlite3_bind_text(statement, 1, path, -1, cp_sqlite_transient())
                    sqlite3_bind_text(statement, 2, held.source, -1, cp_sqlite_transient())
                    sqlite3_bind_int64(statement, 3, held.size)
                    sqlite3_bind_int64(statement, 4, held.modified)
                    sqlite3_bind_int64(statement, 5, Int64(held.marks.rating))
                    if let label = held.marks.label {
                        sqlite3_bind_text(statement, 6, label, -1, cp_sqlite_transient())
                    } else {
                        sqlite3_bind_null(statement, 6)
                    }
                    sqlite3_bind_text(
                        statement, 7, held.marks.tags.joined(separator: Self.tagSeparator), -1, cp_sqlite_transient())
                    sqlite3_bind_int64(statement, 8, held.unsaved ? 1 : 0)
                    _ = sqlite3_step(statement)
                    sqlite3_reset(statement)
                }
            }
        }
    }

    /// The tags of every photo the index knows, the most used first (ties by name), for a
    /// person adding a tag to choose from; at most `limit`.
    public func knownTags(limit: Int = 2_000) -> [String] {
        var uses: [String: Int] = [:]
        withDatabase { database in
            var statement: OpaquePointer?
            let query = "SELECT tags, count(*) FROM marks WHERE tags != '' GROUP BY tags"
            guard sqlite3_prepare_v2(database, query, -1, &statement, nil) == SQLITE_OK else { return }
            defer { sqlite3_finalize(statement) }
            while sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) {
                let count = Int(sqlite3_column_int64(statement, 1))
                for tag in String(cString: text).split(separator: Self.tagSeparator) {
                    uses[String(tag), default: 0] += count
                }
            }
        }
        return uses.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.prefix(limit).map(\.key)
    }

    /// How many photos the index holds marks for (those no file holds, with `unsaved`).
    public func marksCount(unsaved: Bool = false) -> Int {
        var count = 0
        withDatabase { database in
            var statement: OpaquePointer?
            let query = "SELECT count(*) FROM marks" + (unsaved ? " WHERE unsaved != 0" : "")
            guard sqlite3_prepare_v2(database, query, -1, &statement, nil) == SQLITE_OK else { return }
            defer { sqlite3_finalize(statement) }
            if sqlite3_step(statement) == SQLITE_ROW { count = Int(sqlite3_column_int64(statement, 0)) }
        }
        return count
    }
}
