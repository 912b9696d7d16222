/// An attribute's type, spelled as Xcode writes it in a model's `attributeType`.
public enum AttributeType: String, Sendable, Hashable, CaseIterable {
    case undefined = "Undefined"
    case integer16 = "Integer 16"
    case integer32 = "Integer 32"
    case integer64 = "Integer 64"
    case decimal = "Decimal"
    case double = "Double"
    case float = "Float"
    case string = "String"
    case boolean = "Boolean"
    case date = "Date"
    case binary = "Binary"
    case uuid = "UUID"
    case uri = "URI"
    case transformable = "Transformable"
    case objectID = "ObjectID"
    /// A composite attribute (iOS 17 and later; SwiftData's `Codable` struct properties): a group
    /// of attributes (its elements) declared once at model level as a ``Composite`` and named
    /// by ``Attribute/compositeName``. It has no column of its own: each leaf has one.
    case composite = "Composite"

    /// Core Data's numeric code for the type (`NSAttributeType`), which goes into the
    /// attribute's version hash.
    public var versionHashCode: Int32 {
        switch self {
        case .undefined: 0
        case .integer16: 100
        case .integer32: 200
        case .integer64: 300
        case .decimal: 400
        case .double: 500
        case .float: 600
        case .string: 700
        case .boolean: 800
        case .date: 900
        case .binary: 1000
        case .uuid: 1100
        case .uri: 1200
        case .transformable: 1800
        case .objectID: 2000
        case .composite: 2100
        }
    }

    /// Whether values of this type can be stored in a store (Undefined and ObjectID exist
    /// only as transient attributes). A composite is stored through its leaves.
    public var isPersistable: Bool {
        self != .undefined && self != .objectID
    }

    /// Whether the type holds integers (Integer 16, 32 or 64).
    public var isInteger: Bool {
        self == .integer16 || self == .integer32 || self == .integer64
    }

    /// The smallest and largest value an integer type holds.
    public var integerRange: ClosedRange<Int64>? {
        switch self {
        case .integer16: Int64(Int16.min)...Int64(Int16.max)
        case .integer32: Int64(Int32.min)...Int64(Int32.max)
        case .integer64: Int64.min...Int64.max
        default: nil
        }
    }
}
