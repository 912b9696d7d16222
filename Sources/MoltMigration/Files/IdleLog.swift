import Foundation
import Logging
import MoltSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A store's write-ahead log and shared-memory index that nobody uses and that hold nothing:
/// what a reader of a read-only store leaves (SQLite creates both, with the store's own mode,
/// 0444, and cannot remove them when it closes), and what a checkpoint that could not run
/// leaves. They carry no data, but a later writer cannot open a 0444 index and fails with
/// "attempt to write a readonly database", so recovery removes them.
///
/// Only what SQLite itself could not tidy is touched: the store, its log or its index is not
/// writable by this user (a writable store's log is checkpointed and removed by SQLite when
/// recovery's connection closes). Only an empty log goes: one with transactions in it is the
/// only copy of them, and stays (``pendingBytes(_:)`` says how much, so the caller can name
/// it). "Nobody uses it" is read from locks other processes hold: SQLite's unix VFS keeps a
/// read lock on the index's byte 128 (its dead-man switch) while a connection has the index
/// open, and a connection in WAL mode keeps a shared lock on the store file's lock bytes
/// (from 0x40000000) for as long as it is open, in exclusive locking mode too.
enum IdleLog {
    /// The index byte every connection of a store in WAL mode keeps a read lock on.
    static let deadManSwitch: off_t = 128
    /// The store file's lock bytes: pending, reserved, then the 510 shared bytes.
    static let storeLockBytes: (start: off_t, count: off_t) = (0x4000_0000, 512)

    /// Removes `files`' empty `-wal` and its `-shm` when SQLite could not, and no other
    /// process has the store open. Returns whether they were removed. Failures leave them
    /// (the next run tries again).
    @discardableResult
    static func removeIfIdle(_ files: StoreFiles, logger: Logger?) -> Bool {
        let companions = [files.wal, files.sharedMemory].filter(FileOperations.exists)
        guard FileOperations.exists(files.store), !companions.isEmpty,
            (FileOperations.size(files.wal) ?? 0) == 0,
            ([files.store] + companions).contains(where: { access($0, W_OK) != 0 }),
            !locked(files.sharedMemory, from: deadManSwitch, count: 1),
            !locked(files.store, from: storeLockBytes.start, count: storeLockBytes.count)
        else { return false }
        // The log first: an index left alone by a crash in between is removed next time.
        guard (try? FileOperations.remove(files.wal)) != nil, (try? FileOperations.remove(files.sharedMemory)) != nil
        else { return false }
        logger?.info("removed an empty write-ahead log and its index", metadata: ["molt.store": "\(files.store)"])
        return true
    }

    /// The bytes of a log that recovery could not move into its store because this user
    /// cannot write the store file, or nil when there is none. (A writable store's log that
    /// is still there belongs to a process that has the store open, and is that process's.)
    static func pendingBytes(_ files: StoreFiles) -> Int64? {
        guard let size = FileOperations.size(files.wal), size > 0, access(files.store, W_OK) != 0 else { return nil }
        return size
    }

    /// Whether another process holds a lock on `count` bytes of `path` from `start`
    /// (`DatabaseFileAccess.isLockedElsewhere`).
    ///
    /// Closing the descriptor opened to ask drops every POSIX lock this process holds on the
    /// file, so this is asked only where SQLite could not tidy the files itself (a store this
    /// user cannot write), before the run opens the store; an app that keeps its own
    /// connection to such a store open in the same process while recovering it would lose
    /// that connection's locks.
    static func locked(_ path: String, from start: off_t, count: off_t) -> Bool {
        DatabaseFileAccess.isLockedElsewhere(path, from: Int64(start), count: Int64(count))
    }
}
