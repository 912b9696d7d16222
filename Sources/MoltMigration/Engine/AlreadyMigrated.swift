import Foundation
import Logging
import MoltModel
import MoltStore

/// A store that is already at the destination version (another run migrated it, perhaps while
/// this one waited for the migration lock): nothing to do, which is not an error.
enum AlreadyMigrated {
    /// The report of a migration with nothing to do, when the store at `store` has the
    /// destination model's hashes (and the two models differ); nil otherwise.
    static func report(
        _ store: URL, source: ObjectModel, destination: ObjectModel, dryRun: Bool, logger: Logger
    ) throws -> MigrationReport? {
        let destinationHashes = try destination.entityVersionHashes()
        guard try source.entityVersionHashes() != destinationHashes else { return nil }
        let sqlite = try SQLiteStore(at: store, logger: logger)
        defer { sqlite.connection.close() }
        guard sqlite.metadata.entityVersionHashes == destinationHashes else { return nil }
        logger.notice(
            "the store is already at the destination version: nothing to migrate",
            metadata: ["molt.store": "\(store.path)", "molt.destination": "\(destination.name ?? "")"])
        var report = MigrationReport()
        report.alreadyMigrated = true
        report.dryRun = dryRun
        return report
    }
}
