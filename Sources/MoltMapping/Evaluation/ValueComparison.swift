import Foundation
internal import MoltStore

/// How values compare, in filters and conditions. The same rules hold whether a filter runs in
/// SQLite or on objects in memory (``PredicateSQLTranslator`` translates only what keeps them):
///
/// - nil equals only nil; ordering a nil (`<`, `>`…) is false.
/// - Numbers (integers, doubles, decimals, booleans as 0 and 1) compare by value.
/// - Dates compare by time; a number compared with a date is seconds since 2001-01-01, and a
///   string compared with a date is read as ISO 8601 text.
/// - Strings compare by their UTF-8 bytes (as SQLite does); a string compared with a number is
///   read as a number. `[c]` ignores case and `[d]` diacritics.
/// - UUIDs and URIs compare as their text; binary data by its bytes; objects by identity.
/// - Anything else is an error that names both kinds.
enum ValueComparison {
    /// The order of `a` and `b`, or nil when one is nil. Throws when they cannot be compared.
    static func order(
        _ a: ExpressionValue, _ b: ExpressionValue, options: StringOptions = []
    )
        throws(ValueComparisonError) -> ComparisonResult?
    {
        if a.isNull || b.isNull { return nil }
        switch (a, b) {
        case (.string(let x), .string(let y)), (.uri(let x), .uri(let y)), (.uri(let x), .string(let y)),
            (.string(let x), .uri(let y)):
            return compareBytes(options.fold(x), options.fold(y))
        case (.date(let x), _):
            return compare(x.timeIntervalSinceReferenceDate, try seconds(b, comparedWith: a))
        case (_, .date(let y)):
            return compare(try seconds(a, comparedWith: b), y.timeIntervalSinceReferenceDate)
        case (.uuid(let x), .uuid(let y)):
            return compareBytes(x.uuidString, y.uuidString)
        case (.uuid(let x), .string(let y)):
            return compareBytes(x.uuidString, (UUID(uuidString: y)?.uuidString ?? y))
        case (.string(let x), .uuid(let y)):
            return compareBytes((UUID(uuidString: x)?.uuidString ?? x), y.uuidString)
        case (.data(let x), .data(let y)):
            return compareBytes(x, y)
        case (.object(let x), .object(let y)):
            return x == y ? .orderedSame : (x.id < y.id ? .orderedAscending : .orderedDescending)
        default:
            break
        }
        if let x = Numeric(a), let y = Numeric(b) { return x.compare(y) }
        if let x = Numeric(a), case .string(let text) = b {
            guard let y = Numeric.parse(text) else { throw ValueComparisonError(a, b) }
            return x.compare(y)
        }
        if case .string(let text) = a, let y = Numeric(b) {
            guard let x = Numeric.parse(text) else { throw ValueComparisonError(a, b) }
            return x.compare(y)
        }
        throw ValueComparisonError(a, b)
    }

    /// Whether `a` equals `b` (nil equals nil).
    static func equal(
        _ a: ExpressionValue, _ b: ExpressionValue, options: StringOptions = []
    )
        throws(ValueComparisonError) -> Bool
    {
        if a.isNull || b.isNull { return a.isNull && b.isNull }
        return try order(a, b, options: options) == .orderedSame
    }

    static func compare<T: Comparable>(_ x: T, _ y: T) -> ComparisonResult {
        x < y ? .orderedAscending : (x == y ? .orderedSame : .orderedDescending)
    }

    static func compareBytes<T: Sequence>(_ x: T, _ y: T) -> ComparisonResult where T.Element == UInt8 {
        var left = x.makeIterator()
        var right = y.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return .orderedSame
            case (nil, _): return .orderedAscending
            case (_, nil): return .orderedDescending
            case (let l?, let r?):
                if l != r { return l < r ? .orderedAscending : .orderedDescending }
            }
        }
    }

    static func compareBytes(_ x: String, _ y: String) -> ComparisonResult {
        compareBytes(x.utf8, y.utf8)
    }

    /// A value compared with a date, as seconds since 2001.
    static func seconds(
        _ value: ExpressionValue, comparedWith date: ExpressionValue
    ) throws(ValueComparisonError) -> Double {
        switch value {
        case .date(let other): return other.timeIntervalSinceReferenceDate
        case .string(let text):
            guard let seconds = ISODate.parse(text) else { throw ValueComparisonError(date, value) }
            return seconds
        default:
            guard let number = Numeric(value) else { throw ValueComparisonError(date, value) }
            return number.double
        }
    }
}

/// `[c]` and `[d]`.
struct StringOptions: OptionSet, Sendable, Hashable {
    let rawValue: Int
    static let caseInsensitive = StringOptions(rawValue: 1)
    static let diacriticInsensitive = StringOptions(rawValue: 2)

    init(rawValue: Int) { self.rawValue = rawValue }

    init(_ comparison: Comparison) {
        var options: StringOptions = []
        if comparison.caseInsensitive { options.insert(.caseInsensitive) }
        if comparison.diacriticInsensitive { options.insert(.diacriticInsensitive) }
        self = options
    }

    /// `text` with case and/or diacritics folded away, as the options say.
    func fold(_ text: String) -> String {
        guard !isEmpty else { return text }
        var folding: String.CompareOptions = []
        if contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
        if contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
        return text.folding(options: folding, locale: nil)
    }
}

/// Two values that cannot be compared.
struct ValueComparisonError: Error, CustomStringConvertible {
    let lhs: String
    let rhs: String

    init(_ a: ExpressionValue, _ b: ExpressionValue) {
        lhs = a.kindName
        rhs = b.kindName
    }

    var description: String { "cannot compare \(lhs) with \(rhs)" }
}

/// A number of any kind, for comparison and arithmetic.
enum Numeric {
    case integer(Int64)
    case double(Double)
    case decimal(Decimal)

    init?(_ value: ExpressionValue) {
        switch value {
        case .integer(let number): self = .integer(number)
        case .double(let number): self = .double(number)
        case .decimal(let number): self = .decimal(number)
        case .bool(let flag): self = .integer(flag ? 1 : 0)
        default: return nil
        }
    }

    /// A number read from text: an integer when it is one, else a double.
    static func parse(_ text: String) -> Numeric? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let integer = Int64(trimmed) { return .integer(integer) }
        if let double = Double(trimmed), double.isFinite { return .double(double) }
        return nil
    }

    var double: Double {
        switch self {
        case .integer(let number): Double(number)
        case .double(let number): number
        case .decimal(let number): NSDecimalNumber(decimal: number).doubleValue
        }
    }

    var decimal: Decimal {
        switch self {
        case .integer(let number): Decimal(number)
        case .double(let number): Decimal(string: "\(number)") ?? Decimal(number)
        case .decimal(let number): number
        }
    }

    var value: ExpressionValue {
        switch self {
        case .integer(let number): .integer(number)
        case .double(let number): .double(number)
        case .decimal(let number): .decimal(number)
        }
    }

    func compare(_ other: Numeric) -> ComparisonResult {
        switch (self, other) {
        case (.integer(let x), .integer(let y)): ValueComparison.compare(x, y)
        case (.decimal, _), (_, .decimal): ValueComparison.compare(decimal, other.decimal)
        default: ValueComparison.compare(double, other.double)
        }
    }
}
