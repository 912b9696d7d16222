import Foundation
import Logging
import MoltCore
import MoltSQLite
import MoltStore

/// What recovery does with a migrated store's own write-ahead log (`Store.sqlite.molt-new-wal`)
/// that holds pages: it is never removed while it may be the only copy of them.
///
/// Molt completes a new store in its main file before the swap record is written
/// (``NewStoreCompletion``), so a log with pages beside a new store is what an older Molt left:
///
/// - beside `Store.sqlite.molt-new` whose swap record was written: its pages are moved into
///   that file before recovery checks and renames it (``fold(_:logger:)``);
/// - alone, its main file renamed over the store by an older Molt that swapped first
///   (``rescueOrphan(_:logger:)``): when the store at the path is damaged without it and whole
///   with it, and is the same store (``LogOwnership``), it becomes the store's log and is
///   moved into it; otherwise it is kept beside the store as
///   `Store.molt-log-<time>.sqlite-wal` and named in the log of the run.
enum NewStoreLog {
    /// Moves the pages of the new store's own log into its main file (Molt's file: nobody else
    /// has it open), leaving no log with data beside it. Throws when it cannot (a full disk):
    /// the files are left as they are for the next recovery.
    static func fold(_ files: StoreFiles, logger: Logger?) throws {
        let log = files.new + "-wal"
        guard (FileOperations.size(log) ?? 0) > 0 else { return }
        let connection = try SQLiteConnection(path: files.new, mode: .readWrite, busyTimeout: 0, logger: logger)
        defer { connection.close() }
        if try connection.journalMode() == "wal" { try connection.checkpoint(.truncate) }
        connection.close()
        guard (FileOperations.size(log) ?? 0) == 0 else {
            throw MoltError(
                .destinationStore, "the migrated store's log could not be moved into it",
                location: SourceLocation(file: log),
                recovery: "Check the disk (is it full?) and run `molt recover` again.")
        }
    }

    /// A new store's log without its main file: used or kept, as the type says.
    static func rescueOrphan(_ files: StoreFiles, logger: Logger?) throws {
        let log = files.new + "-wal"
        guard !FileOperations.exists(files.new), (try? WriteAheadLog.read(log))??.committedFrames ?? 0 > 0 else {
            return
        }
        let logger = logger ?? LibraryLogger.make("molt.recovery")
        if try adopt(log, files) {
            logger.notice(
                "the store's pages that an earlier migration left in its new store's log were moved into the store",
                metadata: ["molt.store": "\(files.store)", "molt.log": "\(log)"])
            return
        }
        let url = URL(fileURLWithPath: files.store)
        let ext = url.pathExtension
        var kept =
            url.deletingPathExtension().path + ".molt-log-\(Self.stamp())" + (ext.isEmpty ? "" : "." + ext) + "-wal"
        var counter = 2
        while FileOperations.exists(kept) {
            kept =
                url.deletingPathExtension().path + ".molt-log-\(Self.stamp())-\(counter)"
                + (ext.isEmpty ? "" : "." + ext)
                + "-wal"
            counter += 1
        }
        try FileOperations.rename(log, to: kept)
        try FileOperations.syncFolder(of: files.store)
        logger.warning(
            "a migrated store's log with pages in it had no store beside it; it was kept as \(kept)",
            metadata: ["molt.store": "\(files.store)"])
    }

    /// Makes `log` the store's own log and moves it into the store, when the store is damaged
    /// without it and whole with it; returns whether it did.
    private static func adopt(_ log: String, _ files: StoreFiles) throws -> Bool {
        guard FileOperations.exists(files.store), (FileOperations.size(files.wal) ?? 0) == 0,
            !FileOperations.exists(files.sharedMemory), !FileOperations.exists(files.journal),
            SQLiteStore.journalMode(ofFile: URL(fileURLWithPath: files.store)) == "wal",
            let parsed = try? WriteAheadLog.read(log),
            LogOwnership.fits(parsed, database: files.store, identity: StoreLog.identity)
        else { return false }
        try FileOperations.remove(files.wal)
        try FileOperations.rename(log, to: files.wal)
        try? FileOperations.remove(files.new + "-shm")
        try FileOperations.syncFolder(of: files.store)
        let connection = try SQLiteConnection(path: files.store, mode: .readWrite, busyTimeout: 2000)
        defer { connection.close() }
        try connection.checkpoint(.truncate)
        return true
    }

    private static func stamp() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss"
        return formatter.string(from: Date())
    }
}
