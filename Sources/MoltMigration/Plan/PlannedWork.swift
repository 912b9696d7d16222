internal import MoltStore

/// The executable side of a plan: what each route needs, worked out by the planner, which the
/// drivers and the passes carry out.
struct PlannedWork {
    /// The in-place plan, for the in-place and SQL-on-a-copy routes.
    var inPlace: InPlacePlan?
    /// Each pass's work, in order (object-by-object route).
    var passes: [PlannedPass] = []
    /// What the store holds besides its objects, surveyed for a route into a new store (nil
    /// for a forecast, whose store is at another version).
    var contents: StoreContents?

    /// Whether any mapping may be related in SQL (the source store is then attached).
    var relatesInSQL: Bool {
        passes.contains { pass in pass.relate.values.contains { $0.first(RelateInSQL.self) != nil } }
    }

    /// Pass `index`'s work (from 0); none for a pass the plan does not know.
    func pass(_ index: Int) -> PlannedPass {
        index < passes.count ? passes[index] : PlannedPass()
    }
}

/// What one pass carries out, by entity mapping name.
struct PlannedPass {
    /// How each mapping that reads source objects is related.
    var relate: [String: RelateChain] = [:]
    /// The to-one keys the copy pass writes with each new row.
    var keysAtInsert: [String: [KeyAtInsert]] = [:]
}
