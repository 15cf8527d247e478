import CDecoderSandbox
import CGLib
import CSQLite
import Foundation
import GLibKit

/// What the app has read from photos that is slow to read again (the date taken, the pixel
/// size, the orientation and the camera, from each file's first bytes), kept between runs in an
/// SQLite database in the app's cache folder, keyed by path, size and modification time: a file
/// rewritten in place changes one of them, and is read again.
///
/// It is used off the main thread only (folders are read and sorted on workers). Writes are
/// gathered and made in one transaction at a time, the database in WAL mode so that a second
/// window's reads do not wait for them. A database that is not this app's, or damaged (found
/// as it is opened, or by a whole check in the background once it is open), is set aside
/// (renamed beside it) and made anew; one that stays locked is passed over for this run. The
/// index is a cache: a miss only costs a read of the file.
public final class PhotoIndex: @unchecked Sendable {
    /// What the index holds for one file.
    public struct Facts: Sendable, Equatable {
        public var size: Int64
        /// Modification time, in nanoseconds since 1970.
        public var modified: Int64
        /// When the photo was taken, as `SortFacts` writes it ("2021-07-04 18:30:05").
        public var taken: String
        /// The picture's size in pixels as stored (before `orientation` turns it), its EXIF
        /// orientation (1–8), the camera's make and model and the lens, where the file says them.
        public var width: Int?
        public var height: Int?
        public var orientation: Int?
        public var camera: String?
        public var lens: String?
        /// Where it was taken (degrees, north and east positive), where its GPS tags say.
        public var latitude: Double?
        public var longitude: Double?

        public init(
            size: Int64, modified: Int64, taken: String, width: Int? = nil, height: Int? = nil,
            orientation: Int? = nil, camera: String? = nil, lens: String? = nil, latitude: Double? = nil,
            longitude: Double? = nil
        ) {
            self.size = size
            self.modified = modified
            self.taken = taken
            self.width = width
            self.height = height
            self.orientation = orientation
            self.camera = camera
            self.lens = lens
            self.latitude = latitude
            self.longitude = longitude
        }

        /// The size as shown: turned a quarter for orientations 5 to 8.
        public var shownSize: (width: Int, height: Int)? {
            guard let width, let height else { return nil }
            return (5...8).contains(orientation ?? 1) ? (height, width) : (width, height)
        }
    }

    /// Why an index could not be opened.
    public enum OpenFailure: Error, Equatable {
        /// Another process holds it locked (it is left alone).
        case locked
        /// It is damaged or not this app's (it is set aside).
        case unusable(String)
        /// The folder or the file cannot be made.
        case unavailable(String)
    }

    /// "CPIX", the app's mark in the database header (`PRAGMA application_id`).
    static let applicationID: Int32 = 0x4350_4958
    /// 2: the pixel size, orientation and camera beside the date (an index of version 1 is
    /// set aside and made anew); 3: the marks (`PhotoIndex+Marks`; one of version 2 is given
    /// their table); 4: the lens, and dates and cameras read as the details panel reads them
    /// where a photo's first bytes do not settle them (`SortFacts`; the facts of versions 2 and
    /// 3, which a WebP's modification time could stand in for its date, are forgotten and read
    /// again; the marks are kept); 5: the GPS position (the facts of versions 2 to 4 are
    /// forgotten, as before: they lack it).
    static let schemaVersion: Int32 = 5
    /// Writes gathered before they are made.
    static let batchSize = 1_000

    public let path: String
    private let lock = NSLock()
    private var database: OpaquePointer?
    private var lookupStatement: OpaquePointer?
    private var pending: [(path: String, facts: Facts)] = []
    /// Whether the index opened was made before, and so is to be checked whole.
    private var checkPending = false

    /// The index of this user's cache (`$XDG_CACHE_HOME/classic-photos/index.sqlite`), opened
    /// when first used; nil where it cannot be opened at all.
    public static let shared: PhotoIndex? = {
        let cache = String(cString: g_get_user_cache_dir())
        return try? PhotoIndex(path: cache + "/classic-photos/index.sqlite")
    }()

    /// Opens the index at `path`, making it (and its folder) where there is none; a damaged or
    /// foreign file there is set aside and a new index made in its place.
    public init(path: String) throws(OpenFailure) {
        self.path = path
        let folder = (path as NSString).deletingLastPathComponent
        guard g_mkdir_with_parents(folder, 0o700) == 0 else {
            throw .unavailable("“\(folder)” cannot be made: \(String(cString: strerror(errno)))")
        }
        do throws(OpenFailure) {
            try connect()
        } catch .unusable(_) {
            close()
            setAside()
            try connect()
        }
        // Once it is open (the check may make it anew under the lock).
        if checkPending { checkInBackground() }
    }

    deinit { close() }

    // MARK: Reading

    /// What the index holds for every file in the folder at `folderPath` and below it, by path.
    public func facts(inFolder folderPath: String) -> [String: Facts] {
        var found: [String: Facts] = [:]
        forEachRow(inFolder: folderPath) { path, length, facts in
            found[String(decoding: UnsafeBufferPointer(start: path, count: length), as: UTF8.self)] = facts
        }
        return found
    }

    /// What sorting needs of every file in the folder at `folderPath` and below it (its size,
    /// time and date taken as the index last saw them), by each path's `PathKey`: no string is
    /// made of the paths (a tree of 100,000 photos is matched with its listing in a tenth of
    /// the time), and the camera, the pixel size and the orientation are not read.
    func sortFactsByPathKey(inFolder folderPath: String) -> PathKeyTable<SortFacts> {
        var keys: [UInt64] = []
        var facts: [SortFacts] = []
        forEachRow(inFolder: folderPath, columns: "path, size, modified, taken") { statement, path, length in
            guard let taken = sqlite3_column_text(statement, 3) else { return }
            keys.append(PathKey.of(UnsafeBufferPointer(start: path, count: length)))
            facts.append(
                SortFacts(
                    modified: sqlite3_column_int64(statement, 2), size: sqlite3_column_int64(statement, 1),
                    taken: String(cString: taken)))
        }
        return PathKeyTable(keys: keys, values: facts)
    }

    /// The files in the folder at `folderPath` and below it that come first by the dates taken
    /// it holds (latest first with `descending`), up to `limit` of them, with their paths and
    /// what sorting needs of them; nil where it holds fewer than `minimum` files there.
    ///
    /// Read through a connection of its own, so that a folder's whole read (which holds the
    /// shared one for a quarter of a second in a tree of 100,000) does not wait for it nor it
    /// for that; in WAL mode readers do not block each other.
    func firstByDateTaken(
        inFolder folderPath: String, descending: Bool, limit: Int, minimum: Int
    ) -> [(path: String, facts: SortFacts)]? {
        var connection: OpaquePointer?
        guard sqlite3_open_v2(path, &connection, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
            let connection
        else {
            sqlite3_close(connection)
            return nil
        }
        defer { sqlite3_close_v2(connection) }
        sqlite3_busy_timeout(connection, 100)
        let (prefix, end) = Self.range(of: folderPath)
        func query(_ sql: String, limit: Int?, _ row: (OpaquePointer) -> Void) -> Bool {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(connection, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
                return false
            }
            defer { sqlite3_finalize(statement) }
            sqlite3_bind_text(statement, 1, prefix, -1, cp_sqlite_transient())
            sqlite3_bind_text(statement, 2, end, -1, cp_sqlite_transient())
            if let limit { sqlite3_bind_int64(statement, 3, Int64(limit)) }
            while true {
                switch sqlite3_step(statement) {
                case SQLITE_ROW: row(statement)
                case SQLITE_DONE: return true
                default: return false
                }
            }
        }
        // Counted only up to `minimum`: a tree of 100,000 need not be counted whole.
        var count = 0
        guard
            query(
                "SELECT count(*) FROM (SELECT 1 FROM photos WHERE path >= ?1 AND path < ?2 LIMIT ?3)",
                limit: minimum, { count = Int(sqlite3_column_int64($0, 0)) }),
            count >= minimum
        else { return nil }
        var rows: [(path: String, facts: SortFacts)] = []
        // The rows are read in path order and only the first `limit` by date kept (SQLite's
        // sorter with a limit; ties by path, near the listing's order by name): about 30 ms
        // for a tree of 100,000. An index of the dates would make it a few milliseconds, but
        // keeping it up nearly doubled the time writing a first launch's 100,000 dates took.
        let sql =
            "SELECT path, size, modified, taken FROM photos WHERE path >= ?1 AND path < ?2 ORDER BY taken "
            + (descending ? "DESC" : "ASC") + ", path LIMIT ?3"
        let done = query(sql, limit: limit) { statement in
            // Paths that are not UTF-8 are left to the listing (which names them its own way).
            guard let path = sqlite3_column_text(statement, 0), let taken = sqlite3_column_text(statement, 3),
                let text = String(
                    validating: UnsafeBufferPointer(start: path, count: Int(sqlite3_column_bytes(statement, 0))),
                    as: UTF8.self)
            else { return }
            rows.append(
                (
                    text,
                    SortFacts(
                        modified: sqlite3_column_int64(statement, 2), size: sqlite3_column_int64(statement, 1),
                        taken: String(cString: taken))
                ))
        }
        return done ? rows : nil
    }

    /// The paths of a folder's files and those of its sub-folders: from "folder/" up to (not
    /// including) "folder0" ("0" follows "/").
    private static func range(of folderPath: String) -> (from: String, upTo: String) {
        let prefix = folderPath.hasSuffix("/") ? folderPath : folderPath + "/"
        return (prefix, String(prefix.dropLast()) + "0")
    }

    /// Calls `body` with each row for a file in the folder at `folderPath` or below it, in the
    /// order of their paths' bytes: the path's bytes (valid during the call), their count, and
    /// what is held for it.
    func forEachRow(
        inFolder folderPath: String, _ body: (UnsafePointer<UInt8>, Int, Facts) -> Void
    ) {
        forEachRow(inFolder: folderPath, columns: Self.columns) { statement, path, length in
            guard let taken = sqlite3_column_text(statement, 3) else { return }
            body(path, length, Self.facts(statement, from: 1, taken: taken))
        }
    }

    /// Steps through the rows for files in the folder at `folderPath` or below it, reading
    /// `columns` (the path first); calls `body` with the statement on each row, the path's
    /// bytes (valid during the call) and their count.
    func forEachRow(
        inFolder folderPath: String, columns: String, _ body: (OpaquePointer?, UnsafePointer<UInt8>, Int) -> Void
    ) {
        let (prefix, end) = Self.range(of: folderPath)
        withDatabase { database in
            var statement: OpaquePointer?
            guard
                sqlite3_prepare_v2(
                    database, "SELECT \(columns) FROM photos WHERE path >= ?1 AND path < ?2", -1, &statement, nil)
                    == SQLITE_OK
            else { return }
            defer { sqlite3_finalize(statement) }
            sqlite3_bind_text(statement, 1, prefix, -1, cp_sqlite_transient())
            sqlite3_bind_text(statement, 2, end, -1, cp_sqlite_transient())
            while sqlite3_step(statement) == SQLITE_ROW {
                guard let path = sqlite3_column_text(statement, 0) else { continue }
                body(statement, path, Int(sqlite3_column_bytes(statement, 0)))
            }
        }
    }

    /// The columns read of a row: its path, then what `facts(_:from:taken:)` reads.
    private static let columns = "path, \(factColumns)"
    private static let factColumns =
        "size, modified, taken, width, height, orientation, camera, lens, latitude, longitude"

    /// The facts in a row's columns from `first` on (`factColumns`), `taken` being the date's
    /// text already read.
    private static func facts(_ statement: OpaquePointer?, from first: Int32, taken: UnsafePointer<UInt8>) -> Facts {
        func integer(_ column: Int32) -> Int? {
            sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : Int(sqlite3_column_int64(statement, column))
        }
        func real(_ column: Int32) -> Double? {
            sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : sqlite3_column_double(statement, column)
        }
        return Facts(
            size: sqlite3_column_int64(statement, first), modified: sqlite3_column_int64(statement, first + 1),
            taken: String(cString: taken), width: integer(first + 3), height: integer(first + 4),
            orientation: integer(first + 5),
            camera: sqlite3_column_text(statement, first + 6).map { String(cString: $0) },
            lens: sqlite3_column_text(statement, first + 7).map { String(cString: $0) },
            latitude: real(first + 8), longitude: real(first + 9))
    }

    /// The date taken of the file at `path`, if the index holds it for this size and time.
    public func dateTaken(path: String, size: Int64, modified: Int64) -> String? {
        facts(path: path, size: size, modified: modified)?.taken
    }

    /// What the index holds for the file at `path`, if it holds it for this size and time.
    public func facts(path: String, size: Int64, modified: Int64) -> Facts? {
        var found: Facts?
        withDatabase { _ in
            guard let statement = lookupStatement else { return }
            defer { sqlite3_reset(statement) }
            sqlite3_bind_text(statement, 1, path, -1, cp_sqlite_transient())
            guard sqlite3_step(statement) == SQLITE_ROW, sqlite3_column_int64(statement, 0) == size,
                sqlite3_column_int64(statement, 1) == modified, let text = sqlite3_column_text(statement, 2)
            else { return }
            found = Self.facts(statement, from: 0, taken: text)
        }
        return found
    }

    /// What the index holds for the file at `path` as it is now (a `stat`, then a lookup; the
    /// file is not read).
    public func facts(ofFileAt path: String) -> Facts? {
        MainThreadIO.check(.stat)
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        let modified = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
        return facts(path: path, size: Int64(status.st_size), modified: modified)
    }

    // MARK: Writing

    /// Keeps `facts` for the file at `path`, written with the next batch.
    public func remember(path: String, _ facts: Facts) {
        lock.lock()
        pending.append((path, facts))
        let full = pending.count >= Self.batchSize
        lock.unlock()
        if full { flush() }
    }

    /// Writes what was gathered, in one transaction.
    public func flush() {
        MainThreadIO.check(.index)
        lock.lock()
        defer { lock.unlock() }
        guard let database, !pending.isEmpty else { return }
        let batch = pending
        pending.removeAll(keepingCapacity: true)
        Self.inTransaction(
            database,
            "INSERT OR REPLACE INTO photos (\(Self.columns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
        ) { statement in
            for (path, facts) in batch {
                sqlite3_bind_text(statement, 1, path, -1, cp_sqlite_transient())
                sqlite3_bind_int64(statement, 2, facts.size)
                sqlite3_bind_int64(statement, 3, facts.modified)
                sqlite3_bind_text(statement, 4, facts.taken, -1, cp_sqlite_transient())
                for (column, value) in zip(Int32(5)...7, [facts.width, facts.height, facts.orientation]) {
                    if let value {
                        sqlite3_bind_int64(statement, column, Int64(value))
                    } else {
                        sqlite3_bind_null(statement, column)
                    }
                }
                for (column, value) in [(Int32(8), facts.camera), (9, facts.lens)] {
                    if let value {
                        sqlite3_bind_text(statement, column, value, -1, cp_sqlite_transient())
                    } else {
                        sqlite3_bind_null(statement, column)
                    }
                }
                for (column, value) in [(Int32(10), facts.latitude), (11, facts.longitude)] {
                    if let value {
                        sqlite3_bind_double(statement, column, value)
                    } else {
                        sqlite3_bind_null(statement, column)
                    }
                }
                _ = sqlite3_step(statement)
                sqlite3_reset(statement)
            }
        }
    }

    /// Forgets everything (Clear Cache); returns the bytes the index held on disk.
    @discardableResult
    public func clear() -> Int {
        let before = diskSize
        lock.lock()
        pending.removeAll()
        if let database {
            sqlite3_exec(database, "DELETE FROM photos", nil, nil, nil)
            // Marks no file holds are the user's, not a cache's: they stay.
            sqlite3_exec(database, "DELETE FROM marks WHERE unsaved = 0", nil, nil, nil)
            sqlite3_exec(database, "PRAGMA wal_checkpoint(TRUNCATE)", nil, nil, nil)
            sqlite3_exec(database, "VACUUM", nil, nil, nil)
        }
        lock.unlock()
        return max(0, before - diskSize)
    }

    /// How many files the index holds.
    public var count: Int {
        var count = 0
        withDatabase { database in
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(database, "SELECT count(*) FROM photos", -1, &statement, nil) == SQLITE_OK
            else { return }
            defer { sqlite3_finalize(statement) }
            if sqlite3_step(statement) == SQLITE_ROW { count = Int(sqlite3_column_int64(statement, 0)) }
        }
        return count
    }

    /// The bytes the database and its log take on disk.
    public var diskSize: Int {
        ["", "-wal"].reduce(0) { total, suffix in
            total + (((try? FileManager.default.attributesOfItem(atPath: path + suffix))?[.size] as? Int) ?? 0)
        }
    }

    // MARK: Opening

    func withDatabase(_ body: (OpaquePointer) -> Void, _ place: StaticString = #function) {
        MainThreadIO.check(.index, place)
        lock.lock()
        defer { lock.unlock() }
        if let database { body(database) }
    }

    private func connect() throws(OpenFailure) {
        var made: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        guard sqlite3_open_v2(path, &made, flags, nil) == SQLITE_OK, let made else {
            let message = made.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(made)
            throw .unavailable(message)
        }
        database = made
        // Another window (another process) writing: wait a little, then pass over.
        sqlite3_busy_timeout(made, 250)
        try check(sqlite3_exec(made, "PRAGMA journal_mode=WAL", nil, nil, nil), "journal mode")
        let application = try integer("PRAGMA application_id")
        let version = try integer("PRAGMA user_version")
        let tables = try integer("SELECT count(*) FROM sqlite_master")
        if application == 0, version == 0, tables == 0 {
            try check(
                sqlite3_exec(
                    made,
                    """
                    PRAGMA application_id=\(Self.applicationID);
                    PRAGMA user_version=\(Self.schemaVersion);
                    CREATE TABLE photos (
                        path TEXT PRIMARY KEY NOT NULL, size INTEGER NOT NULL, modified INTEGER NOT NULL,
                        taken TEXT NOT NULL, width INTEGER, height INTEGER, orientation INTEGER, camera TEXT,
                        lens TEXT, latitude REAL, longitude REAL
                    ) WITHOUT ROWID;
                    \(Self.marksTable)
                    """, nil, nil, nil), "schema")
        } else if application == Self.applicationID, (2...4).contains(version) {
            // Another window may be making the same steps: the write lock first, then the
            // version read again under it.
            try check(sqlite3_exec(made, "BEGIN IMMEDIATE", nil, nil, nil), "the lock to make version \(version) anew")
            let version = try integer("PRAGMA user_version")
            let marks = version == 2 ? Self.marksTable : ""
            let lens = version < 4 ? "ALTER TABLE photos ADD COLUMN lens TEXT;" : ""
            let steps =
                version == Self.schemaVersion
                ? ""
                : """
                \(marks) DELETE FROM photos; \(lens)
                ALTER TABLE photos ADD COLUMN latitude REAL; ALTER TABLE photos ADD COLUMN longitude REAL;
                PRAGMA user_version=\(Self.schemaVersion);
                """
            try check(
                sqlite3_exec(made, "\(steps) COMMIT;", nil, nil, nil), "version \(version) to \(Self.schemaVersion)")
            checkPending = true
        } else if application != Self.applicationID || version != Self.schemaVersion {
            throw .unusable("not an index of this app (application \(application), version \(version))")
        } else {
            checkPending = true
        }
        sqlite3_exec(made, "PRAGMA synchronous=NORMAL", nil, nil, nil)
        var lookup: OpaquePointer?
        try check(
            sqlite3_prepare_v2(
                made,
                "SELECT \(Self.factColumns) FROM photos WHERE path = ?1", -1, &lookup, nil),
            "lookup")
        lookupStatement = lookup
    }

    /// Reads the whole database through a connection of its own, on a thread that gives way to
    /// the app's others, and sets it aside and makes it anew where it is damaged. (Checked
    /// before the index was used, an index of 100,000 photos held up every launch by some
    /// 35 ms; a damaged page read meanwhile only fails, which the index takes as a miss.)
    private func checkInBackground() {
        let path = path
        Thread.detachNewThread { [weak self] in
            _ = cp_nice_thread(19)
            var connection: OpaquePointer?
            defer { sqlite3_close_v2(connection) }
            guard sqlite3_open_v2(path, &connection, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK
            else { return }
            sqlite3_busy_timeout(connection, 1_000)
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(connection, "PRAGMA quick_check", -1, &statement, nil) == SQLITE_OK else {
                return
            }
            defer { sqlite3_finalize(statement) }
            // Another process writing (busy or locked) says nothing of the file.
            let damaged =
                switch sqlite3_step(statement) {
                case SQLITE_ROW: sqlite3_column_text(statement, 0).map { String(cString: $0) != "ok" } ?? true
                case SQLITE_CORRUPT, SQLITE_NOTADB: true
                default: false
                }
            if damaged { self?.replaceDamaged() }
        }
    }

    /// Sets the damaged database aside and makes a new one in its place.
    private func replaceDamaged() {
        lock.lock()
        defer { lock.unlock() }
        close()
        setAside()
        pending.removeAll()
        try? connect()
    }

    private func integer(_ query: String) throws(OpenFailure) -> Int32 {
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v2(database, query, -1, &statement, nil), query)
        defer { sqlite3_finalize(statement) }
        let step = sqlite3_step(statement)
        guard step == SQLITE_ROW else { try check(step, query); return 0 }
        return sqlite3_column_int(statement, 0)
    }

    private func check(_ code: Int32, _ what: String) throws(OpenFailure) {
        guard code != SQLITE_OK, code != SQLITE_DONE, code != SQLITE_ROW else { return }
        if code == SQLITE_BUSY || code == SQLITE_LOCKED { throw .locked }
        let message = database.map { String(cString: sqlite3_errmsg($0)) } ?? "error \(code)"
        throw .unusable("\(what): \(message)")
    }

    private func close() {
        sqlite3_finalize(lookupStatement)
        lookupStatement = nil
        sqlite3_close_v2(database)
        database = nil
    }

    /// Moves the file (and its log) aside, as `index.sqlite.set-aside`, so that a new one can be
    /// made and the old one can still be looked at.
    private func setAside() {
        for suffix in ["-wal", "-shm"] { unlink(path + suffix) }
        rename(path, path + ".set-aside")
    }
}
