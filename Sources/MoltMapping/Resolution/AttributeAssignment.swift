internal import Foundation
internal import MoltCore
public import MoltModel
public import MoltStore

/// How an expression's value is stored in a destination attribute: the conversions Molt makes,
/// and the ones it refuses.
///
/// | attribute | accepts |
/// |---|---|
/// | Integer 16/32/64 | integers in range; numbers without a fraction; booleans (0/1); text that reads as such a number |
/// | Double, Float | numbers, booleans, text that reads as a number |
/// | Decimal | numbers, booleans, text that reads as a number (every digit kept) |
/// | Boolean | booleans; numbers (0 is false); text `true`/`false`/`YES`/`NO`/`1`/`0` |
/// | String | text, URIs, UUIDs (as text) |
/// | URI | text, URIs |
/// | Date | dates; ISO 8601 text |
/// | UUID | UUIDs; text that reads as a UUID |
/// | Binary, Transformable | binary data |
///
/// nil stores no value. Anything else (objects, collections, a number into a String, a number
/// into a Date) is refused: convert it explicitly with `string()` or `date()`.
public enum AttributeAssignment {
    /// The value to store, or nil. Throws a ``/MoltCore/MoltError`` naming what does not fit.
    public static func convert(_ value: ExpressionValue, to attribute: Attribute) throws -> AttributeValue? {
        func refuse(_ detail: String = "") -> MoltError {
            MoltError(
                .migration, "\(value.kindName) cannot be stored in a \(attribute.type.rawValue) attribute\(detail)",
                property: attribute.name)
        }
        if value.isNull { return nil }
        switch attribute.type {
        case .integer16, .integer32, .integer64:
            let number: Int64
            switch value {
            case .integer(let integer): number = integer
            case .bool(let flag): number = flag ? 1 : 0
            case .double(let double):
                guard double.rounded() == double, abs(double) < 9.2e18 else {
                    throw refuse(" (\(double) is not a whole number)")
                }
                number = Int64(double)
            case .decimal(let decimal):
                guard let integer = Int64(exactly: NSDecimalNumber(decimal: decimal).doubleValue),
                    Decimal(integer) == decimal
                else { throw refuse(" (\(decimal) is not a whole number)") }
                number = integer
            case .string(let text):
                guard let parsed = Numeric.parse(text) else { throw refuse(" (\"\(text)\" is not a number)") }
                return try convert(parsed.value, to: attribute)
            default: throw refuse()
            }
            guard attribute.type.integerRange!.contains(number) else {
                throw refuse(" (\(number) is out of its range)")
            }
            return .integer(number)
        case .double, .float:
            if case .string(let text) = value {
                guard let parsed = Numeric.parse(text) else { throw refuse(" (\"\(text)\" is not a number)") }
                return .double(parsed.double)
            }
            guard let number = Numeric(value) else { throw refuse() }
            return .double(number.double)
        case .decimal:
            if case .string(let text) = value {
                guard Double(text) != nil,
                    let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
                else {
                    throw refuse(" (\"\(text)\" is not a number)")
                }
                return .decimal(decimal)
            }
            guard let number = Numeric(value) else { throw refuse() }
            return .decimal(number.decimal)
        case .boolean:
            switch value {
            case .bool(let flag): return .bool(flag)
            case .string(let text):
                switch text.lowercased() {
                case "true", "yes", "1": return .bool(true)
                case "false", "no", "0": return .bool(false)
                default: throw refuse(" (\"\(text)\" is not true or false)")
                }
            default:
                guard let number = Numeric(value) else { throw refuse() }
                return .bool(number.double != 0)
            }
        case .string:
            switch value {
            case .string(let text), .uri(let text): return .string(text)
            case .uuid(let uuid): return .string(uuid.uuidString)
            default: throw refuse(" (use string() to turn it into text)")
            }
        case .uri:
            switch value {
            case .string(let text), .uri(let text): return .uri(text)
            default: throw refuse()
            }
        case .date:
            switch value {
            case .date(let date): return .date(date)
            case .string(let text):
                guard let seconds = ISODate.parse(text) else { throw refuse(" (\"\(text)\" is not an ISO 8601 date)") }
                return .date(Date(timeIntervalSinceReferenceDate: seconds))
            default: throw refuse(" (use date() to turn it into a date)")
            }
        case .uuid:
            switch value {
            case .uuid(let uuid): return .uuid(uuid)
            case .string(let text):
                guard let uuid = UUID(uuidString: text) else { throw refuse(" (\"\(text)\" is not a UUID)") }
                return .uuid(uuid)
            default: throw refuse()
            }
        case .binary, .transformable:
            guard case .data(let data) = value else { throw refuse() }
            return .data(data)
        case .undefined, .objectID:
            throw refuse(" (the attribute is not stored)")
        case .composite:
            throw refuse(" (a composite is stored as its elements: map each one)")
        }
    }

    /// ``convert(_:to:)``'s result for a value that goes in as it is (text into a String, a
    /// date into a Date, an integer in range into an Integer, …), told by the attribute's type
    /// alone; nil when the full conversion must decide (it may convert, refuse or store nil).
    public static func unchanged(_ value: ExpressionValue, into type: AttributeType) -> AttributeValue? {
        switch (value, type) {
        case (.string(let text), .string): return .string(text)
        case (.integer(let number), .integer16), (.integer(let number), .integer32),
            (.integer(let number), .integer64):
            return type.integerRange!.contains(number) ? .integer(number) : nil
        case (.double(let number), .double), (.double(let number), .float): return .double(number)
        case (.date(let date), .date): return .date(date)
        case (.bool(let flag), .boolean): return .bool(flag)
        case (.data(let data), .binary), (.data(let data), .transformable): return .data(data)
        default: return nil
        }
    }

    /// Whether a value of `type` can go into `attribute`: nil when it can, a warning when it
    /// depends on the value (text read as a number), an error when it never can.
    static func check(_ type: ValueType, into attribute: Attribute) -> (Diagnostic.Severity, String)? {
        let name = attribute.type.rawValue
        switch type {
        case .unknown: return nil
        case .null:
            return attribute.isOptional ? nil : (.warning, "nil for a non-optional attribute fails validation")
        case .object, .collection, .target:
            return (.error, "\(type) cannot be stored in a \(name) attribute")
        default: break
        }
        switch attribute.type {
        case .integer16, .integer32, .integer64, .double, .float, .decimal:
            if type.isNumeric { return nil }
            if type == .string {
                return (.warning, "text is stored in a \(name) attribute only when it reads as a number")
            }
        case .boolean:
            if type.isNumeric { return nil }
            if type == .string {
                return (.warning, "text is stored in a Boolean attribute only when it reads as true or false")
            }
        case .string:
            if type.isText || type == .uuid { return nil }
            return (.error, "\(type) cannot be stored in a String attribute (use string() to turn it into text)")
        case .uri:
            if type.isText { return nil }
        case .date:
            if type == .date { return nil }
            if type == .string {
                return (.warning, "text is stored in a Date attribute only when it reads as an ISO 8601 date")
            }
            return (.error, "\(type) cannot be stored in a Date attribute (use date() to turn it into a date)")
        case .uuid:
            if type == .uuid || type == .string { return nil }
        case .binary, .transformable:
            if type == .data { return nil }
        case .undefined, .objectID, .composite:
            return nil
        }
        return (.error, "\(type) cannot be stored in a \(name) attribute")
    }
}
