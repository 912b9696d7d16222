public import Foundation

/// A typed value for a model's default value (or minimum and maximum) strings.
public enum ModelScalar: Sendable, Hashable {
    case integer(Int64)
    case double(Double)
    case decimal(Decimal)
    case bool(Bool)
    case string(String)
    /// Seconds after 2001-01-01 00:00:00 UTC.
    case date(Double)
    case uuid(UUID)
    case uri(String)
}

/// Reads the strings a model file gives for default values, as Core Data reads them.
///
/// Xcode writes what the developer typed, so real models hold oddities: `"0.0"` or `"NO"` as the
/// default of an integer. These read as Core Data reads them: a number is truncated to an
/// integer, `YES`/`NO` read as 1/0. Date defaults are seconds after 2001-01-01 (what Xcode
/// stores). Binary and transformable attributes have no default value.
public enum DefaultValueReading {
    /// The typed value of `text` for an attribute of `type`, or nil when it does not read.
    public static func value(_ text: String, for type: AttributeType) -> ModelScalar? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch type {
        case .integer16, .integer32, .integer64:
            let number: Int64?
            if let exact = Int64(trimmed) {
                number = exact
            } else if let real = Double(trimmed), real.isFinite, abs(real) < 9.2e18 {
                number = Int64(real)
            } else if let flag = boolean(trimmed) {
                number = flag ? 1 : 0
            } else {
                number = nil
            }
            guard let number, type.integerRange?.contains(number) == true else { return nil }
            return .integer(number)
        case .double, .float:
            if let real = Double(trimmed) { return .double(real) }
            if let flag = boolean(trimmed) { return .double(flag ? 1 : 0) }
            return nil
        case .decimal:
            guard !trimmed.isEmpty, let decimal = Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX")),
                Double(trimmed) != nil
            else { return nil }
            return .decimal(decimal)
        case .boolean:
            if let flag = boolean(trimmed) { return .bool(flag) }
            if let number = Double(trimmed) { return .bool(number != 0) }
            return nil
        case .string:
            return .string(text)
        case .date:
            guard let seconds = Double(trimmed) else { return nil }
            return .date(seconds)
        case .uuid:
            return UUID(uuidString: trimmed).map(ModelScalar.uuid)
        case .uri:
            return trimmed.isEmpty ? nil : .uri(trimmed)
        case .binary, .transformable, .undefined, .objectID, .composite:
            return nil
        }
    }

    static func boolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "yes", "true": true
        case "no", "false": false
        default: nil
        }
    }
}
