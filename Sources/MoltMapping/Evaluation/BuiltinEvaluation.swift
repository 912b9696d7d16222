import Foundation
internal import MoltStore

/// What each ``BuiltinFunction`` computes. `now()` is evaluated by the compiler, which reads
/// the context's clock.
enum BuiltinEvaluation {
    static func call(_ function: BuiltinFunction, _ arguments: [ExpressionValue], offset: Int) throws -> ExpressionValue
    {
        let call = BuiltinCall(function: function, arguments: arguments, offset: offset)
        switch function {
        case .uppercase, .lowercase, .trim, .length, .concat, .join, .substring, .replace:
            return try call.text()
        case .number, .integer, .decimal, .string, .date, .now, .uuid:
            return try call.conversion()
        case .abs, .floor, .ceiling, .round:
            return try call.rounding()
        case .count, .sum, .average, .min, .max, .coalesce:
            return try call.aggregate()
        }
    }
}

/// One call of a built-in function: its arguments, and the checks every family shares.
private struct BuiltinCall {
    let function: BuiltinFunction
    let arguments: [ExpressionValue]
    let offset: Int

    func fail(_ message: String) -> EvaluationError {
        EvaluationError("\(function.rawValue)(): \(message)", offset: offset)
    }

    /// An argument as text; nil for nil.
    func text(_ value: ExpressionValue) throws -> String? {
        switch value {
        case .null: return nil
        case .string(let string), .uri(let string): return string
        default: throw fail("needs text, not \(value.kindName)")
        }
    }

    func integer(_ value: ExpressionValue) throws -> Int {
        guard case .integer(let number) = value, let result = Int(exactly: number) else {
            throw fail("needs an integer, not \(value.kindName)")
        }
        return result
    }

    /// One collection argument, or the arguments themselves; nils left out.
    var items: [ExpressionValue] {
        let values: [ExpressionValue]
        if arguments.count == 1, case .collection(let inner) = arguments[0] {
            values = inner
        } else {
            values = arguments
        }
        return values.filter { !$0.isNull }
    }

    /// `uppercase`, `lowercase`, `trim`, `length`, `concat`, `join`, `substring`, `replace`.
    func text() throws -> ExpressionValue {
        switch function {
        case .uppercase: return try text(arguments[0]).map { .string($0.uppercased()) } ?? .null
        case .lowercase: return try text(arguments[0]).map { .string($0.lowercased()) } ?? .null
        case .trim:
            return try text(arguments[0]).map { .string($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? .null
        case .length: return try text(arguments[0]).map { .integer(Int64($0.count)) } ?? .null
        case .concat:
            return .string(try arguments.map { try Conversion.text($0, offset: offset) ?? "" }.joined())
        case .join:
            guard case .collection(let values) = arguments[0] else {
                if arguments[0].isNull { return .string("") }
                throw fail("needs a collection first, not \(arguments[0].kindName)")
            }
            guard let separator = try text(arguments[1]) else { throw fail("needs a separator") }
            return .string(
                try values.compactMap { try Conversion.text($0, offset: offset) }.joined(separator: separator))
        case .substring:
            return try substring()
        default:
            guard let string = try text(arguments[0]) else { return .null }
            guard let find = try text(arguments[1]), !find.isEmpty else { throw fail("needs text to find") }
            return .string(string.replacingOccurrences(of: find, with: try text(arguments[2]) ?? ""))
        }
    }

    /// `substring(text, start[, length])`, in characters.
    func substring() throws -> ExpressionValue {
        guard let string = try text(arguments[0]) else { return .null }
        let start = try integer(arguments[1])
        guard start >= 0 else { throw fail("the start cannot be negative") }
        let characters = Array(string)
        guard start < characters.count else { return .string("") }
        var end = characters.count
        if arguments.count == 3 {
            let length = try integer(arguments[2])
            guard length >= 0 else { throw fail("the length cannot be negative") }
            end = min(characters.count, start + length)
        }
        return .string(String(characters[start..<end]))
    }

    /// `number`, `integer`, `decimal`, `string`, `date`, `now`, `uuid`.
    func conversion() throws -> ExpressionValue {
        switch function {
        case .number: return try Conversion.number(arguments[0], offset: offset)
        case .integer:
            switch try Conversion.number(arguments[0], offset: offset) {
            case .double(let number):
                guard number.isFinite, abs(number) < 9.2e18 else { throw fail("\(number) does not fit an integer") }
                return .integer(Int64(number.rounded(.towardZero)))
            case .decimal(let number):
                return .integer(NSDecimalNumber(decimal: number).int64Value)
            case let other: return other
            }
        case .decimal:
            switch arguments[0] {
            case .null: return .null
            case .string(let string):
                guard Double(string) != nil,
                    let decimal = Decimal(string: string, locale: Locale(identifier: "en_US_POSIX"))
                else { throw fail("\"\(string)\" is not a number") }
                return .decimal(decimal)
            case let other:
                guard let number = Numeric(try Conversion.number(other, offset: offset)) else { return .null }
                return .decimal(number.decimal)
            }
        case .string: return try Conversion.text(arguments[0], offset: offset).map(ExpressionValue.string) ?? .null
        case .date: return try Conversion.date(arguments[0], offset: offset)
        case .now: return .date(Date())
        default:
            if arguments.isEmpty { return .uuid(UUID()) }
            guard let string = try text(arguments[0]) else { return .null }
            guard let uuid = UUID(uuidString: string) else { throw fail("\"\(string)\" is not a UUID") }
            return .uuid(uuid)
        }
    }

    /// `abs`, `floor`, `ceiling`, `round`: integers stay integers.
    func rounding() throws -> ExpressionValue {
        guard let number = Numeric(arguments[0]) else {
            if arguments[0].isNull { return .null }
            throw fail("needs a number, not \(arguments[0].kindName)")
        }
        switch (function, number) {
        case (.abs, .integer(let value)):
            guard value != .min else { throw fail("overflows") }
            return .integer(Swift.abs(value))
        case (_, .integer): return number.value
        case (.abs, _): return .double(Swift.abs(number.double))
        case (.floor, _): return .double(number.double.rounded(.down))
        case (.ceiling, _): return .double(number.double.rounded(.up))
        default: return .double(number.double.rounded(.toNearestOrAwayFromZero))
        }
    }

    /// `count`, `sum`, `average`, `min`, `max`, `coalesce`: over one collection or the
    /// arguments, nils left out.
    func aggregate() throws -> ExpressionValue {
        switch function {
        case .count:
            return .integer(Int64(items.count))
        case .sum, .average:
            let values = items
            var total: ExpressionValue = .integer(0)
            for item in values {
                total = try Arithmetic.apply(.add, total, item, offset: offset)
            }
            if function == .sum { return total }
            guard !values.isEmpty else { return .null }
            return try Arithmetic.apply(.divide, total, .integer(Int64(values.count)), offset: offset)
        case .min, .max:
            var best: ExpressionValue?
            for item in items {
                guard let current = best else {
                    best = item
                    continue
                }
                let order: ComparisonResult?
                do {
                    order = try ValueComparison.order(item, current)
                } catch {
                    throw fail(error.description)
                }
                if (function == .min && order == .orderedAscending) || (function == .max && order == .orderedDescending)
                {
                    best = item
                }
            }
            return best ?? .null
        default:
            return arguments.first { !$0.isNull } ?? .null
        }
    }
}

/// Conversions between value kinds, shared by functions and comparisons.
enum Conversion {
    /// A value as text; nil for nil.
    static func text(_ value: ExpressionValue, offset: Int) throws -> String? {
        switch value {
        case .null: return nil
        case .string(let text), .uri(let text): return text
        case .bool(let flag): return flag ? "true" : "false"
        case .integer(let number): return String(number)
        case .double(let number): return number.description
        case .decimal(let number): return number.description
        case .date(let date):
            return ISODate.format(secondsSinceReference: date.timeIntervalSinceReferenceDate)
                ?? date.timeIntervalSinceReferenceDate.description
        case .uuid(let uuid): return uuid.uuidString
        case .data(let data): return data.base64EncodedString()
        case .object(let reference): return reference.id.description
        case .collection, .target, .composite:
            throw EvaluationError("cannot turn \(value.kindName) into text", offset: offset)
        }
    }

    static func number(_ value: ExpressionValue, offset: Int) throws -> ExpressionValue {
        switch value {
        case .null, .integer, .double, .decimal: return value
        case .bool(let flag): return .integer(flag ? 1 : 0)
        case .date(let date): return .double(date.timeIntervalSinceReferenceDate)
        case .string(let text):
            guard let number = Numeric.parse(text) else {
                throw EvaluationError("\"\(text)\" is not a number", offset: offset)
            }
            return number.value
        default: throw EvaluationError("cannot turn \(value.kindName) into a number", offset: offset)
        }
    }

    static func date(_ value: ExpressionValue, offset: Int) throws -> ExpressionValue {
        switch value {
        case .null, .date: return value
        case .string(let text):
            guard let seconds = ISODate.parse(text) else {
                throw EvaluationError("\"\(text)\" is not a date like 2024-05-01T12:00:00Z", offset: offset)
            }
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        default:
            guard let number = Numeric(value) else {
                throw EvaluationError("cannot turn \(value.kindName) into a date", offset: offset)
            }
            return .date(Date(timeIntervalSinceReferenceDate: number.double))
        }
    }
}
