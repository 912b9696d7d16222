import Foundation
import MoltCore
import MoltMapping
import MoltSQLite
import MoltStore

/// The SQL path of a heavyweight migration, when the run's plan chose it (``MigrationPlanner``).
///
/// A single-pass mapping that needs no per-object work (every entity mapping without a policy or filter,
/// every value something SQLite can compute from the object's own row, relationships carried
/// as they were) does not need its objects loaded one by one: the new store is a copy of the
/// old file, changed with the same SQL a lightweight migration runs in place (``InPlacePlan``),
/// then validated, synced and swapped like any heavyweight result. The result is the store the
/// copy would make (the same `molt dump`, the same primary keys; tested side by side), in a
/// fraction of the time. The old store is only read, and the swap, recovery and locking are
/// the same as the object-by-object path's.
extension HeavyweightMigration {
    /// Copies the locked store's file to `newPath` and migrates the copy in place, as the run's
    /// plan chose (``MigrationPlanner``).
    func buildBySQL(at newPath: String, plan: InPlacePlan, report: inout MigrationReport, started: Date) throws {
        try removeStore(at: newPath)
        if isDryRun {
            // A dry run holds no lock and writes nothing of the store: the copy is read through
            // a read-only connection, the store's log included.
            let source = try SQLiteStore(at: store, readOnly: true, snapshot: true, logger: context.logger)
            defer { source.connection.close() }
            try source.connection.backup(into: newPath)
        } else {
            // The store is locked and out of WAL mode (``SourceLock``): the main file is the whole store.
            try FileOperations.copy(store.path, to: newPath)
        }
        let migration = InPlaceMigration(
            url: URL(fileURLWithPath: newPath), source: sourceModel, destination: destinationModel, plan: plan,
            options: options, context: context, role: .privateCopy)
        let result: MigrationReport
        do {
            result = try migration.run(started: started)
        } catch let obstacle as InPlaceObstacle {
            throw MigrationErrors.changedAfterPlanning(obstacle.reason)
        }
        report.mappings = result.mappings
        report.sourceCounts = result.sourceCounts
        report.destinationCounts = result.destinationCounts
        report.discarded = result.discarded
        report.contents = result.contents
        report.route = .sqlOnCopy
    }
}
