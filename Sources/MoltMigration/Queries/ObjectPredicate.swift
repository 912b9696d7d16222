public import MoltMapping

/// A fetch request's predicate, written as `NSPredicate(format:)` takes one, in Molt's predicate
/// language (``/MoltMapping/ExpressionParser``): `%@` (or `%d`, `%f`…) for each value argument, `%K` for a
/// key path given as a string, `$name` for substitution variables.
///
/// Arguments are bound as values, never written into the text or into SQL, so a name that
/// holds quotes or SQL is only ever compared.
///
/// ```swift
/// // Core Data: NSPredicate(format: "userId == %@", userId)
/// let predicate = ObjectPredicate(format: "userId == %@", userId)
/// // Core Data: template.withSubstitutionVariables(["name": name])
/// let byName = ObjectPredicate(format: "name ==[c] $name").withSubstitutionVariables(["name": name])
/// ```
public struct ObjectPredicate: CustomStringConvertible {
    /// The predicate's text, placeholders and variables included.
    public let format: String
    /// The values of the placeholders, in order.
    public let arguments: [ExpressionValue]
    /// The values of `$name` variables.
    public private(set) var substitutionVariables: [String: ExpressionValue] = [:]
    /// `$name` variables the parts of a compound predicate gave different values (refused when
    /// the predicate is used: one name holds one value in a predicate).
    private(set) var conflictingVariables: Set<String> = []

    public init(format: String, _ arguments: any ExpressionValueConvertible...) {
        self.init(format: format, argumentArray: arguments)
    }

    public init(format: String, argumentArray: [any ExpressionValueConvertible]) {
        self.format = format
        self.arguments = argumentArray.map(\.expressionValue)
    }

    /// Every subpredicate holds (Core Data's `NSCompoundPredicate(andPredicateWithSubpredicates:)`);
    /// none given: every object passes.
    public init(andPredicateWithSubpredicates subpredicates: [ObjectPredicate]) {
        self.init(joining: subpredicates, with: "AND", whenEmpty: "TRUEPREDICATE")
    }

    /// One subpredicate or more holds (`NSCompoundPredicate(orPredicateWithSubpredicates:)`);
    /// none given: no object passes.
    public init(orPredicateWithSubpredicates subpredicates: [ObjectPredicate]) {
        self.init(joining: subpredicates, with: "OR", whenEmpty: "FALSEPREDICATE")
    }

    /// The subpredicate does not hold (`NSCompoundPredicate(notPredicateWithSubpredicate:)`).
    public init(notPredicateWithSubpredicate subpredicate: ObjectPredicate) {
        self.init(
            format: "NOT (\(subpredicate.format))", arguments: subpredicate.arguments,
            variables: subpredicate.substitutionVariables, conflicts: subpredicate.conflictingVariables)
    }

    /// The parts' texts joined, each in parentheses; the arguments follow in the same order, so
    /// each placeholder keeps its value; the variables are merged.
    private init(joining parts: [ObjectPredicate], with word: String, whenEmpty: String) {
        guard !parts.isEmpty else {
            self.init(format: whenEmpty, argumentArray: [])
            return
        }
        var variables: [String: ExpressionValue] = [:]
        var conflicts: Set<String> = []
        for part in parts {
            conflicts.formUnion(part.conflictingVariables)
            for (name, value) in part.substitutionVariables {
                if let known = variables[name], known != value { conflicts.insert(name) }
                variables[name] = value
            }
        }
        self.init(
            format: parts.map { "(\($0.format))" }.joined(separator: " \(word) "),
            arguments: parts.flatMap(\.arguments),
            variables: variables, conflicts: conflicts)
    }

    private init(
        format: String, arguments: [ExpressionValue], variables: [String: ExpressionValue], conflicts: Set<String>
    ) {
        self.format = format
        self.arguments = arguments
        self.substitutionVariables = variables
        self.conflictingVariables = conflicts
    }

    /// Every object passes (Core Data's `TRUEPREDICATE`).
    public static var truePredicate: ObjectPredicate { ObjectPredicate(format: "TRUEPREDICATE") }

    /// A copy with `$name` variables given values (added to those it has).
    public func withSubstitutionVariables(_ variables: [String: any ExpressionValueConvertible]) -> ObjectPredicate {
        var copy = self
        for (name, value) in variables {
            copy.substitutionVariables[name] = value.expressionValue
            copy.conflictingVariables.remove(name)  // one value for the whole predicate now
        }
        return copy
    }

    public var description: String { format }
}

/// A key to sort fetched objects by, as `NSSortDescriptor(key:ascending:)` gives one: an
/// attribute, or a key path through to-one relationships (`author.name`).
public struct KeySortDescriptor: Sendable, Hashable {
    public var key: String
    public var ascending: Bool

    public init(key: String, ascending: Bool = true) {
        self.key = key
        self.ascending = ascending
    }
}
