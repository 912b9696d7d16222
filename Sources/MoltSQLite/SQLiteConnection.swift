internal import CSQLite
internal import Foundation
public import Logging

/// One connection to an SQLite database file.
///
/// Opening turns on extended result codes and a busy timeout, hardens the connection against
/// hostile files (defensive mode, untrusted schema), and runs one cheap query so that a file
/// that is not a database fails at once with a clear error. Every SQLite return code goes
/// through ``check(_:sql:)``. The connection closes itself when released; use it from one
/// thread at a time.
///
/// ```swift
/// let db = try SQLiteConnection(path: "/tmp/a.sqlite", mode: .create)
/// try db.execute("CREATE TABLE t (x INTEGER)")
/// let count = try db.scalar("SELECT count(*) FROM t")?.integerValue
/// ```
public final class SQLiteConnection {
    /// How a database file is opened.
    public enum OpenMode: Sendable {
        /// Read only; the file must exist. Nothing is ever written to it, but in WAL mode SQLite
        /// creates the `-wal` and `-shm` files when they are missing (and leaves them).
        case readOnly
        /// Read only, and SQLite assumes no one else changes the file while it is open: no
        /// locks, no `-wal` or `-shm` created or read. Only for a file with no `-wal`, `-shm`
        /// or `-journal` beside it, whose whole content is then in the main file.
        case immutable
        /// Read and write; the file must exist.
        case readWrite
        /// Read and write; the file is created when missing.
        case create
    }

    /// The database file's path.
    public let path: String
    /// The mode the connection was opened in.
    public let mode: OpenMode
    /// Receives each statement at trace level (`molt.sql` metadata).
    public var logger: Logger

    let handle: OpaquePointer
    /// The handler ``trace(_:)`` installed, kept alive while SQLite may call it.
    var traceHandler: SQLTraceBox?

    /// The logger of a connection opened without one: notices and above (as the library's
    /// other defaults, `LibraryLogger`), so statements are traced only when asked for.
    static var quietLogger: Logger {
        var logger = Logger(label: "molt.sqlite")
        logger.logLevel = .notice
        return logger
    }

    // MARK: Opening

    /// Opens the database at `path`.
    ///
    /// - Parameter busyTimeout: how long to wait for another connection's lock, in milliseconds.
    /// - Parameter vfs: the SQLite VFS to open it with (the default one when nil).
    public init(
        path: String, mode: OpenMode, busyTimeout: Int32 = 5_000, logger: Logger? = nil, vfs: String? = nil
    ) throws {
        self.path = path
        self.mode = mode
        self.logger = logger ?? Self.quietLogger
        var flags: Int32 = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        var name = path
        switch mode {
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        case .immutable:
            flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
            name = "file:" + Self.uriPath(path) + "?immutable=1"
        case .readWrite: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_URI
        case .create: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI
        }
        // Writable connections take URIs so that `ATTACH` can open another file read-only
        // (``attachReadOnly(_:as:)``); a plain path that happens to start with "file:" must
        // still name a file.
        if mode == .readWrite || mode == .create, path.hasPrefix("file:") { name = "./" + path }
        var opened: OpaquePointer?
        let code = sqlite3_open_v2(name, &opened, flags, vfs)
        guard let opened else {
            throw SQLiteError(code: SQLiteResultCode(rawValue: code), message: "out of memory", path: path)
        }
        guard code == SQLITE_OK else {
            let message = String(cString: sqlite3_errmsg(opened))
            let extended = sqlite3_extended_errcode(opened)
            sqlite3_close_v2(opened)
            throw SQLiteError(code: SQLiteResultCode(rawValue: extended), message: message, path: path)
        }
        handle = opened
        fileIdentity = DatabaseFileAccess.opened(path)
        try check(sqlite3_extended_result_codes(handle, 1), sql: "extended result codes")
        try check(sqlite3_busy_timeout(handle, busyTimeout), sql: "busy timeout")
        try check(molt_sqlite_db_config_flag(handle, SQLITE_DBCONFIG_DEFENSIVE, 1), sql: "defensive mode")
        try check(molt_sqlite_db_config_flag(handle, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0), sql: "untrusted schema")
        // A quoted name that is no column must be an error, never a string literal: reading a
        // store that lost a column would otherwise give the column's name as every row's value.
        try check(molt_sqlite_db_config_flag(handle, SQLITE_DBCONFIG_DQS_DML, 0), sql: "no double-quoted strings")
        // A cheap read of the schema: a file that is not a database, or is encrypted or
        // truncated, fails here rather than at some later statement.
        _ = try scalar("SELECT count(*) FROM sqlite_master")
    }

    private var isClosed = false
    /// The file this connection has open, as ``DatabaseFileAccess`` counts it.
    private var fileIdentity: DatabaseFileAccess.Identity?

    deinit {
        if !isClosed {
            sqlite3_close_v2(handle)
            DatabaseFileAccess.closed(fileIdentity)
        }
    }

    /// Closes the connection now rather than when it is released (its statements finish it
    /// when they are released). It must not be used afterwards.
    /// Makes the statement running on this connection stop with SQLITE_INTERRUPT. Safe to call
    /// from another thread while the connection is open (cancelling a long statement).
    public func interrupt() {
        guard !isClosed else { return }
        sqlite3_interrupt(handle)
    }

    public func close() {
        guard !isClosed else { return }
        isClosed = true
        sqlite3_close_v2(handle)
        DatabaseFileAccess.closed(fileIdentity)
    }

    /// `path` as the path part of a `file:` URI: characters with a meaning in URIs escaped.
    static func uriPath(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "%"), UInt8(ascii: "?"), UInt8(ascii: "#"), 0..<0x21, 0x7F...0xFF:
                out += String(format: "%%%02X", byte)
            default:
                out.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return out
    }

    // MARK: Errors

    /// Throws an ``SQLiteError`` when `code` is not a success code, with SQLite's message read
    /// at once. The one place every SQLite return code is checked.
    @discardableResult
    func check(_ code: Int32, sql: String? = nil) throws -> Int32 {
        switch code {
        case SQLITE_OK, SQLITE_ROW, SQLITE_DONE:
            return code
        default:
            let message = String(cString: sqlite3_errmsg(handle))
            let extended = sqlite3_extended_errcode(handle)
            throw SQLiteError(
                code: SQLiteResultCode(rawValue: extended == 0 ? code : extended), message: message, sql: sql,
                path: path)
        }
    }

    // MARK: Running SQL

    /// Compiles one statement.
    public func prepare(_ sql: String) throws -> SQLiteStatement {
        try SQLiteStatement(connection: self, sql: sql)
    }

    /// Runs one or more statements separated by semicolons, without parameters.
    public func execute(_ sql: String) throws {
        logger.trace("execute", metadata: ["molt.sql": "\(sql)"])
        var remaining = Substring(sql)
        while !remaining.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            var statementHandle: OpaquePointer?
            var consumed = 0
            let text = String(remaining)
            try text.withCString { start in
                var tail: UnsafePointer<CChar>?
                try check(sqlite3_prepare_v2(handle, start, -1, &statementHandle, &tail), sql: text)
                consumed = tail.map { $0 - start } ?? strlen(start)
            }
            let utf8 = Array(text.utf8)
            let statementText = String(decoding: utf8[0..<consumed], as: UTF8.self)
            remaining = Substring(String(decoding: utf8[consumed...], as: UTF8.self))
            guard let statementHandle else { continue }  // only whitespace or a comment
            defer { sqlite3_finalize(statementHandle) }
            while true {
                let code = sqlite3_step(statementHandle)
                if code == SQLITE_ROW { continue }
                try check(code, sql: statementText)
                break
            }
        }
    }

    /// Runs one statement with `bindings` and returns the first column of its first row.
    public func scalar(_ sql: String, _ bindings: [SQLiteValue] = []) throws -> SQLiteValue? {
        let statement = try prepare(sql)
        try statement.bind(bindings)
        guard try statement.step() else { return nil }
        return statement.value(at: 0)
    }

    /// Runs one statement with `bindings` and returns every row. For small results only;
    /// iterate a ``SQLiteStatement`` for large ones.
    public func rows(_ sql: String, _ bindings: [SQLiteValue] = []) throws -> [[SQLiteValue]] {
        let statement = try prepare(sql)
        try statement.bind(bindings)
        var result: [[SQLiteValue]] = []
        while try statement.step() {
            result.append((0..<statement.columnCount).map { statement.value(at: $0) })
        }
        return result
    }

    /// Runs one statement with `bindings` to completion.
    public func run(_ sql: String, _ bindings: [SQLiteValue] = []) throws {
        let statement = try prepare(sql)
        try statement.bind(bindings)
        try statement.run()
    }

    /// The rowid of the last inserted row.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// Whether the connection is inside a transaction.
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    // MARK: Transactions

    /// How a transaction takes its locks.
    public enum TransactionKind: String, Sendable {
        case deferred = "DEFERRED"
        case immediate = "IMMEDIATE"
        case exclusive = "EXCLUSIVE"
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        try execute("BEGIN \(kind.rawValue) TRANSACTION")
        do {
            let result = try body()
            try execute("COMMIT TRANSACTION")
            return result
        } catch {
            if isInTransaction { try? execute("ROLLBACK TRANSACTION") }
            throw error
        }
    }

    // MARK: WAL

    /// Leaves a WAL database's log as it is when this connection closes: no checkpoint into
    /// the main file, nothing removed, even when it is the last connection (a read-only
    /// command's connection that had to open the store read-write, beside a log holding
    /// someone else's committed transactions).
    public func keepLogOnClose() throws {
        try check(
            molt_sqlite_db_config_flag(handle, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1), sql: "no checkpoint on close")
    }

    /// Runs `body` with SQLite's defensive mode off, which every connection otherwise has on:
    /// for the few statements of Molt's own that edit the schema table directly (SQLite's
    /// documented procedure for schema changes that leave every stored row as it is). Never
    /// for SQL that comes from a file.
    public func withoutDefensiveMode<T>(_ body: () throws -> T) throws -> T {
        try check(molt_sqlite_db_config_flag(handle, SQLITE_DBCONFIG_DEFENSIVE, 0), sql: "defensive mode off")
        defer { _ = molt_sqlite_db_config_flag(handle, SQLITE_DBCONFIG_DEFENSIVE, 1) }
        return try body()
    }

    /// The journal mode in use (`wal`, `delete`, …), lowercased.
    public func journalMode() throws -> String {
        try scalar("PRAGMA journal_mode")?.textValue?.lowercased() ?? "unknown"
    }

    /// How a WAL checkpoint proceeds.
    public enum CheckpointMode: Int32, Sendable {
        case passive = 0, full = 1, restart = 2, truncate = 3
    }

    /// Copies the write-ahead log into the main file. With `.truncate` the `-wal` file is
    /// emptied afterwards. Throws when the checkpoint could not complete (a reader held it back).
    public func checkpoint(_ mode: CheckpointMode = .truncate) throws {
        var logFrames: Int32 = 0
        var checkpointed: Int32 = 0
        try check(sqlite3_wal_checkpoint_v2(handle, nil, mode.rawValue, &logFrames, &checkpointed), sql: "checkpoint")
        if logFrames >= 0, checkpointed < logFrames {
            throw SQLiteError(
                code: .busy, message: "checkpoint copied \(checkpointed) of \(logFrames) frames", sql: "checkpoint",
                path: path)
        }
    }
}
