public import Foundation
public import MoltCore

/// A mapping model: how to turn a store of one model version into a store of the next, as a
/// list of entity mappings run in order. Read one with ``MappingReader``, write one with
/// ``MappingWriter``; the format is documented in `MappingModels/README.md`.
public struct MappingModel: Sendable, Hashable {
    /// The source model version's name, as the file gives it.
    public var sourceModelName: String?
    /// The destination model version's name, as the file gives it.
    public var destinationModelName: String?
    /// The entity mappings, in the order they run.
    public var entityMappings: [EntityMapping]
    /// How properties the file gives no value take one.
    public var propertyDefaults: PropertyDefaults
    /// The file the model was read from. Not compared.
    @NotCompared public var sourceFile: String? = nil

    /// How a destination property that the mapping gives no value (not listed, or listed with
    /// `value="default"`) takes one.
    public enum PropertyDefaults: String, Sendable, Hashable, CaseIterable {
        /// As Core Data's inference: the source property named by the destination property's
        /// renaming identifier, else the one with its name, else the one with the same renaming
        /// identifier (Molt's own files, and inferred mappings).
        case inferred
        /// As Xcode's mapping model editor: the source property with the same name only
        /// (renaming identifiers are not looked at), so a property whose name is new in the
        /// destination gets no value (Xcode mapping models, `property-defaults="same-name"`).
        case sameName = "same-name"
    }

    public init(
        sourceModelName: String? = nil, destinationModelName: String? = nil, entityMappings: [EntityMapping] = [],
        propertyDefaults: PropertyDefaults = .inferred, sourceFile: String? = nil
    ) {
        self.sourceModelName = sourceModelName
        self.destinationModelName = destinationModelName
        self.entityMappings = entityMappings
        self.propertyDefaults = propertyDefaults
        self.sourceFile = sourceFile
    }

    /// The entity mapping called `name`.
    public func entityMapping(named name: String) -> EntityMapping? {
        entityMappings.first { $0.name == name }
    }
}

/// How objects of a source entity become objects of a destination entity.
public struct EntityMapping: Sendable, Hashable {
    /// Core Data's entity-mapping types.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A destination entity with no source: nothing is created, the entity just exists.
        case add
        /// A source entity whose objects are not migrated.
        case remove
        /// Objects copied as they are (same properties, by name or renaming identifier).
        case copy
        /// Objects transformed by property mappings (and optionally a policy).
        case transform
        /// Objects made by a policy; property mappings are available to it.
        case custom
    }

    public var name: String
    public var kind: Kind
    public var sourceEntityName: String?
    public var destinationEntityName: String?
    /// The compiled-in policy that runs this mapping, by name.
    public var policyName: String?
    /// Which source objects the mapping reads (all when nil).
    public var filter: MappingExpression?
    public var attributeMappings: [PropertyMapping]
    public var relationshipMappings: [PropertyMapping]
    /// Keys and values for the policy, also available to expressions as `$key` (text).
    public var userInfo: [UserInfoEntry]
    /// The source entity's version hash, when the file records it (checked against the model).
    public var sourceVersionHash: Data?
    /// The destination entity's version hash, when the file records it.
    public var destinationVersionHash: Data?
    /// Where the mapping was read from. Not compared.
    @NotCompared public var location: SourceLocation? = nil
    /// Where the filter's text is in the file, to point at columns. Not compared.
    @NotCompared public var filterOrigin: TextOrigin? = nil
    /// Properties whose value could not be read (a syntax error, already reported), so that
    /// checks do not report them again as missing. Not compared.
    @NotCompared public var unreadableProperties: Set<String> = []

    public init(
        name: String, kind: Kind, sourceEntityName: String? = nil, destinationEntityName: String? = nil,
        policyName: String? = nil, filter: MappingExpression? = nil, attributeMappings: [PropertyMapping] = [],
        relationshipMappings: [PropertyMapping] = [], userInfo: [UserInfoEntry] = [], sourceVersionHash: Data? = nil,
        destinationVersionHash: Data? = nil, location: SourceLocation? = nil
    ) {
        self.name = name
        self.kind = kind
        self.sourceEntityName = sourceEntityName
        self.destinationEntityName = destinationEntityName
        self.policyName = policyName
        self.filter = filter
        self.attributeMappings = attributeMappings
        self.relationshipMappings = relationshipMappings
        self.userInfo = userInfo
        self.sourceVersionHash = sourceVersionHash
        self.destinationVersionHash = destinationVersionHash
        self.location = location
    }

    /// User info as a dictionary (a key given twice keeps its last value).
    public var userInfoDictionary: [String: String] {
        Dictionary(userInfo.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// The explicit mapping for the destination attribute `name`.
    public func attributeMapping(named name: String) -> PropertyMapping? {
        attributeMappings.first { $0.name == name }
    }

    /// The explicit mapping for the destination relationship `name`.
    public func relationshipMapping(named name: String) -> PropertyMapping? {
        relationshipMappings.first { $0.name == name }
    }
}

/// The value of one destination property.
public struct PropertyMapping: Sendable, Hashable {
    public enum Value: Sendable, Hashable {
        /// An expression computing the value.
        case expression(MappingExpression)
        /// No value (`value="nil"`).
        case noValue
        /// What inference gives: the matching source property, else the model's default
        /// (`value="default"`).
        case inferred
    }

    public var name: String
    public var value: Value
    @NotCompared public var location: SourceLocation? = nil
    /// Where the value's text is in the file. Not compared.
    @NotCompared public var origin: TextOrigin? = nil

    public init(name: String, value: Value, location: SourceLocation? = nil, origin: TextOrigin? = nil) {
        self.name = name
        self.value = value
        self.location = location
        self.origin = origin
    }
}

/// One `<user-info key value>` entry.
public struct UserInfoEntry: Sendable, Hashable {
    public var key: String
    public var value: String

    public init(key: String, value: String) {
        self.key = key
        self.value = value
    }
}
