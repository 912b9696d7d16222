/// How many objects a relationship may hold: Core Data's rule, in one place for validation,
/// inference and mapping checks.
///
/// Apple's `NSRelationshipDescription` documentation: the minimum and maximum counts are
/// enforced only when the relationship's value is not nil, so an optional relationship may
/// hold no object even below its minimum. A to-many value is a set, never nil: a non-optional
/// to-many relationship may therefore be empty unless its `minCount` asks for objects (real
/// apps save objects whose non-optional to-many is the empty set, and a lightweight migration
/// that adds one leaves it empty). A non-optional to-one needs its object.
///
/// | relationship | may be empty | when not empty |
/// |---|---|---|
/// | to-one, optional | yes | – |
/// | to-one, not optional | no | – |
/// | to-many, optional | yes | `minCount` to `maxCount` objects |
/// | to-many, not optional | only when `minCount` is 0 | `minCount` to `maxCount` objects |
///
/// ```swift
/// relationship.allowsNoObjects            // may an object hold none?
/// relationship.countProblem(0)            // .missing, .tooFew(minimum:), .tooMany(maximum:) or nil
/// ```
extension Relationship {
    /// What is wrong with holding a number of objects.
    public enum CountProblem: Sendable, Hashable {
        /// A non-optional to-one holds no object.
        case missing
        /// Fewer objects than the minimum.
        case tooFew(minimum: Int)
        /// More objects than the maximum.
        case tooMany(maximum: Int)
    }

    /// Whether an object may hold no object in this relationship.
    public var allowsNoObjects: Bool {
        isToMany ? isOptional || minCount <= 0 : isOptional
    }

    /// Whether every object must hold at least one object in this relationship (the opposite of
    /// ``allowsNoObjects``).
    public var requiresObjects: Bool { !allowsNoObjects }

    /// The rule broken by an object holding `count` objects, or nil when it holds a valid number.
    public func countProblem(_ count: Int) -> CountProblem? {
        if count == 0 {
            guard !allowsNoObjects else { return nil }
            return isToMany ? .tooFew(minimum: minCount) : .missing
        }
        guard isToMany else { return count > 1 ? .tooMany(maximum: 1) : nil }
        if count < minCount { return .tooFew(minimum: minCount) }
        if maxCount > 0, count > maxCount { return .tooMany(maximum: maxCount) }
        return nil
    }

    /// Whether this relationship's rule is stricter than `old`'s, so that objects valid before
    /// may fail now: it may no longer be empty, or a non-empty value needs more objects (a
    /// to-one's single object meets any minimum of 1).
    public func isStricter(than old: Relationship) -> Bool {
        if requiresObjects && old.allowsNoObjects { return true }
        let oldMinimum = old.isToMany ? old.minCount : 1
        return isToMany && minCount > oldMinimum
    }
}
