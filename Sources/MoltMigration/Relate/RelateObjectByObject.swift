/// The relate strategy for a mapping whose policy has its own `createRelationships`, or whose
/// values need the objects visited in order: the policy's `createRelationships` for each
/// destination object in turn, as Core Data calls it. The reference the other strategies
/// (``RelateInSQL``, ``RelateInBatches``) are held to; it takes every mapping and never
/// declines, so it ends every chain.
struct RelateObjectByObject: RelateStrategy {
    static let kind = RelatePlan.Strategy.objectByObject
    static let declinesWhen: String? = nil

    /// Takes the mapping; the reason is why the strategy before it declined.
    static func plan(_ facts: RelateFacts, after declined: [String]) -> RelateChoice {
        .take(RelateObjectByObject(), reason: declined.last ?? "its relationships need its objects visited in order")
    }

    func relate(_ job: RelateJob) throws -> RelateResult {
        let state = job.state
        try job.forEachBatch(relationshipsOnly: false, reads: nil) { objects in
            for object in objects {
                try state.checkCancelled()
                try PolicyCall.run(job.mapping, "createRelationships", object: object.id, state: state) {
                    try job.policy.createRelationships(forDestination: object, in: job.mapping, manager: job.manager)
                }
                try job.step()
            }
        }
        return .done
    }
}
