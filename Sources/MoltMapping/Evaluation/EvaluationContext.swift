public import Foundation

/// Reads keys of objects for key paths (`$source.author.name`): an attribute's value, or a
/// relationship's object (to-one) or objects (to-many, as a collection).
public protocol ObjectResolver: AnyObject {
    func value(of key: String, on object: ObjectReference) throws -> ExpressionValue
}

/// Runs `FUNCTION(target, "selector:", …)`: the migration manager's functions, or those a
/// policy declares.
public protocol FunctionDispatcher: AnyObject {
    func call(_ target: FunctionTarget, selector: String, arguments: [ExpressionValue]) throws -> ExpressionValue
}

/// What an expression is evaluated against: variables, the object bare key paths start from,
/// and the resolver and dispatcher for key paths and `FUNCTION`.
///
/// ```swift
/// let context = EvaluationContext(variables: ["source": .object(ref), "cutoff": .string("2024-01-01T00:00:00Z")])
/// context.resolver = StoreObjectResolver(source: store)
/// let keep = try filter.test(context)
/// ```
public final class EvaluationContext {
    /// Variables by name without `$`: `source`, `destination`, `manager`, `entityPolicy`,
    /// `entityMapping`, `propertyMapping`, and the entity mapping's user-info keys.
    public var variables: [String: ExpressionValue]
    /// What a key path without a `$variable` starts from (`$source` when not set).
    public var object: ExpressionValue?
    public var resolver: (any ObjectResolver)?
    public var functions: (any FunctionDispatcher)?
    /// The time `now()` gives.
    public var now: @Sendable () -> Date = { Date() }

    public init(
        variables: [String: ExpressionValue] = [:], object: ExpressionValue? = nil,
        resolver: (any ObjectResolver)? = nil, functions: (any FunctionDispatcher)? = nil
    ) {
        self.variables = variables
        self.object = object
        self.resolver = resolver
        self.functions = functions
    }

    /// The standard variables plus `userInfo` entries (each a string variable).
    public static func variables(userInfo: [String: String]) -> [String: ExpressionValue] {
        var result: [String: ExpressionValue] = [:]
        for (key, value) in userInfo { result[key] = .string(value) }
        for target in FunctionTarget.allCases { result[target.rawValue] = .target(target) }
        return result
    }
}
