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

    public init(format: String, _ arguments: any ExpressionValueConvertible...) {
        self.init(format: format, argumentArray: arguments)
    }

    public init(format: String, argumentArray: [any ExpressionValueConvertible]) {
        self.format = format
        self.arguments = argumentArray.map(\.expressionValue)
    }

    /// Every object passes (Core Data's `TRUEPREDICATE`).
    public static var truePredicate: ObjectPredicate { ObjectPredicate(format: "TRUEPREDICATE") }

    /// A copy with `$name` variables given values (added to those it has).
    public func withSubstitutionVariables(_ variables: [String: any ExpressionValueConvertible]) -> ObjectPredicate {
        var copy = self
        for (name, value) in variables { copy.substitutionVariables[name] = value.expressionValue }
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
