public import MoltModel

/// How each attribute type is stored in Core Data's SQLite layout: the one place that decides.
///
/// | attribute type | column type | value stored |
/// |---|---|---|
/// | Integer 16/32/64 | INTEGER | the integer |
/// | Boolean | INTEGER | 0 or 1 |
/// | Date | TIMESTAMP | REAL seconds since 2001-01-01 00:00:00 UTC |
/// | Double, Float | FLOAT | REAL |
/// | Decimal | DECIMAL | the number as SQLite's NUMERIC affinity keeps it (15 significant digits) |
/// | String | VARCHAR | TEXT |
/// | URI | VARCHAR | the absolute URI as TEXT |
/// | UUID | BLOB | the 16 bytes of the UUID |
/// | Binary, Transformable | BLOB | the bytes |
///
/// Checked against real stores: the INTEGER, TIMESTAMP, FLOAT, VARCHAR and BLOB rows. Not checked
/// (no real store had them): UUID, URI and Decimal; the choices above are Molt's, and changing one
/// means changing ``uuidEncoding`` or the table here, nowhere else.
public enum AttributeStorage {
    /// How UUID values are written: as 16 raw bytes in a BLOB column.
    public static let uuidEncoding = UUIDEncoding.bytes

    /// The two ways a UUID could be kept.
    public enum UUIDEncoding: Sendable {
        case bytes
        case text
    }

    /// The declared column type for an attribute of `type`, or nil for types that are never
    /// stored (Undefined, ObjectID) and for composites (each leaf has its own column).
    public static func columnType(for type: AttributeType) -> String? {
        switch type {
        case .integer16, .integer32, .integer64, .boolean: "INTEGER"
        case .date: "TIMESTAMP"
        case .double, .float: "FLOAT"
        case .decimal: "DECIMAL"
        case .string, .uri: "VARCHAR"
        case .uuid: uuidEncoding == .bytes ? "BLOB" : "VARCHAR"
        case .binary, .transformable: "BLOB"
        case .undefined, .objectID, .composite: nil
        }
    }

    /// The group that orders columns in a table: Core Data puts INTEGER columns first, then
    /// TIMESTAMP and FLOAT (and DECIMAL), then VARCHAR, then BLOB.
    static func columnGroup(forColumnType columnType: String) -> Int {
        switch columnType {
        case "INTEGER": 0
        case "TIMESTAMP", "FLOAT", "DECIMAL": 1
        case "VARCHAR": 2
        default: 3
        }
    }
}
