import Foundation
import Logging
import MoltCore
import MoltSQLite
import MoltStore

/// Keeps every other process from writing to the source store from the moment a migration
/// into a new file starts until the new file has replaced it, with SQLite's own locks, so
/// that no commit can land in the old file after it was read (it would be lost with it).
///
/// 1. A store in WAL mode leaves it: `journal_mode = DELETE` moves its log into the main file
///    and removes it, which SQLite allows only once every other connection has closed. Readers
///    and writers that come and go (an app, an extension, `molt dump`) are waited for, up to
///    the run's ``MigrationOptions/inUseWait``; one that stays open makes the migration stop
///    with "in use", naming the process (``StoreUsers``), nothing changed but the journal mode.
///    From here on no connection has the old file open in WAL mode, and none can put it back
///    in WAL mode without the write lock below.
/// 2. SQLite's write lock is taken (`BEGIN IMMEDIATE`) and held to the end. Others read the old
///    store meanwhile; a writer waits for its busy timeout, then gives up: its transaction is
///    not committed, so nothing of it is lost.
/// 3. The swap runs while the lock is still held (``replace(_:)``): no commit can land between
///    "the copy is complete" and the rename. After the rename the path opens the new store, and
///    a connection still open on the old file can neither write it nor touch a file by name
///    beside the new store: SQLite refuses to start a write on a database file that was
///    renamed or unlinked (`SQLITE_READONLY_DBMOVED`), and that includes switching it back to
///    WAL mode, and in rollback-journal mode a reader of the old file opens no log.
///
/// A failed or cancelled migration releases the lock and puts a store that was in WAL mode
/// back in it (``abandon()``); a crash leaves it in rollback-journal mode, which any app that
/// opens it in WAL mode (Core Data does) changes back.
final class SourceLock {
    private let connection: SQLiteConnection
    private let path: String
    private var dataVersion: Int64 = 0
    /// The file locked (device and inode): the swap replaces this file and no other.
    private let identity: [UInt64]
    /// The journal mode the store was in before the lock ("wal", "delete", …): the new store
    /// is made in it, and a failed migration puts the old store back in it.
    let journalMode: String

    init(store url: URL, wait: TimeInterval, logger: Logger) throws {
        path = url.path
        try StoreLog.requireOwn(url)
        do {
            connection = try SQLiteConnection(path: path, mode: .readWrite, busyTimeout: 2000, logger: logger)
            journalMode = try connection.journalMode()
            FaultPoint.reach("lock.start")
            if journalMode == "wal" { try Self.leaveWriteAheadLog(connection, path: path, wait: wait) }
            FaultPoint.reach("lock.checkpointed")
            try connection.execute("BEGIN IMMEDIATE")
            FaultPoint.reach("lock.locked")
            // Read inside the transaction: the version every later check compares with.
            dataVersion = try connection.scalar("PRAGMA data_version")?.integerValue ?? 0
            identity = try Self.identity(of: path)
        } catch let error as SQLiteError where error.code.primary == .busy || error.code.primary == .locked {
            throw Self.inUse(path, error)
        } catch let error as MoltError {
            throw error
        } catch {
            throw MoltError(
                .sourceStore, "the store cannot be locked for the migration: \(error)",
                location: SourceLocation(file: path))
        }
    }

    /// Checkpoints the store's write-ahead log into its main file (which fails if another
    /// process keeps writing) and takes SQLite's write lock (`BEGIN IMMEDIATE`) on `connection`:
    /// the lock of a migration that changes the store itself (in place) or copies it, which
    /// keeps its journal mode. A store in use is refused with ``inUse(_:_:)``. Returns whether
    /// the store is in WAL mode.
    @discardableResult
    static func lock(_ connection: SQLiteConnection, path: String, checkpoint: Bool = true) throws -> Bool {
        do {
            let writeAheadLog = try connection.journalMode() == "wal"
            FaultPoint.reach("lock.start")
            // Every committed page into the main file (a copy of the file is then the whole
            // store). A full checkpoint waits for writers and for readers of older snapshots,
            // not for readers as such: readers that come and go (an app, `molt dump`) cannot
            // hold it back for ever, as a truncating one's wait for a moment with none can.
            if writeAheadLog, checkpoint { try connection.checkpoint(.full) }
            FaultPoint.reach("lock.checkpointed")
            try connection.execute("BEGIN IMMEDIATE")
            FaultPoint.reach("lock.locked")
            return writeAheadLog
        } catch let error as SQLiteError where error.code.primary == .busy || error.code.primary == .locked {
            throw inUse(path, error)
        }
    }

    /// "another process has the store open and is using it", naming the processes that have
    /// it open where the system says (``StoreUsers``).
    static func inUse(_ path: String, _ error: any Error & Sendable) -> MoltError {
        let users = StoreUsers.describe(path)
        return MoltError(
            .sqlite,
            "another process has the store open and is using it"
                + (users.map { " (\($0))" } ?? "") + "; Molt will not migrate a store in use",
            location: SourceLocation(file: path),
            recovery: "Quit the app (or other tool) that has the store open, then run the migration again.",
            underlying: error)
    }

    /// Releases the lock without changing anything (the migration failed or was cancelled),
    /// putting a store that was in WAL mode back in it when nobody else holds it then.
    func abandon() {
        guard !closed else { return }
        if connection.isInTransaction { try? connection.execute("ROLLBACK") }
        if journalMode == "wal" { _ = try? connection.scalar("PRAGMA journal_mode = WAL") }
        close()
    }

    private var closed = false

    private func close() {
        closed = true
        connection.close()
    }

    /// Runs `swap`, which replaces the old store's file, while the lock still keeps every
    /// other process from writing it, then releases it. Before `swap`, checks that nobody
    /// wrote the store since it was locked and that its path still names the file locked.
    /// When this throws, the lock is still held: the caller abandons it (``abandon()``), once it
    /// has removed the new store.
    func replace<T>(_ swap: () throws -> T) throws -> T {
        guard !closed else { throw MoltError(.migration, "the store's lock was released before the swap") }
        FaultPoint.reach("lock.release")
        let now: Int64
        do {
            now = try connection.scalar("PRAGMA data_version")?.integerValue ?? 0
        } catch {
            throw MigrationErrors.classify(error, store: path)
        }
        guard now == dataVersion, (try? Self.identity(of: path)) == identity else {
            throw MoltError(
                .sourceStore,
                now == dataVersion
                    ? "the store's file was replaced by another program during the migration; nothing was replaced"
                    : "another process wrote to the store during the migration; nothing was replaced",
                location: SourceLocation(file: path),
                recovery: "Quit the other process and run the migration again.")
        }
        let result = try swap()
        // The old file is no longer at the path: what the lock kept out can only fail now.
        close()
        FaultPoint.reach("lock.released")
        return result
    }

    /// Switches the store to rollback-journal mode (its log checkpointed and removed), waiting
    /// up to `wait` seconds for other connections to close: SQLite refuses while any is open.
    private static func leaveWriteAheadLog(_ connection: SQLiteConnection, path: String, wait: TimeInterval) throws {
        let deadline = Date().addingTimeInterval(wait)
        while true {
            var refusal: SQLiteError?
            do {
                if try connection.scalar("PRAGMA journal_mode = DELETE")?.textValue?.lowercased() == "delete" { return }
            } catch let error as SQLiteError where error.code.primary == .busy || error.code.primary == .locked {
                refusal = error
            }
            guard Date() < deadline else {
                throw inUse(
                    path,
                    refusal
                        ?? SQLiteError(
                            code: .busy, message: "the store stays in WAL mode while other connections have it open",
                            sql: "PRAGMA journal_mode = DELETE", path: path))
            }
            usleep(20_000)
        }
    }

    private static func identity(of path: String) throws -> [UInt64] {
        var info = stat()
        guard stat(path, &info) == 0 else { throw FileOperations.failure("read the store's file", path) }
        return [UInt64(info.st_dev), UInt64(info.st_ino)]
    }
}
