internal import Foundation
internal import Logging
internal import MoltCore
internal import MoltSQLite
internal import MoltStore

/// Complete copies of a store, for the backup an upgrade keeps when something writes to the
/// store before its first migration (a stage handler, the upgrade's progress record), and for
/// dry runs. A migration's own backup is a hard link to the old file, which is only right when
/// the old file is never written again; these copies are independent files.
///
/// The store's log is checkpointed into its main file first and SQLite's write lock is held
/// while the file is copied, so the copy holds every row and nobody writes meanwhile. The copy
/// is written beside its target, synced, and renamed into place. A dry run's copy is read
/// through a read-only connection instead (``snapshot(_:to:logger:)``).
enum UpgradeBackup {
    /// Copies the store (and its external-data folder) to `target`.
    static func copy(_ store: URL, to target: String, logger: Logger) throws {
        let path = store.path
        try StoreLog.requireOwn(store)
        let connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(path: path, mode: .readWrite, busyTimeout: 2000, logger: logger)
        } catch {
            throw MigrationErrors.classify(error, store: path)
        }
        defer { connection.close() }
        do {
            try SourceLock.lock(connection, path: path)
        } catch let error as MoltError {
            throw error
        } catch {
            throw MigrationErrors.classify(error, store: path)
        }
        defer { try? connection.execute("ROLLBACK") }
        // A write between the checkpoint and the lock would live only in the log.
        guard (FileOperations.size(path + "-wal") ?? 0) == 0 else {
            throw SourceLock.inUse(path, DescribedError("the log filled again before the copy could start"))
        }
        try FileOperations.copy(path, to: target)
        try copySupport(of: store, to: target)
        try FileOperations.syncFolder(of: target)
    }

    /// Copies the store (and its external-data folder) to `target` without writing a byte of
    /// it: a read-only connection reads one committed version, through the store's log, and
    /// SQLite's backup API writes it into the copy (a dry run's copy). The copy is synced.
    static func snapshot(_ store: URL, to target: String, logger: Logger) throws {
        let source = try SQLiteStore(at: store, readOnly: true, snapshot: true, logger: logger)
        defer { source.connection.close() }
        do {
            try source.connection.backup(into: target)
            try FileSync.sync(path: target)
        } catch {
            remove(target)
            throw MigrationErrors.classify(error, store: store.path)
        }
        try copySupport(of: store, to: target)
        try FileOperations.syncFolder(of: target)
    }

    private static func copySupport(of store: URL, to target: String) throws {
        let support = StoreFiles(store).support
        guard FileOperations.exists(support) else { return }
        let targetSupport = StoreFiles.supportFolder(of: target)
        do {
            try FileManager.default.copyItem(atPath: support, toPath: targetSupport)
        } catch {
            throw MoltError(
                .fileWriteUnknown, "cannot copy the store's external data: \(error.localizedDescription)",
                location: SourceLocation(file: support))
        }
    }

    /// Removes a copy made by ``copy(_:to:logger:)``, with its companions and external data.
    static func remove(_ copy: String) {
        try? FileOperations.remove(copy)
        for companion in StoreFiles.companions(of: copy) { try? FileOperations.remove(companion) }
        try? FileOperations.removeTree(StoreFiles.supportFolder(of: copy))
    }
}
