import CSQLite

extension PhotoIndex {
    /// Prepares `sql` and hands it to `rows` (which binds and steps it for each row) inside one
    /// transaction, committed after, or rolled back where it cannot be prepared or committed.
    static func inTransaction(_ database: OpaquePointer, _ sql: String, _ rows: (OpaquePointer?) -> Void) {
        guard sqlite3_exec(database, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK else { return }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(database, sql, -1, &statement, nil) == SQLITE_OK else {
            sqlite3_exec(database, "ROLLBACK", nil, nil, nil)
            return
        }
        rows(statement)
        sqlite3_finalize(statement)
        if sqlite3_exec(database, "COMMIT", nil, nil, nil) != SQLITE_OK {
            sqlite3_exec(database, "ROLLBACK", nil, nil, nil)
        }
    }
}
