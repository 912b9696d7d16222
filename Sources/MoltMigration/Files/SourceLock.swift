import Foundation
import Logging
import MoltCore
import MoltSQLite
import MoltStore

/// Keeps other processes from writing to the source store while it is migrated, and proves at
/// the end that nobody did.
///
/// At the start it checkpoints the store's write-ahead log into its main file (which fails if
/// another process keeps writing it) and takes SQLite's write lock (`BEGIN IMMEDIATE`), held until the
/// migration ends: another process that tries to write waits and gives up. At the end it
/// releases the lock, checks SQLite's data version to be sure nothing was written in between,
/// and takes a WAL store out of WAL mode (its log checkpointed into the file and removed, so no
/// old log can ever be applied to the new store).
///
/// Leaving WAL mode needs every other connection to the store closed, and that is the point:
/// a connection that had the old store open in WAL mode while the new one is renamed into
/// place would, when it closes, remove the `-wal` and `-shm` files by name, which by then are
/// the new store's. Readers that come and go (an app reading, `molt dump`) are waited for, up
/// to ``readerWait`` seconds; one that stays open makes the migration stop with "in use",
/// nothing replaced. Once out of WAL mode, a reader that opens the old file before the rename
/// reads it with SQLite's file locks alone, touching no file by name. (The old file stays a
/// valid store: an app opening it, or its backup, puts it back in WAL mode.)
final class SourceLock {
    private let connection: SQLiteConnection
    private let path: String
    private var dataVersion: Int64 = 0
    private let isWriteAheadLog: Bool

    init(store url: URL, logger: Logger) throws {
        path = url.path
        do {
            connection = try SQLiteConnection(path: path, mode: .readWrite, busyTimeout: 2000, logger: logger)
            isWriteAheadLog = try Self.lock(connection, path: path)
            dataVersion = try connection.scalar("PRAGMA data_version")?.integerValue ?? 0
        } catch let error as MoltError {
            throw error
        } catch {
            throw MoltError(
                .sourceStore, "the store cannot be locked for the migration: \(error)",
                location: SourceLocation(file: path))
        }
    }

    /// Checkpoints the store's write-ahead log into its main file (which fails if another
    /// process keeps writing) and takes SQLite's write lock (`BEGIN IMMEDIATE`) on `connection`.
    /// A store in use is refused with ``inUse(_:_:)``. Returns whether the store is in WAL mode.
    @discardableResult
    static func lock(_ connection: SQLiteConnection, path: String) throws -> Bool {
        do {
            let writeAheadLog = try connection.journalMode() == "wal"
            FaultPoint.reach("lock.start")
            // Every committed page into the main file (a copy of the file is then the whole
            // store). A full checkpoint waits for writers and for readers of older snapshots,
            // not for readers as such: readers that come and go (an app, `molt dump`) cannot
            // hold it back for ever, as a truncating one's wait for a moment with none can.
            if writeAheadLog { try connection.checkpoint(.full) }
            FaultPoint.reach("lock.checkpointed")
            try connection.execute("BEGIN IMMEDIATE")
            FaultPoint.reach("lock.locked")
            return writeAheadLog
        } catch let error as SQLiteError where error.code.primary == .busy || error.code.primary == .locked {
            throw inUse(path, error)
        }
    }

    static func inUse(_ path: String, _ error: any Error & Sendable) -> MoltError {
        MoltError(
            .sqlite, "another process has the store open and is using it; Molt will not migrate a store in use",
            location: SourceLocation(file: path),
            recovery: "Quit the app (or other tool) that has the store open, then run the migration again.",
            underlying: error)
    }

    /// Releases the lock without changing anything (the migration failed or was a dry run).
    func abandon() {
        guard !closed else { return }
        if connection.isInTransaction { try? connection.execute("ROLLBACK") }
        close()
    }

    private var closed = false

    private func close() {
        closed = true
        connection.close()
    }

    /// How long the end of a migration waits for other connections to the old store to close.
    static let readerWait: TimeInterval = 10

    /// Releases the lock, leaves the old store with everything in its main file and no log
    /// (out of WAL mode), and closes the connection; throws if another process wrote to it or
    /// is using it.
    func releaseForSwap() throws {
        do {
            FaultPoint.reach("lock.release")
            try connection.execute("ROLLBACK")
            FaultPoint.reach("lock.released")
            let now = try connection.scalar("PRAGMA data_version")?.integerValue ?? 0
            guard now == dataVersion else {
                close()
                throw MoltError(
                    .sourceStore, "another process wrote to the store during the migration; nothing was replaced",
                    location: SourceLocation(file: path),
                    recovery: "Quit the other process and run the migration again.")
            }
            if isWriteAheadLog { try leaveWriteAheadLog() }
            FaultPoint.reach("lock.release-checkpointed")
            // Closed before the files are swapped: a connection to the old store must never
            // close (and tidy its log by name) after the new store is in place.
            close()
        } catch let error as SQLiteError where error.code.primary == .busy || error.code.primary == .locked {
            close()
            throw Self.inUse(path, error)
        }
    }

    /// Switches the store to rollback-journal mode (its log checkpointed and removed), waiting
    /// for other connections to close: SQLite refuses while any is open.
    private func leaveWriteAheadLog() throws {
        let deadline = Date().addingTimeInterval(Self.readerWait)
        while true {
            var refusal: SQLiteError?
            do {
                if try connection.scalar("PRAGMA journal_mode = DELETE")?.textValue?.lowercased() == "delete" { return }
            } catch let error as SQLiteError where error.code.primary == .busy || error.code.primary == .locked {
                refusal = error
            }
            guard Date() < deadline else {
                throw Self.inUse(
                    path,
                    refusal
                        ?? SQLiteError(
                            code: .busy, message: "the store stays in WAL mode while other connections have it open",
                            sql: "PRAGMA journal_mode = DELETE", path: path))
            }
            usleep(20_000)
        }
    }
}
