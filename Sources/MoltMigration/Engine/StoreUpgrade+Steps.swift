internal import Foundation
internal import Logging
internal import MoltCore
internal import MoltModel
internal import MoltStore

/// An upgrade's steps: each a migration of the store under the upgrade's lock and
/// cancellation, its progress turned into the upgrade's.
extension StoreUpgrade {

    func checkCancelled() throws {
        if context.isCancelled {
            throw MoltError(
                .migrationCancelled, "the upgrade was cancelled", location: SourceLocation(file: store.path),
                recovery: "Run it again when ready: it continues from the version the store is at.")
        }
    }

    func notify(_ index: Int?, _ count: Int, _ step: UpgradeStep?, _ event: UpgradeProgress.Event) {
        guard let progress else { return }
        var fraction = 0.0
        if let index, count > 0 {
            switch event {
            case .migrating(let migration): fraction = (Double(index) + migration.fraction) / Double(count)
            case .stepFinished: fraction = Double(index + 1) / Double(count)
            default: fraction = Double(index) / Double(count)
            }
        }
        progress(
            UpgradeProgress(stepIndex: index, stepCount: count, step: step, event: event, fraction: min(1, fraction)))
    }

    /// Runs one step on the store, under the upgrade's lock and cancellation, its progress
    /// reported to `progress`.
    func migrate(
        _ step: UpgradeStep, backsUp: Bool, progress: @escaping @Sendable (MigrationProgress) -> Void
    ) throws -> MigrationReport {
        let stepContext = context.reporting(to: progress)
        switch step.kind {
        case .lightweight:
            return try LightweightMigration(
                store: store, source: step.sourceModel, destination: step.destinationModel, mapping: step.mapping,
                options: options, context: stepContext, role: .upgradeStep(backsUp: backsUp)
            ).run()
        case .heavyweight:
            return try HeavyweightMigration(
                store: store, source: step.sourceModel, destination: step.destinationModel, mappings: step.mappings,
                options: options, context: stepContext, role: .upgradeStep(backsUp: backsUp)
            ).run()
        }
    }

    /// How `step` would run, planned as its run plans it (``MigrationPlanner``) but from the
    /// store as it is now and without the lock.
    func forecast(_ step: UpgradeStep) throws -> MigrationPlan {
        let role = RunRole.upgradeStep(backsUp: false)
        switch step.kind {
        case .lightweight:
            return try LightweightMigration(
                store: store, source: step.sourceModel, destination: step.destinationModel, mapping: step.mapping,
                options: options, context: context, role: role
            ).forecast()
        case .heavyweight:
            return try HeavyweightMigration(
                store: store, source: step.sourceModel, destination: step.destinationModel, mappings: step.mappings,
                options: options, context: context, role: role
            ).forecast()
        }
    }
}
