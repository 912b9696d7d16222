import MoltCore
import MoltMapping
import MoltStore

/// Pass 3: every destination object is checked against the destination model's rules (see
/// ``StoreValidation``), then each policy's `performCustomValidation` runs; every failure is
/// collected. After the policies' `end` hooks, the uniqueness constraints are checked (Core
/// Data checks them when the destination is saved, so an `end` hook may remove duplicates
/// first), and the objects again if `end` hooks changed the store. The migration fails with
/// Core Data's code: the one failure's (1570…1680, 133021 for a uniqueness constraint), or
/// 1560 for several.
struct ValidatePass {
    let state: PassState
    /// The policies' view of the state, handed to each hook.
    let manager: MigrationManager
    /// The pass's policy of each entity mapping, by mapping name.
    let policies: [String: EntityMigrationPolicy]
    let progress: ProgressReporter
    let batchSize: Int

    static let recovery =
        "Change the mapping (or its policy) so the destination objects are valid; the store was not changed."

    /// Checks every object (not the uniqueness constraints), then runs the policies'
    /// `performCustomValidation`; throws what failed.
    func run() throws {
        var validation = try checkObjects()
        try runCustomValidation(into: &validation)
        if let error = validation.error(recovery: Self.recovery) { throw error }
    }

    /// The policies' `performCustomValidation` alone (an earlier pass of several); throws
    /// what failed.
    func runCustomValidation() throws {
        var validation = StoreValidation(store: state.destination, batchSize: batchSize)
        try runCustomValidation(into: &validation)
        if let error = validation.error(recovery: Self.recovery) { throw error }
    }

    /// The uniqueness constraints, and every object again when `objectsChanged`.
    func checkFinal(objectsChanged: Bool) throws {
        var validation = StoreValidation(store: state.destination, batchSize: batchSize)
        try validation.checkObjects(objects: objectsChanged, checkCancelled: state.checkCancelled) { _, _ in }
        if let error = validation.error(recovery: Self.recovery) { throw error }
    }

    private func checkObjects() throws -> StoreValidation {
        var validation = StoreValidation(store: state.destination, batchSize: batchSize)
        validation.rowsAreWellFormed = true  // every row is one this run wrote
        let total = try validation.objectCount()
        try validation.checkObjects(uniqueness: false, checkCancelled: state.checkCancelled) { entity, done in
            progress.report(.validate, entity, done, total)
        }
        progress.report(.validate, nil, total, total, force: true)
        return validation
    }

    private func runCustomValidation(into validation: inout StoreValidation) throws {
        for mapping in state.mappingModel.entityMappings where mapping.kind.readsSource {
            guard let policy = policies[mapping.name] else { continue }
            state.begin(mapping)
            do {
                try policy.performCustomValidation(forMapping: mapping, manager: manager)
            } catch let error as MoltError where error.code.rawValue >= 1550 && error.code.rawValue < 1700 {
                validation.record(
                    StoreValidation.Failure(
                        code: error.code, object: ObjectID(entity: mapping.name, primaryKey: 0),
                        property: error.property, message: error.message))
            } catch {
                try PolicyCall.run(mapping, "performCustomValidation") { throw error }
            }
        }
    }
}
