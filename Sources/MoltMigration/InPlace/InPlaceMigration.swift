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
    private let progress: ProgressReporter

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

    private func checkCancelled() throws {
        try context.cancellation.check()
    }

    func run(started: Date) throws -> MigrationReport {
        let store = try SQLiteStore(at: url, readOnly: false, logger: context.logger)
        let connection = store.connection
        defer { connection.close() }
        if let trace = options.sqlTrace { connection.trace(trace) }
        nonisolated(unsafe) let interrupted = connection
        return try context.cancellation.whileRunning(interrupt: { interrupted.interrupt() }) {
            try run(store, started: started)
        }
    }

    private func run(_ store: SQLiteStore, started: Date) throws -> MigrationReport {
        let connection = store.connection
        let sourceStore = try HeavyweightMigration.bind(store, toSource: sourceModel)
        let writeAheadLog = try store.journalMode() == "wal"
        if isPrivateCopy {
            try connection.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN IMMEDIATE")
        } else {
            try takeLock(connection)
        }
        var report = MigrationReport()
        report.dryRun = isDryRun
        report.inPlace = true
        do {
            try checkNoTriggersOrViews(connection)
            for entity in sourceStore.layout.entities where !entity.isAbstract {
                report.sourceCounts[entity.name] = try sourceStore.count(of: entity.name, includingSubentities: false)
            }
            report.discarded = try DiscardSurvey(
                source: sourceModel, destination: destinationModel, mapping: plan.mapping
            )
            .counted(in: sourceStore)
            if role.backsUp(options) { report.backup = try backUp(started: started) }
            FaultPoint.reach("inplace.start")
            try plan.expressions.register(on: connection)
            try migrate(connection, store: store)
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
        } else if writeAheadLog {
            try? connection.checkpoint(.truncate)
        }
        FaultPoint.reach("inplace.checkpointed")
        if !isDryRun { try? connection.execute("PRAGMA incremental_vacuum") }
        FaultPoint.reach("inplace.vacuumed")
        context.logger.info(
            "migrated in place", metadata: ["molt.store": "\(url.path)", "molt.dryRun": "\(isDryRun)"])
        return report
    }

    // MARK: Steps

    private func takeLock(_ connection: SQLiteConnection) throws {
        // Wait a little for a writer to finish, not long: a store in use is refused.
        try connection.execute("PRAGMA busy_timeout = 2000")
        try connection.execute("PRAGMA synchronous = FULL")
        try SourceLock.lock(connection, path: url.path)
    }

    /// Triggers and views name tables that are about to be rebuilt; Core Data's own stores
    /// have none that Molt knows how to carry over.
    private func checkNoTriggersOrViews(_ connection: SQLiteConnection) throws {
        let count =
            try connection.scalar("SELECT count(*) FROM sqlite_master WHERE type IN ('trigger', 'view')")?.integerValue
            ?? 0
        if count > 0 { throw InPlaceObstacle("the store has triggers or views") }
    }

    private func backUp(started: Date) throws -> String {
        let files = StoreFiles(url)
        let name = files.backupName(at: started)
        // The log is checkpointed and the write lock is held: the main file is the whole store.
        try FileOperations.copy(files.store, to: name)
        if FileOperations.exists(files.support) {
            try FileOperations.linkOrCopyTree(files.support, to: StoreFiles.supportFolder(of: name))
        }
        return name
    }

    private func migrate(_ connection: SQLiteConnection, store: SQLiteStore) throws {
        let steps = plan.linkSets.count + plan.tables.count + 2
        var done = 0
        func step(_ name: String) throws {
            try checkCancelled()
            done += 1
            progress.report(.alter, name, done, steps, passes: Self.passes)
        }
        for set in plan.linkSets {
            try step("links \(LinkSetBuilder.key(set.forward))")
            for statement in set.createStatements(ranks: plan.ranks, mappingOrder: plan.mappingOrder) {
                try connection.execute(statement)
                FaultPoint.reach("inplace.statement")
            }
            for check in set.toOneChecks {
                guard let row = try connection.rows(check.sql).first else { continue }
                throw toOneError(check.relationship, row: row)
            }
        }
        let existing = Set(
            try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { $0[0].textValue })
        for table in plan.tables {
            try step(table.name)
            switch table {
            case .keep(let name, let additions, let deletedKinds):
                for (column, _) in additions {
                    try connection.execute(
                        "ALTER TABLE main.\(SQL.identifier(name)) ADD COLUMN \(SQL.identifier(column.name)) \(column.type)"
                    )
                }
                let fills = additions.compactMap { addition in
                    addition.value.map { "\(SQL.identifier(addition.column.name)) = \($0)" }
                }
                FaultPoint.reach("inplace.statement")
                if !fills.isEmpty {
                    try connection.execute("UPDATE main.\(SQL.identifier(name)) SET \(fills.joined(separator: ", "))")
                }
                if !deletedKinds.isEmpty {
                    try connection.execute(
                        "DELETE FROM main.\(SQL.identifier(name)) WHERE \"Z_ENT\" IN (\(LinkSet.list(deletedKinds)))")
                }
            case .rebuild(_, let temporary, let statements):
                guard !existing.contains(temporary) else {
                    throw MoltError(
                        .migration, "the store already has a table called \(temporary); Molt will not touch it",
                        location: SourceLocation(file: url.path))
                }
                for statement in statements {
                    try connection.execute(statement)
                    FaultPoint.reach("inplace.statement")
                }
            }
        }
        try step("tables")
        for table in plan.droppedTables where existing.contains(table) {
            try connection.execute("DROP TABLE main.\(SQL.identifier(table))")
        }
        for case .rebuild(let name, let temporary, _) in plan.tables {
            try connection.execute("ALTER TABLE main.\(SQL.identifier(temporary)) RENAME TO \(SQL.identifier(name))")
        }
        for set in plan.linkSets { try connection.execute("DROP TABLE temp.\(SQL.identifier(set.table))") }
        try step("indexes and metadata")
        try IndexSync(source: plan.source, destination: plan.destination).run(on: connection)
        FaultPoint.reach("inplace.statement")
        try writeBookkeeping(connection, store: store)
        FaultPoint.reach("inplace.bookkeeping-written")
    }

    static let passes: [MigrationProgress.Pass] = [.alter, .validate]

    /// `Z_PRIMARYKEY` for the destination model (each root keeps the largest key its table
    /// has used), `Z_METADATA` with the destination's hashes, and no stale model cache.
    private func writeBookkeeping(_ connection: SQLiteConnection, store: SQLiteStore) throws {
        var sourceMaximum: [String: Int64] = [:]
        for correspondence in plan.correspondences {
            let root = plan.source.entity(named: correspondence.source.rootName)?.number ?? 0
            let recorded = store.entityRecords.first { $0.number == root }?.maximumKey ?? 0
            sourceMaximum[correspondence.destination.table] = max(
                sourceMaximum[correspondence.destination.table] ?? 0, recorded)
        }
        try connection.execute("DELETE FROM Z_PRIMARYKEY")
        let insert = try connection.prepare(
            "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)")
        for entity in plan.destination.entities {
            var maximum: Int64 = 0
            if entity.superNumber == 0 {
                let used =
                    try connection.scalar("SELECT MAX(\"Z_PK\") FROM main.\(SQL.identifier(entity.table))")?
                    .integerValue ?? 0
                maximum = max(used, sourceMaximum[entity.table] ?? 0)
            }
            try insert.bind([
                .integer(Int64(entity.number)), .text(entity.name), .integer(Int64(entity.superNumber)),
                .integer(maximum),
            ])
            try insert.run()
        }
        let hasCache =
            try connection.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'Z_MODELCACHE'")?
            .integerValue ?? 0
        if hasCache > 0 { try connection.execute("DELETE FROM Z_MODELCACHE") }
        var metadata = store.metadata
        let hashes = try destinationModel.entityVersionHashes()
        metadata.entityVersionHashes = hashes
        metadata.versionIdentifiers = destinationModel.versionIdentifiers
        if metadata.versionHashesDigest != nil { metadata.versionHashesDigest = VersionHasher.digest(of: hashes) }
        try store.writeMetadata(metadata)
    }

    private func validate(_ destination: ObjectStore) throws {
        var validation = StoreValidation(store: destination, batchSize: options.batchSize)
        let total = try validation.objectCount()
        try validation.checkObjects(checkCancelled: checkCancelled) { entity, done in
            progress.report(.validate, entity, done, total, passes: Self.passes)
        }
        progress.report(.validate, nil, total, total, force: true, passes: Self.passes)
        if let error = validation.error(
            recovery: "Write a mapping file (or fix the data) so the objects are valid; the store was not changed.")
        {
            throw error
        }
    }

    // MARK: Errors

    private func toOneError(_ link: RelationshipLayout, row: [SQLiteValue]) -> MoltError {
        let key = row[0].integerValue ?? 0
        let number = Int(row[1].integerValue ?? 0)
        let entity = plan.correspondence(sourceNumber: number)
        let object = ObjectID(entity: entity?.destination.name ?? link.declaringEntity, primaryKey: key)
        return MoltError(
            .migration,
            "\(entity?.mapping.name ?? link.declaringEntity): \(object): \(link.relationship.name) is now a to-one relationship, but the object has \(row[2].integerValue ?? 0) related objects",
            entity: entity?.mapping.name, property: link.relationship.name,
            recovery: "Write a mapping file (with a policy) that says which object to keep; the store was not changed.")
    }

    /// What a failed statement means: the expression's own error, cancellation, or SQLite's.
    private func translate(_ error: any Error) -> any Error {
        // Not a failure: the caller runs the migration another way.
        if error is InPlaceObstacle { return error }
        if let sqlite = error as? SQLiteError {
            if let expressionError = plan.expressions.lastError { return expressionError }
            if sqlite.code.primary == .interrupt {
                return MoltError(
                    .migrationCancelled, "the migration was cancelled", recovery: "Run it again when ready.")
            }
        }
        return HeavyweightMigration.classify(error, store: url.path)
    }
}
