import Foundation
import MoltCore
import MoltModel

/// How attribute values are written in Molt's JSON, and read back, typed by the model.
///
/// | type | JSON |
/// |---|---|
/// | Integer 16/32/64 | integer |
/// | Double, Float | number; `"NaN"`, `"Infinity"`, `"-Infinity"` as strings |
/// | Decimal | string (`"12.50"`), every digit kept; numbers accepted on input |
/// | Boolean | `true` / `false` |
/// | String, URI | string |
/// | Date | `"2024-05-01T12:00:00.250Z"` (UTC) when exact to the millisecond, else a number of seconds since 2001-01-01 |
/// | Binary, Transformable | base64 string |
/// | UUID | `"E621E1F8-C36C-495A-93FC-0C247A3E6E5F"` |
extension AttributeValue {
    /// This value as JSON text.
    var jsonText: String {
        switch self {
        case .integer(let number): String(number)
        case .double(let number): JSONText.number(number)
        case .decimal(let number): JSONText.quoted(number.description)
        case .bool(let flag): flag ? "true" : "false"
        case .string(let text): JSONText.quoted(text)
        case .date(let date):
            ISODate.format(secondsSinceReference: date.timeIntervalSinceReferenceDate).map(JSONText.quoted)
                ?? JSONText.number(date.timeIntervalSinceReferenceDate)
        case .data(let bytes): JSONText.quoted(bytes.base64EncodedString())
        case .uuid(let uuid): JSONText.quoted(uuid.uuidString)
        case .uri(let text): JSONText.quoted(text)
        }
    }

    /// Reads `node` as a value of `type`; nil for JSON null. The error message says what was
    /// expected; the caller adds where.
    static func read(json node: JSONNode, as type: AttributeType) throws -> AttributeValue? {
        func expected(_ what: String) -> MoltError {
            MoltError(
                .fileReadCorruptFile,
                "expected \(what) for an attribute of type \(type.rawValue), found \(node.kindName)")
        }
        if node.isNull { return nil }
        switch type {
        case .integer16, .integer32, .integer64:
            guard case .number(let text) = node.kind else { throw expected("an integer") }
            guard let number = Int64(text) else {
                throw MoltError(.fileReadCorruptFile, "\(text) is not an integer that fits in 64 bits")
            }
            guard type.integerRange!.contains(number) else {
                throw MoltError(.fileReadCorruptFile, "\(number) is outside the range of \(type.rawValue)")
            }
            return .integer(number)
        case .double, .float:
            switch node.kind {
            case .number(let text):
                guard let number = Double(text) else { throw expected("a number") }
                return .double(number)
            case .string("NaN"): return .double(.nan)
            case .string("Infinity"): return .double(.infinity)
            case .string("-Infinity"): return .double(-.infinity)
            default: throw expected("a number")
            }
        case .decimal:
            let text: String
            switch node.kind {
            case .number(let number): text = number
            case .string(let string): text = string
            default: throw expected("a decimal number as a string")
            }
            guard Double(text) != nil, let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
            else {
                throw MoltError(.fileReadCorruptFile, "\"\(text)\" is not a decimal number")
            }
            return .decimal(decimal)
        case .boolean:
            guard case .bool(let flag) = node.kind else { throw expected("true or false") }
            return .bool(flag)
        case .string:
            guard let text = node.stringValue else { throw expected("a string") }
            return .string(text)
        case .uri:
            guard let text = node.stringValue else { throw expected("a string") }
            return .uri(text)
        case .date:
            switch node.kind {
            case .number(let text):
                guard let seconds = Double(text) else { throw expected("a date") }
                return .date(ReferenceDate.date(fromStoredSeconds: seconds))
            case .string(let text):
                guard let seconds = ISODate.parse(text) else {
                    throw MoltError(
                        .fileReadCorruptFile,
                        "\"\(text)\" is not a date of the form 2024-05-01T12:00:00Z (UTC, up to 3 fraction digits)")
                }
                return .date(ReferenceDate.date(fromStoredSeconds: seconds))
            default: throw expected("a date (ISO 8601 text or seconds since 2001)")
            }
        case .binary, .transformable:
            guard let text = node.stringValue else { throw expected("base64 text") }
            guard let bytes = Data(base64Encoded: text) else {
                throw MoltError(.fileReadCorruptFile, "the text is not valid base64")
            }
            return .data(bytes)
        case .uuid:
            guard let text = node.stringValue else { throw expected("a UUID string") }
            guard let uuid = UUID(uuidString: text) else {
                throw MoltError(.fileReadCorruptFile, "\"\(text)\" is not a UUID")
            }
            return .uuid(uuid)
        case .undefined, .objectID:
            throw MoltError(.fileReadCorruptFile, "\(type.rawValue) attributes hold no stored values")
        case .composite:
            throw MoltError(.fileReadCorruptFile, "a composite is stored as its elements' values")
        }
    }
}
