public import MoltCore

/// A parsed expression or predicate: Molt's subset of NSExpression and NSPredicate in one tree.
///
/// A predicate (a `<filter>`, or a condition in `TERNARY`) is an expression whose value is a
/// boolean: a comparison, `AND`/`OR`/`NOT`, or `TRUEPREDICATE`/`FALSEPREDICATE`. A value
/// expression may be a comparison too (its value goes into a Boolean attribute). Parse text
/// with ``ExpressionParser``; ``description`` prints the canonical text, which parses back to
/// an equal tree.
public struct MappingExpression: Sendable, Hashable, CustomStringConvertible {
    public indirect enum Kind: Sendable, Hashable {
        case constant(Constant)
        /// `$name`: `$source`, `$manager`, a user-info key…
        case variable(String)
        /// `base.a.b`, or with no base (`a.b`) a key path on the object being evaluated.
        /// Components may be collection operators (`@count`, `@sum`, `@avg`, `@min`, `@max`).
        case keyPath(base: MappingExpression?, components: [String])
        /// `{a, b, c}`.
        case aggregate([MappingExpression])
        /// A built-in function: `uppercase(x)`, `now()`… (see ``BuiltinFunction``).
        case function(name: String, arguments: [MappingExpression])
        /// `FUNCTION(target, "selector:with:", arguments…)`.
        case call(target: MappingExpression, selector: String, arguments: [MappingExpression])
        /// `TERNARY(condition, then, else)`.
        case ternary(condition: MappingExpression, then: MappingExpression, otherwise: MappingExpression)
        /// `collection[n]`, `[FIRST]`, `[LAST]`, `[SIZE]`.
        case index(MappingExpression, IndexKind)
        case negate(MappingExpression)
        case arithmetic(ArithmeticOperator, MappingExpression, MappingExpression)
        case comparison(Comparison)
        case not(MappingExpression)
        case and(MappingExpression, MappingExpression)
        case or(MappingExpression, MappingExpression)
        case truePredicate
        case falsePredicate
    }

    public var kind: Kind
    /// Where the expression starts in its text (0-based, in characters). Not compared.
    @NotCompared public var offset: Int = 0

    public init(_ kind: Kind, offset: Int = 0) {
        self.kind = kind
        self.offset = offset
    }

    public var description: String { ExpressionPrinter.text(of: self) }
}

/// A literal value.
public enum Constant: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
}

/// `[n]`, `[FIRST]`, `[LAST]`, `[SIZE]`.
public enum IndexKind: Sendable, Hashable {
    case position(MappingExpression)
    case first
    case last
    case size
}

public enum ArithmeticOperator: String, Sendable, Hashable, CaseIterable {
    case add = "+"
    case subtract = "-"
    case multiply = "*"
    case divide = "/"
    case power = "**"
}

/// A comparison: `lhs op rhs`, optionally with string options and a quantifier.
public struct Comparison: Sendable, Hashable {
    public enum Operator: String, Sendable, Hashable, CaseIterable {
        case equal = "=="
        case notEqual = "!="
        case less = "<"
        case lessOrEqual = "<="
        case greater = ">"
        case greaterOrEqual = ">="
        case beginsWith = "BEGINSWITH"
        case endsWith = "ENDSWITH"
        case contains = "CONTAINS"
        case like = "LIKE"
        case matches = "MATCHES"
        case `in` = "IN"
        case between = "BETWEEN"

        /// Whether `[c]`/`[d]` options apply (string operators and equality).
        public var takesStringOptions: Bool {
            switch self {
            case .less, .lessOrEqual, .greater, .greaterOrEqual, .between: false
            default: true
            }
        }
    }

    /// `ANY`/`SOME`, `ALL`, `NONE` before a comparison whose left side is a collection.
    public enum Quantifier: String, Sendable, Hashable, CaseIterable {
        case any = "ANY"
        case all = "ALL"
        case notAny = "NONE"
    }

    public var op: Operator
    /// `[c]`: ignore case.
    public var caseInsensitive: Bool
    /// `[d]`: ignore diacritics.
    public var diacriticInsensitive: Bool
    public var quantifier: Quantifier?
    public var lhs: MappingExpression
    public var rhs: MappingExpression

    public init(
        _ op: Operator, _ lhs: MappingExpression, _ rhs: MappingExpression, caseInsensitive: Bool = false,
        diacriticInsensitive: Bool = false, quantifier: Quantifier? = nil
    ) {
        self.op = op
        self.lhs = lhs
        self.rhs = rhs
        self.caseInsensitive = caseInsensitive
        self.diacriticInsensitive = diacriticInsensitive
        self.quantifier = quantifier
    }
}

extension MappingExpression {
    /// Whether the expression's value is a condition (comparison, logic, or a predicate constant).
    public var isCondition: Bool {
        switch kind {
        case .comparison, .not, .and, .or, .truePredicate, .falsePredicate: true
        case .constant(.bool): true
        default: false
        }
    }

    /// Every sub-expression, depth first, this one first.
    public func walk(_ visit: (MappingExpression) -> Void) {
        visit(self)
        for child in children { child.walk(visit) }
    }

    /// The direct sub-expressions.
    public var children: [MappingExpression] {
        switch kind {
        case .constant, .variable, .truePredicate, .falsePredicate: []
        case .keyPath(let base, _): base.map { [$0] } ?? []
        case .aggregate(let items): items
        case .function(_, let arguments): arguments
        case .call(let target, _, let arguments): [target] + arguments
        case .ternary(let condition, let then, let otherwise): [condition, then, otherwise]
        case .index(let base, let index):
            if case .position(let position) = index { [base, position] } else { [base] }
        case .negate(let operand), .not(let operand): [operand]
        case .arithmetic(_, let lhs, let rhs), .and(let lhs, let rhs), .or(let lhs, let rhs): [lhs, rhs]
        case .comparison(let comparison): [comparison.lhs, comparison.rhs]
        }
    }
}
