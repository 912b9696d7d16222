import Foundation
import Logging
import MoltCore
import MoltSQLite
import MoltStore

/// What makes a migrated store ready to replace the old one, on every route (object by object,
/// in batches, SQL on a copy), before the swap record is written:
///
/// 1. Every connection that filled it is closed (checked: a connection still open would keep
///    pages of its own, or tidy a log by name after the rename).
/// 2. Its write-ahead log, if any, is moved into the main file and removed
///    (`journal_mode = DELETE`): a checkpoint that fails (a full disk, `EIO`, a file-size limit)
///    fails the run here, the old store untouched. Then it is put in the journal mode the old
///    store had.
/// 3. Nothing is left beside it that holds data: the main file is the whole store.
/// 4. The file and its folder are synced (errors reported: on many file systems a full disk
///    shows only here).
/// 5. SQLite's `quick_check` and the metadata are read back (``NewStoreCheck``): a store that
///    is not whole is never swapped in, whatever SQLite or the disk failed to report earlier.
enum NewStoreCompletion {
    static func complete(_ path: String, journalMode: String, logger: Logger) throws {
        guard !DatabaseFileAccess.isOpen(path) else {
            throw MoltError(
                .migration, "internal error: a connection to the new store is still open as it is completed",
                location: SourceLocation(file: path), recovery: "Report this: it is a bug in Molt.")
        }
        FaultPoint.reach("new.complete")
        let connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(path: path, mode: .readWrite, busyTimeout: 0, logger: logger)
        } catch {
            throw failure(path, "cannot be opened to complete it", error)
        }
        do {
            defer { connection.close() }
            try switchMode(connection, to: "delete", path: path)
            FaultPoint.reach("new.log-folded")
            if journalMode == "wal" { try switchMode(connection, to: "wal", path: path) }
        }
        for companion in StoreFiles.companions(of: path) where FileOperations.exists(companion) {
            guard (FileOperations.size(companion) ?? 0) == 0 else {
                throw MoltError(
                    .destinationStore,
                    "the new store's \(URL(fileURLWithPath: companion).lastPathComponent) still holds data after it was closed; nothing was replaced",
                    location: SourceLocation(file: path),
                    recovery: "Check the disk (is it full?) and run the migration again.")
            }
            try FileOperations.remove(companion)
        }
        try FileSync.sync(path: path)
        try FileOperations.syncFolder(of: path)
        FaultPoint.reach("new.synced")
        if let problem = NewStoreCheck.problem(with: path, expectedHashes: nil) {
            throw MoltError(
                .destinationStore, "the new store is not whole (\(problem)); nothing was replaced",
                location: SourceLocation(file: path),
                recovery: "Check the disk (is it full?) and run the migration again.")
        }
    }

    /// Sets the journal mode and checks that SQLite did: it answers with the mode it kept when
    /// it cannot change (a checkpoint that failed, another connection).
    private static func switchMode(_ connection: SQLiteConnection, to mode: String, path: String) throws {
        let now: String?
        do {
            now = try connection.scalar("PRAGMA journal_mode = \(mode.uppercased())")?.textValue?.lowercased()
        } catch {
            throw failure(path, "could not be written whole into its file", error)
        }
        guard now == mode else {
            throw MoltError(
                .destinationStore,
                "SQLite kept the new store in journal mode \(now ?? "unknown") instead of \(mode); nothing was replaced",
                location: SourceLocation(file: path))
        }
    }

    private static func failure(_ path: String, _ what: String, _ error: any Error) -> MoltError {
        if let error = error as? MoltError { return error }
        let reason = (error as? SQLiteError).map { $0.message } ?? "\(error)"
        return MoltError(
            .destinationStore, "the new store \(what): \(reason); nothing was replaced",
            location: SourceLocation(file: path), recovery: "Check the disk (is it full?) and run the migration again.",
            underlying: error)
    }
}
