package import Foundation
package import Logging
internal import MoltCore
import MoltSQLite
import MoltStore

/// Finishes or undoes what an interrupted migration left beside a store, so the next run starts
/// clean. Every run (``StoreMigration``, ``StoreUpgrade`` and the drivers under them) runs it
/// under the store's migration lock before anything else, and says what it did
/// (``RecoveryOutcome``); `molt recover` runs it alone. It is the package's, not the API's.
///
/// - A swap record (`Store.sqlite.molt-swap`) means the new store was complete: the swap is
///   finished (the old store's empty log removed, the new store renamed into place), unless
///   the old store's log has data in it, in which case the new store is discarded and the old
///   one kept.
/// - A new store (`Store.sqlite.molt-new`) without a swap record was not finished: it is
///   removed, with its companions, the external-data files it added (`ExternalDataJournal`)
///   and the backup name it may already have given the old store (`removeUnfinishedBackups(_:)`).
/// - A finished swap removes the old store's external-data files the new store does not use.
/// - A new store's own log that holds pages is never removed: folded into its new store
///   before a swap is finished, or, left alone by an older Molt that renamed the file first,
///   adopted by a store that is damaged without it or kept under a name of its own
///   (``NewStoreLog``).
/// - Left-over dry runs and partial backup copies are removed.
/// - A log beside the store that is not its own stops recovery before anything is touched
///   (``/MoltStore/StoreLog``).
/// - A rollback journal left by a crash (an in-place migration's, or any other write's) is
///   rolled back, and a write-ahead log left by one is checkpointed into the store, so no
///   `-journal`, `-wal` or `-shm` is left beside a store nobody has open.
/// - An empty log and its index that nobody uses (a reader of a read-only store leaves them,
///   mode 0444) are removed (``IdleLog``). A log with transactions that could not be moved
///   into the store (a store file this user cannot write) stays; ``pendingLogBytes(at:)``
///   names it.
///
/// ```swift
/// let outcome = try StoreRecovery.recover(at: storeURL)    // takes the store's migration lock
/// ```
package enum StoreRecovery {
    package typealias Outcome = RecoveryOutcome

    /// Recovers the store at `url` (symbolic links resolved) under its migration lock
    /// (`MigrationLock`), waiting up to `wait` seconds while another migration of it runs:
    /// what a running migration has beside the store is its work, not leftovers.
    @discardableResult
    package static func recover(at url: URL, logger: Logger? = nil, wait: TimeInterval = 0) throws -> Outcome {
        let lock = try MigrationLock.acquire(
            store: url, wait: wait, logger: logger ?? LibraryLogger.make("molt.recovery"))
        defer { lock.release() }
        return try recover(locked: lock, logger: logger)
    }

    /// Recovers the store whose migration lock the caller holds. Recovery runs once per lock
    /// held: asked again under the same lock (by the parts of one run), it answers what it
    /// found the first time. With `readOnly` (a dry run, a plan), it finishes or undoes only
    /// what a migration left of its own, and leaves the store's own log and journal as they
    /// are (no checkpoint, nothing removed).
    @discardableResult
    package static func recover(
        locked lock: MigrationLock, readOnly: Bool = false, logger: Logger? = nil
    ) throws
        -> Outcome
    {
        try lock.recoveryOutcome { try recoverNow(locked: lock, readOnly: readOnly, logger: logger) }
    }

    private static func recoverNow(locked lock: MigrationLock, readOnly: Bool, logger: Logger?) throws -> Outcome {
        let url = lock.store
        let files = StoreFiles(url)
        // A log that is not the store's is refused before anything touches it (``StoreLog``).
        if FileOperations.exists(files.store) { try StoreLog.requireOwn(url) }
        var outcome = Outcome.nothingToDo
        if FileOperations.exists(files.intent) || FileOperations.exists(files.intent + ".tmp") {
            let committed = FileOperations.exists(files.intent)
            FaultPoint.reach("recover.start")
            try? FileOperations.remove(files.intent + ".tmp")
            if committed, FileOperations.exists(files.new) {
                if (FileOperations.size(files.wal) ?? 0) == 0 {
                    // Swap records from before the new store was completed before them may
                    // find its pages still in its own log: into its file first.
                    try NewStoreLog.fold(files, logger: logger)
                    try checkNewStore(files)
                    try StoreSwap.finish(files)
                    outcome = .finishedSwap
                } else {
                    try removeNewStore(files)
                    try FileOperations.remove(files.intent)
                    outcome = .removedUnfinishedMigration
                }
            } else if committed {
                // The new store was renamed into place: only the tidying was left.
                outcome = .finishedSwap
                try StoreSwap.finish(files)
            } else {
                try FileOperations.remove(files.intent)
                if FileOperations.exists(files.new) || FileOperations.exists(files.newExternalFiles) {
                    try removeNewStore(files)
                    outcome = .removedUnfinishedMigration
                }
            }
        } else if FileOperations.exists(files.new) || FileOperations.exists(files.newExternalFiles) {
            try removeNewStore(files)
            outcome = .removedUnfinishedMigration
        }
        if outcome == .removedUnfinishedMigration { try removeUnfinishedBackups(files) }
        // A new store's log whose main file is gone (renamed over the store by a Molt that
        // swapped before the log was in the file) is the only copy of those pages: used or
        // kept, never removed with the leftovers.
        try NewStoreLog.rescueOrphan(files, logger: logger)
        try removeLeftovers(next: files)
        // A crash during an in-place migration of a store with a rollback journal leaves the
        // journal: roll it back now rather than at the next read (as SQLite itself requires
        // before anyone reads, so a read-only run does too).
        SQLiteStore.rollBackInterruptedWrite(at: url, logger: logger)
        if !readOnly {
            removeColdJournal(files, logger: logger)
            checkpointLeftoverLog(files, logger: logger)
            IdleLog.removeIfIdle(files, logger: logger)
        }
        if outcome != .nothingToDo {
            (logger ?? LibraryLogger.make("molt.recovery")).notice(
                "recovered an interrupted migration",
                metadata: ["molt.store": "\(url.path)", "molt.outcome": "\(outcome)"])
        }
        return outcome
    }

    /// The bytes of committed transactions still in the store's write-ahead log after
    /// recovery because this user cannot write the store file, or nil when there are none.
    package static func pendingLogBytes(at url: URL) -> Int64? {
        IdleLog.pendingBytes(StoreFiles(url))
    }

    /// Refuses to finish a swap whose new store is damaged: it is set aside under a name of
    /// its own, the swap record removed, and the old store kept as it was before the migration.
    static func checkNewStore(_ files: StoreFiles) throws {
        let recorded = try? JSONDecoder().decode(
            StoreSwap.Intent.self, from: Data(contentsOf: URL(fileURLWithPath: files.intent)))
        guard let problem = NewStoreCheck.problem(with: files.new, expectedHashes: recorded?.newStoreHashes) else {
            return
        }
        let aside = try NewStoreCheck.setAside(files, date: Date())
        try FileOperations.remove(files.intent)
        try ExternalDataJournal.abandon(files)
        try FileOperations.syncFolder(of: files.store)
        throw MoltError(
            .destinationStore,
            "the migrated store waiting to replace this one is damaged (\(problem)); it was set aside as \(aside), and the store was kept as it was before the migration",
            location: SourceLocation(file: files.store),
            recovery:
                "Check the disk, then run the migration again; the store is at its old version. Remove \(URL(fileURLWithPath: aside).lastPathComponent) once it is no longer needed."
        )
    }

    /// Moves what a write-ahead log left by a crash holds (committed, not yet checkpointed:
    /// the last transactions of an in-place migration, for one) into the main file, so that
    /// the store is one file again and no old `-wal` or `-shm` lingers beside it. A store that
    /// another process has open keeps its log: the checkpoint waits briefly, then gives up, and
    /// that process's own connection tidies the log when it closes. Failures are ignored.
    static func checkpointLeftoverLog(_ files: StoreFiles, logger: Logger?) {
        guard FileOperations.exists(files.store),
            FileOperations.exists(files.wal) || FileOperations.exists(files.sharedMemory),
            let connection = try? SQLiteConnection(
                path: files.store, mode: .readWrite, busyTimeout: 500, logger: logger)
        else { return }
        defer { connection.close() }
        guard (try? connection.journalMode()) == "wal" else { return }
        try? connection.checkpoint(.truncate)
    }

    /// A rollback journal SQLite no longer needs (its header cleared by a commit that a crash
    /// cut short before the file was deleted) stays beside the store until the next write
    /// transaction: make one that changes nothing (`user_version` set to itself), whose commit
    /// deletes the file. Runs after ``SQLiteStore/rollBackInterruptedWrite(at:logger:)``, so a
    /// journal still there is not hot; a store another process is writing is left alone (the
    /// write waits briefly, then gives up). Failures are ignored.
    static func removeColdJournal(_ files: StoreFiles, logger: Logger?) {
        guard FileOperations.exists(files.journal),
            let connection = try? SQLiteConnection(
                path: files.store, mode: .readWrite, busyTimeout: 500, logger: logger)
        else { return }
        defer { connection.close() }
        guard let version = try? connection.scalar("PRAGMA user_version")?.integerValue else { return }
        try? connection.execute("PRAGMA user_version = \(version)")
    }

    /// Removes the new store, its companions first: a crash in between leaves the main file,
    /// which the next recovery finds (and orphaned companions are removed by
    /// ``removeLeftovers(next:)`` in any case).
    static func removeNewStore(_ files: StoreFiles) throws {
        FaultPoint.reach("recover.removing-new")
        for companion in StoreFiles.companions(of: files.new) { try FileOperations.remove(companion) }
        FaultPoint.reach("recover.companions-removed")
        try FileOperations.remove(files.new)
        try FileOperations.syncFolder(of: files.store)
        // The new store is gone, so no row refers to the files it added.
        try ExternalDataJournal.abandon(files)
    }

    /// Backups that an undone migration linked before it stopped (`--backup` gives the old
    /// store a second name just before the swap record): other names of the store file
    /// itself. The store is the old one, so they add nothing, and a migration that replaces
    /// the file would refuse to split the names. Their linked support folders go with them.
    static func removeUnfinishedBackups(_ files: StoreFiles) throws {
        var store = stat()
        guard stat(files.store, &store) == 0, store.st_nlink > 1 else { return }
        let url = URL(fileURLWithPath: files.store)
        let folder = url.deletingLastPathComponent().path
        let base = url.deletingPathExtension().lastPathComponent
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder) else {
            return
        }
        for entry in entries where entry.hasPrefix("\(base).molt-backup-") && !entry.hasSuffix(".partial") {
            let path = folder + "/" + entry
            var info = stat()
            guard lstat(path, &info) == 0, info.st_ino == store.st_ino, info.st_dev == store.st_dev else { continue }
            try FileOperations.removeTree(StoreFiles.supportFolder(of: path))
            try FileOperations.remove(path)
        }
        try FileOperations.syncFolder(of: files.store)
    }

    /// Dry-run stores, half-created new stores, companions of a new store that is gone, the
    /// partial copy a new store starts as (`.molt-new.partial`, on the SQL path), and partial
    /// backup copies from interrupted runs.
    static func removeLeftovers(next files: StoreFiles) throws {
        let url = URL(fileURLWithPath: files.store)
        let folder = url.deletingLastPathComponent().path
        let name = url.lastPathComponent
        let base = url.deletingPathExtension().lastPathComponent
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder) else {
            return
        }
        for entry in entries {
            // Dry runs, and the temporary file a new store is created in.
            let isDryRun =
                entry.hasPrefix(".\(name).molt-dryrun-") || entry.hasPrefix(".\(name).molt-new.molt-")
                || entry.hasPrefix(".\(base)_SUPPORT.molt-dryrun-")
            let isPartialBackup = entry.hasPrefix("\(base).molt-backup-") && entry.hasSuffix(".partial")
            let isOrphanCompanion =
                entry == "\(name).molt-new.partial"
                || (!FileOperations.exists(files.new)
                    && ["-wal", "-shm", "-journal"].contains { entry == "\(name).molt-new\($0)" })
            if isDryRun || isPartialBackup || isOrphanCompanion {
                try FileOperations.removeTree(folder + "/" + entry)
            }
        }
    }
}
