public import MoltCore

/// An entity: a kind of object, with its own attributes and relationships (inherited ones
/// live on its ancestors; ``ObjectModel`` resolves them).
public struct Entity: Sendable, Hashable {
    public var name: String
    /// The class generated code uses (`representedClassName`).
    public var className: String?
    /// The parent entity's name (`parentEntity`).
    public var parentName: String?
    public var isAbstract: Bool
    /// The renaming identifier (Xcode's `elementID`): the entity's name in an earlier version.
    public var renamingIdentifier: String?
    /// The version hash modifier (`versionHashModifier`).
    public var versionHashModifier: String?
    /// The entity's own attributes, in file order.
    public var attributes: [Attribute]
    /// The entity's own relationships, in file order.
    public var relationships: [Relationship]
    /// The entity's own fetched properties (never stored, never hashed).
    public var fetchedProperties: [FetchedProperty]
    /// Uniqueness constraints: each is a list of property names that together must be unique.
    public var uniquenessConstraints: [[String]]
    public var fetchIndexes: [FetchIndex]
    public var userInfo: [String: String]
    /// Where the entity was read from. Not compared.
    @NotCompared public var location: SourceLocation? = nil

    public init(
        name: String,
        className: String? = nil,
        parentName: String? = nil,
        isAbstract: Bool = false,
        renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil,
        attributes: [Attribute] = [],
        relationships: [Relationship] = [],
        fetchedProperties: [FetchedProperty] = [],
        uniquenessConstraints: [[String]] = [],
        fetchIndexes: [FetchIndex] = [],
        userInfo: [String: String] = [:],
        location: SourceLocation? = nil
    ) {
        self.name = name
        self.className = className
        self.parentName = parentName
        self.isAbstract = isAbstract
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.attributes = attributes
        self.relationships = relationships
        self.fetchedProperties = fetchedProperties
        self.uniquenessConstraints = uniquenessConstraints
        self.fetchIndexes = fetchIndexes
        self.userInfo = userInfo
        self.location = location
    }

    /// The identifier that stays the same across renames.
    public var canonicalName: String { renamingIdentifier ?? name }

    /// The entity's own attribute called `name`.
    public func attribute(named name: String) -> Attribute? {
        attributes.first { $0.name == name }
    }

    /// The entity's own relationship called `name`.
    public func relationship(named name: String) -> Relationship? {
        relationships.first { $0.name == name }
    }
}

/// A fetched property: a stored fetch request, evaluated lazily by Core Data. Kept so that a
/// model reads back complete; it has no column and no place in version hashes.
public struct FetchedProperty: Sendable, Hashable {
    public var name: String
    public var destinationEntityName: String?
    public var predicate: String?
    @NotCompared public var location: SourceLocation? = nil

    public init(
        name: String, destinationEntityName: String? = nil, predicate: String? = nil, location: SourceLocation? = nil
    ) {
        self.name = name
        self.destinationEntityName = destinationEntityName
        self.predicate = predicate
        self.location = location
    }
}

/// A fetch index (`<fetchIndex>`): an index over one or more properties.
public struct FetchIndex: Sendable, Hashable {
    /// One indexed property.
    public struct Element: Sendable, Hashable {
        public var property: String
        /// `Binary` (an ordinary index) or `RTree`.
        public var kind: String
        public var isAscending: Bool

        public init(property: String, kind: String = "Binary", isAscending: Bool = true) {
            self.property = property
            self.kind = kind
            self.isAscending = isAscending
        }
    }

    public var name: String
    public var elements: [Element]
    @NotCompared public var location: SourceLocation? = nil

    public init(name: String, elements: [Element], location: SourceLocation? = nil) {
        self.name = name
        self.elements = elements
        self.location = location
    }
}

/// A named configuration (`<configuration>`): a subset of entities.
public struct Configuration: Sendable, Hashable {
    public var name: String
    public var entityNames: [String]
    /// Whether Xcode marks the configuration "Used with CloudKit" (`usedWithCloudKit="YES"`):
    /// its entities then keep CloudKit's rules (``CloudKitRules``). Not compared, like
    /// ``ObjectModel/usedWithCloudKit``.
    @NotCompared public var usedWithCloudKit: Bool = false
    @NotCompared public var location: SourceLocation? = nil

    public init(name: String, entityNames: [String], usedWithCloudKit: Bool = false, location: SourceLocation? = nil) {
        self.name = name
        self.entityNames = entityNames
        self.usedWithCloudKit = usedWithCloudKit
        self.location = location
    }
}
