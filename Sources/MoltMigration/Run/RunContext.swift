internal import Foundation
public import Logging

/// One run of a migration: how it logs, where its progress goes, and how it is stopped. It is
/// made once by whoever starts the run and handed to every part the run is made of (an
/// upgrade's steps, a lightweight migration's fallback to the heavyweight engine, the SQL
/// path's in-place run), so stopping the run stops whichever part is running, with no part
/// tracking another. What the user asked the run to do is in ``MigrationOptions``.
///
/// ```swift
/// let context = RunContext(logger: logger, progress: { print($0) })
/// let migration = HeavyweightMigration(
///     store: url, source: v1, destination: v2, mapping: mapping, context: context)
/// // From another thread (a signal handler, a UI):
/// context.cancel()   // the run fails with 134120 and the store is left as it was
/// ```
public final class RunContext: @unchecked Sendable {
    public let logger: Logger
    /// Called with the migration's progress, from the migrating thread.
    public let progress: (@Sendable (MigrationProgress) -> Void)?
    /// Called once when the run finds another migration of the store running and starts
    /// waiting for it (up to ``MigrationOptions/lockWait``), with that process's ID when known.
    public let lockWaiting: (@Sendable (_ holder: Int32?) -> Void)?
    let cancellation: Cancellation
    private let locks: HeldLocks

    public init(
        logger: Logger = LibraryLogger.make("molt.migration"), progress: (@Sendable (MigrationProgress) -> Void)? = nil,
        lockWaiting: (@Sendable (_ holder: Int32?) -> Void)? = nil
    ) {
        self.logger = logger
        self.progress = progress
        self.lockWaiting = lockWaiting
        self.cancellation = Cancellation()
        self.locks = HeldLocks()
    }

    private init(sharing other: RunContext, progress: (@Sendable (MigrationProgress) -> Void)?) {
        self.logger = other.logger
        self.progress = progress
        self.lockWaiting = other.lockWaiting
        self.cancellation = other.cancellation
        self.locks = other.locks
    }

    /// The same run, with its progress reported to `progress` instead: a part of a larger run
    /// (an upgrade's step) whose progress the larger run turns into its own.
    func reporting(to progress: (@Sendable (MigrationProgress) -> Void)?) -> RunContext {
        RunContext(sharing: self, progress: progress)
    }

    // MARK: Stopping

    /// Stops the run (from any thread): the part running stops at its next object or
    /// statement, and the run fails with Core Data's 134120, the store left as it was.
    public func cancel() {
        cancellation.cancel()
    }

    /// Whether the run has been stopped.
    public var isCancelled: Bool { cancellation.error != nil }

    // MARK: The store's migration lock

    /// Lets the run use `lock`, the migration lock of a store that the caller took (to read
    /// the store before starting the run): the run's parts then do not take it again. The
    /// caller releases it.
    package func use(_ lock: MigrationLock) {
        locks.add(lock)
    }

    /// Runs `body` under the migration lock of `store`: the one the run holds already, or one
    /// taken now (waiting up to `wait` seconds) and held by the run until `body` returns.
    func withMigrationLock<T>(of store: URL, wait: TimeInterval, _ body: (MigrationLock) throws -> T) throws -> T {
        let path = (try StoreLocation(store).url).path
        if let held = locks.lock(of: path) { return try body(held) }
        let waiting = lockWaiting
        let lock = try MigrationLock.acquire(store: store, wait: wait, logger: logger) { waiting?($0) }
        locks.add(lock)
        defer {
            locks.remove(lock)
            lock.release()
        }
        return try body(lock)
    }

    /// Whether the run waited for another migration of a store to finish before it could take
    /// that store's lock: what it found is then what the other run left (a store already
    /// migrated, say).
    public var waitedForLock: Bool { locks.waited }

    /// Whether the run holds the migration lock of `store`.
    func holdsMigrationLock(of store: URL) -> Bool {
        guard let path = try? StoreLocation(store).url.path else { return false }
        return locks.lock(of: path) != nil
    }
}

/// The migration locks a run holds, by store path.
private final class HeldLocks: @unchecked Sendable {
    private let mutex = NSLock()
    private var byPath: [String: MigrationLock] = [:]
    private var anyWaited = false

    var waited: Bool {
        mutex.lock()
        defer { mutex.unlock() }
        return anyWaited
    }

    func lock(of path: String) -> MigrationLock? {
        mutex.lock()
        defer { mutex.unlock() }
        return byPath[path]
    }

    func add(_ lock: MigrationLock) {
        mutex.lock()
        defer { mutex.unlock() }
        byPath[lock.store.path] = lock
        if lock.waited { anyWaited = true }
    }

    func remove(_ lock: MigrationLock) {
        mutex.lock()
        defer { mutex.unlock() }
        if byPath[lock.store.path] === lock { byPath[lock.store.path] = nil }
    }
}
