import Molt

/// One step of an upgrade, planned or run.
struct StepJSON: Encodable {
    let from: String
    let to: String
    /// `lightweight` or `heavyweight`.
    let kind: String
    /// The mapping files of a heavyweight step, in pass order.
    let mappingFiles: [String]
    /// The app's stage around the step, if any.
    let stage: String?
    /// Planned: what the step discards (counted in the store for the first step).
    let discards: [DiscardJSON]
    /// Planned: the step's forecast route, each pass and each mapping's relate strategy.
    let plan: RouteJSON?

    init(_ step: UpgradeStep) {
        from = step.sourceModel.name ?? step.from.name
        to = step.destinationModel.name ?? step.to.name
        kind = step.kind.rawValue
        mappingFiles = step.mappingFiles.map(\.name)
        stage = step.stage?.name
        discards = step.discards.map(DiscardJSON.init)
        plan = step.plan.map(RouteJSON.init)
    }
}

/// `upgrade --plan --json`.
struct PlanJSON: Encodable {
    let storeVersion: String
    let destination: String
    let upToDate: Bool
    /// How the version order was found.
    let order: String
    let steps: [StepJSON]
    let unusedMappingFiles: [String]
    /// A stage's `didMigrate` an interrupted upgrade left to do.
    let pendingDidMigrate: String?
    let interruptedMigration: Bool
    /// Another migration of the store running now, as the lock says.
    let runningMigration: String?
    let usesEmbeddedSourceModel: Bool

    init(_ plan: UpgradePlan) {
        storeVersion = plan.storeVersion.name
        destination = plan.destinationName
        upToDate = plan.isUpToDate
        order = plan.orderSource
        steps = plan.steps.map(StepJSON.init)
        unusedMappingFiles = plan.unusedMappingFiles.map(\.description)
        pendingDidMigrate = plan.pendingDidMigrate?.name
        interruptedMigration = plan.interruptedMigration
        runningMigration = plan.runningMigration?.description
        usesEmbeddedSourceModel = plan.usesEmbeddedSourceModel
    }
}

/// `upgrade --json` (and `--dry-run --json`).
struct UpgradeJSON: Encodable {
    struct Step: Encodable {
        let step: StepJSON
        let inPlace: Bool
        let handlersRun: [String]
        let seconds: Double
        let migration: MigrationJSON
    }

    let storeVersion: String
    let destination: String
    let dryRun: Bool
    let upToDate: Bool
    /// What recovery found before the upgrade: `nothingToDo`, `finishedSwap` or
    /// `removedUnfinishedMigration`.
    let recovery: String
    let resumedStage: String?
    let usedEmbeddedSourceModel: Bool
    let seconds: Double
    let steps: [Step]
    let backup: String?

    init(_ report: UpgradeReport) {
        storeVersion = report.storeVersion
        destination = report.destination
        dryRun = report.dryRun
        upToDate = report.wasUpToDate
        recovery = "\(report.recovery)"
        resumedStage = report.resumedStage
        usedEmbeddedSourceModel = report.usedEmbeddedSourceModel
        seconds = (report.duration * 1000).rounded() / 1000
        steps = report.steps.map {
            Step(
                step: StepJSON($0.step), inPlace: $0.inPlace, handlersRun: $0.handlersRun.map(\.rawValue),
                seconds: ($0.duration * 1000).rounded() / 1000,
                migration: MigrationJSON(
                    $0.migration, from: $0.step.sourceModel.name ?? $0.step.from.name,
                    to: $0.step.destinationModel.name ?? $0.step.to.name))
        }
        backup = report.backup
    }
}
