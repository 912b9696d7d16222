package import Foundation
package import Logging
internal import MoltCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One migration of a store at a time, decided before anything is read.
///
/// Every command that may write a store (a migration, an upgrade, a dry run, recovery) takes
/// this lock first, and only then finishes an interrupted migration, reads the store's version
/// and plans: a run that had to wait plans from the store as the other run left it. The lock is
/// an exclusive `flock(2)` on `Store.sqlite.molt-lock` beside the store (its real file: see
/// ``StoreLocation``), holding the owner's process id for messages. The kernel releases it when
/// the process ends in any way (`kill -9` included), so a crash never leaves a store locked; the
/// file is removed when the lock is released (a waiter that opened it before then notices, and
/// tries again on the new one).
///
/// SQLite's own locks still keep apps out (`SourceLock`); this lock keeps Molt runs apart for
/// the whole migration, including its swap, which SQLite's locks do not cover.
///
/// ```swift
/// let lock = try MigrationLock.acquire(store: url, wait: 30)   // waits up to 30 s for another run
/// defer { lock.release() }
/// ```
package final class MigrationLock: @unchecked Sendable {
    /// The locked store (its real file).
    package let store: URL
    /// Whether another run held the lock when this one asked for it (so the store may have
    /// changed since the caller last looked).
    package let waited: Bool
    private let path: String
    private let mutex = NSLock()
    private var descriptor: Int32
    private var recovered: StoreRecovery.Outcome?

    /// What `StoreRecovery` found under this lock: recovery runs once per lock held, however
    /// many parts of a run ask for it.
    func recoveryOutcome(_ recover: () throws -> StoreRecovery.Outcome) rethrows -> StoreRecovery.Outcome {
        mutex.lock()
        let known = recovered
        mutex.unlock()
        if let known { return known }
        let outcome = try recover()
        mutex.lock()
        recovered = outcome
        mutex.unlock()
        return outcome
    }

    private init(store: URL, path: String, descriptor: Int32, waited: Bool) {
        self.store = store
        self.path = path
        self.descriptor = descriptor
        self.waited = waited
    }

    deinit {
        release()
    }

    /// The lock file of the store at `url` (a resolved store path).
    static func lockPath(of url: URL) -> String {
        url.path + ".molt-lock"
    }

    /// Takes the lock of the store at `url` (symbolic links resolved), waiting up to `wait`
    /// seconds while another run holds it. Fails with Core Data's 134090 (transient) naming the
    /// process that holds it, when it is still held after the wait.
    package static func acquire(
        store url: URL, wait: TimeInterval = 0, logger: Logger = LibraryLogger.make("molt.lock"),
        onWait: ((Int32?) -> Void)? = nil
    ) throws -> MigrationLock {
        let store = try StoreLocation(url).url
        let path = lockPath(of: store)
        // Read-only commands look at the lock for an instant (``running(of:)``): a lock held
        // for less than the grace is not another migration.
        let deadline = Date().addingTimeInterval(max(Self.grace, wait))
        var waited = false
        while true {
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
            guard descriptor >= 0 else {
                let problem = errno
                throw MoltError(
                    problem == EACCES || problem == EPERM ? .fileReadNoPermission : .fileWriteUnknown,
                    "cannot open the migration lock beside the store: \(String(cString: strerror(problem)))",
                    location: SourceLocation(file: path),
                    recovery: "Molt needs to write in the store's folder to migrate it.")
            }
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
                // The holder before us removes the file when it is done; a lock on a removed
                // (or replaced) file locks nothing, so look again.
                var held = stat()
                var named = stat()
                guard fstat(descriptor, &held) == 0, stat(path, &named) == 0, held.st_ino == named.st_ino,
                    held.st_dev == named.st_dev
                else {
                    close(descriptor)
                    continue
                }
                let pid = "\(getpid())\n"
                _ = ftruncate(descriptor, 0)
                _ = pid.withCString { pwrite(descriptor, $0, strlen($0), 0) }
                logger.debug(
                    "migration lock taken", metadata: ["molt.store": "\(store.path)", "molt.waited": "\(waited)"])
                return MigrationLock(store: store, path: path, descriptor: descriptor, waited: waited)
            }
            let problem = errno
            let holder = Self.processID(in: descriptor)
            close(descriptor)
            guard problem == EWOULDBLOCK || problem == EAGAIN || problem == EINTR else {
                throw MoltError(
                    .fileWriteUnknown, "cannot lock the store for the migration: \(String(cString: strerror(problem)))",
                    location: SourceLocation(file: path))
            }
            if Date() >= deadline { throw busy(store: store, holder: holder, waited: wait) }
            if !waited, wait > 0 {
                waited = true
                onWait?(holder)
                logger.notice(
                    "waiting for another migration of the store",
                    metadata: ["molt.store": "\(store.path)", "molt.holder": "\(holder.map(String.init) ?? "?")"])
            }
            usleep(wait > 0 ? 50_000 : 10_000)
        }
    }

    /// How long a run tries before it calls the lock busy, even without a wait: read-only
    /// commands hold it shared for an instant to see whether a migration is running.
    static let grace: TimeInterval = 0.25

    /// A migration of the store running now, as read-only commands report it.
    package typealias Running = RunningMigration

    /// The migration of the store at `url` running now, or nil when none is (for read-only
    /// commands' notes). Holds the lock, shared, for an instant only.
    package static func running(of url: URL) -> Running? {
        guard let store = try? StoreLocation(url).url else { return nil }
        let descriptor = open(lockPath(of: store), O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        if flock(descriptor, LOCK_SH | LOCK_NB) == 0 {
            flock(descriptor, LOCK_UN)
            return nil
        }
        return Running(processID: processID(in: descriptor))
    }

    /// Releases the lock (and removes its file). Safe to call more than once.
    package func release() {
        mutex.lock()
        defer { mutex.unlock() }
        guard descriptor >= 0 else { return }
        unlink(path)
        close(descriptor)
        descriptor = -1
    }

    /// The process id the lock file holds, if it holds one.
    private static func processID(in descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(descriptor, &buffer, 31, 0)
        guard count > 0 else { return nil }
        let text = String(decoding: buffer.prefix(count), as: UTF8.self)
        return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// "another migration of this store is running (process 1234)".
    static func busy(store: URL, holder: Int32?, waited: TimeInterval) -> MoltError {
        let process = holder.map { " (process \($0))" } ?? ""
        let after = waited > 0 ? " and did not finish within \(Self.seconds(waited))" : ""
        return MoltError(
            .persistentStoreTimeout, "another migration of this store is running\(process)\(after)",
            location: SourceLocation(file: store.path),
            recovery:
                waited > 0
                ? "Wait for it to finish and run this again, or allow a longer wait (--wait SECONDS)."
                : "Wait for it to finish and run this again, or let this run wait for it (--wait SECONDS).")
    }

    static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }
}
