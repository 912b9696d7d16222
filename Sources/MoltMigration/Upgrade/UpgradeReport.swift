/// How far an upgrade has come, reported to ``StoreUpgrade/progress`` as it goes: which step of
/// how many, what is happening in it, and the fraction of the whole upgrade.
///
/// ```swift
/// upgrade.progress = { progress in
///     if case .stepStarted = progress.event { print("step \(progress.stepNumber) of \(progress.stepCount): \(progress.step!)") }
/// }
/// ```
public struct UpgradeProgress: Sendable, CustomStringConvertible {
    public enum Event: Sendable {
        /// A step begins (before its stage's `willMigrate`).
        case stepStarted
        /// A handler begins (for the pending `didMigrate` of an interrupted upgrade, ``step`` is nil).
        case handlerStarted(UpgradeStage, UpgradeStage.Phase)
        /// A handler's changes (and the record that it ran) are saved.
        case handlerFinished(UpgradeStage, UpgradeStage.Phase)
        /// The step's migration reports progress.
        case migrating(MigrationProgress)
        /// A step is complete, its `didMigrate` included.
        case stepFinished(UpgradeStepReport)
    }

    /// The step, counted from 0; nil before the first step.
    public let stepIndex: Int?
    public let stepCount: Int
    public let step: UpgradeStep?
    public let event: Event
    /// The whole upgrade, from 0 to 1: steps weigh the same.
    public let fraction: Double

    /// The step counted from 1 (0 before the first step).
    public var stepNumber: Int { (stepIndex ?? -1) + 1 }

    public var description: String {
        let percent = "\(Int((fraction * 100).rounded()))% overall ·"
        let prefix = "\(percent) step \(stepNumber)/\(stepCount)"
        switch event {
        case .stepStarted: return "\(prefix) \(step.map(\.description) ?? "")"
        case .handlerStarted(let stage, let phase): return "\(prefix) \(phase.rawValue) of stage \(stage.name)"
        case .handlerFinished(let stage, let phase): return "\(prefix) \(phase.rawValue) of stage \(stage.name) done"
        case .migrating(let progress): return "\(prefix): \(progress.activity)"
        case .stepFinished: return "\(prefix) done"
        }
    }
}

/// What one step of an upgrade did.
///
/// ```swift
/// for step in report.steps {
///     print(step.step, step.handlersRun, step.migration.destinationCounts)
/// }
/// ```
public struct UpgradeStepReport: Sendable {
    public let step: UpgradeStep
    /// The migration's own report (entity mappings, counts, in place or not).
    public let migration: MigrationReport
    /// The stage handlers that ran with this step.
    public let handlersRun: [UpgradeStage.Phase]
    /// Seconds, handlers included.
    public let duration: Double

    /// Whether the store was migrated in place with SQL rather than copied into a new file.
    public var inPlace: Bool { migration.inPlace }
}

/// What an upgrade did.
///
/// ```swift
/// let report = try upgrade.run()
/// for step in report.steps { print(step.step, step.inPlace ? "in place" : "copied", step.duration) }
/// ```
public struct UpgradeReport: Sendable {
    /// The version the store was at when the upgrade started.
    public var storeVersion: String
    /// The version it is at now.
    public var destination: String
    public var steps: [UpgradeStepReport] = []
    /// A `didMigrate` left by an interrupted upgrade that ran first ("V2 → V3").
    public var resumedStage: String?
    /// Where the store as it was before the upgrade was kept, when asked for.
    public var backup: String?
    /// Whether the upgrade ran on a temporary copy and left the store as it was.
    public var dryRun = false
    /// What recovery found of an interrupted migration before the upgrade started.
    public var recovery: RecoveryOutcome = .nothingToDo
    /// Seconds the upgrade took.
    public var duration: Double = 0
    /// Whether the store matched no version given and its embedded model was the source.
    public var usedEmbeddedSourceModel = false

    /// Whether the store was already at the destination.
    public var wasUpToDate: Bool { steps.isEmpty }
}
