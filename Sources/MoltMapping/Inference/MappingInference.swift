internal import MoltCore
public import MoltModel

/// Why a mapping cannot be inferred between two model versions, and what to do about it.
public struct InferenceReason: Sendable, Hashable, CustomStringConvertible {
    public var entity: String
    public var property: String?
    public var message: String
    /// What the developer can do: write a mapping file, add a renaming identifier, add a default…
    public var suggestion: String

    public var description: String {
        "\(entity)\(property.map { ".\($0)" } ?? ""): \(message) — \(suggestion)"
    }
}

/// An inferred mapping, or the reasons there is none.
public enum InferenceResult: Sendable {
    case inferred(MappingModel)
    case impossible([InferenceReason])

    public var mapping: MappingModel? {
        if case .inferred(let mapping) = self { return mapping }
        return nil
    }

    public var reasons: [InferenceReason] {
        if case .impossible(let reasons) = self { return reasons }
        return []
    }
}

/// Infers the mapping between two model versions, as Core Data's lightweight migration does,
/// or says exactly why it cannot.
///
/// Entities and properties correspond by renaming identifier (Xcode's `elementID`), then by
/// name, then by the same renaming identifier; a renaming identifier is kept across versions,
/// so a model can be inferred from any earlier version however many renames lie between.
/// Inferred: attributes and relationships added (new non-optional ones need a default) or
/// removed; a non-optional attribute becoming optional, and an optional one becoming
/// non-optional when it has a default (empty values take the default); renamed entities and
/// properties; to-one ↔ to-many (a to-one keeps the first object) and ordered ↔ unordered;
/// entities added, removed and renamed; new parent and child entities, properties moving up or
/// down a hierarchy, entities moving into or out of a hierarchy; the safe type changes of
/// ``TypeChanges``. Refused, with a reason: other type changes, a new required value that has
/// no default, one source entity feeding two destination entities, and entities of two source
/// hierarchies sharing one destination hierarchy.
///
/// ```swift
/// switch MappingInference.infer(from: v1, to: v2) {
/// case .inferred(let mapping): print(MappingWriter().text(of: mapping))
/// case .impossible(let reasons): reasons.forEach { print($0) }
/// }
/// ```
public enum MappingInference {
    public static func infer(from source: ObjectModel, to destination: ObjectModel) -> InferenceResult {
        var run = InferenceRun(source: source, destination: destination)
        let mapping = run.infer()
        return run.reasons.isEmpty ? .inferred(mapping) : .impossible(run.reasons)
    }

    /// The source entity a destination entity comes from: the one named by its renaming
    /// identifier, else the one with its name, else the one with the same renaming identifier.
    public static func sourceEntity(for entity: Entity, in source: ObjectModel) -> Entity? {
        if let identifier = entity.renamingIdentifier, let found = source.entity(named: identifier) { return found }
        if let found = source.entity(named: entity.name) { return found }
        return source.entities.first { $0.canonicalName == entity.canonicalName }
    }
}

private struct InferenceRun {
    let source: ObjectModel
    let destination: ObjectModel
    var reasons: [InferenceReason] = []
    /// Destination entity → source entity.
    var pairs: [(source: Entity, destination: Entity)] = []

    init(source: ObjectModel, destination: ObjectModel) {
        self.source = source
        self.destination = destination
    }

    mutating func reason(_ entity: String, _ property: String?, _ message: String, _ suggestion: String) {
        reasons.append(InferenceReason(entity: entity, property: property, message: message, suggestion: suggestion))
    }

    mutating func infer() -> MappingModel {
        var mapping = MappingModel(sourceModelName: source.name, destinationModelName: destination.name)
        var claimed: [String: String] = [:]
        for entity in destination.entities {
            guard let match = MappingInference.sourceEntity(for: entity, in: source) else { continue }
            if let other = claimed[match.name] {
                reason(
                    entity.name, nil, "both \(other) and \(entity.name) come from \(match.name)",
                    "write a mapping file to say which objects go where (one source entity can feed several)")
                continue
            }
            claimed[match.name] = entity.name
            pairs.append((match, entity))
        }
        checkHierarchies()
        for (sourceEntity, destinationEntity) in pairs {
            checkAttributes(sourceEntity, destinationEntity)
            checkRelationships(sourceEntity, destinationEntity)
        }
        // Entity mappings: one per pair of concrete entities, in destination order; then adds
        // for new entities, removes for dropped ones.
        for (sourceEntity, destinationEntity) in pairs where !sourceEntity.isAbstract {
            guard !destinationEntity.isAbstract else {
                reason(
                    destinationEntity.name, nil, "the entity became abstract, so \(sourceEntity.name) objects have nowhere to go",
                    "write a mapping file that sends them to a sub-entity")
                continue
            }
            mapping.entityMappings.append(entityMapping(sourceEntity, destinationEntity))
        }
        let mappedDestinations = Set(pairs.map(\.destination.name))
        for entity in destination.entities where !mappedDestinations.contains(entity.name) {
            mapping.entityMappings.append(EntityMapping(name: "Add\(entity.name)", kind: .add, destinationEntityName: entity.name))
        }
        let mappedSources = Set(pairs.map(\.source.name))
        for entity in source.entities where !mappedSources.contains(entity.name) && !entity.isAbstract {
            mapping.entityMappings.append(EntityMapping(name: "Remove\(entity.name)", kind: .remove, sourceEntityName: entity.name))
        }
        return mapping
    }

    /// Entities of two source hierarchies cannot share one destination hierarchy (their keys
    /// and tables were separate).
    mutating func checkHierarchies() {
        var sourceRootsByDestinationRoot: [String: Set<String>] = [:]
        for (sourceEntity, destinationEntity) in pairs {
            sourceRootsByDestinationRoot[destination.root(of: destinationEntity).name, default: []]
                .insert(source.root(of: sourceEntity).name)
        }
        for (root, sourceRoots) in sourceRootsByDestinationRoot.sorted(by: { $0.key < $1.key }) where sourceRoots.count > 1 {
            reason(
                root, nil,
                "the hierarchy of \(root) would merge entities of separate source hierarchies (\(sourceRoots.sorted().joined(separator: ", ")))",
                "keep them in separate hierarchies, or write a mapping file")
        }
    }

    /// The source property a destination property comes from (the resolver's rule, so the
    /// inferred mapping and the engine agree).
    func match<T>(_ name: String, _ renamingIdentifier: String?, in candidates: [T], name key: (T) -> String, identifier: (T) -> String?)
        -> T?
    {
        let found = MappingResolver.match(
            name, renamingIdentifier: renamingIdentifier, in: candidates.map { (key($0), identifier($0)) })
        return found.flatMap { found in candidates.first { key($0) == found } }
    }

    mutating func checkAttributes(_ sourceEntity: Entity, _ destinationEntity: Entity) {
        let sourceAttributes = source.allAttributes(of: sourceEntity).filter { !$0.isTransient }
        for attribute in destination.allAttributes(of: destinationEntity) where !attribute.isTransient {
            guard
                let old = match(
                    attribute.name, attribute.renamingIdentifier, in: sourceAttributes, name: \.name, identifier: \.renamingIdentifier)
            else {
                if !attribute.isOptional, attribute.defaultValue == nil {
                    reason(
                        destinationEntity.name, attribute.name, "the new attribute is not optional and has no default value",
                        "give it a default value, make it optional, or write a mapping file that sets it")
                }
                continue
            }
            if !TypeChanges.isSafe(from: old.type, to: attribute.type) {
                reason(
                    destinationEntity.name, attribute.name,
                    "the type changed from \(old.type.rawValue) to \(attribute.type.rawValue), which could lose or invent values",
                    "write a mapping file with an explicit value, such as <attribute name=\"\(attribute.name)\" value=\"…($source.\(old.name))\"/>")
            }
            if old.isOptional, !attribute.isOptional, DefaultLiteral.expression(for: attribute) == nil {
                reason(
                    destinationEntity.name, attribute.name, "the attribute became non-optional and has no default value",
                    "give it a default value (empty values take it), or write a mapping file")
            }
        }
    }

    mutating func checkRelationships(_ sourceEntity: Entity, _ destinationEntity: Entity) {
        let sourceRelationships = source.allRelationships(of: sourceEntity).filter { !$0.isTransient }
        for relationship in destination.allRelationships(of: destinationEntity) where !relationship.isTransient {
            let required = !relationship.isOptional || relationship.minCount > 0
            guard
                let old = match(
                    relationship.name, relationship.renamingIdentifier, in: sourceRelationships, name: \.name,
                    identifier: \.renamingIdentifier)
            else {
                if required {
                    reason(
                        destinationEntity.name, relationship.name, "the new relationship is required, and no source relationship fills it",
                        "make it optional, or write a mapping file (with a policy) that sets it")
                }
                continue
            }
            // The old relationship's objects must become objects of the new one's entity.
            let fits = relationshipTargetsFit(old, relationship)
            if !fits {
                reason(
                    destinationEntity.name, relationship.name,
                    "the relationship now leads to \(relationship.destinationEntityName), which \(old.destinationEntityName) objects do not become",
                    "write a mapping file that says which objects it holds")
            }
            if old.isOptional && !relationship.isOptional || relationship.minCount > old.minCount {
                reason(
                    destinationEntity.name, relationship.name, "the relationship became required, and existing objects may have none",
                    "keep it optional, or write a mapping file (with a policy) that fills it")
            }
        }
    }

    /// Whether objects of the old relationship's entity (or its sub-entities) become objects of
    /// the new relationship's entity.
    func relationshipTargetsFit(_ old: Relationship, _ new: Relationship) -> Bool {
        guard let oldTarget = source.entity(named: old.destinationEntityName) else { return false }
        return pairs.contains { pair in
            (source.entity(pair.source, isKindOf: oldTarget.name) || source.entity(oldTarget, isKindOf: pair.source.name))
                && destination.entity(pair.destination, isKindOf: new.destinationEntityName)
        }
    }

    /// An entity mapping for a pair, with explicit values only where inference needs to say
    /// something: a renamed property, a conversion, a default for empty values.
    func entityMapping(_ sourceEntity: Entity, _ destinationEntity: Entity) -> EntityMapping {
        var mapping = EntityMapping(
            name: sourceEntity.name == destinationEntity.name ? "\(sourceEntity.name)" : "\(sourceEntity.name)To\(destinationEntity.name)",
            kind: .transform, sourceEntityName: sourceEntity.name, destinationEntityName: destinationEntity.name)
        let sourceAttributes = source.allAttributes(of: sourceEntity).filter { !$0.isTransient }
        for attribute in destination.allAttributes(of: destinationEntity) where !attribute.isTransient {
            guard
                let old = match(
                    attribute.name, attribute.renamingIdentifier, in: sourceAttributes, name: \.name, identifier: \.renamingIdentifier)
            else { continue }
            var value = MappingExpression(.keyPath(base: MappingExpression(.variable("source")), components: [old.name]))
            var explicit = old.name != attribute.name
            if TypeChanges.needsConversion(from: old.type, to: attribute.type) {
                value = MappingExpression(.function(name: BuiltinFunction.string.rawValue, arguments: [value]))
                explicit = true
            }
            if old.isOptional, !attribute.isOptional, let fallback = DefaultLiteral.expression(for: attribute) {
                value = MappingExpression(.function(name: BuiltinFunction.coalesce.rawValue, arguments: [value, fallback]))
                explicit = true
            }
            if explicit {
                mapping.attributeMappings.append(PropertyMapping(name: attribute.name, value: .expression(value)))
            }
        }
        return mapping
    }
}

/// An attribute's default value as an expression literal.
enum DefaultLiteral {
    static func expression(for attribute: Attribute) -> MappingExpression? {
        guard let text = attribute.defaultValue, let scalar = DefaultValueReading.value(text, for: attribute.type) else {
            return nil
        }
        switch scalar {
        case .integer(let number): return MappingExpression(.constant(.integer(number)))
        case .double(let number): return MappingExpression(.constant(.double(number)))
        case .decimal(let number):
            return MappingExpression(.function(name: "decimal", arguments: [MappingExpression(.constant(.string(number.description)))]))
        case .bool(let flag): return MappingExpression(.constant(.bool(flag)))
        case .string(let string): return MappingExpression(.constant(.string(string)))
        case .date(let seconds): return MappingExpression(.function(name: "date", arguments: [MappingExpression(.constant(.double(seconds)))]))
        case .uuid(let uuid):
            return MappingExpression(.function(name: "uuid", arguments: [MappingExpression(.constant(.string(uuid.uuidString)))]))
        case .uri(let text): return MappingExpression(.constant(.string(text)))
        }
    }
}
