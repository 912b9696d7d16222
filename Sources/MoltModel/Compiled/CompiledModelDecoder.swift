public import Foundation
public import MoltCore

/// Reads Core Data's compiled model: the keyed archive of an `NSManagedObjectModel` that a
/// store keeps (deflated) in `Z_MODELCACHE`, and that a `.mom` file holds.
///
/// The archive is read as data (``/MoltCore/KeyedArchive``), never by instantiating classes. The classes
/// and keys read are listed in ``CompiledModelKeys``: the model's entities (with their parent,
/// sub-entities, properties, user info, uniqueness constraints, fetch indexes, renaming
/// identifiers and version hash modifiers), attributes (type, flags, default value, external
/// storage, value transformer and class, minimum and maximum, derivation), relationships
/// (destination, inverse, counts, delete rule, order) and fetched properties.
///
/// Whatever takes part in version hashes is read strictly: an unknown key on a model, entity,
/// attribute or relationship, an unknown flag bit, an unknown attribute type or property
/// class, a read-only property (which Molt's models cannot express) or references that do not
/// hold together are errors naming the entity and property, never a silent default. What
/// does not take part in hashes and is not understood (validation predicates, a default value
/// of an unknown class) is left out and listed in ``CompiledModel/notes``.
///
/// Hostile archives are bounded: at most ``Limits/maximumEntities`` entities and
/// ``Limits/maximumElements`` decoded elements in all (entities, properties, user-info entries,
/// constraint and index parts), entities at most ``Limits/maximumInheritanceDepth`` levels
/// below their root, expressions at most ``Limits/maximumExpressionDepth`` deep.
///
/// ```swift
/// let compiled = try CompiledModelDecoder().decode(
///     try KeyedArchive(data: archive, name: "Model.mom"), location: SourceLocation(file: "Model.mom"))
/// ```
public struct CompiledModelDecoder: Sendable {
    /// Bounds on what an archive may make the decoder do.
    public struct Limits: Sendable {
        /// The most entities a model may have.
        public var maximumEntities = 10_000
        /// The most elements decoded in all.
        public var maximumElements = 1_000_000
        /// The deepest nesting of a derivation expression that is turned into text.
        public var maximumExpressionDepth = 32
        /// The most ancestors an entity may have (version hashes are computed parent first).
        public var maximumInheritanceDepth = 100

        public init() {}
    }

    public var limits: Limits

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Decodes a compiled model held as a binary property list (an inflated `Z_MODELCACHE`).
    /// `location` names it in errors.
    public func decode(_ data: Data, location: SourceLocation) throws -> CompiledModel {
        let archive: KeyedArchive
        do {
            archive = try KeyedArchive(data: data, name: "the compiled model")
        } catch let error as MoltError {
            throw error.located(location)
        }
        return try decode(archive, location: location)
    }

    /// Decodes the model at the root of `archive`.
    public func decode(_ archive: KeyedArchive, location: SourceLocation) throws -> CompiledModel {
        let context = CompiledModelContext(archive: archive, location: location, limits: limits)
        do {
            let root = try archive.root()
            let model = try context.model(root)
            return CompiledModel(model: model, notes: context.notes)
        } catch let error as MoltError {
            throw error.located(location)
        }
    }
}

/// The state of one decoding: the archive, the entities by archive position, the element
/// budget and the notes. A class because every part of the decoding adds to it.
final class CompiledModelContext {
    let archive: KeyedArchive
    let location: SourceLocation
    let limits: CompiledModelDecoder.Limits
    private(set) var notes: [String] = []
    private var elements = 0
    /// Entity names by the position of their object in `$objects`.
    var entityNames: [Int: String] = [:]
    /// Every entity name of the model.
    var entityNameSet: Set<String> = []
    /// The position of the model object.
    var modelIndex = -1
    /// The composites met in composite attributes, in the order met (``CompositeNaming``).
    var composites = CompositeNaming()

    init(archive: KeyedArchive, location: SourceLocation, limits: CompiledModelDecoder.Limits) {
        self.archive = archive
        self.location = location
        self.limits = limits
    }

    // MARK: Errors, notes, bounds

    /// An archive that does not hold together.
    func corrupt(_ message: String, entity: String? = nil, property: String? = nil) -> MoltError {
        MoltError(
            .propertyListReadCorrupt, message, location: location, entity: entity, property: property,
            recovery: "The store's model cache is damaged or was not written by Core Data.")
    }

    /// Something Core Data writes that Molt cannot represent or does not understand, and that
    /// may change version hashes.
    func unsupported(_ message: String, entity: String? = nil, property: String? = nil) -> MoltError {
        MoltError(
            .fileReadCorruptFile, message, location: location, entity: entity, property: property,
            recovery:
                "Molt cannot use this compiled model: give the model version the store was made with instead (an Xcode model)."
        )
    }

    func note(_ text: String) {
        if notes.count < 1000 { notes.append(text) }
    }

    /// Counts `count` more decoded elements; an error past the limit.
    func spend(_ count: Int = 1) throws {
        elements += count
        guard elements <= limits.maximumElements else {
            throw corrupt("the compiled model has more than \(limits.maximumElements) elements")
        }
    }

    /// Fails when `object` has a key outside `known` (besides `$class`).
    func checkKeys(
        _ object: ArchivedObject, _ known: Set<String>, what: String, entity: String? = nil, property: String? = nil
    ) throws {
        let unknown = object.fields.keys.filter { $0 != "$class" && !known.contains($0) }.sorted()
        guard unknown.isEmpty else {
            throw unsupported(
                "the \(what) (\(object.className)) has \(unknown.count == 1 ? "a key" : "keys") Molt does not know: \(unknown.joined(separator: ", ")); it may change the version hash",
                entity: entity, property: property)
        }
    }

    // MARK: The model

    func model(_ root: ArchivedObject) throws -> ObjectModel {
        guard root.isKind(of: "NSManagedObjectModel") else {
            throw corrupt("the archive's root is a \(root.className), not an NSManagedObjectModel")
        }
        try checkKeys(root, CompiledModelKeys.model, what: "model")
        modelIndex = root.index
        let entries =
            try root.object("NSEntities").map { try dictionaryEntries($0, what: "the model's entities") } ?? []
        guard entries.count <= limits.maximumEntities else {
            throw corrupt("the compiled model has more than \(limits.maximumEntities) entities")
        }
        var objects: [(name: String, object: ArchivedObject)] = []
        for entry in entries {
            guard case .object(let object)? = entry.value, object.isKind(of: "NSEntityDescription") else {
                throw corrupt("the model's entity \"\(entry.key)\" is not an NSEntityDescription", entity: entry.key)
            }
            guard entityNames[object.index] == nil else {
                throw corrupt("the model lists one entity object twice", entity: entry.key)
            }
            guard entityNameSet.insert(entry.key).inserted else {
                throw corrupt("the model has two entities called \"\(entry.key)\"", entity: entry.key)
            }
            entityNames[object.index] = entry.key
            objects.append((entry.key, object))
        }
        var entities = try objects.map { try entity($0.object, key: $0.name) }
        try checkHierarchy(&entities, objects: objects.map(\.object))
        entities.sort { NameOrder.precedes($0.name, $1.name) }
        let model = ObjectModel(
            entities: entities, configurations: try configurations(root), composites: composites.composites,
            versionIdentifiers: try versionIdentifiers(root))
        if let templates = try root.object("NSFetchRequestTemplates") {
            let count = try dictionaryEntries(templates, what: "the model's fetch request templates").count
            if count > 0 { note("the model's \(count) fetch request template\(count == 1 ? " is" : "s are") not kept") }
        }
        return model
    }

    func configurations(_ root: ArchivedObject) throws -> [Configuration] {
        guard let object = try root.object("NSConfigurations") else { return [] }
        var result: [Configuration] = []
        for entry in try dictionaryEntries(object, what: "the model's configurations") {
            try spend()
            guard case .object(let members)? = entry.value else {
                throw corrupt("the configuration \"\(entry.key)\" is not a set of entities")
            }
            var names: [String] = []
            for member in try collectionElements(members, what: "configuration \"\(entry.key)\"") {
                try spend()
                names.append(try entityName(member, what: "a member of the configuration \"\(entry.key)\""))
            }
            result.append(Configuration(name: entry.key, entityNames: names.sorted(by: NameOrder.precedes)))
        }
        return result.sorted { NameOrder.precedes($0.name, $1.name) }
    }

    func versionIdentifiers(_ root: ArchivedObject) throws -> [String] {
        guard let object = try root.object("NSVersionIdentifiers") else { return [] }
        var result: [String] = []
        for element in try collectionElements(object, what: "the model's version identifiers") {
            try spend()
            guard let text = try text(element) else {
                throw corrupt("a version identifier of the model is not a string")
            }
            result.append(text)
        }
        return result.sorted(by: NameOrder.precedes)
    }

    /// Checks that parents and sub-entities agree and that no entity inherits from itself.
    func checkHierarchy(_ entities: inout [Entity], objects: [ArchivedObject]) throws {
        let parents = Dictionary(entities.map { ($0.name, $0.parentName) }, uniquingKeysWith: { a, _ in a })
        var childrenOf: [String: [String]] = [:]
        for entity in entities {
            if let parent = entity.parentName { childrenOf[parent, default: []].append(entity.name) }
        }
        for (offset, object) in objects.enumerated() {
            let name = entities[offset].name
            guard let listed = try object.object("NSSubentities") else { continue }
            var children: Set<String> = []
            for entry in try dictionaryEntries(listed, what: "the sub-entities of \(name)") {
                try spend()
                guard case .object(let child)? = entry.value, let childName = entityNames[child.index],
                    childName == entry.key
                else {
                    throw corrupt("its sub-entity \"\(entry.key)\" is not an entity of the model", entity: name)
                }
                guard parents[childName] == name else {
                    throw corrupt(
                        "it lists \(childName) as a sub-entity, but \(childName)'s parent is not \(name)", entity: name)
                }
                children.insert(childName)
            }
            for child in childrenOf[name, default: []] where !children.contains(child) {
                throw corrupt("\(child) has it as parent, but it does not list \(child) as a sub-entity", entity: name)
            }
        }
        for entity in entities {
            var current = entity.parentName
            var steps = 0
            while let parent = current {
                steps += 1
                guard parent != entity.name, steps <= entities.count else {
                    throw corrupt("the entity inherits from itself", entity: entity.name)
                }
                guard steps <= limits.maximumInheritanceDepth else {
                    throw corrupt(
                        "the entity has more than \(limits.maximumInheritanceDepth) ancestors", entity: entity.name)
                }
                current = parents[parent] ?? nil
            }
        }
    }

    // MARK: Values

    /// Text archived inline or as an `NSString` object.
    func text(_ value: ArchivedValue?) throws -> String? {
        switch value {
        case .plain(.string(let text))?: return text
        case .object(let object)? where object.isKind(of: "NSString"): return try object.string("NS.string")
        default: return nil
        }
    }

    /// The name of the entity an archived reference points at.
    func entityName(
        _ value: ArchivedValue?, what: String, entity: String? = nil, property: String? = nil
    ) throws
        -> String
    {
        guard case .object(let object)? = value, let name = entityNames[object.index] else {
            throw corrupt("\(what) is not an entity of the model", entity: entity, property: property)
        }
        return name
    }
}
