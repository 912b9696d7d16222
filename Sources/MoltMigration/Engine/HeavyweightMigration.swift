public import Foundation
internal import Logging
internal import MoltCore
public import MoltMapping
public import MoltModel
import MoltSQLite
internal import MoltStore

/// A heavyweight migration: Core Data's two-stack, three-pass copy of a store into a new file
/// with the destination model, followed by a crash-safe swap.
///
/// 1. Leftovers of an interrupted migration are cleaned up (`StoreRecovery`).
/// 2. The mapping is checked against both models; any error stops everything, as does a
///    policy no one registered.
/// 3. The store is locked against other writers until the swap (`SourceLock`: out of WAL
///    mode, SQLite's write lock held) and opened read-only with the source model (its entity
///    hashes must match). A dry run takes no lock and writes nothing of the store.
/// 4. A new store is made beside it with the destination model, keeping the old store's UUID
///    and the app's own metadata keys.
/// 5. Copy pass, relate pass, validate pass (see `CopyPass`, `RelatePass`, `ValidatePass`),
///    then each policy's `end`, then the uniqueness constraints (checked last, as Core Data
///    checks them when it saves, so an `end` that deletes duplicates comes first). A step
///    split into several mapping models (Core Data's "multiple passes") runs copy, relate, its
///    policies' `performCustomValidation` and `end` for each model in order, into the same new
///    store; the destination store is validated once, after the last.
/// 6. The new store is completed (`NewStoreCompletion`: closed, its log moved into its file,
///    the old store's journal mode, synced, checked with `quick_check`) and swapped in under the
///    lock (`StoreSwap`); a dry run deletes it instead.
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
public final class HeavyweightMigration: Migration, @unchecked Sendable {
    /// The store's file, symbolic links resolved (the file an app opens; see ``StoreLocation``).
    public let store: URL
    public let sourceModel: ObjectModel
    public let destinationModel: ObjectModel
    /// The mapping models, run in order into one new store: one for most steps; several when
    /// the step is split into passes, each seeing (and able to fetch) what earlier ones made.
    public let mappings: [MappingModel]
    public let options: MigrationOptions
    public let context: RunContext
    /// Whether this is the whole run or a step of an upgrade.
    let role: RunRole
    /// Each mapping model worked out once for the whole run (``MappingResolver``), and the
    /// resolver of what the survey of discarded data reads (every pass's mappings together).
    let resolvers: [MappingResolver]
    let surveyResolver: MappingResolver

    public convenience init(
        store: URL, source: ObjectModel, destination: ObjectModel, mapping: MappingModel,
        options: MigrationOptions = MigrationOptions(), context: RunContext = RunContext()
    ) {
        self.init(
            store: store, source: source, destination: destination, mappings: [mapping], options: options,
            context: context)
    }

    /// A migration in several passes: `mappings` run one after the other into the same new
    /// store (at least one).
    public convenience init(
        store: URL, source: ObjectModel, destination: ObjectModel, mappings: [MappingModel],
        options: MigrationOptions = MigrationOptions(), context: RunContext = RunContext()
    ) {
        self.init(
            store: store, source: source, destination: destination, mappings: mappings, options: options,
            context: context, role: .whole)
    }

    /// The plan a caller made for this run (a lightweight migration's that falls back to this
    /// engine); when nil, the run makes its own.
    var planned: (plan: MigrationPlan, work: PlannedWork)?
    /// Whether the caller, holding the store's lock, found it is not at the destination yet
    /// (``StoreMigration``): the run need not read the store's metadata again to know.
    var knownNotMigrated = false

    /// `resolvers` and `planned`, when given, are the caller's for `mappings` (a lightweight
    /// migration's that falls back to this engine).
    init(
        store: URL, source: ObjectModel, destination: ObjectModel, mappings: [MappingModel],
        options: MigrationOptions, context: RunContext, role: RunRole, resolvers: [MappingResolver]? = nil,
        planned: (plan: MigrationPlan, work: PlannedWork)? = nil
    ) {
        self.planned = planned
        self.store = (try? StoreLocation(store).url) ?? store
        self.sourceModel = source
        self.destinationModel = destination
        self.mappings = mappings
        self.options = options
        self.context = context
        self.role = role
        let resolvers =
            resolvers
            ?? mappings.map { MappingResolver(source: source, destination: destination, mappingModel: $0) }
        self.resolvers = resolvers
        if mappings.count == 1 {
            surveyResolver = resolvers[0]
        } else {
            var combined = mappings.first ?? MappingModel(entityMappings: [])
            combined.entityMappings = mappings.flatMap(\.entityMappings)
            surveyResolver = MappingResolver(source: source, destination: destination, mappingModel: combined)
        }
    }

    /// The first (for most migrations, the only) mapping model.
    public var mapping: MappingModel { mappings.first ?? MappingModel(entityMappings: []) }

    /// Whether the run leaves the store as it was (a dry run of the whole run).
    var isDryRun: Bool { role.isDryRun(options) }

    /// Runs the migration.
    @discardableResult
    public func run() throws -> MigrationReport {
        let started = Date()
        // One migration at a time, decided before anything is read (`MigrationLock`); a
        // file with several names is never replaced (``StoreLocation``; looked at once
        // recovery has removed the name an interrupted migration's backup gave it).
        return try context.withRecoveredStore(store, wait: options.lockWait, readOnly: isDryRun) { _, _ in
            try run(started: started)
        }
    }

    /// How the run would go (``MigrationPlan``), worked out as ``run()`` works it out, under
    /// the store's migration lock and after recovery; nil when the store is already at the
    /// destination version. The mapping models are checked first, as a run checks them. The
    /// store is not changed (beyond finishing an interrupted migration, as every run does).
    public func plan() throws -> MigrationPlan? {
        let started = Date()
        return try context.planUnlessMigrated(
            store, source: sourceModel, destination: destinationModel, wait: options.lockWait
        ) { try makePlan(started: started).plan }
    }

    /// The plan ``run()`` would make, without the lock or the check for a migrated store: an
    /// upgrade's forecast of a later step, whose store does not exist yet.
    func forecast() throws -> MigrationPlan {
        try makePlan(started: Date()).plan
    }

    /// The mappings checked, their policies found, and the one plan of the run, before any
    /// work (``MigrationPlanner``); nothing else chooses a route.
    private func makePlan(
        started: Date
    ) throws -> (
        policyTypes: [[String: EntityMigrationPolicy.Type]], plan: MigrationPlan, work: PlannedWork
    ) {
        guard !mappings.isEmpty else {
            throw MoltError(.missingMappingModel, "a heavyweight migration needs a mapping model; none was given")
        }
        try checkMappings()
        let policyTypes = try mappings.map { try resolvePolicies($0) }
        let (plan, work) =
            try planned
            ?? MigrationPlanner(
                store: store, source: sourceModel, destination: destinationModel, mappings: mappings,
                resolvers: resolvers, policyTypes: policyTypes, options: options, inPlaceAllowed: false,
                started: started
            ).make()
        return (policyTypes, plan, work)
    }

    private func run(started: Date) throws -> MigrationReport {
        let logger = context.logger
        if !isDryRun { try StoreLocation(store).requireSingleName() }
        if !knownNotMigrated,
            let done = try AlreadyMigrated.report(
                store, source: sourceModel, destination: destinationModel, dryRun: isDryRun, logger: logger)
        {
            return done
        }
        // Refused now rather than after every pass: a store this process cannot write.
        if !isDryRun { try StoreAccess.requireWritable(store) }
        let (policyTypes, plan, work) = try makePlan(started: started)
        logger.debug("plan: \(plan)", metadata: ["molt.store": "\(store.path)"])

        // A dry run only reads the store, through read-only connections (``SourceLock``
        // changes its journal mode and holds its write lock): nothing of it is written.
        let lock = isDryRun ? nil : try SourceLock(store: store, wait: options.inUseWait, logger: logger)
        let journalMode = lock?.journalMode ?? SQLiteStore.journalMode(ofFile: store)
        let files = StoreFiles(store)
        let dryRunID = UUID().uuidString
        let newPath =
            isDryRun
            ? store.deletingLastPathComponent().appendingPathComponent(
                ".\(store.lastPathComponent).molt-dryrun-\(dryRunID)"
            ).path
            : files.new
        // A dry run's new store keeps its external data apart; a real one shares the old
        // store's folder (``ExternalDataJournal``).
        let dryRunSupport = files.support + ".molt-dryrun-\(dryRunID)"
        var report = MigrationReport()
        report.dryRun = isDryRun
        report.plan = plan
        do {
            if plan.route == .sqlOnCopy, let inPlace = work.inPlace {
                try buildBySQL(at: newPath, plan: inPlace, report: &report, started: started)
                logger.debug("mapping run as SQL", metadata: ["molt.store": "\(store.path)"])
            } else {
                try build(
                    at: newPath, dryRunSupport: dryRunSupport, policyTypes: policyTypes, work: work,
                    journalMode: journalMode, report: &report, started: started)
            }
            // Whole in its main file, in the old store's journal mode, synced and checked
            // (``NewStoreCompletion``): what the swap renames is the complete new store.
            try NewStoreCompletion.complete(newPath, journalMode: journalMode, logger: logger)
            if isDryRun {
                try removeStore(at: newPath)
                try FileOperations.removeTree(dryRunSupport)
            } else if let lock {
                report.backup = try lock.replace {
                    try StoreSwap.replace(store, backup: role.backsUp(options), date: started)
                }
                logger.info("migration finished", metadata: ["molt.store": "\(store.path)"])
            }
        } catch {
            if isDryRun {
                try? removeStore(at: newPath)
                try? FileOperations.removeTree(dryRunSupport)
            } else if !FileOperations.exists(files.intent) {
                try? removeStore(at: newPath)
                try? ExternalDataJournal.abandon(files)
            }
            // After the new store is gone: on a full disk, its space is what lets the old store
            // be put back in WAL mode.
            lock?.abandon()
            // With a swap record, the swap is committed: whoever opens the store next finishes it.
            throw MigrationErrors.classify(error, store: store.path)
        }
        report.duration = Date().timeIntervalSince(started)
        return report
    }
}
