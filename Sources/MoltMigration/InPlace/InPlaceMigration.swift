import Foundation
import Logging
import MoltCore
import MoltMapping
import MoltModel
import MoltSQLite
import MoltStore

/// Runs an ``InPlacePlan`` on a store in one transaction.
///
/// 1. The store is opened read-write, checked against the source model, its log checkpointed
///    (which fails, changing nothing, when another process is using it) and SQLite's write
///    lock taken (`BEGIN IMMEDIATE`). With `backup`, a complete copy is written first.
/// 2. Link sets are read into temporary tables; an object holding several objects in what is
///    now a to-one relationship stops the migration, naming it.
/// 3. Tables are kept, extended or rebuilt; old tables are dropped and new ones renamed.
/// 4. Indexes, `Z_PRIMARYKEY`, `Z_METADATA` (new hashes, the same UUID and app keys) are
///    brought up to date, and the old model cache is removed.
/// 5. Every object is validated against the destination model, as the validate pass does.
/// 6. The transaction commits (a dry run rolls back) and the log is checkpointed.
///
/// Any failure rolls everything back: a crash at any instant leaves the old store.
final class InPlaceMigration {
    let url: URL
    let sourceModel: ObjectModel
    let destinationModel: ObjectModel
    let options: MigrationOptions
    let context: RunContext
    /// The store itself, or the private copy a heavyweight migration builds on its SQL path
    /// (``RunRole/privateCopy``): no other process knows that copy and a failure deletes it,
    /// so it is changed without a journal and without syncing, then put back in its journal
    /// mode.
    let role: RunRole
    let plan: InPlacePlan
    let progress: ProgressReporter

    init(
        url: URL, source: ObjectModel, destination: ObjectModel, plan: InPlacePlan, options: MigrationOptions,
        context: RunContext, role: RunRole
    ) {
        self.url = url
        self.sourceModel = source
        self.destinationModel = destination
        self.plan = plan
        self.options = options
        self.context = context
        self.role = role
        self.progress = ProgressReporter(context.progress)
    }

    private var isPrivateCopy: Bool { role == .privateCopy }
    private var isDryRun: Bool { role.isDryRun(options) }

    func checkCancelled() throws {
        try context.cancellation.check()
    }

    func run(started: Date) throws -> MigrationReport {
        // A dry run rolls its transaction back and leaves a log of others' transactions where
        // it is: not checkpointed, not removed, even by its connection's close.
        let othersLog = isDryRun && ((try? WriteAheadLog.read(url.path + "-wal"))??.committedFrames ?? 0) > 0
        let store = try SQLiteStore(at: url, readOnly: false, logger: context.logger)
        let connection = store.connection
        defer { connection.close() }
        if othersLog { try connection.keepLogOnClose() }
        if let trace = options.sqlTrace { connection.trace(trace) }
        nonisolated(unsafe) let interrupted = connection
        return try context.cancellation.whileRunning(interrupt: { interrupted.interrupt() }) {
            try run(store, started: started)
        }
    }

    func run(_ store: SQLiteStore, started: Date) throws -> MigrationReport {
        let connection = store.connection
        let sourceStore = try MigrationErrors.bind(store, toSource: sourceModel)
        let writeAheadLog = try store.journalMode() == "wal"
        if isPrivateCopy {
            try connection.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN IMMEDIATE")
        } else {
            try takeLock(connection, checkpoint: !isDryRun)
        }
        var report = MigrationReport()
        report.dryRun = isDryRun
        report.inPlace = true
        report.route = .inPlace
        do {
            try checkNoTriggersOrViews(connection)
            for entity in sourceStore.layout.entities where !entity.isAbstract {
                report.sourceCounts[entity.name] = try sourceStore.count(of: entity.name, includingSubentities: false)
            }
            report.discarded = try DiscardSurvey(resolver: plan.resolver).counted(in: sourceStore)
            if role.backsUp(options) { report.backup = try backUp(started: started) }
            FaultPoint.reach("inplace.start")
            try plan.expressions.register(on: connection)
            report.contents = try migrate(connection, store: store)
            let destination = try ObjectStore(store: store, model: destinationModel)
            try validate(destination)
            for entity in destination.layout.entities where !entity.isAbstract {
                report.destinationCounts[entity.name] = try destination.count(
                    of: entity.name, includingSubentities: false)
            }
            for correspondence in plan.correspondences {
                report.mappings.append(
                    .init(
                        mapping: correspondence.mapping.name,
                        sourceObjects: report.sourceCounts[correspondence.source.name] ?? 0,
                        destinationObjects: report.sourceCounts[correspondence.source.name] ?? 0))
            }
            try checkCancelled()
            FaultPoint.reach("inplace.before-commit")
            try connection.execute(isDryRun ? "ROLLBACK" : "COMMIT")
            FaultPoint.reach("inplace.committed")
        } catch {
            if connection.isInTransaction { try? connection.execute("ROLLBACK") }
            throw translate(error)
        }
        if isPrivateCopy {
            try connection.execute(
                "PRAGMA journal_mode = \(writeAheadLog ? "WAL" : "DELETE"); PRAGMA synchronous = FULL")
        } else if writeAheadLog, !isDryRun {
            try? connection.checkpoint(.truncate)
        }
        FaultPoint.reach("inplace.checkpointed")
        if !isDryRun { try? connection.execute("PRAGMA incremental_vacuum") }
        FaultPoint.reach("inplace.vacuumed")
        context.logger.info(
            "migrated in place", metadata: ["molt.store": "\(url.path)", "molt.dryRun": "\(isDryRun)"])
        return report
    }

}
