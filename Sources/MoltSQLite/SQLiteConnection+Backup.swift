internal import CSQLite

/// Copying a database page by page with SQLite's online backup API.
extension SQLiteConnection {
    /// Writes every page of this connection's main database into a new database file at
    /// `path` (which must not exist), in one read transaction of this connection: a copy of one
    /// committed version, read through SQLite's locks and the log as any reader reads it, so a
    /// read-only connection copies a store without writing a byte of it. The copy is not
    /// synced; the caller syncs it.
    public func backup(into path: String) throws {
        let target = try SQLiteConnection(path: path, mode: .create, logger: logger)
        defer { target.close() }
        guard let backup = sqlite3_backup_init(target.handle, "main", handle, "main") else {
            try target.check(sqlite3_errcode(target.handle), sql: "backup")
            return
        }
        let step = sqlite3_backup_step(backup, -1)
        let finish = sqlite3_backup_finish(backup)
        try target.check(step == SQLITE_DONE ? finish : (step == SQLITE_OK ? SQLITE_ERROR : step), sql: "backup")
    }
}
