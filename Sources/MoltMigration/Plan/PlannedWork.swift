internal import MoltStore

/// The executable side of a plan: what each route needs, worked out by the planner.
struct PlannedWork {
    /// The in-place plan, for the in-place and SQL-on-a-copy routes.
    var inPlace: InPlacePlan?
    /// For each pass, each entity mapping's relate route by name (object-by-object route).
    var relate: [[String: RelateRoute]] = []
    /// For each pass, the to-one keys the copy pass writes with each new row, by mapping name.
    var linksAtInsert: [[String: [ForeignKeyAtInsert]]] = []
    /// What the store holds besides its objects, surveyed for a route into a new store (nil
    /// for a forecast, whose store is at another version).
    var contents: StoreContents?
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
