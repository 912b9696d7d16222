internal import CSQLite
public import Foundation

/// A compiled SQL statement, finalized when released.
///
/// ```swift
/// let insert = try db.prepare("INSERT INTO t (x) VALUES (?)")
/// for x in 1...3 {
///     try insert.bind([.integer(x)])
///     try insert.run()
/// }
/// ```
public final class SQLiteStatement {
    /// The SQL text.
    public let sql: String
    public let connection: SQLiteConnection
    let handle: OpaquePointer

    init(connection: SQLiteConnection, sql: String) throws {
        self.connection = connection
        self.sql = sql
        connection.logger.trace("prepare", metadata: ["molt.sql": "\(sql)"])
        var statement: OpaquePointer?
        try connection.check(sqlite3_prepare_v2(connection.handle, sql, -1, &statement, nil), sql: sql)
        guard let statement else {
            throw SQLiteError(code: .misuse, message: "the SQL holds no statement", sql: sql, path: connection.path)
        }
        handle = statement
    }

    deinit {
        sqlite3_finalize(handle)
    }

    // MARK: Binding

    /// Resets the statement and binds `values` to its parameters, first to last.
    public func bind(_ values: [SQLiteValue]) throws {
        try reset()
        let parameters = Int(sqlite3_bind_parameter_count(handle))
        guard values.count <= parameters else {
            throw SQLiteError(
                code: .range, message: "\(values.count) values for \(parameters) parameters", sql: sql,
                path: connection.path)
        }
        // Parameters left over would keep the last values bound: they go back to NULL.
        if values.count < parameters { sqlite3_clear_bindings(handle) }
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    /// Binds `value` to the parameter at 1-based `index`.
    public func bind(_ value: SQLiteValue, at index: Int32) throws {
        let code: Int32
        switch value {
        case .null:
            code = sqlite3_bind_null(handle, index)
        case .integer(let number):
            code = sqlite3_bind_int64(handle, index, number)
        case .real(let number):
            code = sqlite3_bind_double(handle, index, number)
        case .text(let text):
            var text = text
            code = text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    // An empty buffer has no base address; SQLite wants a valid pointer for "".
                    guard let base = chars.baseAddress else {
                        return sqlite3_bind_text(handle, index, "", 0, molt_sqlite_transient())
                    }
                    return sqlite3_bind_text64(
                        handle, index, base, UInt64(chars.count), molt_sqlite_transient(), UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let data):
            code = data.withUnsafeBytes { bytes in
                // A zero-length blob is bound as such, not as NULL.
                if bytes.count == 0 { return sqlite3_bind_zeroblob(handle, index, 0) }
                return sqlite3_bind_blob64(
                    handle, index, bytes.baseAddress, UInt64(bytes.count), molt_sqlite_transient())
            }
        }
        try connection.check(code, sql: sql)
    }

    // MARK: Stepping

    /// Advances to the next row: true when there is one, false when the statement is done.
    public func step() throws -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        try connection.check(code, sql: sql)
        return false
    }

    /// Steps until the statement is done, ignoring any rows.
    public func run() throws {
        while try step() {}
    }

    /// Rewinds the statement so it can run again; bindings are kept.
    public func reset() throws {
        // sqlite3_reset repeats the last step's error; that error was already reported.
        _ = sqlite3_reset(handle)
    }

    // MARK: Reading columns

    /// Columns in each result row.
    public var columnCount: Int32 { sqlite3_column_count(handle) }

    /// The name of the result column at `index`.
    public func columnName(at index: Int32) -> String {
        sqlite3_column_name(handle, index).map { String(cString: $0) } ?? ""
    }

    /// Whether the column at `index` of the current row is NULL.
    public func isNull(at index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    public func int64(at index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    public func double(at index: Int32) -> Double {
        sqlite3_column_double(handle, index)
    }

    /// The column as text, read with its byte length (so embedded NULs survive).
    public func text(at index: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    public func blob(at index: Int32) -> Data {
        guard let bytes = sqlite3_column_blob(handle, index) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, index)))
    }

    /// The column at `index` in its own storage class.
    public func value(at index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: .integer(int64(at: index))
        case SQLITE_FLOAT: .real(double(at: index))
        case SQLITE_TEXT: .text(text(at: index))
        case SQLITE_BLOB: .blob(blob(at: index))
        default: .null
        }
    }
}
