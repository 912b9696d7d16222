internal import Foundation
internal import Logging
internal import MoltCore
internal import MoltModel

/// How every driver starts a run on a store: under the store's migration lock (the one the
/// run holds, or one taken now), the leftovers of an interrupted migration recovered (once per
/// lock), and the store there.
extension RunContext {
    /// Runs `body` with the lock and what recovery found, once the store is known to exist.
    /// `readOnly` runs (dry runs, plans) leave the store's own log and journal as they are
    /// (``StoreRecovery/recover(locked:readOnly:logger:)``).
    func withRecoveredStore<T>(
        _ store: URL, wait: TimeInterval, readOnly: Bool = false,
        _ body: (MigrationLock, StoreRecovery.Outcome) throws -> T
    ) throws -> T {
        try withMigrationLock(of: store, wait: wait) { lock in
            let recovery = try StoreRecovery.recover(locked: lock, readOnly: readOnly, logger: logger)
            guard FileManager.default.fileExists(atPath: store.path) else { throw FileErrors.missing(store.path) }
            return try body(lock, recovery)
        }
    }

    /// `make`'s plan for a run of `store` from `source` to `destination`, under the lock and
    /// after recovery as a run starts; nil when the store is already at the destination.
    func planUnlessMigrated(
        _ store: URL, source: ObjectModel, destination: ObjectModel, wait: TimeInterval,
        _ make: () throws -> MigrationPlan
    ) throws -> MigrationPlan? {
        try withRecoveredStore(store, wait: wait, readOnly: true) { _, _ in
            if try AlreadyMigrated.report(store, source: source, destination: destination, dryRun: true, logger: logger)
                != nil
            {
                return nil
            }
            return try make()
        }
    }
}
