import Foundation
import MoltCore
package import MoltModel
package import MoltSQLite

/// Converting attribute values to and from what SQLite stores, per ``AttributeStorage``.
extension AttributeValue {
    /// The SQLite value stored for this value.
    package var sqliteValue: SQLiteValue {
        switch self {
        case .integer(let number): .integer(number)
        case .double(let number): .real(number)
        case .decimal(let number): .text(number.description)
        case .bool(let flag): .integer(flag ? 1 : 0)
        case .string(let text): .text(text)
        case .date(let date): .real(ReferenceDate.storedSeconds(for: date))
        case .data(let bytes): .blob(bytes)
        case .uuid(let uuid):
            AttributeStorage.uuidEncoding == .bytes
                ? .blob(withUnsafeBytes(of: uuid.uuid) { Data($0) }) : .text(uuid.uuidString)
        case .uri(let text): .text(text)
        }
    }

    /// Whether this value is of the kind `type` holds (integers also fit their type's range).
    /// Whether the value is a double that is not a number (SQLite stores NaN as NULL).
    var isNaN: Bool {
        if case .double(let number) = self { return number.isNaN }
        return false
    }

    func fits(_ type: AttributeType) -> Bool {
        switch (self, type) {
        case (.integer(let number), _) where type.isInteger: type.integerRange!.contains(number)
        case (.double, .double), (.double, .float), (.decimal, .decimal), (.bool, .boolean), (.string, .string),
            (.date, .date), (.data, .binary), (.data, .transformable), (.uuid, .uuid), (.uri, .uri):
            true
        default: false
        }
    }

    /// Reads a stored value as `type`, accepting the storage classes a real store may hold
    /// when the conversion loses nothing. Returns nil for NULL; throws for a value that does
    /// not convert.
    package static func read(_ value: SQLiteValue, as type: AttributeType) throws -> AttributeValue? {
        func mismatch() -> MoltError {
            MoltError(
                .persistentStoreInvalidType,
                "a \(value.typeName) value is stored where \(type.rawValue) is expected")
        }
        switch value {
        case .null:
            return nil
        case .integer(let number):
            switch type {
            case .integer16, .integer32, .integer64: return .integer(number)
            case .boolean: return .bool(number != 0)
            case .double, .float: return .double(Double(number))
            case .decimal: return .decimal(Decimal(number))
            case .date: return .date(ReferenceDate.date(fromStoredSeconds: Double(number)))
            case .string: return .string(String(number))
            default: throw mismatch()
            }
        case .real(let number):
            switch type {
            case .double, .float: return .double(number)
            case .date: return .date(ReferenceDate.date(fromStoredSeconds: number))
            case .decimal:
                guard let decimal = Decimal(string: "\(number)", locale: Locale(identifier: "en_US_POSIX")) else {
                    throw mismatch()
                }
                return .decimal(decimal)
            case .integer16, .integer32, .integer64:
                guard number.rounded() == number, abs(number) < 9.2e18 else { throw mismatch() }
                return .integer(Int64(number))
            case .boolean: return .bool(number != 0)
            default: throw mismatch()
            }
        case .text(let text):
            switch type {
            case .string: return .string(text)
            case .uri: return .uri(text)
            case .decimal:
                guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                    throw mismatch()
                }
                return .decimal(decimal)
            case .uuid:
                guard let uuid = UUID(uuidString: text) else { throw mismatch() }
                return .uuid(uuid)
            case .binary, .transformable: return .data(Data(text.utf8))
            case .integer16, .integer32, .integer64:
                guard let number = Int64(text) else { throw mismatch() }
                return .integer(number)
            case .double, .float:
                guard let number = Double(text) else { throw mismatch() }
                return .double(number)
            default: throw mismatch()
            }
        case .blob(let bytes):
            switch type {
            case .binary, .transformable: return .data(bytes)
            case .uuid:
                guard bytes.count == 16 else { throw mismatch() }
                let b = [UInt8](bytes)
                return .uuid(
                    UUID(
                        uuid: (
                            b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                            b[14], b[15]
                        )))
            case .string:
                guard let text = String(data: bytes, encoding: .utf8) else { throw mismatch() }
                return .string(text)
            default: throw mismatch()
            }
        }
    }
}
