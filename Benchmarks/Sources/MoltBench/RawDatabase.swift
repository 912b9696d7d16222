import CSQLiteBench
import Foundation

/// The sqlite3 C API with nothing on top: what the baselines use, as a user writing the
/// migration by hand would.
final class RawDatabase {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let handle: OpaquePointer

    init(path: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK, let db else {
            throw Failure(description: "cannot open \(path)")
        }
        handle = db
    }

    deinit { sqlite3_close_v2(handle) }

    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        if sqlite3_exec(handle, sql, nil, nil, &message) != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? "unknown"
            sqlite3_free(message)
            throw Failure(description: "\(text) in: \(sql.prefix(200))")
        }
    }

    func prepare(_ sql: String) throws -> RawStatement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw Failure(description: "\(String(cString: sqlite3_errmsg(handle))) in: \(sql)")
        }
        return RawStatement(statement, database: self)
    }

    func scalar(_ sql: String) throws -> Int64 {
        let statement = try prepare(sql)
        return try statement.step() ? statement.int64(0) : 0
    }
}

/// A prepared statement, finalized when released.
final class RawStatement {
    let pointer: OpaquePointer
    let database: RawDatabase

    init(_ pointer: OpaquePointer, database: RawDatabase) {
        self.pointer = pointer
        self.database = database
    }

    deinit { sqlite3_finalize(pointer) }

    /// Steps once: true for a row, false when done.
    func step() throws -> Bool {
        switch sqlite3_step(pointer) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw RawDatabase.Failure(description: String(cString: sqlite3_errmsg(database.handle)))
        }
    }

    func reset() {
        sqlite3_reset(pointer)
        sqlite3_clear_bindings(pointer)
    }

    func isNull(_ index: Int32) -> Bool { sqlite3_column_type(pointer, index) == SQLITE_NULL }
    func int64(_ index: Int32) -> Int64 { sqlite3_column_int64(pointer, index) }
    func double(_ index: Int32) -> Double { sqlite3_column_double(pointer, index) }
    func text(_ index: Int32) -> String? {
        guard let bytes = sqlite3_column_text(pointer, index) else { return nil }
        return String(cString: bytes)
    }

    func bind(_ index: Int32, _ value: Int64?) {
        if let value { sqlite3_bind_int64(pointer, index, value) } else { sqlite3_bind_null(pointer, index) }
    }
    func bind(_ index: Int32, _ value: Double?) {
        if let value { sqlite3_bind_double(pointer, index, value) } else { sqlite3_bind_null(pointer, index) }
    }
    func bind(_ index: Int32, _ value: String?) {
        if let value {
            sqlite3_bind_text(pointer, index, value, -1, molt_bench_transient())
        } else {
            sqlite3_bind_null(pointer, index)
        }
    }
}
