import MoltCore
import MoltModel

/// Types of arithmetic, and which comparisons can work.
extension ExpressionTyper {
    mutating func arithmetic(_ op: ArithmeticOperator, _ a: ValueType, _ b: ValueType, offset: Int) -> ValueType {
        if a == .unknown || b == .unknown { return .unknown }
        if a == .null || b == .null { return .null }
        switch (op, a, b) {
        case (.add, .string, .string), (.add, .uri, .string), (.add, .string, .uri): return .string
        case (.add, .date, let other) where other.isNumeric: return .date
        case (.add, let other, .date) where other.isNumeric: return .date
        case (.subtract, .date, .date): return .double
        case (.subtract, .date, let other) where other.isNumeric: return .date
        default: break
        }
        guard a.isNumeric, b.isNumeric else {
            let hint = a.isText || b.isText ? " (use concat() to join text)" : ""
            report(.error, "cannot apply \(op.rawValue) to \(a) and \(b)\(hint)", offset)
            return .unknown
        }
        if a == .decimal || b == .decimal { return op == .power ? .double : .decimal }
        if op == .divide || op == .power { return .double }
        return a == .integer && b == .integer ? .integer : (a == .bool && b == .bool ? .integer : .double)
    }

    mutating func comparison(_ comparison: Comparison, offset: Int) {
        var lhs = type(of: comparison.lhs)
        let rhs = type(of: comparison.rhs)
        if let quantifier = comparison.quantifier {
            guard case .collection(let element) = lhs else {
                if lhs != .unknown && lhs != .null {
                    report(
                        .error, "\(quantifier.rawValue) needs a collection on the left, not \(lhs)",
                        comparison.lhs.offset)
                }
                return
            }
            lhs = element
        } else if case .collection = lhs, ![.in, .contains].contains(comparison.op) {
            report(
                .error, "the left side is a collection; start the comparison with ANY, ALL or NONE",
                comparison.lhs.offset)
            return
        }
        switch comparison.op {
        case .beginsWith, .endsWith, .like, .matches:
            for (side, found) in [(comparison.lhs, lhs), (comparison.rhs, rhs)]
            where !found.isText && found != .unknown && found != .null {
                report(.error, "\(comparison.op.rawValue) compares text, not \(found)", side.offset)
            }
            if comparison.op == .matches, case .constant(.string(let pattern)) = comparison.rhs.kind,
                (try? RegexCache.shared.regex(pattern, caseInsensitive: false)) == nil
            {
                report(.error, "\"\(pattern)\" is not a valid regular expression", comparison.rhs.offset)
            }
        case .in:
            switch rhs {
            case .collection(let element): comparable(lhs, element, offset: offset)
            case .string, .uri, .unknown, .null: break
            default: report(.error, "IN needs a collection or text on its right, not \(rhs)", comparison.rhs.offset)
            }
        case .contains:
            if case .collection(let element) = lhs {
                comparable(element, rhs, offset: offset)
            } else if !lhs.isText && lhs != .unknown && lhs != .null {
                report(.error, "CONTAINS needs text or a collection on its left, not \(lhs)", comparison.lhs.offset)
            }
        case .between:
            if case .collection(let element) = rhs {
                comparable(lhs, element, offset: offset)
            } else if rhs != .unknown {
                report(.error, "BETWEEN needs two bounds, as in {1, 10}", comparison.rhs.offset)
            }
        default:
            comparable(lhs, rhs, offset: offset)
        }
    }

    /// Reports comparisons that cannot work (an error) or depend on text reading as a number
    /// or date (a warning).
    mutating func comparable(_ a: ValueType, _ b: ValueType, offset: Int) {
        switch (a, b) {
        case (.unknown, _), (_, .unknown), (.null, _), (_, .null): return
        case (.object, .object): return
        case (.object, _), (_, .object), (.collection, _), (_, .collection), (.target, _), (_, .target), (.data, _),
            (_, .data):
            if a != b { report(.error, "cannot compare \(a) with \(b)", offset) }
        case _ where a.isNumeric && b.isNumeric: return
        case _ where a.isText && b.isText: return
        case (.date, .date), (.uuid, .uuid), (.uuid, .string), (.string, .uuid): return
        case (.date, _) where b.isNumeric, (_, .date) where a.isNumeric: return
        case (.date, .string), (.string, .date):
            return  // text is read as an ISO 8601 date when the filter runs
        case _ where (a.isText && b.isNumeric) || (a.isNumeric && b.isText):
            report(
                .warning, "compares text with a number: the text must read as a number when the mapping runs", offset)
        default:
            report(.error, "cannot compare \(a) with \(b)", offset)
        }
    }
}
