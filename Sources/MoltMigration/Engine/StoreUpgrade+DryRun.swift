internal import Foundation
internal import Logging
internal import MoltCore
internal import MoltModel
internal import MoltStore

extension StoreUpgrade {
    /// Runs the upgrade on a copy of the store beside it, then deletes the copy.
    func dryRun(started: Date, recovery: StoreRecovery.Outcome) throws -> UpgradeReport {
        let copy = store.deletingLastPathComponent().appendingPathComponent(
            ".\(store.lastPathComponent).molt-dryrun-upgrade-\(UUID().uuidString)")
        // Read through a read-only connection: a dry run writes nothing of the store.
        try UpgradeBackup.snapshot(store, to: copy.path, logger: context.logger)
        defer { UpgradeBackup.remove(copy.path) }
        // The copy is another store, under a lock of its own, sharing this run's cancellation.
        let upgrade = StoreUpgrade(
            store: copy, planner: planner, to: destination, options: options, context: context, role: .dryRunCopy)
        upgrade.progress = progress
        upgrade.allowsEmbeddedSourceModel = allowsEmbeddedSourceModel
        var report = try upgrade.run()
        report.dryRun = true
        report.recovery = recovery
        report.duration = Date().timeIntervalSince(started)
        return report
    }
}
