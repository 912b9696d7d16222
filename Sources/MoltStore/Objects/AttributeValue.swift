public import Foundation

/// A non-null attribute value, typed as the model's attribute type says.
///
/// | attribute type | case |
/// |---|---|
/// | Integer 16/32/64 | ``integer(_:)`` |
/// | Double, Float | ``double(_:)`` |
/// | Decimal | ``decimal(_:)`` |
/// | Boolean | ``bool(_:)`` |
/// | String | ``string(_:)`` |
/// | Date | ``date(_:)`` |
/// | Binary, Transformable | ``data(_:)`` (a transformable's archived bytes, as stored) |
/// | UUID | ``uuid(_:)`` |
/// | URI | ``uri(_:)`` (the absolute URI's text) |
public enum AttributeValue: Sendable, Hashable {
    case integer(Int64)
    case double(Double)
    case decimal(Decimal)
    case bool(Bool)
    case string(String)
    case date(Date)
    case data(Data)
    case uuid(UUID)
    case uri(String)
}

/// The value of a relationship on one object.
public enum RelationshipValue: Sendable, Hashable {
    case toOne(ObjectID?)
    /// The related objects: in order for an ordered relationship, otherwise by ``ObjectID``.
    case toMany([ObjectID])

    /// The related objects as a list (empty or one for a to-one).
    public var objectIDs: [ObjectID] {
        switch self {
        case .toOne(let id): id.map { [$0] } ?? []
        case .toMany(let ids): ids
        }
    }
}

/// One object read from a store: its ID, optimistic-lock version, attribute values and
/// relationships.
public struct StoredObject: Sendable, Hashable {
    public var id: ObjectID
    /// `Z_OPT`: 1 for an object never updated since it was inserted.
    public var version: Int64
    /// Attribute values by name; a missing name means NULL.
    public var attributes: [String: AttributeValue]
    /// Every persistent relationship by name.
    public var relationships: [String: RelationshipValue]

    public init(
        id: ObjectID, version: Int64 = 1, attributes: [String: AttributeValue] = [:],
        relationships: [String: RelationshipValue] = [:]
    ) {
        self.id = id
        self.version = version
        self.attributes = attributes
        self.relationships = relationships
    }
}
