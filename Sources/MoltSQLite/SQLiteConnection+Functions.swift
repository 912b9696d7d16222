internal import CSQLite
internal import Foundation

extension SQLiteConnection {
    /// Makes a Swift function callable from SQL on this connection.
    ///
    /// The function receives its arguments as ``SQLiteValue``s and returns one; an error it
    /// throws becomes an SQL error whose message is the error's description. Deterministic
    /// functions (the same result for the same arguments) let SQLite optimise more.
    ///
    /// ```swift
    /// try db.registerFunction("twice", argumentCount: 1) { args in
    ///     .integer((args[0].integerValue ?? 0) * 2)
    /// }
    /// try db.scalar("SELECT twice(21)")   // .integer(42)
    /// ```
    public func registerFunction(
        _ name: String, argumentCount: Int32, deterministic: Bool = true,
        _ body: @escaping ([SQLiteValue]) throws -> SQLiteValue
    ) throws {
        let box = Unmanaged.passRetained(SQLFunctionBox(body)).toOpaque()
        let flags = SQLITE_UTF8 | (deterministic ? SQLITE_DETERMINISTIC : 0)
        let code = sqlite3_create_function_v2(
            handle, name, argumentCount, flags, box,
            { context, count, arguments in
                guard let context else { return }
                let box = Unmanaged<SQLFunctionBox>.fromOpaque(sqlite3_user_data(context)).takeUnretainedValue()
                var values: [SQLiteValue] = []
                values.reserveCapacity(Int(count))
                for index in 0..<Int(count) {
                    values.append(SQLFunctionBox.read(arguments?[index]))
                }
                do {
                    SQLFunctionBox.setResult(try box.body(values), on: context)
                } catch {
                    sqlite3_result_error(context, String(describing: error), -1)
                }
            }, nil, nil,
            { pointer in
                guard let pointer else { return }
                Unmanaged<SQLFunctionBox>.fromOpaque(pointer).release()
            })
        // On failure SQLite has already called the destructor, which released the box.
        try check(code, sql: "create function \(name)")
    }
}

/// Holds a registered function's Swift body for SQLite's C callbacks.
final class SQLFunctionBox {
    let body: ([SQLiteValue]) throws -> SQLiteValue

    init(_ body: @escaping ([SQLiteValue]) throws -> SQLiteValue) {
        self.body = body
    }

    static func read(_ value: OpaquePointer?) -> SQLiteValue {
        guard let value else { return .null }
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
        case SQLITE_TEXT:
            guard let bytes = sqlite3_value_text(value) else { return .text("") }
            let count = Int(sqlite3_value_bytes(value))
            return .text(String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            guard let bytes = sqlite3_value_blob(value) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: Int(sqlite3_value_bytes(value))))
        default: return .null
        }
    }

    static func setResult(_ result: SQLiteValue, on context: OpaquePointer) {
        switch result {
        case .null: sqlite3_result_null(context)
        case .integer(let number): sqlite3_result_int64(context, number)
        case .real(let number): sqlite3_result_double(context, number)
        case .text(let text):
            var text = text
            text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    if let base = chars.baseAddress {
                        sqlite3_result_text64(
                            context, base, UInt64(chars.count), molt_sqlite_transient(), UInt8(SQLITE_UTF8))
                    } else {
                        sqlite3_result_text(context, "", 0, molt_sqlite_transient())
                    }
                }
            }
        case .blob(let data):
            data.withUnsafeBytes { bytes in
                if bytes.count == 0 {
                    sqlite3_result_zeroblob(context, 0)
                } else {
                    sqlite3_result_blob64(context, bytes.baseAddress, UInt64(bytes.count), molt_sqlite_transient())
                }
            }
        }
    }
}
