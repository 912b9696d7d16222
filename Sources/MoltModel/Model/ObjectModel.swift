public import MoltCore

/// A managed object model: the entities of one model version.
///
/// Immutable once made, so that lookups by name stay fast and correct. Read one from Xcode's
/// files with ``ModelLoader``, or build one in code:
///
/// ```swift
/// let model = ObjectModel(entities: [
///     Entity(name: "Author", attributes: [Attribute(name: "name", type: .string)]),
/// ])
/// let hashes = try model.entityVersionHashes()
/// ```
public struct ObjectModel: Sendable, Hashable {
    /// The entities in the order the model file lists them.
    public let entities: [Entity]
    public let configurations: [Configuration]
    /// The composites that composite attributes use, in the order the model file lists them.
    public let composites: [Composite]
    /// Core Data's version identifiers (Xcode's `userDefinedModelVersionIdentifier`).
    public let versionIdentifiers: [String]
    /// Whether the model's Default configuration is marked "Used with CloudKit" in Xcode
    /// (`usedWithCloudKit="YES"` on `<model>`): Xcode then checks CloudKit's rules when it
    /// compiles the model, and `molt check-model` checks them (see ``CloudKitRules``). Not
    /// compared: it is a setting for checks, not part of the schema (no version hash has it).
    @NotCompared public private(set) var usedWithCloudKit: Bool = false
    /// The version's name, such as "Model 3" (the `.xcdatamodel` folder name without extension).
    @NotCompared public private(set) var name: String? = nil
    /// The file the model was read from.
    @NotCompared public private(set) var sourceFile: String? = nil

    private let indexByName: [String: Int]
    private let compositeIndexByName: [String: Int]
    /// Each entity's direct sub-entities (by offset in ``entities``), sorted by name.
    private let childrenByParent: [String: [Int]]

    public init(
        entities: [Entity],
        configurations: [Configuration] = [],
        composites: [Composite] = [],
        versionIdentifiers: [String] = [],
        usedWithCloudKit: Bool = false,
        name: String? = nil,
        sourceFile: String? = nil
    ) {
        self.entities = entities
        self.configurations = configurations
        self.composites = composites
        self.versionIdentifiers = versionIdentifiers
        self.usedWithCloudKit = usedWithCloudKit
        self.name = name
        self.sourceFile = sourceFile
        var index: [String: Int] = [:]
        for (offset, entity) in entities.enumerated() where index[entity.name] == nil {
            index[entity.name] = offset
        }
        self.indexByName = index
        var compositeIndex: [String: Int] = [:]
        for (offset, composite) in composites.enumerated() where compositeIndex[composite.name] == nil {
            compositeIndex[composite.name] = offset
        }
        self.compositeIndexByName = compositeIndex
        var children: [String: [Int]] = [:]
        for (offset, entity) in entities.enumerated() {
            guard let parent = entity.parentName, parent != entity.name else { continue }
            children[parent, default: []].append(offset)
        }
        self.childrenByParent = children.mapValues { offsets in
            offsets.sorted { NameOrder.precedes(entities[$0].name, entities[$1].name) }
        }
    }

    /// The direct sub-entities of the entity called `name`, sorted by name.
    func subentities(named name: String) -> [Entity] {
        (childrenByParent[name] ?? []).map { entities[$0] }
    }

    /// The entity called `name`.
    public func entity(named name: String) -> Entity? {
        indexByName[name].map { entities[$0] }
    }

    /// The composite called `name`.
    public func composite(named name: String) -> Composite? {
        compositeIndexByName[name].map { composites[$0] }
    }

    /// The entity names, in ascending order (byte order of their UTF-8, as Core Data sorts them).
    public var sortedEntityNames: [String] {
        entities.map(\.name).sorted(by: NameOrder.precedes)
    }

    /// A copy with a different name and source file.
    public func named(_ name: String?, sourceFile: String?) -> ObjectModel {
        var copy = self
        copy.name = name
        copy.sourceFile = sourceFile
        return copy
    }
}

/// How Molt orders names wherever Core Data's order matters (entity numbers, property hashes,
/// join tables): by the bytes of their UTF-8, which for the ASCII names models use is the same
/// as Core Data's ordering.
public enum NameOrder {
    public static func precedes(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}
