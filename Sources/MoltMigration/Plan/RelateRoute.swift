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

/// The executable side of a plan: what each route needs, worked out by the planner.
struct PlannedWork {
    /// The in-place plan, for the in-place and SQL-on-a-copy routes.
    var inPlace: InPlacePlan?
    /// For each pass, each entity mapping's relate route by name (object-by-object route).
    var relate: [[String: RelateRoute]] = []
    /// Whether any mapping may be related in SQL (the source store is then attached).
    var relatesInSQL: Bool {
        relate.contains { pass in
            pass.values.contains {
                if case .setBased = $0 { return true }
                return false
            }
        }
    }
}
