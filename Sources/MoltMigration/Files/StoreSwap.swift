import Foundation
import MoltCore
import MoltStore

/// Replaces a store with its migrated version so that, at every instant, the path opens either
/// the complete old store or the complete new one, whatever happens (a crash, `kill -9`, a
/// power cut).
///
/// Before the swap the old store has everything in its main file (its `-wal` checkpointed to
/// empty) and the new store is complete, closed and synced beside it (`Store.sqlite.molt-new`).
/// Then:
///
/// 1. With `--backup`, the old store gets a second name (`Store.molt-backup-….sqlite`, a hard
///    link, or a synced copy where links are not possible), and so does its support folder.
/// 2. A swap record (`Store.sqlite.molt-swap`) is written and synced: from here on the
///    migration is finished by whoever looks next (`StoreRecovery`).
/// 3. The old store's empty `-wal` and its `-shm` are removed, so no old file sits beside the
///    new store.
/// 4. The new store is renamed over the old one: one atomic `rename(2)`. The folder is synced.
/// 5. The old store's external-data files the new store does not use are removed (a backup
///    keeps them: they are linked), then the swap record.
///
/// The new store takes the old one's permissions (and owner, when allowed). The support folder
/// (`.Store_SUPPORT`) stays where it is and serves both stores until the rename: the new
/// store's rows name the old files they carry unchanged and new files the migration added
/// (``ExternalDataJournal``), so whichever store the path holds finds every file it names.
enum StoreSwap {
    /// The swap record's content.
    struct Intent: Codable, Equatable {
        var format = 1
        var newStore: String
        var backup: String?
        /// The digest of the new store's version hashes, which recovery checks before it
        /// renames the new store into place (``NewStoreCheck``); absent in older records.
        var newStoreHashes: String?
    }

    static func replace(_ url: URL, backup: Bool, date: Date) throws -> String? {
        let files = StoreFiles(url)
        FaultPoint.reach("swap.start")
        // Molt left the old store's log empty when it locked the store; a log with data in it
        // now was written by another connection (an app that opened the store since), so the
        // store is in use: refused as any store in use is, and nothing is replaced.
        guard (FileOperations.size(files.wal) ?? 0) == 0, !FileOperations.exists(files.journal) else {
            throw SourceLock.inUse(
                files.store,
                MoltError(
                    .sourceStore, "the old store has a log with data in it at the swap; nothing was replaced",
                    location: SourceLocation(file: files.store)))
        }
        try FileOperations.copyPermissions(from: files.store, to: files.new)
        var backupPath: String?
        if backup {
            let name = files.backupName(at: date)
            try FileOperations.linkOrCopy(files.store, to: name)
            if FileOperations.exists(files.support) {
                try FileOperations.linkOrCopyTree(files.support, to: StoreFiles.supportFolder(of: name))
            }
            backupPath = name
            FaultPoint.reach("swap.backup-linked")
        }
        try FileOperations.syncFolder(of: files.store)
        let hashes = try NewStoreCheck.hashesDigest(of: files.new)
        try writeIntent(Intent(newStore: files.new, backup: backupPath, newStoreHashes: hashes), to: files.intent)
        FaultPoint.reach("swap.record-written")
        try finish(files)
        return backupPath
    }

    /// Steps 3 to 5 (also what recovery does when it finds a swap record and the new store).
    static func finish(_ files: StoreFiles) throws {
        if FileOperations.exists(files.new) {
            FaultPoint.reach("swap.before-log-removal")
            try FileOperations.remove(files.wal)
            FaultPoint.reach("swap.log-removed")
            try FileOperations.remove(files.sharedMemory)
            FaultPoint.reach("swap.before-rename")
            try FileOperations.rename(files.new, to: files.store)
            FaultPoint.reach("swap.renamed")
            try FileOperations.syncFolder(of: files.store)
            FaultPoint.reach("swap.folder-synced")
        }
        try ExternalDataJournal.finish(files)
        try FileOperations.remove(files.intent)
        FaultPoint.reach("swap.record-removed")
        try FileOperations.syncFolder(of: files.store)
    }

    static func writeIntent(_ intent: Intent, to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try FileOperations.writeDurably(try encoder.encode(intent), to: path, what: "the swap record") {
            FaultPoint.reach("swap.record-synced")
        }
    }
}
