/// The built-in functions of Molt's expressions.
///
/// | function | result |
/// |---|---|
/// | `uppercase(s)`, `lowercase(s)` | the string in upper or lower case |
/// | `trim(s)` | the string without leading and trailing white space |
/// | `concat(a, b, …)` | the values as strings, joined (nil counts as "") |
/// | `join(collection, separator)` | a collection's values as strings, joined with `separator` |
/// | `substring(s, start[, length])` | characters from `start` (0-based), to the end or `length` of them |
/// | `length(s)` | the number of characters |
/// | `replace(s, find, replacement)` | every `find` in `s` replaced |
/// | `number(x)` | a number from a string, boolean, date (seconds since 2001) or number |
/// | `integer(x)` | like `number`, truncated to an integer |
/// | `decimal(x)` | a decimal number, keeping every digit of a string |
/// | `string(x)` | the value as text |
/// | `date(x)` | a date from ISO 8601 text (`2024-05-01T12:00:00Z`) or seconds since 2001 |
/// | `now()` | the current date and time |
/// | `uuid()`, `uuid(s)` | a new random UUID, or one read from text |
/// | `abs`, `floor`, `ceiling`, `round` | of a number |
/// | `min(…)`, `max(…)`, `sum(…)`, `average(…)`, `count(…)` | over the arguments, or over one collection |
/// | `coalesce(a, b, …)` | the first value that is not nil |
///
/// NSExpression's spellings `uppercase:(x)`, `lowercase:(x)`, `count:(x)`, `sum:(x)`,
/// `average:(x)`, `min:(x)`, `max:(x)`, `abs:(x)`, `floor:(x)`, `ceiling:(x)` and `trunc:(x)`
/// are accepted too, and `CAST(x, "NSDate")` (`"NSNumber"`, `"NSDecimalNumber"`, `"NSString"`)
/// reads as `date(x)` (`number`, `decimal`, `string`).
public enum BuiltinFunction: String, Sendable, CaseIterable {
    case uppercase, lowercase, trim, concat, join, substring, length, replace
    case number, integer, decimal, string, date, now, uuid
    case abs, floor, ceiling, round
    case min, max, sum, average, count, coalesce

    /// The function a name stands for, including NSExpression's spellings.
    public init?(named name: String) {
        let aliases: [String: BuiltinFunction] = ["trunc": .integer, "avg": .average, "ceil": .ceiling]
        if let function = BuiltinFunction(rawValue: name) ?? aliases[name] {
            self = function
        } else {
            return nil
        }
    }

    /// The function `CAST(x, type)` stands for.
    static func castTarget(_ type: String) -> BuiltinFunction? {
        switch type {
        case "NSDate": .date
        case "NSNumber": .number
        case "NSDecimalNumber": .decimal
        case "NSString": .string
        default: nil
        }
    }

    /// How many arguments the function takes.
    public var arity: ClosedRange<Int> {
        switch self {
        case .now: 0...0
        case .uuid: 0...1
        case .uppercase, .lowercase, .trim, .length, .number, .integer, .decimal, .string, .date, .abs, .floor,
            .ceiling, .round:
            1...1
        case .join: 2...2
        case .substring: 2...3
        case .replace: 3...3
        case .concat, .min, .max, .sum, .average, .count, .coalesce: 1...Int.max
        }
    }

    var arityDescription: String {
        let range = arity
        if range.lowerBound == range.upperBound {
            return "takes \(range.lowerBound) argument\(range.lowerBound == 1 ? "" : "s")"
        }
        if range.upperBound == Int.max { return "takes at least \(range.lowerBound) argument" }
        return "takes \(range.lowerBound) to \(range.upperBound) arguments"
    }
}
