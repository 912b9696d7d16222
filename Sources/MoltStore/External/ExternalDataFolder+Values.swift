internal import Foundation
internal import MoltCore
package import MoltModel
package import MoltSQLite

extension Attribute {
    /// Whether the attribute's column holds ``ExternalBinaryColumn`` values: a Binary or
    /// Transformable attribute that allows external storage.
    package var usesExternalStorage: Bool {
        allowsExternalBinaryDataStorage && (type == .binary || type == .transformable)
    }
}

extension ExternalDataFolder {
    /// The value stored in the column of an attribute with external storage (its file's
    /// content when the row refers to a file), or nil for NULL.
    package func value(from stored: SQLiteValue) throws -> AttributeValue? {
        switch stored {
        case .null:
            return nil
        case .blob(let bytes):
            switch try ExternalBinaryColumn.decode(bytes) {
            case .inline(let value): return .data(value)
            case .file(let name): return .data(try read(name))
            }
        default:
            throw MoltError(
                .persistentStoreInvalidType,
                "a \(stored.typeName) value is stored where an attribute with external storage keeps a BLOB")
        }
    }

    /// What to store in the column of an attribute with external storage for `value`.
    package func storedValue(for value: AttributeValue) throws -> SQLiteValue {
        guard case .data(let bytes) = value else { return value.sqliteValue }
        return .blob(try column(for: bytes).encoded)
    }
}
