import Foundation
import MoltStore

/// The names of a store's files and of the files a migration makes beside it.
///
/// | file | what |
/// |---|---|
/// | `Store.sqlite` | the store |
/// | `Store.sqlite-wal`, `-shm`, `-journal` | its SQLite companions |
/// | `.Store_SUPPORT/` | its external binary data |
/// | `Store.sqlite.molt-new` | the migrated store being built (deleted if the migration stops) |
/// | `Store.sqlite.molt-new-files` | the external-data files the migration created (removed if it stops) |
/// | `Store.sqlite.molt-old-files` | the old store's files the new one does not use (removed after the swap) |
/// | `Store.sqlite.molt-swap` | the record of a swap in progress (a crash is finished on the next run) |
/// | `Store.molt-backup-20261121T230000.sqlite` | the old store kept by `--backup` (with its `.…_SUPPORT` folder) |
struct StoreFiles {
    let store: String

    init(_ url: URL) {
        store = url.path
    }

    var wal: String { store + "-wal" }
    var sharedMemory: String { store + "-shm" }
    var journal: String { store + "-journal" }
    var support: String { CompanionFiles.supportFolder(of: URL(fileURLWithPath: store)).path }

    /// The new store being built.
    var new: String { store + ".molt-new" }
    /// The swap record.
    var intent: String { store + ".molt-swap" }
    /// The list of external-data files the migration created (``ExternalDataJournal``).
    var newExternalFiles: String { store + ".molt-new-files" }
    /// The list of the old store's external-data files the new store does not use.
    var oldExternalFiles: String { store + ".molt-old-files" }

    /// The companions of another file name (the new store's).
    static func companions(of path: String) -> [String] {
        [path + "-wal", path + "-shm", path + "-journal"]
    }

    /// A backup name that does not exist yet: `Name.molt-backup-YYYYMMDDTHHMMSS.ext`.
    func backupName(at date: Date) -> String {
        let url = URL(fileURLWithPath: store)
        let base = url.deletingPathExtension().path
        let ext = url.pathExtension
        var components = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: date)
        components.nanosecond = nil
        let stamp = String(
            format: "%04d%02d%02dT%02d%02d%02d", components.year ?? 0, components.month ?? 0, components.day ?? 0,
            components.hour ?? 0, components.minute ?? 0, components.second ?? 0)
        var candidate = base + ".molt-backup-" + stamp + (ext.isEmpty ? "" : "." + ext)
        var counter = 2
        while FileOperations.exists(candidate) {
            candidate = base + ".molt-backup-" + stamp + "-\(counter)" + (ext.isEmpty ? "" : "." + ext)
            counter += 1
        }
        return candidate
    }

    /// The support folder that goes with another store file name (a backup's).
    static func supportFolder(of path: String) -> String {
        CompanionFiles.supportFolder(of: URL(fileURLWithPath: path)).path
    }
}
