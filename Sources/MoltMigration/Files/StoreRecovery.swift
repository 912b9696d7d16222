public import Foundation
public import Logging
internal import MoltCore
import MoltStore

/// Finishes or undoes what an interrupted migration left beside a store, so the next run starts
/// clean. Molt runs it before every migration; apps can run it at start-up.
///
/// - A swap record (`Store.sqlite.molt-swap`) means the new store was complete: the swap is
///   finished (the old store's empty log removed, the new store renamed into place), unless
///   the old store's log has data in it, in which case the new store is discarded and the old
///   one kept.
/// - A new store (`Store.sqlite.molt-new`) without a swap record was not finished: it is
///   removed, with its companions.
/// - Left-over dry runs and partial backup copies are removed.
///
/// ```swift
/// let outcome = try StoreRecovery.recover(at: storeURL)
/// ```
public enum StoreRecovery {
    /// What recovery did.
    public enum Outcome: Sendable, Equatable {
        /// Nothing was left over.
        case nothingToDo
        /// An interrupted swap was finished: the store is the migrated one.
        case finishedSwap
        /// An unfinished migration's files were removed: the store is the old one.
        case removedUnfinishedMigration
    }

    @discardableResult
    public static func recover(at url: URL, logger: Logger? = nil) throws -> Outcome {
        let files = StoreFiles(url)
        var outcome = Outcome.nothingToDo
        if FileOperations.exists(files.intent) || FileOperations.exists(files.intent + ".tmp") {
            let committed = FileOperations.exists(files.intent)
            try? FileOperations.remove(files.intent + ".tmp")
            if committed, FileOperations.exists(files.new) {
                if (FileOperations.size(files.wal) ?? 0) == 0 {
                    try StoreSwap.finish(files)
                    outcome = .finishedSwap
                } else {
                    try removeNewStore(files)
                    try FileOperations.remove(files.intent)
                    outcome = .removedUnfinishedMigration
                }
            } else {
                if committed { outcome = .finishedSwap }
                try FileOperations.remove(files.intent)
                if FileOperations.exists(files.new) {
                    try removeNewStore(files)
                    outcome = .removedUnfinishedMigration
                }
            }
        } else if FileOperations.exists(files.new) {
            try removeNewStore(files)
            outcome = .removedUnfinishedMigration
        }
        try removeLeftovers(next: files)
        if outcome != .nothingToDo {
            (logger ?? Logger(label: "molt.recovery")).notice(
                "recovered an interrupted migration",
                metadata: ["molt.store": "\(url.path)", "molt.outcome": "\(outcome)"])
        }
        return outcome
    }

    static func removeNewStore(_ files: StoreFiles) throws {
        try FileOperations.remove(files.new)
        for companion in StoreFiles.companions(of: files.new) { try FileOperations.remove(companion) }
        try FileOperations.syncFolder(of: files.store)
    }

    /// Dry-run stores, half-created new stores and partial backup copies from interrupted runs.
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
            let isDryRun = entry.hasPrefix(".\(name).molt-dryrun-") || entry.hasPrefix(".\(name).molt-new.molt-")
            let isPartialBackup = entry.hasPrefix("\(base).molt-backup-") && entry.hasSuffix(".partial")
            if isDryRun || isPartialBackup {
                try FileOperations.remove(folder + "/" + entry)
            }
        }
    }
}
