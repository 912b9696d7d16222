internal import Foundation
internal import Logging
internal import MoltCore
internal import MoltModel
internal import MoltStore

/// The app's own code around an upgrade's steps (``UpgradeStage``), and the record in the
/// store's metadata that lets an interrupted upgrade resume its handlers.
extension StoreUpgrade {
    /// Runs one handler of `stage` in a transaction on the store bound to `model`, and records
    /// in the same transaction that it completed. A stage without that handler records only
    /// the mark (before its step: so that its `didMigrate` is known to be due after a crash).
    func runHandler(
        _ stage: UpgradeStage, _ phase: UpgradeStage.Phase, model: ObjectModel, index: Int?, of count: Int,
        step: UpgradeStep? = nil
    ) throws {
        let handler = stage.handler(phase)
        if handler != nil { notify(index, count, step, .handlerStarted(stage, phase)) }
        let sqlite = try SQLiteStore(at: store, readOnly: false, logger: context.logger)
        defer { sqlite.connection.close() }
        let objects = try ObjectStore(store: sqlite, model: model)
        try objects.write { writer in
            if let handler {
                do {
                    try handler(UpgradeStage.Context(store: objects, writer: writer, stage: stage, phase: phase))
                } catch {
                    let cause = (error as? MoltError).map { $0.description } ?? String(describing: error)
                    throw MoltError(
                        .migration, "the \(phase.rawValue) handler of the upgrade stage \(stage.name) failed: \(cause)",
                        location: SourceLocation(file: store.path),
                        recovery:
                            "Nothing the handler did was saved. Fix the problem and run the upgrade again: it continues where it stopped.",
                        underlying: error)
                }
            }
            var metadata = objects.store.metadata
            metadata.additionalEntries[Self.progressKey] = UpgradeMark(stage: stage, completed: phase).propertyList
            try objects.store.writeMetadata(metadata)
            FaultPoint.reach("upgrade.handler-before-commit")
        }
        FaultPoint.reach("upgrade.handler-committed")
        if handler != nil { notify(index, count, step, .handlerFinished(stage, phase)) }
    }

    /// Checks the store reached the step's version, and that the stage's record survived the
    /// migration (migrations keep other metadata keys); writes it again if it did not.
    func confirmVersion(after step: UpgradeStep) throws {
        let sqlite = try SQLiteStore(at: store, readOnly: step.stage == nil, logger: context.logger)
        defer { sqlite.connection.close() }
        guard sqlite.metadata.entityVersionHashes == step.to.hashes else {
            throw MoltError(
                .migration, "after the step \(step), the store is not at \(step.to.name)",
                location: SourceLocation(file: store.path))
        }
        guard let stage = step.stage else { return }
        let expected = UpgradeMark(stage: stage, completed: .willMigrate)
        if UpgradeMark(sqlite.metadata.additionalEntries[Self.progressKey]) != expected {
            context.logger.warning(
                "the migration dropped the upgrade's progress record; writing it again",
                metadata: ["molt.store": "\(store.path)", "molt.stage": "\(stage.name)"])
            var metadata = sqlite.metadata
            metadata.additionalEntries[Self.progressKey] = expected.propertyList
            try sqlite.writeMetadata(metadata)
        }
    }

    /// Removes the progress record, when there is one.
    func removeMark() throws {
        guard (try SQLiteStore(at: store, logger: context.logger)).metadata.additionalEntries[Self.progressKey] != nil
        else { return }
        let sqlite = try SQLiteStore(at: store, readOnly: false, logger: context.logger)
        defer { sqlite.connection.close() }
        var metadata = sqlite.metadata
        metadata.additionalEntries[Self.progressKey] = nil
        try sqlite.writeMetadata(metadata)
    }
}
