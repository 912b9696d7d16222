import MoltMapping

/// The relate pass's strategy for a mapping whose policy has its own `createRelationships`, or
/// whose values need the objects visited in order: the policy's `createRelationships` for each
/// destination object in turn, as Core Data calls it. The other two strategies
/// (``SetBasedRelate``, ``PassState/relateBatchByDefault(_:mapping:plan:skipping:each:)``) give
/// the same store where they apply.
struct ObjectByObjectRelate {
    let policy: EntityMigrationPolicy
    /// The policies' view of the run, handed to each call.
    let manager: MigrationManager

    /// Calls the policy for each of `objects` (destinations of `mapping`, in the pass's
    /// order); `each` is called after each object.
    func relate(
        _ objects: [DestinationObject], mapping: EntityMapping, state: PassState, each: () throws -> Void
    ) throws {
        for object in objects {
            try state.checkCancelled()
            try PolicyCall.run(mapping, "createRelationships", object: object.id, state: state) {
                try policy.createRelationships(forDestination: object, in: mapping, manager: manager)
            }
            try each()
        }
    }
}
