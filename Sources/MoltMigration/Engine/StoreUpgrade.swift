public import Foundation
internal import Logging
internal import MoltCore
internal import MoltModel
internal import MoltStore

/// Migrates a store across as many model versions as it takes to reach a destination version:
/// lightweight steps where inference does it, heavyweight steps where a mapping file exists,
/// with the app's own code (``UpgradeStage``) around the steps it names.
///
/// ``plan()`` says what will happen without touching the store (see ``UpgradePlanner`` for the
/// rules). ``run()`` first finishes or undoes an interrupted migration (`StoreRecovery`), then
/// plans from the version the store is at, and runs each step: a lightweight step with
/// ``LightweightMigration``, a heavyweight one with ``HeavyweightMigration``. Each step is
/// complete or not done at all, so a crash between steps leaves the store at some version on
/// the way, and running the upgrade again continues from there (the store's hashes say which).
/// Stage handlers are resumed through a record in the store's metadata (``progressKey``),
/// removed when the upgrade completes.
///
/// With `options.backup`, the store as it was before the upgrade is kept beside it (by the
/// first step, or copied before anything is written when a stage handler runs first). With
/// `options.dryRun`, the upgrade runs on a temporary copy, which is then deleted.
///
/// ```swift
/// let upgrade = StoreUpgrade(
///     store: storeURL,
///     versions: try UpgradeVersions(contentsOf: bundleURL),
///     mappingFiles: try UpgradeMappingFile.readFolder(mappingsURL),
///     order: .automatic,
///     stages: [UpgradeStage(from: "Model 2", to: "Model 3", didMigrate: { context in /* … */ })])
/// upgrade.progress = { print($0) }                    // 40% overall · step 2/3: copy NoteToNote 10/50
/// print(try upgrade.plan())
/// let report = try upgrade.run()
/// ```
public final class StoreUpgrade: Migration, @unchecked Sendable {
    /// The store metadata key holding the upgrade's record of completed stage handlers.
    public static let progressKey = "MoltUpgradeProgress"

    /// The store's file, symbolic links resolved (see ``StoreLocation``).
    public let store: URL
    public let planner: UpgradePlanner
    /// The destination version's name; nil for the current version.
    public let destination: String?
    /// What the user asked for, passed to each step unchanged (the first step keeps the
    /// backup; the upgrade runs a dry run on a copy).
    public let options: MigrationOptions
    /// The run's logger and cancellation; each step reports its progress through the upgrade's
    /// ``progress``.
    public let context: RunContext
    /// Whether this is the whole run or the upgrade of a dry run's copy.
    let role: RunRole
    /// Called as the upgrade goes (from the upgrading thread). Set it before ``run()``.
    public var progress: (@Sendable (UpgradeProgress) -> Void)?
    /// When the store matches no version given, migrate it from its own embedded model
    /// (`Z_MODELCACHE`) if that model's hashes match the store: one lightweight step to the
    /// destination, as Core Data does with its model cache (see
    /// ``UpgradePlanner/plan(fromEmbedded:storePath:to:)``). Off by default: without it such a
    /// store fails with 134130. Set it before ``plan()`` or ``run()``.
    public var allowsEmbeddedSourceModel = false

    public convenience init(
        store: URL, versions: UpgradeVersions, mappingFiles: [UpgradeMappingFile],
        unreadableMappingFiles: [UnreadableMappingFile] = [], skippedMappingFiles: [UpgradeMappingFile] = [],
        order: VersionOrder = .automatic, to destination: String? = nil, stages: [UpgradeStage] = [],
        options: MigrationOptions = MigrationOptions(), context: RunContext = RunContext()
    ) {
        self.init(
            store: store,
            planner: UpgradePlanner(
                versions: versions, mappingFiles: mappingFiles, unreadableMappingFiles: unreadableMappingFiles,
                skippedMappingFiles: skippedMappingFiles, order: order, stages: stages),
            to: destination, options: options, context: context, role: .whole)
    }

    init(
        store: URL, planner: UpgradePlanner, to destination: String?, options: MigrationOptions, context: RunContext,
        role: RunRole
    ) {
        self.store = (try? StoreLocation(store).url) ?? store
        self.planner = planner
        self.destination = destination
        self.options = options
        self.context = context
        self.role = role
    }

    // MARK: Planning

    /// What ``run()`` would do now, read from the store without changing it.
    /// Each step's route (``UpgradeStep/plan``) is forecast from the store as it is now; a step
    /// that cannot be planned throws the error its run would stop with.
    public func plan() throws -> UpgradePlan {
        guard FileManager.default.fileExists(atPath: store.path) else { throw FileErrors.missing(store.path) }
        var plan = try plan(lockHeld: context.holdsMigrationLock(of: store))
        for index in plan.steps.indices {
            plan.steps[index].plan = try forecast(plan.steps[index])
        }
        return plan
    }

    /// The plan; `lockHeld` when the run holds the store's migration lock.
    func plan(lockHeld: Bool) throws -> UpgradePlan {
        guard FileManager.default.fileExists(atPath: store.path) else { throw FileErrors.missing(store.path) }
        let files = StoreFiles(store)
        // Files beside the store are another run's work while it holds the lock, leftovers
        // of an interrupted one otherwise.
        let running = lockHeld ? nil : MigrationLock.running(of: store)
        let interrupted =
            running == nil && (FileOperations.exists(files.new) || FileOperations.exists(files.intent))
        let sqlite = try SQLiteStore(at: store, snapshot: true, logger: context.logger)
        defer { sqlite.connection.close() }
        let metadata = sqlite.metadata
        var plan: UpgradePlan
        do {
            plan = try planner.plan(storeHashes: metadata.entityVersionHashes, storePath: store.path, to: destination)
        } catch var error as MoltError where allowsEmbeddedSourceModel && error.code == .missingSourceModel {
            guard let embedded = try sqlite.embeddedModel() else {
                error.details.append("the store has no embedded model (its Z_MODELCACHE is absent or empty)")
                throw error
            }
            guard embedded.matchesStore else {
                error.details.append("the store's embedded model does not match it either: \(embedded.compatibility)")
                throw error
            }
            context.logger.notice(
                "using the store's embedded model: its hashes match the store",
                metadata: ["molt.store": "\(store.path)"])
            var embeddedPlan = try planner.plan(fromEmbedded: embedded.model, storePath: store.path, to: destination)
            embeddedPlan.interruptedMigration = interrupted
            embeddedPlan.runningMigration = running
            if !interrupted { try countFirstStepDiscards(of: &embeddedPlan, in: sqlite) }
            return embeddedPlan
        }
        plan.interruptedMigration = interrupted
        plan.runningMigration = running
        if !interrupted { try countFirstStepDiscards(of: &plan, in: sqlite) }
        guard let mark = UpgradeMark(metadata.additionalEntries[Self.progressKey]) else { return plan }
        if mark.completed == .willMigrate, let stage = planner.stages.first(where: mark.isAbout) {
            if let to = planner.versions.schema(named: stage.to), to == plan.storeVersion, stage.didMigrate != nil {
                plan.pendingDidMigrate = stage
            } else if let first = plan.steps.first, first.stage.map(mark.isAbout) == true {
                plan.steps[0].willMigrateAlreadyDone = true
            }
        }
        return plan
    }

    /// Counts what the first step discards in the store as it is now (later steps start from
    /// stores that do not exist yet).
    func countFirstStepDiscards(of plan: inout UpgradePlan, in sqlite: SQLiteStore) throws {
        guard let first = plan.steps.first else { return }
        let objects = try MigrationErrors.bind(sqlite, toSource: first.sourceModel)
        plan.steps[0].discards = try DiscardSurvey(
            source: first.sourceModel, destination: first.destinationModel, mapping: first.surveyedMapping
        ).counted(in: objects)
    }

    // MARK: Running

    /// Stops the upgrade: the running step stops at once (and changes nothing), otherwise it
    /// stops before the next step or handler. It fails with 134120; completed steps stay done.
    public func cancel() {
        context.cancel()
    }

    /// Runs the upgrade.
    @discardableResult
    public func run() throws -> UpgradeReport {
        let started = Date()
        try checkCancelled()
        // One migration at a time, decided before anything is read (`MigrationLock`): the
        // plan is made from the store as it is once the lock is held; every step runs under it.
        return try context.withRecoveredStore(store, wait: options.lockWait, readOnly: options.dryRun) { _, recovery in
            try run(started: started, recovery: recovery)
        }
    }

    private func run(started: Date, recovery: StoreRecovery.Outcome) throws -> UpgradeReport {
        if role.isDryRun(options) { return try dryRun(started: started, recovery: recovery) }

        let plan = try self.plan(lockHeld: true)
        var reached = UpgradeReached(version: plan.storeVersion.name, steps: 0, of: plan.steps.count)
        do {
            return try run(plan, started: started, recovery: recovery, reached: &reached)
        } catch let error as MoltError {
            throw reached.stamp(error)
        }
    }

    /// Runs the steps of `plan`, noting in `reached` each one that finishes: an error after
    /// one says the version the store is at.
    private func run(
        _ plan: UpgradePlan, started: Date, recovery: StoreRecovery.Outcome, reached: inout UpgradeReached
    ) throws -> UpgradeReport {
        let logger = context.logger
        // A step that replaces the file must not split a file with several names.
        if plan.steps.contains(where: { $0.kind == .heavyweight }) { try StoreLocation(store).requireSingleName() }
        var report = UpgradeReport(storeVersion: plan.storeVersion.name, destination: plan.destinationName)
        report.recovery = recovery
        report.usedEmbeddedSourceModel = plan.usesEmbeddedSourceModel
        let count = plan.steps.count
        logger.debug(
            "upgrade planned",
            metadata: [
                "molt.store": "\(store.path)", "molt.from": "\(plan.storeVersion.name)",
                "molt.to": "\(plan.destinationName)", "molt.steps": "\(count)",
            ])
        // The first migration keeps the old store (a hard link) unless something writes to the
        // store before it; then the store is copied first.
        let writesFirst = plan.pendingDidMigrate != nil || plan.steps.first?.stage != nil
        var backupTaken = false
        if role.backsUp(options), count > 0 || plan.pendingDidMigrate != nil, writesFirst {
            let target = StoreFiles(store).backupName(at: started)
            try UpgradeBackup.copy(store, to: target, logger: logger)
            report.backup = target
            backupTaken = true
        }
        if let stage = plan.pendingDidMigrate {
            try checkCancelled()
            try runHandler(
                stage, .didMigrate, model: plan.storeVersion.model(preferring: stage.to), index: nil, of: count)
            report.resumedStage = stage.name
        }
        for (index, step) in plan.steps.enumerated() {
            let stepStarted = Date()
            FaultPoint.reach("upgrade.step-start")
            try checkCancelled()
            notify(index, count, step, .stepStarted)
            var handlers: [UpgradeStage.Phase] = []
            if let stage = step.stage, !step.willMigrateAlreadyDone {
                try runHandler(stage, .willMigrate, model: step.sourceModel, index: index, of: count, step: step)
                if stage.willMigrate != nil { handlers.append(.willMigrate) }
                try checkCancelled()
            }
            let backsUp = role.backsUp(options) && index == 0 && !backupTaken
            let migration = try migrate(step, backsUp: backsUp) { [weak self] progress in
                self?.notify(index, count, step, .migrating(progress))
            }
            if backsUp { report.backup = migration.backup }
            FaultPoint.reach("upgrade.step-migrated")
            try confirmVersion(after: step)
            reached.migrated(step)
            if let stage = step.stage {
                try runHandler(stage, .didMigrate, model: step.destinationModel, index: index, of: count, step: step)
                if stage.didMigrate != nil { handlers.append(.didMigrate) }
            }
            let stepReport = UpgradeStepReport(
                step: step, migration: migration, handlersRun: handlers,
                duration: Date().timeIntervalSince(stepStarted))
            report.steps.append(stepReport)
            notify(index, count, step, .stepFinished(stepReport))
            logger.debug(
                "upgrade step done",
                metadata: ["molt.step": "\(index + 1)/\(count)", "molt.description": "\(step)"])
        }
        FaultPoint.reach("upgrade.steps-done")
        try removeMark()
        FaultPoint.reach("upgrade.done")
        report.destination = plan.destinationName
        report.duration = Date().timeIntervalSince(started)
        return report
    }
}
