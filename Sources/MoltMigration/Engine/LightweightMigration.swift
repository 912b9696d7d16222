public import Foundation
internal import MoltCore
public import MoltMapping
public import MoltModel
internal import MoltStore

/// A lightweight migration: the mapping Core Data would infer between two model versions, run
/// in place with SQL when the store allows it, and through the heavyweight engine otherwise.
///
/// In place, no object is loaded: tables gain columns (`ALTER TABLE … ADD COLUMN`) or are
/// rebuilt with `INSERT … SELECT`, join tables are refilled, and `Z_PRIMARYKEY` and
/// `Z_METADATA` are rewritten, all in one transaction, so a crash at any instant leaves the old
/// store. The result is the store the heavyweight engine would make from the same mapping
/// (the same `molt dump`), objects keeping their primary keys. When that cannot be guaranteed
/// in place (objects of two tables ending in one, triggers or views in the store, a mapping with
/// policies or filters), the heavyweight engine runs instead and the report says why
/// (``MigrationReport/inPlaceObstacle``).
///
/// ```swift
/// let report = try LightweightMigration(store: url, source: v1, destination: v2).run()
/// print(report.inPlace ? "migrated in place" : "copied")
/// ```
public final class LightweightMigration: Migration, @unchecked Sendable {
    /// The store's file, symbolic links resolved (see ``StoreLocation``).
    public let store: URL
    public let sourceModel: ObjectModel
    public let destinationModel: ObjectModel
    /// The inferred mapping.
    public let mapping: MappingModel
    public let options: MigrationOptions
    public let context: RunContext
    /// Whether this is the whole run or a step of an upgrade.
    let role: RunRole
    /// The mapping worked out once, for the in-place plan and the heavyweight engine alike.
    let resolver: MappingResolver
    /// Whether the caller, holding the store's lock, found it is not at the destination yet
    /// (``StoreMigration``): the run need not read the store's metadata again to know.
    var knownNotMigrated = false

    /// Infers the mapping; throws Core Data's 134190 with every reason when it cannot be.
    public convenience init(
        store: URL, source: ObjectModel, destination: ObjectModel, options: MigrationOptions = MigrationOptions(),
        context: RunContext = RunContext()
    ) throws {
        switch MappingInference.infer(from: source, to: destination) {
        case .inferred(let mapping):
            self.init(
                store: store, source: source, destination: destination, mapping: mapping, options: options,
                context: context)
        case .impossible(let reasons):
            throw Self.inferenceError(reasons, source: source, destination: destination)
        }
    }

    /// Uses `mapping`, which must be the inferred one (``/MoltMapping/MappingInference``) or one like it:
    /// anything the in-place path cannot run goes through the heavyweight engine.
    public convenience init(
        store: URL, source: ObjectModel, destination: ObjectModel, mapping: MappingModel,
        options: MigrationOptions = MigrationOptions(), context: RunContext = RunContext()
    ) {
        self.init(
            store: store, source: source, destination: destination, mapping: mapping, options: options,
            context: context, role: .whole)
    }

    init(
        store: URL, source: ObjectModel, destination: ObjectModel, mapping: MappingModel,
        options: MigrationOptions, context: RunContext, role: RunRole
    ) {
        self.store = (try? StoreLocation(store).url) ?? store
        self.sourceModel = source
        self.destinationModel = destination
        self.mapping = mapping
        self.options = options
        self.context = context
        self.role = role
        self.resolver = MappingResolver(source: source, destination: destination, mappingModel: mapping)
    }

    /// Runs the migration: in place when it can, otherwise with the heavyweight engine.
    @discardableResult
    public func run() throws -> MigrationReport {
        let started = Date()
        // One migration at a time, decided before anything is read (`MigrationLock`); the
        // heavyweight engine, when it runs instead, works under the same lock.
        return try context.withRecoveredStore(store, wait: options.lockWait, readOnly: options.dryRun) { _, _ in
            try run(started: started)
        }
    }

    /// How the run would go (``MigrationPlan``): in place, or object by object and why, worked
    /// out as ``run()`` works it out, under the store's migration lock and after recovery; nil
    /// when the store is already at the destination version. The store is not changed (beyond
    /// finishing an interrupted migration, as every run does).
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

    /// The one plan of the run (``MigrationPlanner``): in place, or object by object when SQL
    /// cannot do the mapping exactly.
    private func makePlan(started: Date) throws -> (plan: MigrationPlan, work: PlannedWork) {
        let policyTypes = Dictionary(
            mapping.entityMappings.filter(\.kind.readsSource).map {
                ($0.name, DefaultEntityMigrationPolicy.self as EntityMigrationPolicy.Type)
            }, uniquingKeysWith: { first, _ in first })
        return try MigrationPlanner(
            store: store, source: sourceModel, destination: destinationModel, mappings: [mapping],
            resolvers: [resolver], policyTypes: [policyTypes], options: options, inPlaceAllowed: true,
            started: started
        ).make()
    }

    private func run(started: Date) throws -> MigrationReport {
        let logger = context.logger
        if !knownNotMigrated,
            let done = try AlreadyMigrated.report(
                store, source: sourceModel, destination: destinationModel, dryRun: role.isDryRun(options),
                logger: logger)
        {
            return done
        }
        // Refused now rather than after every pass: a store this process cannot write.
        if !role.isDryRun(options) { try StoreAccess.requireWritable(store) }
        let (plan, work) = try makePlan(started: started)
        if plan.route == .inPlace, let inPlace = work.inPlace {
            let migration = InPlaceMigration(
                url: store, source: sourceModel, destination: destinationModel, plan: inPlace, options: options,
                context: context, role: role)
            var report: MigrationReport
            do {
                report = try migration.run(started: started)
            } catch let obstacle as InPlaceObstacle {
                throw MigrationErrors.changedAfterPlanning(obstacle.reason)
            }
            report.plan = plan
            report.duration = Date().timeIntervalSince(started)
            return report
        }
        logger.info(
            "cannot migrate in place; copying instead",
            metadata: ["molt.store": "\(store.path)", "molt.reason": "\(plan.reason)"])
        let migration = HeavyweightMigration(
            store: store, source: sourceModel, destination: destinationModel, mappings: [mapping],
            options: options, context: context, role: role, resolvers: [resolver], planned: (plan, work))
        var report = try migration.run()
        report.inPlaceObstacle = plan.reason
        return report
    }

    /// Core Data's 134190, listing why the mapping cannot be inferred.
    static func inferenceError(
        _ reasons: [InferenceReason], source: ObjectModel, destination: ObjectModel
    )
        -> MoltError
    {
        MoltError(
            .inferredMapping,
            "a mapping from \(source.name ?? "the source model") to \(destination.name ?? "the destination model") cannot be inferred: \(reasons.first?.description ?? "")"
                + (reasons.count > 1 ? " (and \(reasons.count - 1) more)" : ""),
            recovery: "Write a mapping file for this step; `molt infer` prints a starting point and every reason.",
            details: reasons.map(\.description))
    }
}
