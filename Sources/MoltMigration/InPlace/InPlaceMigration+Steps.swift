import Foundation
import Logging
import MoltCore
import MoltMapping
import MoltModel
import MoltSQLite
import MoltStore

/// The steps of an in-place run: the store's lock, the backup, the tables changed, the
/// bookkeeping rewritten, the objects validated, and errors named.
extension InPlaceMigration {
    /// SQLite's write lock on the store, its log checkpointed first unless `checkpoint` is
    /// false (a dry run, which writes nothing of the store).
    func takeLock(_ connection: SQLiteConnection, checkpoint: Bool) throws {
        // Wait a little for a writer to finish, not long: a store in use is refused.
        try connection.execute("PRAGMA busy_timeout = 2000")
        try connection.execute("PRAGMA synchronous = FULL")
        try SourceLock.lock(connection, path: url.path, checkpoint: checkpoint)
    }

    /// Triggers and views name tables that are about to be rebuilt; Core Data's own stores
    /// have none that Molt knows how to carry over.
    func checkNoTriggersOrViews(_ connection: SQLiteConnection) throws {
        let count =
            try connection.scalar("SELECT count(*) FROM sqlite_master WHERE type IN ('trigger', 'view')")?.integerValue
            ?? 0
        if count > 0 { throw InPlaceObstacle("the store has triggers or views") }
    }

    func backUp(started: Date) throws -> String {
        let files = StoreFiles(url)
        let name = files.backupName(at: started)
        // The log is checkpointed and the write lock is held: the main file is the whole store.
        try FileOperations.copy(files.store, to: name)
        if FileOperations.exists(files.support) {
            try FileOperations.linkOrCopyTree(files.support, to: StoreFiles.supportFolder(of: name))
        }
        return name
    }

    /// Changes the tables, then the bookkeeping; says what became of the store's contents
    /// besides its objects.
    func migrate(_ connection: SQLiteConnection, store: SQLiteStore) throws -> CarriedContents {
        // What the store holds besides the source model's tables, read before they change.
        let contents = try StoreSurvey(store: store, layout: plan.source).contents()
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
        // Every kept table's new columns in one change of the schema (``ColumnAdditions``).
        try ColumnAdditions.apply(
            plan.tables.compactMap { table in
                guard case .keep(let name, let additions, _) = table else { return nil }
                return (name, additions.map { ColumnAdditions.Column(name: $0.column.name, type: $0.column.type) })
            }, on: connection)
        for table in plan.tables {
            try step(table.name)
            switch table {
            case .keep(let name, let additions, let deletedKinds):
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
        let carried = try writeBookkeeping(connection, store: store, contents: contents)
        FaultPoint.reach("inplace.bookkeeping-written")
        return carried
    }

    static let passes: [MigrationProgress.Pass] = [.alter, .validate]

    /// `Z_PRIMARYKEY` for the destination model (each root keeps the largest key its table
    /// has used; the rows of Core Data's own entities kept), history's update masks rewritten
    /// for the new columns (``UpdateMasks``, while the changes still name source entities),
    /// history and CloudKit rows renumbered with the entities (``HistoryRenumbering``),
    /// `Z_METADATA` with the destination's hashes and model checksum, and the destination's
    /// model in the model cache (or none).
    func writeBookkeeping(
        _ connection: SQLiteConnection, store: SQLiteStore, contents: StoreContents
    ) throws -> CarriedContents {
        var account = ContentsAccount(contents: contents)
        let removed = plan.source.entities.filter { !$0.isAbstract && plan.entityNumbers[$0.number] == nil }
        var rewrittenMasks = 0
        if contents.hasHistory {
            let origins = Dictionary(
                plan.correspondences.map {
                    (
                        UpdateMasks.Pair(source: $0.source.number, destination: $0.destination.number),
                        MaskTranslation.origins(of: $0.resolved)
                    )
                }, uniquingKeysWith: { first, _ in first })
            rewrittenMasks = try UpdateMasks(
                sourceLayout: plan.source, destinationLayout: plan.destination, origins: origins
            ).rewrite(Array(origins.keys), on: connection)
        }
        account.history = try HistoryRenumbering(
            entityNumbers: plan.entityNumbers, removed: removed.map(\.number), storePath: url.path
        ).run(on: connection, contents: contents)
        account.history.rewrittenUpdateMasks = rewrittenMasks
        var sourceMaximum: [String: Int64] = [:]
        for correspondence in plan.correspondences {
            let root = plan.source.entity(named: correspondence.source.rootName)?.number ?? 0
            let recorded = store.entityRecords.first { $0.number == root }?.maximumKey ?? 0
            sourceMaximum[correspondence.destination.table] = max(
                sourceMaximum[correspondence.destination.table] ?? 0, recorded)
        }
        // Only the model's rows: Core Data's own entities (history's 16001–16003, CloudKit's)
        // and rows no model explains keep theirs, unless a new entity takes the number.
        let modelNumbers = Set(plan.source.entities.map(\.number) + plan.destination.entities.map(\.number))
        account.replacedStrayRecords = contents.strayEntityRecords.filter { modelNumbers.contains($0.number) }
        try connection.execute(
            "DELETE FROM Z_PRIMARYKEY WHERE Z_ENT IN (\(modelNumbers.sorted().map(String.init).joined(separator: ", ")))"
        )
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
        // The cache held the source model: it holds the destination's now, or nothing.
        if contents.hasModelCache {
            account.modelCache = .forCache(of: destinationModel)
            if account.modelCache == .written {
                try ModelCache.write(destinationModel, into: store)
            } else {
                try connection.execute("DELETE FROM Z_MODELCACHE")
            }
        }
        var metadata = store.metadata
        let hashes = try destinationModel.entityVersionHashes()
        metadata.entityVersionHashes = hashes
        metadata.versionIdentifiers = destinationModel.versionIdentifiers
        if metadata.versionHashesDigest != nil { metadata.versionHashesDigest = VersionHasher.digest(of: hashes) }
        metadata.modelChecksum = VersionHasher.checksum(of: hashes)
        if account.history.renumberedCloudKitRows > 0 {
            metadata.additionalEntries[CloudKitMirroring.zoneFetchKey] = .bool(true)
        }
        try store.writeMetadata(metadata)
        return account.carried()
    }

    func validate(_ destination: ObjectStore) throws {
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

    func toOneError(_ link: RelationshipLayout, row: [SQLiteValue]) -> MoltError {
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
    func translate(_ error: any Error) -> any Error {
        // Not a failure: the caller runs the migration another way.
        if error is InPlaceObstacle { return error }
        if let sqlite = error as? SQLiteError {
            if let expressionError = plan.expressions.lastError { return expressionError }
            if sqlite.code.primary == .interrupt {
                return MoltError(
                    .migrationCancelled, "the migration was cancelled", recovery: "Run it again when ready.")
            }
        }
        return MigrationErrors.classify(error, store: url.path)
    }
}
