/// How the relate pass set one entity mapping's relationships: as the plan chose
/// (``RelatePlan``), or the way the plan named for falling back, with the reason.
///
/// Only a mapping planned in SQL may end otherwise: when a policy deleted source objects from
/// the run's context (SQL reads the links as stored), or when the associations the copy pass
/// made need the objects (a source object made into several destinations of a to-one, say),
/// it is related in batches where the plan allowed them, else object by object.
public struct RelateOutcome: Sendable, Hashable {
    /// The pass that ran the mapping (from 1).
    public var pass: Int
    public var mapping: String
    /// What the plan chose.
    public var planned: RelatePlan.Strategy
    /// What the pass did.
    public var actual: RelatePlan.Strategy
    /// Why `actual` is not `planned`; nil when it is.
    public var fallbackReason: String?
    /// To-one relationships whose foreign keys the copy pass wrote with each new row and the
    /// relate pass found as it would have set them (``RelatePlan/keysAtInsert``).
    public var keysAtInsert: [String] = []

    public init(
        pass: Int, mapping: String, planned: RelatePlan.Strategy, actual: RelatePlan.Strategy,
        fallbackReason: String? = nil, keysAtInsert: [String] = []
    ) {
        self.pass = pass
        self.mapping = mapping
        self.planned = planned
        self.actual = actual
        self.fallbackReason = fallbackReason
        self.keysAtInsert = keysAtInsert
    }
}
