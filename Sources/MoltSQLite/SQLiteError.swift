/// A result code from SQLite, primary or extended.
///
/// A struct, not an enum, so that any code SQLite returns can be carried; the named constants
/// are the ones Molt looks at. ``primary`` strips the extended part (`SQLITE_IOERR_FSYNC` →
/// `SQLITE_IOERR`).
public struct SQLiteResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let ok = SQLiteResultCode(rawValue: 0)
    public static let error = SQLiteResultCode(rawValue: 1)
    public static let permission = SQLiteResultCode(rawValue: 3)
    public static let abort = SQLiteResultCode(rawValue: 4)
    public static let busy = SQLiteResultCode(rawValue: 5)
    public static let locked = SQLiteResultCode(rawValue: 6)
    public static let noMemory = SQLiteResultCode(rawValue: 7)
    public static let readOnly = SQLiteResultCode(rawValue: 8)
    public static let interrupt = SQLiteResultCode(rawValue: 9)
    public static let ioError = SQLiteResultCode(rawValue: 10)
    public static let corrupt = SQLiteResultCode(rawValue: 11)
    public static let full = SQLiteResultCode(rawValue: 13)
    public static let cannotOpen = SQLiteResultCode(rawValue: 14)
    public static let constraint = SQLiteResultCode(rawValue: 19)
    public static let mismatch = SQLiteResultCode(rawValue: 20)
    public static let misuse = SQLiteResultCode(rawValue: 21)
    public static let range = SQLiteResultCode(rawValue: 25)
    public static let notADatabase = SQLiteResultCode(rawValue: 26)
    public static let row = SQLiteResultCode(rawValue: 100)
    public static let done = SQLiteResultCode(rawValue: 101)

    /// The primary code (the low byte).
    public var primary: SQLiteResultCode { SQLiteResultCode(rawValue: rawValue & 0xFF) }

    /// Whether retrying later may succeed: busy or locked database, interrupted, I/O error, full disk.
    public var isTransient: Bool {
        [.busy, .locked, .interrupt, .ioError, .full, .noMemory].contains(primary)
    }

    public var description: String { "SQLite code \(rawValue)" }
}

/// An error reported by SQLite, with the code, SQLite's own message and the SQL that failed.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The extended result code.
    public var code: SQLiteResultCode
    /// SQLite's message, read right after the failing call.
    public var message: String
    /// The statement that failed, when a statement did.
    public var sql: String?
    /// The database file.
    public var path: String?

    public init(code: SQLiteResultCode, message: String, sql: String? = nil, path: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
        self.path = path
    }

    public var description: String {
        var text = "SQLite error \(code.rawValue): \(message)"
        if let sql { text += " (while running: \(sql.count > 300 ? String(sql.prefix(300)) + "…" : sql))" }
        return text
    }
}
