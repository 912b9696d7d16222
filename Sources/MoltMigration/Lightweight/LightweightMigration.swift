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
public final class LightweightMigration: @unchecked Sendable {
    /// The store's file, symbolic links resolved (see ``StoreLocation``).
    public let store: URL
    public let sourceModel: ObjectModel
    public let destinationModel: ObjectModel
    /// The inferred mapping.
    public let mapping: MappingModel
    public let options: MigrationOptions

    /// Infers the mapping; throws Core Data's 134190 with every reason when it cannot be.
    public convenience init(
        store: URL, source: ObjectModel, destination: ObjectModel, options: MigrationOptions = MigrationOptions()
    ) throws {
        switch MappingInference.infer(from: source, to: destination) {
        case .inferred(let mapping):
            self.init(store: store, source: source, destination: destination, mapping: mapping, options: options)
        case .impossible(let reasons):
            throw Self.inferenceError(reasons, source: source, destination: destination)
        }
    }

    /// Uses `mapping`, which must be the inferred one (``/MoltMapping/MappingInference``) or one like it:
    /// anything the in-place path cannot run goes through the heavyweight engine.
    public init(
        store: URL, source: ObjectModel, destination: ObjectModel, mapping: MappingModel,
        options: MigrationOptions = MigrationOptions()
    ) {
        self.store = (try? StoreLocation(store).url) ?? store
        self.sourceModel = source
        self.destinationModel = destination
        self.mapping = mapping
        self.options = options
    }

    /// Runs the migration: in place when it can, otherwise with the heavyweight engine.
    @discardableResult
    public func run() throws -> MigrationReport {
        let started = Date()
        let logger = options.logger
        // One migration at a time, decided before anything is read (``MigrationLock``).
        let (migrationLock, ownsLock) = try MigrationLock.forRun(store: store, options: options)
        defer { if ownsLock { migrationLock.release() } }
        var options = options
        options.heldLock = migrationLock
        try StoreRecovery.recover(locked: migrationLock, logger: logger)
        guard FileManager.default.fileExists(atPath: store.path) else { throw FileErrors.missing(store.path) }
        if let done = try AlreadyMigrated.report(
            store, source: sourceModel, destination: destinationModel, dryRun: options.dryRun, logger: logger)
        {
            return done
        }
        do {
            let plan = try InPlacePlan(
                source: try StoreLayout(model: sourceModel), destination: try StoreLayout(model: destinationModel),
                mapping: mapping, expressions: RowExpressions(startDate: started))
            let migration = InPlaceMigration(
                url: store, source: sourceModel, destination: destinationModel, plan: plan, options: options)
            setActive(.inPlace(migration))
            defer { setActive(nil) }
            var report = try migration.run(started: started)
            report.duration = Date().timeIntervalSince(started)
            return report
        } catch let obstacle as InPlaceObstacle {
            logger.info(
                "cannot migrate in place; copying instead",
                metadata: ["molt.store": "\(store.path)", "molt.reason": "\(obstacle.reason)"])
            let migration = HeavyweightMigration(
                store: store, source: sourceModel, destination: destinationModel, mapping: mapping, options: options)
            setActive(.heavyweight(migration))
            defer { setActive(nil) }
            var report = try migration.run()
            report.inPlaceObstacle = obstacle.reason
            return report
        }
    }

    /// Stops a running migration (from any thread); it fails with 134120 and changes nothing.
    public func cancel() {
        lock.lock()
        defer { lock.unlock() }
        cancelled = true
        switch active {
        case .inPlace(let migration)?: migration.cancel()
        case .heavyweight(let migration)?: migration.cancel()
        case nil: break
        }
    }

    private enum Running {
        case inPlace(InPlaceMigration)
        case heavyweight(HeavyweightMigration)
    }

    private let lock = NSLock()
    private var active: Running?
    private var cancelled = false

    private func setActive(_ running: Running?) {
        lock.lock()
        active = running
        let cancel = cancelled
        lock.unlock()
        if cancel, running != nil { self.cancel() }
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
