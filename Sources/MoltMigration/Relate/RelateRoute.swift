/// How the relate pass sets one entity mapping's relationships, as the plan chose it, with
/// what carrying it out needs (the public side is ``RelatePlan``).
enum RelateRoute {
    /// Nothing to set: the policy keeps the default `createRelationships` and the mapping has
    /// no relationship value.
    case nothing
    /// In SQL; when the associations need objects after all, in batches (when `fallback` is
    /// given) or object by object.
    case setBased(SetBasedRelate, fallback: BatchedRelatePlan?)
    /// The default values written a batch of objects at a time.
    case batched(BatchedRelatePlan)
    /// The policy's `createRelationships` for each object.
    case objectByObject
}

extension RelateRoute {
    /// The strategy the route carries out, as the plan and the report name it.
    var strategy: RelatePlan.Strategy {
        switch self {
        case .nothing: .nothing
        case .setBased: .setBased
        case .batched: .batched
        case .objectByObject: .objectByObject
        }
    }
}
