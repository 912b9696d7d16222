public import MoltModel

/// Where one entity's objects live in the store: its number, its table, and a column (or
/// join table) for each of its persistent properties, inherited ones included.
public struct EntityLayout: Sendable, Hashable {
    public let name: String
    /// The entity number (`Z_ENT`), from 1.
    public let number: Int
    /// The parent's number, 0 for a root (`Z_SUPER`).
    public let superNumber: Int
    public let isAbstract: Bool
    /// The root of the entity's hierarchy, whose table holds its rows.
    public let rootName: String
    /// The table holding the entity's rows.
    public let table: String
    /// This entity's number and its descendants': the `Z_ENT` values of its objects.
    public let kindNumbers: [Int]
    /// Persistent attributes, inherited ones first, each with its column.
    public let attributes: [AttributeColumn]
    /// Persistent relationships, inherited ones first, each with how it is stored.
    public let relationships: [RelationshipLayout]

    /// Positions in ``attributes`` and ``relationships`` by name (looked up for every value a
    /// migration reads or writes).
    private let attributeIndex: [String: Int]
    private let relationshipIndex: [String: Int]

    init(
        name: String, number: Int, superNumber: Int, isAbstract: Bool, rootName: String, table: String,
        kindNumbers: [Int], attributes: [AttributeColumn], relationships: [RelationshipLayout]
    ) {
        self.name = name
        self.number = number
        self.superNumber = superNumber
        self.isAbstract = isAbstract
        self.rootName = rootName
        self.table = table
        self.kindNumbers = kindNumbers
        self.attributes = attributes
        self.relationships = relationships
        attributeIndex = Dictionary(
            attributes.enumerated().map { ($1.attribute.name, $0) }, uniquingKeysWith: { first, _ in first })
        relationshipIndex = Dictionary(
            relationships.enumerated().map { ($1.relationship.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The attribute column for `name`.
    public func attribute(named name: String) -> AttributeColumn? {
        attributeIndex[name].map { attributes[$0] }
    }

    /// The relationship layout for `name`.
    public func relationship(named name: String) -> RelationshipLayout? {
        relationshipIndex[name].map { relationships[$0] }
    }
}

/// An attribute and the column holding its values.
public struct AttributeColumn: Sendable, Hashable {
    public let attribute: Attribute
    public let column: String
}

/// A relationship and how its links are stored.
public struct RelationshipLayout: Sendable, Hashable {
    public let relationship: Relationship
    /// The entity that declares the relationship (the entity itself or an ancestor).
    public let declaringEntity: String
    /// The destination entity's layout number and table.
    public let destinationNumber: Int
    public let destinationTable: String
    /// Whether the destination has sub-entities (so its objects' entity must be recorded).
    public let destinationHasSubentities: Bool
    public let storage: RelationshipStorage
}

/// The three ways Core Data stores a relationship.
public enum RelationshipStorage: Sendable, Hashable {
    /// A to-one: a column of this entity's table holds the destination's key, and
    /// `entityColumn` its entity number when the destination has sub-entities. When the
    /// inverse is an ordered to-many, `orderColumn` (in this table too) holds the position.
    case foreignKey(column: String, entityColumn: String?, orderColumn: String?)
    /// A to-many whose inverse is a to-one: the destination's table holds this object's key in
    /// `column` (and position in `orderColumn` when this relationship is ordered).
    case inverseForeignKey(column: String, entityColumn: String?, orderColumn: String?)
    /// A many-to-many, or a to-many without an inverse: a join table. `ownColumn` holds this
    /// object's key, `otherColumn` the destination's. `orderColumn` orders this side,
    /// `inverseOrderColumn` the other side. A relationship that is its own inverse stores each
    /// link in both directions (`mirrored`).
    case joinTable(
        table: String, ownColumn: String, otherColumn: String, orderColumn: String?, inverseOrderColumn: String?,
        mirrored: Bool)
}

/// One table of entity rows (an inheritance root's).
public struct TableLayout: Sendable, Hashable {
    public let name: String
    public let rootEntity: String
    /// Every column in order, `Z_PK`, `Z_ENT`, `Z_OPT` first.
    public let columns: [ColumnLayout]
    public let indexes: [IndexLayout]
}

/// A join table of a many-to-many (or inverse-less to-many) relationship.
public struct JoinTableLayout: Sendable, Hashable {
    public let name: String
    /// `Entity.relationship` of the relationship that names the table, and of its inverse.
    public let namingRelationship: String
    public let inverseRelationship: String?
    public let firstColumn: String
    public let secondColumn: String
    /// Order columns, when either side is ordered.
    public let orderColumns: [String]
    public let index: IndexLayout

    public var columns: [ColumnLayout] {
        ([firstColumn, secondColumn] + orderColumns).map { ColumnLayout(name: $0, type: "INTEGER") }
    }
}

/// A column and its declared type.
public struct ColumnLayout: Sendable, Hashable {
    public let name: String
    public let type: String
}

/// An index over columns of a table.
public struct IndexLayout: Sendable, Hashable {
    public let name: String
    public let table: String
    /// Column names, each optionally followed by " DESC" for descending fetch-index elements.
    public let columns: [String]
    public let isDescending: [Bool]

    init(name: String, table: String, columns: [String], isDescending: [Bool]? = nil) {
        self.name = name
        self.table = table
        self.columns = columns
        self.isDescending = isDescending ?? Array(repeating: false, count: columns.count)
    }
}
