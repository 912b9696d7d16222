internal import Foundation
internal import MoltCore
internal import MoltModel
internal import MoltSQLite
internal import MoltStore

/// What recovery checks before it renames a migrated store over the old one: the new store is
/// an SQLite database, SQLite finds nothing wrong in it (`PRAGMA quick_check`), its metadata
/// reads, and its version hashes are the ones the swap record says the migration wrote. Molt
/// never leaves a damaged new store itself; storage that loses synced data, or another
/// program, can. A damaged one is set aside under a name of its own and the old store kept.
enum NewStoreCheck {
    /// The digest of the hashes in the store at `path`'s metadata, for the swap record.
    static func hashesDigest(of path: String) throws -> String {
        let store = try SQLiteStore(at: URL(fileURLWithPath: path), readOnly: true, unchanging: true)
        defer { store.connection.close() }
        return VersionHasher.digest(of: store.metadata.entityVersionHashes)
    }

    /// Why the new store at `path` must not replace the old one; nil when it may.
    static func problem(with path: String, expectedHashes: String?) -> String? {
        let store: SQLiteStore
        do {
            store = try SQLiteStore(at: URL(fileURLWithPath: path), readOnly: true, unchanging: true)
        } catch let error as MoltError {
            return error.message
        } catch {
            return "\(error)"
        }
        defer { store.connection.close() }
        do {
            let rows = try store.connection.rows("PRAGMA quick_check(5)").compactMap { $0.first?.textValue }
            if rows != ["ok"] { return "SQLite's quick check found: " + rows.joined(separator: "; ") }
        } catch {
            return "SQLite's quick check failed: \(error)"
        }
        if let expectedHashes, VersionHasher.digest(of: store.metadata.entityVersionHashes) != expectedHashes {
            return "its version hashes are not those the migration wrote"
        }
        return nil
    }

    /// Moves the damaged new store (and its companions) to `Name.molt-damaged-<time>.ext`
    /// beside the store; returns that name.
    static func setAside(_ files: StoreFiles, date: Date) throws -> String {
        let url = URL(fileURLWithPath: files.store)
        let ext = url.pathExtension
        var name = files.backupName(at: date).replacingOccurrences(of: ".molt-backup-", with: ".molt-damaged-")
        var counter = 2
        while FileOperations.exists(name) {
            name = url.deletingPathExtension().path + ".molt-damaged-\(counter)" + (ext.isEmpty ? "" : "." + ext)
            counter += 1
        }
        for companion in StoreFiles.companions(of: files.new) where FileOperations.exists(companion) {
            try FileOperations.rename(companion, to: name + companion.dropFirst(files.new.count))
        }
        try FileOperations.rename(files.new, to: name)
        try FileOperations.syncFolder(of: files.store)
        return name
    }
}
