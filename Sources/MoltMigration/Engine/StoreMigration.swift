public import Foundation
internal import Logging
internal import MoltCore
public import MoltMapping
public import MoltModel
internal import MoltStore

/// One step of a store to a destination model, from what a user has: the store, the models
/// (a bundle whose version matching the store is the source, or one model), and the step's
/// mapping models (one, several passes, or none for an inferred mapping). It is what
/// `molt migrate` runs, and the library's entry point for one step (``StoreUpgrade`` takes a
/// store across many).
///
/// ``run()`` does everything in one place, in order, under the store's migration lock:
/// 1. an interrupted migration of the store is finished or undone (`StoreRecovery`);
/// 2. a store already at the destination version is nothing to do (which is not an error);
/// 3. the source model is chosen: the version given, else the version whose hashes match the
///    store, else (with ``allowsEmbeddedSourceModel``) the store's own embedded model; a
///    mapping file that starts at another version is refused, naming both;
/// 4. the run is planned once (``MigrationPlan``) and carried out: in place, SQL on a copy, or
///    object by object (``LightweightMigration``, ``HeavyweightMigration``).
///
/// ```swift
/// import Foundation
/// import Molt
///
/// let bundle = try ModelBundle(url: URL(fileURLWithPath: "Blog.xcdatamodeld"))
/// let migration = StoreMigration(
///     store: URL(fileURLWithPath: "Blog.sqlite"), from: .bundle(bundle),
///     to: try bundle.model(named: "Blog 2"),
///     mappings: [try MappingReader().read(contentsOf: URL(fileURLWithPath: "Blog-to-Blog2.xml"))])
/// print(try migration.plan() ?? "already migrated")   // the route, and why
/// let report = try migration.run()
/// ```
public final class StoreMigration: Migration, @unchecked Sendable {
    /// The store's file, symbolic links resolved (see ``StoreLocation``).
    public let store: URL
    /// Where the source model comes from: one model, or a bundle's versions.
    public let source: ModelSource
    /// A version of ``source`` to use whatever the store's hashes say (nil: the matching one).
    public let sourceVersion: String?
    public let destination: ObjectModel
    /// The step's mapping models, run in order into one new store; empty for a mapping
    /// inferred as Core Data's lightweight migration infers it.
    public let mappings: [MappingModel]
    public let options: MigrationOptions
    public let context: RunContext
    /// When no version of ``source`` matches the store, use the store's own embedded model
    /// (`Z_MODELCACHE`) if its hashes match the store. Set it before ``plan()`` or ``run()``.
    public var allowsEmbeddedSourceModel = false

    public init(
        store: URL, from source: ModelSource, version sourceVersion: String? = nil, to destination: ObjectModel,
        mappings: [MappingModel] = [], options: MigrationOptions = MigrationOptions(),
        context: RunContext = RunContext()
    ) {
        self.store = (try? StoreLocation(store).url) ?? store
        self.source = source
        self.sourceVersion = sourceVersion
        self.destination = destination
        self.mappings = mappings
        self.options = options
        self.context = context
    }

    /// Runs the step. The report says which source model was used
    /// (``MigrationReport/sourceModelName``, ``MigrationReport/usedEmbeddedSourceModel``), or
    /// that the store was already at the destination.
    @discardableResult
    public func run() throws -> MigrationReport {
        try context.withRecoveredStore(store, wait: options.lockWait, readOnly: options.dryRun) { lock, _ in
            let sqlite = try SQLiteStore(at: store, readOnly: true, logger: context.logger)
            defer { sqlite.connection.close() }
            if try isAtDestination(sqlite) {
                var report = MigrationReport()
                report.alreadyMigrated = true
                report.dryRun = options.dryRun
                report.sourceModelName = destination.name
                report.destinationModelName = destination.name
                return report
            }
            let (model, embedded) = try sourceModel(sqlite, waited: lock.waited)
            sqlite.connection.close()
            var report = try driver(from: model, knownNotMigrated: true).run()
            report.sourceModelName = model.name
            report.destinationModelName = destination.name
            report.usedEmbeddedSourceModel = embedded
            return report
        }
    }

    /// How ``run()`` would go now: the plan, worked out as the run works it out, under the
    /// store's migration lock; nil when the store is already at the destination version.
    /// Nothing is migrated.
    public func plan() throws -> MigrationPlan? {
        try context.withRecoveredStore(store, wait: options.lockWait, readOnly: true) { lock, _ in
            let sqlite = try SQLiteStore(at: store, readOnly: true, logger: context.logger)
            defer { sqlite.connection.close() }
            if try isAtDestination(sqlite) { return nil }
            let (model, _) = try sourceModel(sqlite, waited: lock.waited)
            return mappings.isEmpty
                ? try (driver(from: model) as? LightweightMigration)?.plan()
                : try (driver(from: model) as? HeavyweightMigration)?.plan()
        }
    }

    /// The source model a run would use now, and whether it is the store's embedded one.
    public func chosenSourceModel() throws -> (model: ObjectModel, embedded: Bool) {
        try context.withRecoveredStore(store, wait: options.lockWait, readOnly: true) { lock, _ in
            let sqlite = try SQLiteStore(at: store, readOnly: true, logger: context.logger)
            defer { sqlite.connection.close() }
            return try sourceModel(sqlite, waited: lock.waited)
        }
    }

    private func isAtDestination(_ sqlite: SQLiteStore) throws -> Bool {
        sqlite.metadata.entityVersionHashes == (try destination.entityVersionHashes())
    }

    /// The driver of the step: in place or heavyweight, by whether there are mapping models.
    /// `knownNotMigrated`: the store was just found not at the destination, under the lock
    /// the run holds, so the driver need not look again.
    private func driver(from source: ObjectModel, knownNotMigrated: Bool = false) throws -> StepDriver {
        if mappings.isEmpty {
            let driver = try LightweightMigration(
                store: store, source: source, destination: destination, options: options, context: context)
            driver.knownNotMigrated = knownNotMigrated
            return driver
        }
        let driver = HeavyweightMigration(
            store: store, source: source, destination: destination, mappings: mappings, options: options,
            context: context)
        driver.knownNotMigrated = knownNotMigrated
        return driver
    }

    /// The source model: the version asked for, or the one whose hashes match the store (the
    /// embedded model when allowed); a mapping that starts at another version is refused.
    private func sourceModel(_ sqlite: SQLiteStore, waited: Bool) throws -> (ObjectModel, Bool) {
        if let sourceVersion {
            switch source {
            case .model(let model):
                guard model.name == nil || model.name == sourceVersion else {
                    throw MoltError(
                        .fileReadNoSuchFile,
                        "the source version \"\(sourceVersion)\" names a bundle version, but the source is a single model"
                    )
                }
                return (model, false)
            case .bundle(let bundle):
                return (try bundle.model(named: sourceVersion), false)
            }
        }
        let choice = try sqlite.sourceModel(from: source, allowsEmbeddedSourceModel: allowsEmbeddedSourceModel)
        let model = choice.model
        if !choice.isEmbedded, let expected = mappings.first(where: { $0.sourceModelName != nil })?.sourceModelName,
            let actual = model.name, expected != actual
        {
            throw MoltError(
                .missingMappingModel,
                "the store is at version \"\(actual)\", but the mapping file goes from \"\(expected)\"\(waited ? " (another migration changed the store while this one waited)" : "")",
                location: SourceLocation(file: store.path),
                recovery: "Use the mapping file that starts at \"\(actual)\" (or --from-version to insist).")
        }
        return (model, choice.isEmbedded)
    }
}

/// A migration of one step, whichever engine runs it.
private typealias StepDriver = any Migration<MigrationReport>
