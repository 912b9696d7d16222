internal import Foundation
internal import MoltCore

/// An expression compiled once into a tree of closures, to be evaluated many times (once per
/// object) without parsing or walking the syntax tree again.
public struct CompiledExpression: Sendable {
    public let expression: MappingExpression
    let body: @Sendable (EvaluationContext) throws -> ExpressionValue

    /// Evaluates the expression. Errors are ``EvaluationError``s naming the column.
    public func evaluate(_ context: EvaluationContext) throws -> ExpressionValue {
        try body(context)
    }

    /// Evaluates the expression as a condition: true, false, or nil (false).
    public func test(_ context: EvaluationContext) throws -> Bool {
        try Truth.of(try body(context), offset: expression.offset)
    }
}

/// Compiles expressions (see ``CompiledExpression``).
public enum ExpressionCompiler {
    /// Parses and compiles `text`.
    public static func compile(_ text: String) throws(SyntaxError) -> CompiledExpression {
        compile(try ExpressionParser().parse(text))
    }

    public static func compile(_ expression: MappingExpression) -> CompiledExpression {
        CompiledExpression(expression: expression, body: node(expression))
    }

    typealias Body = @Sendable (EvaluationContext) throws -> ExpressionValue

    static func node(_ expression: MappingExpression) -> Body {
        let offset = expression.offset
        switch expression.kind {
        case .constant(let constant):
            let value = ExpressionValue(constant)
            return { _ in value }
        case .truePredicate:
            return { _ in .bool(true) }
        case .falsePredicate:
            return { _ in .bool(false) }
        case .variable(let name):
            return { context in
                guard let value = context.variables[name] else {
                    throw EvaluationError("unknown variable $\(name)", offset: offset)
                }
                return value
            }
        case .keyPath(let base, let components):
            return keyPath(base: base, components: components, offset: offset)
        case .aggregate(let items):
            let bodies = items.map(node)
            return { context in .collection(try bodies.map { try $0(context) }) }
        case .function(let name, let arguments):
            let bodies = arguments.map(node)
            let function = BuiltinFunction(named: name)!
            if function == .now {
                return { context in .date(context.now()) }
            }
            return { context in
                try BuiltinEvaluation.call(function, try bodies.map { try $0(context) }, offset: offset)
            }
        case .call(let target, let selector, let arguments):
            return call(target, selector, arguments, offset: offset)
        case .ternary(let condition, let then, let otherwise):
            let test = node(condition)
            let yes = node(then)
            let no = node(otherwise)
            let conditionOffset = condition.offset
            return { context in
                try Truth.of(try test(context), offset: conditionOffset) ? try yes(context) : try no(context)
            }
        case .index(let base, let index):
            let baseBody = node(base)
            let positionBody: Body? = if case .position(let position) = index { node(position) } else { nil }
            return { context in
                try KeyPaths.index(try baseBody(context), index, position: try positionBody?(context), offset: offset)
            }
        case .negate(let operand):
            let body = node(operand)
            return { context in try Arithmetic.negate(try body(context), offset: offset) }
        case .arithmetic(let op, let lhs, let rhs):
            let left = node(lhs)
            let right = node(rhs)
            return { context in try Arithmetic.apply(op, try left(context), try right(context), offset: offset) }
        case .comparison(let comparison):
            return ComparisonEvaluation.compile(comparison, offset: offset)
        case .not(let operand):
            let body = node(operand)
            let operandOffset = operand.offset
            return { context in .bool(!(try Truth.of(try body(context), offset: operandOffset))) }
        case .and(let lhs, let rhs):
            let left = node(lhs)
            let right = node(rhs)
            return { context in
                guard try Truth.of(try left(context), offset: lhs.offset) else { return .bool(false) }
                return .bool(try Truth.of(try right(context), offset: rhs.offset))
            }
        case .or(let lhs, let rhs):
            let left = node(lhs)
            let right = node(rhs)
            return { context in
                if try Truth.of(try left(context), offset: lhs.offset) { return .bool(true) }
                return .bool(try Truth.of(try right(context), offset: rhs.offset))
            }
        }
    }

    /// A key path: from its base, else the object evaluated (a filter's) or `$source`, one
    /// key at a time.
    static func keyPath(base: MappingExpression?, components: [String], offset: Int) -> Body {
        let start: Body
        if let base {
            start = node(base)
        } else {
            start = { context in
                if let object = context.object { return object }
                guard let source = context.variables["source"] else {
                    throw EvaluationError("a key path without a $variable needs a $source object", offset: offset)
                }
                return source
            }
        }
        return { context in
            var value = try start(context)
            for component in components {
                value = try KeyPaths.step(value, component, context: context, offset: offset)
            }
            return value
        }
    }

    /// `FUNCTION(target, "selector:", arguments…)`: run by the migration's functions.
    static func call(
        _ target: MappingExpression, _ selector: String, _ arguments: [MappingExpression], offset: Int
    ) -> Body {
        let targetBody = node(target)
        let bodies = arguments.map(node)
        return { context in
            guard case .target(let resolved) = try targetBody(context) else {
                throw EvaluationError(
                    "FUNCTION can call only $manager, $entityPolicy, $entityMapping or $propertyMapping",
                    offset: offset)
            }
            guard let functions = context.functions else {
                throw EvaluationError(
                    "FUNCTION($\(resolved.rawValue), …) can run only during a migration", offset: offset)
            }
            do {
                return try functions.call(resolved, selector: selector, arguments: try bodies.map { try $0(context) })
            } catch let error as EvaluationError {
                throw error
            } catch let error as MoltError {
                throw error
            } catch {
                throw EvaluationError("\(selector) failed: \(error)", offset: offset)
            }
        }
    }
}

extension ExpressionValue {
    init(_ constant: Constant) {
        switch constant {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .integer(let number): self = .integer(number)
        case .double(let number): self = .double(number)
        case .string(let text): self = .string(text)
        }
    }
}

/// Reading a value as a condition.
enum Truth {
    static func of(_ value: ExpressionValue, offset: Int) throws -> Bool {
        switch value {
        case .bool(let flag): return flag
        case .null: return false
        case .integer(let number): return number != 0
        case .double(let number): return number != 0
        case .decimal(let number): return !number.isZero
        default: throw EvaluationError("a condition must be true or false, not \(value.kindName)", offset: offset)
        }
    }
}
