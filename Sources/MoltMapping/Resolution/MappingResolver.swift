internal import Foundation
internal import MoltCore
public import MoltModel

/// One destination property's value in an entity mapping, after inference filled in what the
/// mapping file does not say.
public struct ResolvedProperty: Sendable, Hashable {
    public enum Origin: Sendable, Hashable {
        /// Written in the mapping file.
        case explicit
        /// Inferred from the source property of the same name or renaming identifier.
        case inferred(sourceProperty: String)
        /// The destination model's default value.
        case modelDefault
        /// No value: nothing matches and there is no default.
        case nothing
    }

    public enum Value: Sendable, Hashable {
        case expression(MappingExpression)
        /// The attribute's default value from the destination model.
        case modelDefault
        case noValue
    }

    public let name: String
    public let value: Value
    public let origin: Origin
    /// Where the file wrote the value, for explicit ones.
    public let mapping: PropertyMapping?
}

/// An entity mapping with every destination property's value: explicit, inferred or default.
public struct ResolvedEntityMapping: Sendable {
    public let mapping: EntityMapping
    public let sourceEntity: Entity?
    public let destinationEntity: Entity?
    /// One per stored attribute of the destination entity (inherited ones included).
    public let attributes: [ResolvedProperty]
    /// One per stored relationship of the destination entity (inherited ones included).
    public let relationships: [ResolvedProperty]
    /// Why a relationship could not be inferred, by relationship name.
    public let unresolvedRelationships: [String: String]
    /// Relationships with no counterpart in the source entity (new in this version).
    public let newRelationships: Set<String>
    /// Every stored relationship of the destination entity, inherited ones included.
    public let inheritedRelationships: [Relationship]
    /// Every stored attribute of the destination entity, inherited ones included.
    public let inheritedAttributes: [Attribute]
}

/// Fills in what a mapping file leaves out, the way inference would:
///
/// - An attribute or relationship the file does not list (or lists as `default`) takes the
///   source property with the destination's renaming identifier, else the same name, else the
///   same renaming identifier; for an attribute with no such source, the model's default value.
/// - A relationship's objects are the destination objects made from the source relationship's
///   objects: through the one entity mapping that maps them
///   (`destinationInstancesForEntityMappingNamed:sourceInstances:`), or, when several mappings
///   do (sub-entities mapped one by one), through all of them
///   (`destinationInstancesForSourceRelationshipNamed:sourceInstances:`).
/// - A copy mapping infers every property.
/// - With ``MappingModel/PropertyDefaults/sameName`` (Xcode mapping models), only a source
///   property with the destination property's name is matched, as Xcode's editor fills in
///   value expressions by name; renaming identifiers are not looked at.
///
/// Each entity mapping is resolved once: a resolver, and every copy of it, remembers what it
/// worked out, so one migration run makes one resolver per mapping model and hands it to each
/// part that reads the mapping (checking, the survey of discarded data, the passes, the SQL
/// path).
public struct MappingResolver: @unchecked Sendable {
    public let source: ObjectModel
    public let destination: ObjectModel
    public let mappingModel: MappingModel
    private let resolved = ResolvedMappings()

    public init(source: ObjectModel, destination: ObjectModel, mappingModel: MappingModel) {
        self.source = source
        self.destination = destination
        self.mappingModel = mappingModel
    }

    /// Whether this resolver is for `mappingModel` between these two models.
    public func resolves(_ mappingModel: MappingModel, source: ObjectModel, destination: ObjectModel) -> Bool {
        self.mappingModel == mappingModel && self.source == source && self.destination == destination
    }

    /// The mapping's properties as the run will set them (worked out once).
    public func resolve(_ mapping: EntityMapping) -> ResolvedEntityMapping {
        resolved.value(for: mapping) { resolveNow(mapping) }
    }

    private func resolveNow(_ mapping: EntityMapping) -> ResolvedEntityMapping {
        let sourceEntity = mapping.sourceEntityName.flatMap { source.entity(named: $0) }
        let destinationEntity = mapping.destinationEntityName.flatMap { destination.entity(named: $0) }
        guard let destinationEntity, mapping.kind != .add, mapping.kind != .remove else {
            return ResolvedEntityMapping(
                mapping: mapping, sourceEntity: sourceEntity, destinationEntity: destinationEntity, attributes: [],
                relationships: [], unresolvedRelationships: [:], newRelationships: [], inheritedRelationships: [],
                inheritedAttributes: [])
        }
        let attributes = resolveAttributes(mapping, from: sourceEntity, to: destinationEntity)
        let (relationships, unresolved, new) = resolveRelationships(mapping, from: sourceEntity, to: destinationEntity)
        return ResolvedEntityMapping(
            mapping: mapping, sourceEntity: sourceEntity, destinationEntity: destinationEntity, attributes: attributes,
            relationships: relationships, unresolvedRelationships: unresolved, newRelationships: new,
            inheritedRelationships: destination.allRelationships(of: destinationEntity).filter { !$0.isTransient },
            inheritedAttributes: destination.allAttributes(of: destinationEntity).filter { !$0.isTransient })
    }

    /// Each stored destination attribute's value: the file's (a composite's whole mapping
    /// giving its leaves'), else inferred from the source, else the model's default.
    private func resolveAttributes(
        _ mapping: EntityMapping, from sourceEntity: Entity?, to destinationEntity: Entity
    ) -> [ResolvedProperty] {
        var attributes: [ResolvedProperty] = []
        for attribute in destination.allAttributes(of: destinationEntity) where !attribute.isTransient {
            let (explicit, elementPath) =
                mapping.kind == .copy ? (nil, []) : Self.explicitMapping(of: attribute, in: mapping)
            switch explicit?.value {
            case .expression(let expression)?:
                let value = elementPath.isEmpty ? expression : CompositePaths.element(of: expression, path: elementPath)
                attributes.append(
                    ResolvedProperty(
                        name: attribute.name,
                        value: .expression(CompositePaths.joined(value, model: source, entity: sourceEntity)),
                        origin: .explicit, mapping: explicit))
                continue
            case .noValue?:
                attributes.append(
                    ResolvedProperty(name: attribute.name, value: .noValue, origin: .explicit, mapping: explicit))
                continue
            default:
                break
            }
            if let sourceEntity,
                let match = self.match(
                    attribute.name, renamingIdentifier: attribute.renamingIdentifier,
                    in: source.allAttributes(of: sourceEntity).filter { !$0.isTransient }.map {
                        ($0.name, $0.renamingIdentifier)
                    })
            {
                attributes.append(
                    ResolvedProperty(
                        name: attribute.name, value: .expression(Self.sourceKeyPath(match)),
                        origin: .inferred(sourceProperty: match),
                        mapping: explicit))
            } else if attribute.defaultValue != nil {
                attributes.append(
                    ResolvedProperty(
                        name: attribute.name, value: .modelDefault, origin: .modelDefault, mapping: explicit))
            } else {
                attributes.append(
                    ResolvedProperty(name: attribute.name, value: .noValue, origin: .nothing, mapping: explicit))
            }
        }
        return attributes
    }

    /// Each stored destination relationship's value, with why the ones that have none have none
    /// and which are new in this version.
    private func resolveRelationships(
        _ mapping: EntityMapping, from sourceEntity: Entity?, to destinationEntity: Entity
    ) -> (resolved: [ResolvedProperty], unresolved: [String: String], new: Set<String>) {
        var relationships: [ResolvedProperty] = []
        var unresolved: [String: String] = [:]
        var new: Set<String> = []
        for relationship in destination.allRelationships(of: destinationEntity) where !relationship.isTransient {
            let explicit = mapping.kind == .copy ? nil : mapping.relationshipMapping(named: relationship.name)
            switch explicit?.value {
            case .expression(let expression)?:
                relationships.append(
                    ResolvedProperty(
                        name: relationship.name,
                        value: .expression(CompositePaths.joined(expression, model: source, entity: sourceEntity)),
                        origin: .explicit, mapping: explicit))
                continue
            case .noValue?:
                relationships.append(
                    ResolvedProperty(name: relationship.name, value: .noValue, origin: .explicit, mapping: explicit))
                continue
            default:
                break
            }
            guard let sourceEntity,
                let match = self.match(
                    relationship.name, renamingIdentifier: relationship.renamingIdentifier,
                    in: source.allRelationships(of: sourceEntity).filter { !$0.isTransient }.map {
                        ($0.name, $0.renamingIdentifier)
                    }),
                let sourceRelationship = source.relationship(named: match, in: sourceEntity)
            else {
                let renamed =
                    mappingModel.propertyDefaults == .inferred
                    ? relationship.renamingIdentifier.map { " or \"\($0)\"" } ?? "" : ""
                unresolved[relationship.name] =
                    "the source entity has no relationship called \"\(relationship.name)\"\(renamed)"
                new.insert(relationship.name)
                relationships.append(
                    ResolvedProperty(name: relationship.name, value: .noValue, origin: .nothing, mapping: explicit))
                continue
            }
            let candidates = mappingsProducing(
                relationship.destinationEntityName, from: sourceRelationship.destinationEntityName)
            let expression: MappingExpression
            switch candidates.count {
            case 0:
                unresolved[relationship.name] =
                    "no entity mapping turns \(sourceRelationship.destinationEntityName) objects into \(relationship.destinationEntityName) objects"
                relationships.append(
                    ResolvedProperty(name: relationship.name, value: .noValue, origin: .nothing, mapping: explicit))
                continue
            case 1:
                expression = Self.managerCall(
                    "destinationInstancesForEntityMappingNamed:sourceInstances:", candidates[0].name, match)
            default:
                expression = Self.managerCall(
                    "destinationInstancesForSourceRelationshipNamed:sourceInstances:", match, match)
            }
            relationships.append(
                ResolvedProperty(
                    name: relationship.name, value: .expression(expression), origin: .inferred(sourceProperty: match),
                    mapping: explicit))
        }
        return (relationships, unresolved, new)
    }

    /// The entity mappings that make objects of `destinationEntity` (or a sub-entity) from
    /// objects of `sourceEntity` (or a sub-entity).
    public func mappingsProducing(_ destinationEntity: String, from sourceEntity: String) -> [EntityMapping] {
        let producers = resolved.producers { makeProducers() }
        return (producers[destinationEntity] ?? []).filter { $0.sourceKinds.contains(sourceEntity) }.map {
            mappingModel.entityMappings[$0.index]
        }
    }

    /// For each destination entity, the mappings (by index, in order) that make its objects or
    /// its sub-entities' objects, with the source entities each reads (its own and their
    /// ancestors): worked out once, so a model of thousands of entities is not walked for
    /// every relationship.
    private func makeProducers() -> [String: [ResolvedMappings.Producer]] {
        var producers: [String: [ResolvedMappings.Producer]] = [:]
        for (index, candidate) in mappingModel.entityMappings.enumerated() {
            guard [.copy, .transform, .custom].contains(candidate.kind),
                let candidateSource = candidate.sourceEntityName.flatMap({ source.entity(named: $0) }),
                let candidateDestination = candidate.destinationEntityName.flatMap({ destination.entity(named: $0) })
            else { continue }
            let sourceKinds = Set([candidateSource.name] + source.ancestors(of: candidateSource).map(\.name))
            for kind in [candidateDestination.name] + destination.ancestors(of: candidateDestination).map(\.name) {
                producers[kind, default: []].append(.init(index: index, sourceKinds: sourceKinds))
            }
        }
        return producers
    }

    /// The source property a destination property maps from, by the mapping model's rule for
    /// properties it gives no value.
    func match(
        _ name: String, renamingIdentifier: String?, in candidates: [(name: String, renamingIdentifier: String?)]
    ) -> String? {
        switch mappingModel.propertyDefaults {
        case .inferred: Self.match(name, renamingIdentifier: renamingIdentifier, in: candidates)
        case .sameName: candidates.first { $0.name == name }?.name
        }
    }

    /// The source property a destination property maps from: the one named by its renaming
    /// identifier, else the one with its name, else the one with the same renaming identifier.
    static func match(
        _ name: String, renamingIdentifier: String?, in candidates: [(name: String, renamingIdentifier: String?)]
    )
        -> String?
    {
        if let renamingIdentifier, let found = candidates.first(where: { $0.name == renamingIdentifier }) {
            return found.name
        }
        if let found = candidates.first(where: { $0.name == name }) { return found.name }
        let canonical = renamingIdentifier ?? name
        return candidates.first { ($0.renamingIdentifier ?? $0.name) == canonical }?.name
    }

    /// The mapping file's value for a destination attribute: its own mapping, or for a
    /// composite's leaf the mapping of the composite (or nested composite) that holds it, with
    /// the leaf's path below it (`home` maps `home.city` as its value's `city`).
    static func explicitMapping(of attribute: Attribute, in mapping: EntityMapping) -> (PropertyMapping?, [String]) {
        if let own = mapping.attributeMapping(named: attribute.name) { return (own, []) }
        guard attribute.isCompositeLeaf else { return (nil, []) }
        var parts = attribute.name.split(separator: ".").map(String.init)
        var below: [String] = []
        while parts.count > 1 {
            below.insert(parts.removeLast(), at: 0)
            if let whole = mapping.attributeMapping(named: parts.joined(separator: ".")) { return (whole, below) }
        }
        return (nil, [])
    }

    static func sourceKeyPath(_ name: String) -> MappingExpression {
        MappingExpression(.keyPath(base: MappingExpression(.variable("source")), components: [name]))
    }

    static func managerCall(_ selector: String, _ first: String, _ relationship: String) -> MappingExpression {
        MappingExpression(
            .call(
                target: MappingExpression(.variable("manager")), selector: selector,
                arguments: [MappingExpression(.constant(.string(first))), sourceKeyPath(relationship)]))
    }
}

/// Entry points kept for tests of the matching rule.
package enum MappingResolverTestHooks {
    package static func match(
        _ name: String, renamingIdentifier: String?, in candidates: [(name: String, renamingIdentifier: String?)]
    )
        -> String?
    {
        MappingResolver.match(name, renamingIdentifier: renamingIdentifier, in: candidates)
    }
}

/// What a ``MappingResolver`` has worked out, by entity mapping, shared by its copies.
private final class ResolvedMappings: @unchecked Sendable {
    /// A mapping that makes objects of a destination entity, and the source entities it reads.
    struct Producer {
        var index: Int
        var sourceKinds: Set<String>
    }

    private let lock = NSLock()
    private var byName: [String: (mapping: EntityMapping, resolved: ResolvedEntityMapping)] = [:]
    private var producersByKind: [String: [Producer]]?

    func producers(_ make: () -> [String: [Producer]]) -> [String: [Producer]] {
        lock.lock()
        let known = producersByKind
        lock.unlock()
        if let known { return known }
        let made = make()
        lock.lock()
        producersByKind = made
        lock.unlock()
        return made
    }

    func value(for mapping: EntityMapping, _ make: () -> ResolvedEntityMapping) -> ResolvedEntityMapping {
        lock.lock()
        let known = byName[mapping.name]
        lock.unlock()
        if let known, known.mapping == mapping { return known.resolved }
        let made = make()
        lock.lock()
        byName[mapping.name] = (mapping, made)
        lock.unlock()
        return made
    }
}
