import MoltCore
import MoltMapping
import MoltStore

/// Pass 3: every destination object is checked against the destination model's rules (see
/// ``StoreValidation``), then each policy's `performCustomValidation` runs. Every failure is
/// collected and the migration fails with Core Data's code: the one failure's (1570…1680,
/// 133021 for a uniqueness constraint), or 1560 for several.
struct ValidatePass {
    let manager: MigrationManager
    let progress: ProgressReporter
    let batchSize: Int

    func run() throws {
        var validation = StoreValidation(store: manager.destination, batchSize: batchSize)
        let total = try validation.objectCount()
        try validation.checkObjects(checkCancelled: manager.checkCancelled) { entity, done in
            progress.report(.validate, entity, done, total)
        }
        for mapping in manager.mappingModel.entityMappings where mapping.kind.readsSource {
            guard let policy = manager.policies[mapping.name] else { continue }
            manager.begin(mapping)
            do {
                try policy.performCustomValidation(mapping, manager: manager)
            } catch let error as MoltError where error.code.rawValue >= 1550 && error.code.rawValue < 1700 {
                validation.record(
                    StoreValidation.Failure(
                        code: error.code, object: ObjectID(entity: mapping.name, primaryKey: 0),
                        property: error.property, message: error.message))
            } catch {
                try PolicyCall.run(mapping, "performCustomValidation") { throw error }
            }
        }
        progress.report(.validate, nil, total, total, force: true)
        if let error = validation.error(
            recovery:
                "Change the mapping (or its policy) so the destination objects are valid; the store was not changed.")
        {
            throw error
        }
    }
}
