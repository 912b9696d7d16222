internal import Foundation
internal import MoltCore
internal import MoltModel
internal import MoltSQLite
internal import MoltStore

/// How every part of a migration names what went wrong, with Core Data's codes.
enum MigrationErrors {
    /// The store bound to the migration's source model; 134100 saying so when they differ.
    static func bind(_ store: SQLiteStore, toSource model: ObjectModel) throws -> ObjectStore {
        do {
            return try ObjectStore(store: store, model: model)
        } catch var error as MoltError where error.code == .incompatibleVersionHash {
            error.message = "the store does not match the source model: " + error.message
            throw error
        }
    }

    /// What stopped SQL in a run whose plan chose it: the planner looked for it before any
    /// work, under the migration lock, so the store changed since (the run changed nothing).
    static func changedAfterPlanning(_ reason: String) -> MoltError {
        MoltError(
            .migration, "the store changed after the migration was planned: \(reason)",
            recovery: "Run the migration again; the store was not changed.")
    }

    /// Gives an error Core Data's migration code when it has none of its own.
    static func classify(_ error: any Error, store: String) -> any Error {
        guard let molt = error as? MoltError else {
            if let sqlite = error as? SQLiteError {
                return MoltError(
                    .sqlite, "SQLite failed during the migration: \(sqlite.message)",
                    location: SourceLocation(file: store), underlying: sqlite)
            }
            return MoltError(
                .migration, "the migration failed: \(error)", location: SourceLocation(file: store),
                underlying: DescribedError(error))
        }
        return molt
    }
}
