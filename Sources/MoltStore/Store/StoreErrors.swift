import MoltCore
import MoltSQLite

/// Turns SQLite failures into ``MoltError``s that name the store and keep SQLite's details.
enum StoreErrors {
    /// An SQLite error while working on the store at `path`: Core Data's 134180, or 134000 when
    /// the file is not a database at all.
    static func wrap(_ error: any Error, path: String, doing action: String) -> any Error {
        guard let sqliteError = error as? SQLiteError else { return error }
        let location = SourceLocation(file: path)
        switch sqliteError.code.primary {
        case .notADatabase:
            return MoltError(
                .persistentStoreInvalidType, "the file is not an SQLite database (\(sqliteError.message))",
                location: location, recovery: "Check that this is the store file (often *.sqlite).",
                underlying: sqliteError)
        case .corrupt:
            return MoltError(
                .sqlite, "the store is damaged (\(sqliteError.message)) while \(action)", location: location,
                recovery: "Restore the store from a backup; `sqlite3 STORE .recover` may save some rows.",
                underlying: sqliteError)
        case .busy, .locked:
            return MoltError(
                .sqlite, "the store is locked by another connection while \(action)", location: location,
                recovery: "Close the app or tool using the store and try again.", underlying: sqliteError)
        case .full:
            return MoltError(
                .sqlite, "the disk is full while \(action)", location: location,
                recovery: "Free some disk space and try again.", underlying: sqliteError)
        case .readOnly, .permission, .cannotOpen:
            return MoltError(
                .sqlite, "the store cannot be opened or written (\(sqliteError.message)) while \(action)",
                location: location, recovery: "Check the file's and its folder's permissions.", underlying: sqliteError)
        default:
            return MoltError(
                .sqlite, "SQLite failed while \(action): \(sqliteError.message)", location: location,
                underlying: sqliteError)
        }
    }

    /// Runs `body`, turning SQLite errors into ``MoltError``s.
    static func sqlite<T>(_ path: String, _ action: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw wrap(error, path: path, doing: action)
        }
    }
}
