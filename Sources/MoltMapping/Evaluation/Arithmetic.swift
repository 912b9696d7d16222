import Foundation

/// `+ - * / **` and unary minus.
///
/// Integers stay integers for `+ - *` (an overflow is an error); `/` and `**` give doubles;
/// any decimal makes the result decimal. A date plus or minus a number of seconds is a date;
/// a date minus a date is seconds. Two strings added are joined. Anything with nil is nil.
enum Arithmetic {
    static func negate(_ value: ExpressionValue, offset: Int) throws -> ExpressionValue {
        switch value {
        case .null: return .null
        case .integer(let number):
            guard number != .min else { throw EvaluationError("the negation overflows", offset: offset) }
            return .integer(-number)
        case .double(let number): return .double(-number)
        case .decimal(let number): return .decimal(-number)
        default: throw EvaluationError("cannot negate \(value.kindName)", offset: offset)
        }
    }

    static func apply(
        _ op: ArithmeticOperator, _ a: ExpressionValue, _ b: ExpressionValue, offset: Int
    ) throws
        -> ExpressionValue
    {
        if a.isNull || b.isNull { return .null }
        switch (op, a, b) {
        case (.add, .string(let x), .string(let y)):
            return .string(x + y)
        case (.add, .date(let date), _), (.add, _, .date(let date)):
            let other = a == .date(date) ? b : a
            guard let seconds = Numeric(other)?.double else { break }
            return .date(date.addingTimeInterval(seconds))
        case (.subtract, .date(let x), .date(let y)):
            return .double(x.timeIntervalSince(y))
        case (.subtract, .date(let date), _):
            guard let seconds = Numeric(b)?.double else { break }
            return .date(date.addingTimeInterval(-seconds))
        default:
            break
        }
        return try numeric(op, a, b, offset: offset)
    }

    static func numeric(
        _ op: ArithmeticOperator, _ a: ExpressionValue, _ b: ExpressionValue, offset: Int
    ) throws
        -> ExpressionValue
    {
        guard let x = Numeric(a), let y = Numeric(b) else {
            let hint = (a.kindName == "a string" || b.kindName == "a string") ? " (use concat() to join text)" : ""
            throw EvaluationError(
                "cannot apply \(op.rawValue) to \(a.kindName) and \(b.kindName)\(hint)", offset: offset)
        }
        switch (x, y) {
        case (.decimal, _), (_, .decimal):
            let l = x.decimal
            let r = y.decimal
            switch op {
            case .add: return .decimal(l + r)
            case .subtract: return .decimal(l - r)
            case .multiply: return .decimal(l * r)
            case .divide:
                guard !r.isZero else { throw EvaluationError("division by zero", offset: offset) }
                return .decimal(l / r)
            case .power: return .double(pow(x.double, y.double))
            }
        case (.integer(let l), .integer(let r)) where op != .divide && op != .power:
            let (result, overflow): (Int64, Bool) =
                switch op {
                case .add: l.addingReportingOverflow(r)
                case .subtract: l.subtractingReportingOverflow(r)
                default: l.multipliedReportingOverflow(by: r)
                }
            guard !overflow else { throw EvaluationError("the result overflows 64-bit integers", offset: offset) }
            return .integer(result)
        default:
            let l = x.double
            let r = y.double
            switch op {
            case .add: return .double(l + r)
            case .subtract: return .double(l - r)
            case .multiply: return .double(l * r)
            case .divide:
                guard r != 0 else { throw EvaluationError("division by zero", offset: offset) }
                return .double(l / r)
            case .power: return .double(pow(l, r))
            }
        }
    }
}
