public import Foundation
internal import MoltCore
public import MoltStore

/// A value an expression computes.
public enum ExpressionValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case decimal(Decimal)
    case string(String)
    case date(Date)
    case data(Data)
    case uuid(UUID)
    case uri(String)
    /// An object of the source or destination store.
    case object(ObjectReference)
    /// A collection: a to-many relationship's objects, an aggregate, a key path through to-manys.
    case collection([ExpressionValue])
    /// A composite attribute of an object (`path`: `home`, or `home.geo` for a nested one):
    /// its elements are read with a key (`$source.home.city`).
    case composite(ObjectReference, path: String)
    /// `$manager`, `$entityPolicy`, `$entityMapping`, `$propertyMapping`.
    case target(FunctionTarget)

    /// A short name of the value's kind, for messages.
    public var kindName: String {
        switch self {
        case .null: "nil"
        case .bool: "a boolean"
        case .integer: "an integer"
        case .double: "a number"
        case .decimal: "a decimal number"
        case .string: "a string"
        case .date: "a date"
        case .data: "binary data"
        case .uuid: "a UUID"
        case .uri: "a URI"
        case .object: "an object"
        case .collection: "a collection"
        case .composite: "a composite"
        case .target(let target): "$\(target.rawValue)"
        }
    }

    public var isNull: Bool { self == .null }

    /// The value of a stored attribute.
    public init(_ value: AttributeValue?) {
        guard let value else {
            self = .null
            return
        }
        switch value {
        case .integer(let number): self = .integer(number)
        case .double(let number): self = .double(number)
        case .decimal(let number): self = .decimal(number)
        case .bool(let flag): self = .bool(flag)
        case .string(let text): self = .string(text)
        case .date(let date): self = .date(date)
        case .data(let bytes): self = .data(bytes)
        case .uuid(let uuid): self = .uuid(uuid)
        case .uri(let text): self = .uri(text)
        }
    }
}

/// An object named in an expression: which store it lives in, and its ID.
public struct ObjectReference: Sendable, Hashable, CustomStringConvertible {
    public enum Store: String, Sendable, Hashable {
        case source, destination
    }

    public var store: Store
    public var id: ObjectID

    public init(_ store: Store, _ id: ObjectID) {
        self.store = store
        self.id = id
    }

    public var description: String { "\(store) \(id)" }
}

/// The objects `FUNCTION(…)` can be called on.
public enum FunctionTarget: String, Sendable, Hashable, CaseIterable {
    case manager
    case entityPolicy
    case entityMapping
    case propertyMapping
}
