internal import Foundation
internal import Logging
internal import MoltCore
internal import MoltMapping
internal import MoltModel
internal import MoltSQLite
internal import MoltStore

/// The object-by-object path of a heavyweight migration: the new store made beside the old
/// one and filled by the three passes.
extension HeavyweightMigration {
    /// The new store's page cache while it fills, in KiB (SQLite's default is 2,000).
    static let destinationCacheKiB = 8_192

    /// Whether either model has attributes with external storage: the migration then runs
    /// object by object and the new store writes to the old store's folder
    /// (``ExternalDataJournal``).
    var usesExternalStorage: Bool {
        [sourceModel, destinationModel].contains { model in
            model.entities.contains { $0.attributes.contains(where: \.usesExternalStorage) }
        }
    }

    func build(
        at newPath: String, dryRunSupport: String, policyTypes: [[String: EntityMigrationPolicy.Type]],
        work: PlannedWork, journalMode: String, report: inout MigrationReport, started: Date
    ) throws {
        let logger = context.logger
        let source = try openSource()
        for entity in source.layout.entities where !entity.isAbstract {
            report.sourceCounts[entity.name] = try source.count(of: entity.name, includingSubentities: false)
        }
        report.discarded = try DiscardSurvey(resolver: surveyResolver)
            .counted(in: source)
        var creation = StoreCreationOptions()
        creation.storeUUID = source.store.metadata.storeUUID
        // The new store records the destination model's checksum in place of the source's
        // (``/MoltStore/SQLiteStore/create(at:layout:options:populate:)``).
        creation.additionalMetadata = source.store.metadata.additionalEntries
        // The old store's journal mode before the run's lock changed it (``SourceLock``); the
        // new store is put in it when complete (``NewStoreCompletion``).
        creation.usesWriteAheadLog = journalMode == "wal"
        if let framework = source.store.metadata.frameworkVersion { creation.frameworkVersion = framework }
        creation.logger = logger
        try removeStore(at: newPath)
        var journal: ExternalDataJournal?
        if usesExternalStorage {
            if isDryRun {
                creation.externalData = ExternalDataFolder(supportFolder: URL(fileURLWithPath: dryRunSupport))
            } else {
                let list = try ExternalDataJournal(StoreFiles(store))
                let folder = ExternalDataFolder(store: store)
                folder.sharesFilesWithSource = true
                folder.willCreate = { try list.record($0) }
                creation.externalData = folder
                journal = list
            }
        }
        let destination: ObjectStore
        do {
            destination = try ObjectStore.create(
                at: URL(fileURLWithPath: newPath), model: destinationModel, options: creation)
        } catch let error as MoltError {
            throw error.code == .sqlite
                ? error
                : MoltError(
                    .destinationStore, "the new store cannot be created: \(error.message)", location: error.location,
                    underlying: error)
        }
        if let trace = options.sqlTrace {
            source.store.connection.trace(trace)
            destination.store.connection.trace(trace)
        }
        // The new store is disposable until it is complete: no syncing while it fills. A page
        // cache larger than SQLite's 2 MB keeps more of the indexes being filled (and of a sorted
        // index build) in memory: at a million Records, writing every to-one and making its
        // index again took 5.0–7.8 s with the default, 4.3–4.6 s with 8 MB, 3.7–4.2 s with 16 MB
        // for twice the memory. The memory is taken only as the store grows.
        try destination.store.connection.execute(
            "PRAGMA synchronous = OFF; PRAGMA main.cache_size = -\(Self.destinationCacheKiB);"
        )
        try Self.writePagesOnce(destination.store.connection, logger: logger)
        try fill(
            destination: destination, source: source, policyTypes: policyTypes, work: work, report: &report,
            started: started)
        report.discarded = DiscardSurvey(resolver: surveyResolver)
            .counting(
                filtered: report.discarded, sourceCounts: report.sourceCounts,
                read: Dictionary(report.mappings.map { ($0.mapping, $0.sourceObjects) }, uniquingKeysWith: +))
        if usesExternalStorage {
            try destination.externalData.sync()
            destination.externalData.removeRetired()
            let used = try destination.externalFileNames()
            report.externalFiles = used.count
            if journal != nil {
                try ExternalDataJournal.writeOldFiles(
                    try source.externalFileNames().subtracting(used), StoreFiles(store))
            }
        }
        if let contents = work.contents {
            report.contents = try ContentsCopy(
                contents: contents, sourceLayout: source.layout, destinationLayout: destination.layout,
                destinationModel: destinationModel,
                destinationEntity: firstDestinations(),
                maskOrigins: maskOrigins(source: source.layout, destination: destination.layout),
                unknown: options.unknownContents, sourcePath: store.path
            ).run(into: destination.store)
        }
        // Closed when the build returns (released); the run then makes its file whole.
        logger.debug("new store filled", metadata: ["molt.store": "\(newPath)"])
    }

    /// Each source entity's destination entity, as the first entity mapping that reads it
    /// makes it (over every pass, in order).
    func firstDestinations() -> [String: String] {
        var first: [String: String] = [:]
        for mapping in mappings {
            for entityMapping in mapping.entityMappings where entityMapping.kind.readsSource {
                guard let source = entityMapping.sourceEntityName, let destination = entityMapping.destinationEntityName
                else { continue }
                if first[source] == nil { first[source] = destination }
            }
        }
        return first
    }

    /// For each pair of source and destination entities, what the first entity mapping between
    /// them (over every pass, in order) says each destination property is carried from
    /// (``MaskTranslation/origins(of:)``).
    func maskOrigins(source: StoreLayout, destination: StoreLayout) -> [UpdateMasks.Pair: [String: String]] {
        var origins: [UpdateMasks.Pair: [String: String]] = [:]
        for (mapping, resolver) in zip(mappings, resolvers) {
            for entityMapping in mapping.entityMappings where entityMapping.kind.readsSource {
                guard let from = entityMapping.sourceEntityName.flatMap({ source.entity(named: $0) }),
                    let to = entityMapping.destinationEntityName.flatMap({ destination.entity(named: $0) })
                else { continue }
                let pair = UpdateMasks.Pair(source: from.number, destination: to.number)
                if origins[pair] == nil { origins[pair] = MaskTranslation.origins(of: resolver.resolve(entityMapping)) }
            }
        }
        return origins
    }

    /// The three passes and the policies' `end`, for each mapping model in turn, on an open
    /// source and new store; then the uniqueness constraints.
    func fill(
        destination: ObjectStore, source: ObjectStore, policyTypes: [[String: EntityMigrationPolicy.Type]],
        work: PlannedWork, report: inout MigrationReport, started: Date
    ) throws {
        // The passes own the run's state; policies see it through the manager, which the run
        // holds while the passes run.
        let state = try PassState(
            source: source, destination: destination, mappingResolver: resolvers[0], passCount: mappings.count,
            context: context, startDate: started)
        state.evaluatesEveryValue = options.evaluatesEveryValue
        let manager = MigrationManager(state: state)
        try state.interruptible {
            try runPasses(
                state: state, manager: manager, destination: destination, policyTypes: policyTypes, work: work,
                report: &report)
        }
    }

    /// The tables whose to-one key columns the copy pass fills with each new row (``KeyAtInsert``),
    /// with those columns: an index on them is set aside while a table fills from empty
    /// (``IndexesSetAside``), and made again before the relate pass reads them. A policy that
    /// fetches by such a column meanwhile finds the same objects, by reading the table.
    func keyColumnsFilled(
        _ keys: [String: [KeyAtInsert]], layout: StoreLayout
    ) -> [(table: String, columns: [String])] {
        var filled: [String: [String]] = [:]
        for link in keys.values.joined() {
            guard let table = layout.entity(named: link.owner)?.table else { continue }
            filled[table, default: []] += link.columns
        }
        return filled.sorted { $0.key < $1.key }.map { (table: $0.key, columns: $0.value) }
    }

    /// Copy, relate, validate and `end` for each mapping model, then the final checks.
    func runPasses(
        state: PassState, manager: MigrationManager, destination: ObjectStore,
        policyTypes: [[String: EntityMigrationPolicy.Type]], work: PlannedWork, report: inout MigrationReport
    ) throws {
        let progress = ProgressReporter(context.progress)
        let transaction = BatchTransaction(connection: destination.store.connection, size: options.transactionSize)
        if work.relatesInSQL { state.attachSource() }
        let keepsAssociations = work.contents?.hasHistory == true
        if keepsAssociations { try ContentsCopy.prepare(destination.store.connection) }
        report.passes = mappings.count
        report.route = .objects
        var validated: Int?
        for (index, mappingModel) in mappings.enumerated() {
            var policies: [String: EntityMigrationPolicy] = [:]
            for (name, type) in policyTypes[index] { policies[name] = type.init() }
            try state.beginPass(index + 1, mappingResolver: resolvers[index])
            // The state calls a policy's functions through this, naming no policy type; weak,
            // as the state must not keep the manager that holds it.
            state.callEntityPolicy = { [weak manager] mapping, selector, arguments in
                guard let policy = policies[mapping.name] else {
                    throw MoltError(.entityMigrationPolicy, "the entity mapping has no policy", entity: mapping.name)
                }
                guard let manager else { throw MoltError(.migration, "the migration has ended", entity: mapping.name) }
                return try policy.call(selector, arguments: arguments, manager: manager)
            }
            progress.mappingPass = (index + 1, mappings.count)
            state.planKeysAtInsert(work.pass(index).keysAtInsert)
            if mappings.count > 1 {
                context.logger.info(
                    "pass \(index + 1) of \(mappings.count)",
                    metadata: ["molt.mapping": "\(mappingModel.sourceFile ?? "mapping \(index + 1)")"])
            }
            let before = report.mappings.count
            try transaction.begin()
            // The columns keys at insert fill row by row: their indexes are made once, after.
            try IndexesSetAside.whileFilling(
                keyColumnsFilled(work.pass(index).keysAtInsert, layout: destination.layout),
                layout: destination.layout, destination.store.connection
            ) {
                try CopyPass(
                    state: state, manager: manager, policies: policies, transaction: transaction, progress: progress,
                    jobs: options.jobs
                ).run(report: &report)
            }
            try RelatePass(
                state: state, manager: manager, policies: policies, transaction: transaction, progress: progress,
                batchSize: options.batchSize, jobs: options.jobs,
                chains: work.pass(index).relate
            ).run(report: &report)
            for item in before..<report.mappings.count { report.mappings[item].pass = index + 1 }
            try state.writer.finish()
            try transaction.commit()
            let validatePass = ValidatePass(
                state: state, manager: manager, policies: policies, progress: progress, batchSize: options.batchSize)
            if index == mappings.count - 1 {
                try state.detachSource()
                try validatePass.run()
                validated = state.writer.statementCount
            } else {
                try validatePass.runCustomValidation()
            }
            try transaction.begin()
            for entityMapping in mappingModel.entityMappings {
                guard let policy = policies[entityMapping.name] else { continue }
                state.begin(entityMapping)
                try PolicyCall.run(entityMapping, "end", state: state) {
                    try policy.end(entityMapping, manager: manager)
                }
            }
            try state.writer.finish()
            try transaction.commit()
            if keepsAssociations {
                try ContentsCopy.keep(
                    associationsOfPass: index + 1, from: state.associations, on: destination.store.connection)
            }
        }
        // Core Data checks uniqueness constraints when the destination is saved, after every
        // `end`; what `end` hooks changed is validated again, as that save would.
        // No policy runs in this check: the constraints are the model's.
        try ValidatePass(
            state: state, manager: manager, policies: [:], progress: progress, batchSize: options.batchSize
        ).checkFinal(objectsChanged: state.writer.statementCount != validated)
        report.deletedObjects = state.writer.deletedCount
        report.deletedSourceObjects = state.deletedSourceCount
        // Every row of the new store was written by this run, each with its entity's number.
        for entity in destination.layout.entities where !entity.isAbstract {
            report.destinationCounts[entity.name] = try destination.count(
                of: entity.name, includingSubentities: false, rowsAreWellFormed: true)
        }
    }

    /// Puts the new store, made in WAL mode, in `journal_mode = MEMORY` while it fills: each
    /// page is written once, into the file, at the commit that changes it, where a log wrote it
    /// twice (into the log, then into the file at each checkpoint, the last one when the store
    /// is completed). A failed statement or transaction is still undone from the journal in
    /// memory; a crash leaves a file that recovery removes, as it removes any new store without
    /// a swap record (``NewStoreCompletion`` puts the finished store in the old store's mode).
    /// `OFF` would also do, but defensive mode, which every connection has, refuses it. At 110k
    /// objects the object copy took 0.785 s against 0.865 s (medians of six, interleaved), the
    /// system time 0.05–0.12 s against 0.12–0.16 s. Should SQLite keep the log, the store
    /// fills in WAL mode as before.
    static func writePagesOnce(_ connection: SQLiteConnection, logger: Logger) throws {
        let mode = try connection.scalar("PRAGMA main.journal_mode = MEMORY")?.textValue?.lowercased()
        if mode != "memory" {
            logger.debug("the new store fills in journal mode \(mode ?? "unknown")")
        }
    }

    func openSource() throws -> ObjectStore {
        try MigrationErrors.bind(
            try SQLiteStore(at: store, readOnly: true, logger: context.logger), toSource: sourceModel)
    }
}
