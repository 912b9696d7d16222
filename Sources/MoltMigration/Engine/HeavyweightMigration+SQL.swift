import Foundation
import MoltCore
import MoltMapping
import MoltStore

/// The SQL path of a heavyweight migration.
///
/// A mapping that needs no per-object work (every entity mapping without a policy or filter,
/// every value something SQLite can compute from the object's own row, relationships carried
/// as they were) does not need its objects loaded one by one: the new store is a copy of the
/// old file, changed with the same SQL a lightweight migration runs in place (``InPlacePlan``),
/// then validated, synced and swapped like any heavyweight result. The result is the store the
/// copy would make (the same `molt dump`, the same primary keys; tested side by side), in a
/// fraction of the time. The old store is only read, and the swap, recovery and locking are
/// the same as the object-by-object path's.
extension HeavyweightMigration {
    /// The plan, when the mapping can run as SQL (and ``MigrationOptions/allowsSQLCopy``).
    func sqlPlan(started: Date) -> InPlacePlan? {
        // Values kept in files need the object path, which reads them and builds the new
        // store's support folder.
        guard options.allowsSQLCopy, !usesExternalStorage, !FileOperations.exists(StoreFiles(store).support)
        else { return nil }
        do {
            return try InPlacePlan(
                source: try StoreLayout(model: sourceModel), destination: try StoreLayout(model: destinationModel),
                resolver: resolvers[0], expressions: RowExpressions(startDate: started))
        } catch {
            context.logger.debug(
                "running the mapping object by object", metadata: ["molt.reason": "\(error)"])
            return nil
        }
    }

    /// Copies the locked store's file to `newPath` and migrates the copy in place; false (the
    /// copy removed) when the store turns out to need the object-by-object path.
    func buildBySQL(
        at newPath: String, plan: InPlacePlan, report: inout MigrationReport, started: Date
    ) throws
        -> Bool
    {
        try removeStore(at: newPath)
        // The store is locked and its log checkpointed (``SourceLock``): the main file is the whole store.
        try FileOperations.copy(store.path, to: newPath)
        let migration = InPlaceMigration(
            url: URL(fileURLWithPath: newPath), source: sourceModel, destination: destinationModel, plan: plan,
            options: options, context: context, role: .privateCopy)
        let result: MigrationReport
        do {
            result = try migration.run(started: started)
        } catch let obstacle as InPlaceObstacle {
            context.logger.debug(
                "running the mapping object by object", metadata: ["molt.reason": "\(obstacle.reason)"])
            try removeStore(at: newPath)
            return false
        }
        report.mappings = result.mappings
        report.sourceCounts = result.sourceCounts
        report.destinationCounts = result.destinationCounts
        report.discarded = result.discarded
        report.setBased = true
        return true
    }
}
