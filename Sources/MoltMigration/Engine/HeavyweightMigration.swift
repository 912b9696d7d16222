public import Foundation
public import Logging
internal import MoltCore
public import MoltMapping
public import MoltModel
import MoltSQLite
internal import MoltStore

/// Settings of a heavyweight migration.
public struct MigrationOptions: Sendable {
    /// Keep the old store (with its support folder) as `Name.molt-backup-<time>.ext`.
    public var backup = false
    /// Migrate into a temporary file, validate, count, and leave the store as it was.
    public var dryRun = false
    /// Objects read per query.
    public var batchSize = 500
    /// Objects written per transaction of the new store.
    public var transactionSize = 5000
    /// Called with progress as the migration goes (from the migrating thread).
    public var progress: (@Sendable (MigrationProgress) -> Void)?
    /// Let a mapping that needs no per-object work (no policy, no filter, values SQL can
    /// compute) run as SQL over a copy of the store instead of object by object, and let the
    /// relate pass set Core Data's default relationship values in SQL (see `SetBasedRelate`).
    /// The result is the same store; off, every object goes through the passes.
    public var allowsSQLCopy = true
    /// Let the relate pass write a relationship for a batch of objects at once when their
    /// policy keeps the default `createRelationships` and the values are Core Data's default
    /// form (see `MigrationManager.relateBatchByDefault`). The result is the same store; off,
    /// each object's relationships are written by their own calls.
    public var allowsBatchedRelationships = true
    /// Called with the text of each SQL statement run on the store being migrated in place
    /// (values bound), in order: an audit of what the migration did.
    public var sqlTrace: (@Sendable (String) -> Void)?
    /// How long to wait, in seconds, when another migration of the store is running
    /// (``MigrationLock``); 0 fails at once with Core Data's 134090.
    public var lockWait: TimeInterval = 0
    /// The store's migration lock, when the caller already holds it (an upgrade's steps, or a
    /// command that took it before reading the store); otherwise the migration takes its own.
    public var heldLock: MigrationLock?
    public var logger = Logger(label: "molt.migration")

    public init() {}
}

/// A heavyweight migration: Core Data's two-stack, three-pass copy of a store into a new file
/// with the destination model, followed by a crash-safe swap.
///
/// 1. Leftovers of an interrupted migration are cleaned up (``StoreRecovery``).
/// 2. The mapping is checked against both models; any error stops everything, as does a
///    policy no one registered.
/// 3. The store is locked against other writers (`SourceLock`) and opened read-only with the
///    source model (its entity hashes must match).
/// 4. A new store is made beside it with the destination model, keeping the old store's UUID
///    and the app's own metadata keys.
/// 5. Copy pass, relate pass, validate pass (see `CopyPass`, `RelatePass`, `ValidatePass`),
///    then each policy's `end`, then the uniqueness constraints (checked last, as Core Data
///    checks them when it saves, so an `end` that deletes duplicates comes first). A step
///    split into several mapping models (Core Data's "multiple passes") runs copy, relate, its
///    policies' `performCustomValidation` and `end` for each model in order, into the same new
///    store; the destination store is validated once, after the last.
/// 6. The new store is finished (journal mode restored, synced, closed) and swapped in
///    (`StoreSwap`); a dry run deletes it instead.
///
/// Any failure (a policy that throws, failed validation, cancellation, a full disk) removes the
/// new store and leaves the old one untouched; the error carries Core Data's code (134110
/// migration, 134120 cancelled, 134150 source store, 134160 destination store, 134170 policy,
/// 134180 SQLite, 1550–1680 validation) and names the entity mapping and object.
///
/// ```swift
/// let migration = HeavyweightMigration(store: url, source: v1, destination: v2, mapping: mapping)
/// let report = try migration.run()
/// ```
public final class HeavyweightMigration: @unchecked Sendable {
    /// The store's file, symbolic links resolved (the file an app opens; see ``StoreLocation``).
    public let store: URL
    public let sourceModel: ObjectModel
    public let destinationModel: ObjectModel
    /// The mapping models, run in order into one new store: one for most steps; several when
    /// the step is split into passes, each seeing (and able to fetch) what earlier ones made.
    public let mappings: [MappingModel]
    public let options: MigrationOptions
    let cancellation = Cancellation()
    let managerLock = NSLock()
    private var activeManager: MigrationManager?
    /// The in-place run over the new file, on the SQL path.
    var activeCopy: InPlaceMigration?

    public convenience init(
        store: URL, source: ObjectModel, destination: ObjectModel, mapping: MappingModel,
        options: MigrationOptions = MigrationOptions()
    ) {
        self.init(store: store, source: source, destination: destination, mappings: [mapping], options: options)
    }

    /// A migration in several passes: `mappings` run one after the other into the same new
    /// store (at least one).
    public init(
        store: URL, source: ObjectModel, destination: ObjectModel, mappings: [MappingModel],
        options: MigrationOptions = MigrationOptions()
    ) {
        self.store = (try? StoreLocation(store).url) ?? store
        self.sourceModel = source
        self.destinationModel = destination
        self.mappings = mappings
        self.options = options
    }

    /// The first (for most migrations, the only) mapping model.
    public var mapping: MappingModel { mappings.first ?? MappingModel(entityMappings: []) }

    /// Stops a running migration (from any thread); it fails with 134120 and changes nothing.
    public func cancel() {
        cancellation.cancel(with: nil)
        managerLock.lock()
        activeManager?.cancel()
        activeCopy?.cancel()
        managerLock.unlock()
    }

    /// Runs the migration.
    @discardableResult
    public func run() throws -> MigrationReport {
        let started = Date()
        let logger = options.logger
        // One migration at a time, decided before anything is read (``MigrationLock``); a
        // file with several names is never replaced (``StoreLocation``; looked at once
        // recovery has removed the name an interrupted migration's backup gave it).
        let (migrationLock, ownsLock) = try MigrationLock.forRun(store: store, options: options)
        defer { if ownsLock { migrationLock.release() } }
        try StoreRecovery.recover(locked: migrationLock, logger: logger)
        guard FileManager.default.fileExists(atPath: store.path) else { throw FileErrors.missing(store.path) }
        if !options.dryRun { try StoreLocation(store).requireSingleName() }
        if let done = try AlreadyMigrated.report(
            store, source: sourceModel, destination: destinationModel, dryRun: options.dryRun, logger: logger)
        {
            return done
        }
        guard !mappings.isEmpty else {
            throw MoltError(.missingMappingModel, "a heavyweight migration needs a mapping model; none was given")
        }
        try checkMappings()
        let policyTypes = try mappings.map { try resolvePolicies($0) }

        let lock = try SourceLock(store: store, logger: logger)
        let files = StoreFiles(store)
        let dryRunID = UUID().uuidString
        let newPath =
            options.dryRun
            ? store.deletingLastPathComponent().appendingPathComponent(
                ".\(store.lastPathComponent).molt-dryrun-\(dryRunID)"
            ).path
            : files.new
        // A dry run's new store keeps its external data apart; a real one shares the old
        // store's folder (``ExternalDataJournal``).
        let dryRunSupport = files.support + ".molt-dryrun-\(dryRunID)"
        var report = MigrationReport()
        report.dryRun = options.dryRun
        do {
            if let plan = sqlPlan(started: started),
                try buildBySQL(at: newPath, plan: plan, report: &report, started: started)
            {
                logger.debug("mapping run as SQL", metadata: ["molt.store": "\(store.path)"])
            } else {
                try build(
                    at: newPath, dryRunSupport: dryRunSupport, policyTypes: policyTypes, report: &report,
                    started: started)
            }
            // Every connection to the new store is closed now; make its content durable.
            try FileSync.sync(path: newPath)
            if options.dryRun {
                lock.abandon()
                try removeStore(at: newPath)
                try FileOperations.removeTree(dryRunSupport)
            } else {
                try lock.releaseForSwap()
                report.backup = try StoreSwap.replace(store, backup: options.backup, date: started)
                logger.info("migration finished", metadata: ["molt.store": "\(store.path)"])
            }
        } catch {
            lock.abandon()
            if options.dryRun {
                try? removeStore(at: newPath)
                try? FileOperations.removeTree(dryRunSupport)
            } else if !FileOperations.exists(files.intent) {
                try? removeStore(at: newPath)
                try? ExternalDataJournal.abandon(files)
            }
            // With a swap record, the swap is committed: whoever opens the store next finishes it.
            throw Self.classify(error, store: store.path)
        }
        report.duration = Date().timeIntervalSince(started)
        return report
    }

    // MARK: Steps

    private func checkMappings() throws {
        // Passes are parts of one step: where their files name versions, the same two.
        for side in [(\MappingModel.sourceModelName, "from"), (\MappingModel.destinationModelName, "to")] {
            let named = mappings.enumerated().compactMap { index, mapping in
                mapping[keyPath: side.0].map { (index, $0) }
            }
            if let first = named.first, let other = named.first(where: { $0.1 != first.1 }) {
                throw MoltError(
                    .migration,
                    "the passes of one step must go between the same two versions: the mapping of pass \(first.0 + 1) goes \(side.1) \"\(first.1)\", that of pass \(other.0 + 1) \(side.1) \"\(other.1)\"",
                    location: mappings[other.0].sourceFile.map { SourceLocation(file: $0) })
            }
        }
        for (index, mapping) in mappings.enumerated() {
            try checkMapping(mapping, pass: mappings.count == 1 ? nil : index + 1)
        }
    }

    private func checkMapping(_ mapping: MappingModel, pass: Int?) throws {
        let diagnostics = MappingChecker(knownPolicies: Set(PolicyRegistry.names)).check(
            mapping, source: sourceModel, destination: destinationModel)
        let errors = diagnostics.errors
        guard let first = errors.first else { return }
        let subject = pass.map { "the mapping of pass \($0)" } ?? "the mapping"
        throw MoltError(
            .migration,
            errors.count == 1
                ? "\(subject) has an error: \(first.message)"
                : "\(subject) has \(errors.count) errors; the first: \(first.message)",
            location: first.location, entity: first.entity, property: first.property,
            recovery: "Run `molt check-mapping` to see every problem; the store was not changed.",
            details: errors.map(\.description))
    }

    private func resolvePolicies(_ mapping: MappingModel) throws -> [String: any EntityMigrationPolicy.Type] {
        var types: [String: any EntityMigrationPolicy.Type] = [:]
        for entityMapping in mapping.entityMappings where entityMapping.kind.readsSource {
            if let name = entityMapping.policyName {
                types[entityMapping.name] = try PolicyRegistry.require(name, mapping: entityMapping.name)
            } else {
                types[entityMapping.name] = DefaultEntityMigrationPolicy.self
            }
        }
        return types
    }

    /// Whether either model has attributes with external storage: the migration then runs
    /// object by object and the new store writes to the old store's folder
    /// (``ExternalDataJournal``).
    var usesExternalStorage: Bool {
        [sourceModel, destinationModel].contains { model in
            model.entities.contains { $0.attributes.contains(where: \.usesExternalStorage) }
        }
    }

    private func build(
        at newPath: String, dryRunSupport: String, policyTypes: [[String: any EntityMigrationPolicy.Type]],
        report: inout MigrationReport, started: Date
    ) throws {
        let logger = options.logger
        let source = try openSource()
        for entity in source.layout.entities where !entity.isAbstract {
            report.sourceCounts[entity.name] = try source.count(of: entity.name, includingSubentities: false)
        }
        report.discarded = try DiscardSurvey(source: sourceModel, destination: destinationModel, mapping: surveyed)
            .counted(in: source)
        var creation = StoreCreationOptions()
        creation.storeUUID = source.store.metadata.storeUUID
        creation.additionalMetadata = source.store.metadata.additionalEntries
        creation.usesWriteAheadLog = try source.store.journalMode() == "wal"
        if let framework = source.store.metadata.frameworkVersion { creation.frameworkVersion = framework }
        creation.logger = logger
        try removeStore(at: newPath)
        var journal: ExternalDataJournal?
        if usesExternalStorage {
            if options.dryRun {
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
        // The new store is disposable until it is complete: no journal, no syncing while it fills.
        try destination.store.connection.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;")
        try fill(destination: destination, source: source, policyTypes: policyTypes, report: &report, started: started)
        report.discarded = DiscardSurvey(source: sourceModel, destination: destinationModel, mapping: surveyed)
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
        try destination.store.connection.execute(
            "PRAGMA journal_mode = \(creation.usesWriteAheadLog ? "WAL" : "DELETE"); PRAGMA synchronous = FULL;")
        logger.debug("new store complete", metadata: ["molt.store": "\(newPath)"])
    }

    /// What the survey of discarded data reads: every pass's entity mappings together (data
    /// no pass reads is discarded).
    var surveyed: MappingModel {
        guard mappings.count > 1 else { return mapping }
        var combined = mapping
        combined.entityMappings = mappings.flatMap(\.entityMappings)
        return combined
    }

    /// The three passes and the policies' `end`, for each mapping model in turn, on an open
    /// source and new store; then the uniqueness constraints.
    private func fill(
        destination: ObjectStore, source: ObjectStore, policyTypes: [[String: any EntityMigrationPolicy.Type]],
        report: inout MigrationReport, started: Date
    ) throws {
        let manager = try MigrationManager(
            source: source, destination: destination, mappingModel: mapping, passCount: mappings.count,
            logger: options.logger, startDate: started)
        managerLock.lock()
        activeManager = manager
        managerLock.unlock()
        defer {
            managerLock.lock()
            activeManager = nil
            managerLock.unlock()
        }
        if let error = cancellation.error { manager.cancel(with: error) }

        let progress = ProgressReporter(options.progress)
        let transaction = BatchTransaction(connection: destination.store.connection, size: options.transactionSize)
        if options.allowsSQLCopy { manager.attachSource() }
        report.passes = mappings.count
        var validated: Int?
        for (index, mappingModel) in mappings.enumerated() {
            var policies: [String: any EntityMigrationPolicy] = [:]
            for (name, type) in policyTypes[index] { policies[name] = type.init() }
            try manager.beginPass(index + 1, mappingModel: mappingModel, policies: policies)
            progress.mappingPass = (index + 1, mappings.count)
            if mappings.count > 1 {
                options.logger.info(
                    "pass \(index + 1) of \(mappings.count)",
                    metadata: ["molt.mapping": "\(mappingModel.sourceFile ?? "mapping \(index + 1)")"])
            }
            let before = report.mappings.count
            try transaction.begin()
            try CopyPass(manager: manager, transaction: transaction, progress: progress).run(report: &report)
            try RelatePass(
                manager: manager, transaction: transaction, progress: progress, batchSize: options.batchSize,
                allowsSetBased: options.allowsSQLCopy, allowsBatches: options.allowsBatchedRelationships
            ).run(report: &report)
            for item in before..<report.mappings.count { report.mappings[item].pass = index + 1 }
            try manager.writer.finish()
            try transaction.commit()
            let validatePass = ValidatePass(manager: manager, progress: progress, batchSize: options.batchSize)
            if index == mappings.count - 1 {
                try manager.detachSource()
                try validatePass.run()
                validated = manager.writer.statementCount
            } else {
                try validatePass.runCustomValidation()
            }
            try transaction.begin()
            for entityMapping in mappingModel.entityMappings {
                guard let policy = manager.policies[entityMapping.name] else { continue }
                manager.begin(entityMapping)
                try PolicyCall.run(entityMapping, "end") { try policy.end(entityMapping, manager: manager) }
            }
            try manager.writer.finish()
            try transaction.commit()
        }
        // Core Data checks uniqueness constraints when the destination is saved, after every
        // `end`; what `end` hooks changed is validated again, as that save would.
        try ValidatePass(manager: manager, progress: progress, batchSize: options.batchSize).checkFinal(
            objectsChanged: manager.writer.statementCount != validated)
        report.deletedObjects = manager.writer.deletedCount
        for entity in destination.layout.entities where !entity.isAbstract {
            report.destinationCounts[entity.name] = try destination.count(of: entity.name, includingSubentities: false)
        }
    }

    private func openSource() throws -> ObjectStore {
        try Self.bind(try SQLiteStore(at: store, readOnly: true, logger: options.logger), toSource: sourceModel)
    }

    /// The store bound to the migration's source model; 134100 saying so when they differ.
    static func bind(_ store: SQLiteStore, toSource model: ObjectModel) throws -> ObjectStore {
        do {
            return try ObjectStore(store: store, model: model)
        } catch var error as MoltError where error.code == .incompatibleVersionHash {
            error.message = "the store does not match the source model: " + error.message
            throw error
        }
    }

    func removeStore(at path: String) throws {
        try FileOperations.remove(path)
        for companion in StoreFiles.companions(of: path) { try FileOperations.remove(companion) }
    }

    /// Gives an error Core Data's migration code when it has none of its own.
    static func classify(_ error: any Error, store: String) -> any Error {
        guard let molt = error as? MoltError else {
            if let sqlite = error as? SQLiteError {
                return MoltError(
                    .sqlite, "SQLite failed during the migration: \(sqlite.message)",
                    location: SourceLocation(file: store), underlying: sqlite)
            }
            return MoltError(
                .migration, "the migration failed: \(error)", location: SourceLocation(file: store),
                underlying: DescribedError(error))
        }
        return molt
    }
}
