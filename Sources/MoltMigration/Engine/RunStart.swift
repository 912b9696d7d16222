internal import Foundation
internal import Logging
internal import MoltCore

/// How every driver starts a run on a store: under the store's migration lock (the one the
/// run holds, or one taken now), the leftovers of an interrupted migration recovered (once per
/// lock), and the store there.
extension RunContext {
    /// Runs `body` with the lock and what recovery found, once the store is known to exist.
    func withRecoveredStore<T>(
        _ store: URL, wait: TimeInterval, _ body: (MigrationLock, StoreRecovery.Outcome) throws -> T
    ) throws -> T {
        try withMigrationLock(of: store, wait: wait) { lock in
            let recovery = try StoreRecovery.recover(locked: lock, logger: logger)
            guard FileManager.default.fileExists(atPath: store.path) else { throw FileErrors.missing(store.path) }
            return try body(lock, recovery)
        }
    }
}
