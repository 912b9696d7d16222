public import MoltCore

/// A composite: a named group of attributes declared once at model level (Xcode's
/// `<composite name="…">` beside the entities) and used by composite attributes
/// (`attributeType="Composite" composite="Name"`). SwiftData keeps a `Codable` struct property
/// of a model as one.
///
/// Its attributes (Core Data calls them elements) are ordinary attributes, or composite
/// attributes themselves (a nested composite). In the store each leaf has its own column;
/// ``ObjectModel/allAttributes(of:)`` lists the leaves, each named by its path (`home.city`).
public struct Composite: Sendable, Hashable {
    public var name: String
    /// The elements, in file order.
    public var attributes: [Attribute]
    /// Where the composite was read from. Not compared.
    @NotCompared public var location: SourceLocation? = nil

    public init(name: String, attributes: [Attribute], location: SourceLocation? = nil) {
        self.name = name
        self.attributes = attributes
        self.location = location
    }

    /// The element called `name`.
    public func attribute(named name: String) -> Attribute? {
        attributes.first { $0.name == name }
    }
}
