import Foundation

/// Evaluating comparisons, with the rules of ``ValueComparison``.
enum ComparisonEvaluation {
    static func compile(_ comparison: Comparison, offset: Int) -> ExpressionCompiler.Body {
        let left = ExpressionCompiler.node(comparison.lhs)
        let right = ExpressionCompiler.node(comparison.rhs)
        let options = StringOptions(comparison)
        let op = comparison.op
        let quantifier = comparison.quantifier
        return { context in
            let lhs = try left(context)
            let rhs = try right(context)
            guard let quantifier else {
                if case .collection = lhs, op != .in, op != .contains {
                    throw EvaluationError(
                        "the left side is a collection; start the comparison with ANY, ALL or NONE", offset: offset)
                }
                return .bool(try test(op, lhs, rhs, options: options, offset: offset))
            }
            let items = try KeyPaths.elements(lhs, for: quantifier.rawValue, offset: offset)
            switch quantifier {
            case .any:
                return .bool(try items.contains { try test(op, $0, rhs, options: options, offset: offset) })
            case .all:
                return .bool(try items.allSatisfy { try test(op, $0, rhs, options: options, offset: offset) })
            case .notAny:
                return .bool(!(try items.contains { try test(op, $0, rhs, options: options, offset: offset) }))
            }
        }
    }

    static func test(
        _ op: Comparison.Operator, _ lhs: ExpressionValue, _ rhs: ExpressionValue, options: StringOptions, offset: Int
    )
        throws -> Bool
    {
        do {
            switch op {
            case .equal: return try ValueComparison.equal(lhs, rhs, options: options)
            case .notEqual: return !(try ValueComparison.equal(lhs, rhs, options: options))
            case .less: return try ValueComparison.order(lhs, rhs) == .orderedAscending
            case .lessOrEqual: return try [.orderedAscending, .orderedSame].contains(ValueComparison.order(lhs, rhs))
            case .greater: return try ValueComparison.order(lhs, rhs) == .orderedDescending
            case .greaterOrEqual:
                return try [.orderedDescending, .orderedSame].contains(ValueComparison.order(lhs, rhs))
            case .between:
                guard case .collection(let bounds) = rhs, bounds.count == 2 else {
                    throw EvaluationError("BETWEEN needs two bounds, as in {1, 10}", offset: offset)
                }
                guard let low = try ValueComparison.order(lhs, bounds[0]),
                    let high = try ValueComparison.order(lhs, bounds[1])
                else { return false }
                return low != .orderedAscending && high != .orderedDescending
            case .in:
                switch rhs {
                case .collection(let items):
                    return try items.contains { try ValueComparison.equal(lhs, $0, options: options) }
                case .null: return false
                case .string(let text):
                    guard case .string(let needle) = lhs else { return false }
                    return try StringOperators.test(.contains, text, needle, options: options)
                default:
                    throw EvaluationError(
                        "IN needs a collection or text on its right, not \(rhs.kindName)", offset: offset)
                }
            case .contains:
                if case .collection(let items) = lhs {
                    return try items.contains { try ValueComparison.equal($0, rhs, options: options) }
                }
                fallthrough
            case .beginsWith, .endsWith, .like, .matches:
                guard let text = stringOperand(lhs), let pattern = stringOperand(rhs) else {
                    if lhs.isNull || rhs.isNull { return false }
                    throw EvaluationError(
                        "\(op.rawValue) compares text, not \(lhs.kindName) with \(rhs.kindName)", offset: offset)
                }
                return try StringOperators.test(op, text, pattern, options: options)
            }
        } catch let error as ValueComparisonError {
            throw EvaluationError(error.description, offset: offset)
        } catch let error as InvalidPattern {
            throw EvaluationError(error.description, offset: offset)
        } catch let error as PatternTooCostly {
            throw EvaluationError(error.description, offset: offset)
        }
    }

    static func stringOperand(_ value: ExpressionValue) -> String? {
        switch value {
        case .string(let text), .uri(let text): text
        default: nil
        }
    }
}
