public import Foundation
internal import MoltCore
package import MoltSQLite

/// The store's write-ahead log (`Store.sqlite-wal`) checked to be its own before Molt opens
/// the store in any way (`LogOwnership` (MoltSQLite)): SQLite would apply any log found
/// beside a store, and the first connection to close would copy it into the store and delete
/// it. A log from another store, found here, is refused with a clear error, and the store and
/// its log are left exactly as they were. Core Data's store UUID (`Z_METADATA.Z_UUID`) is the
/// store's identity: a log that makes the store another store is not its own.
///
/// ```swift
/// try StoreLog.requireOwn(url)    // before any connection to the store
/// ```
public enum StoreLog {
    /// The query whose answer names a Core Data store.
    package static let identity = LogOwnership.Identity(
        query: "SELECT Z_UUID FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1", name: "store UUID (Z_METADATA)")

    /// Throws 259 (the file is corrupt) when the log beside the store at `url` is not its own,
    /// naming the log and what to do; returns when there is none, when it is the store's, or
    /// when another process has the store open (its log is then in use by SQLite there).
    public static func requireOwn(_ url: URL) throws {
        guard case .foreign(let reason) = LogOwnership.verdict(database: url.path, identity: identity) else {
            return
        }
        let log = url.lastPathComponent + "-wal"
        throw MoltError(
            .fileReadCorruptFile,
            "the write-ahead log beside the store (\(log)) is not this store's: \(reason); nothing was read or changed",
            location: SourceLocation(file: url.path + "-wal"),
            recovery:
                "If \(log) was copied here from another store by mistake, move it (and \(url.lastPathComponent)-shm, if there is one) out of this folder and run again: SQLite, Core Data and Molt would apply it to this store. If the three files came together from one device, copy them again from there."
        )
    }
}
