import MoltModel

/// One inference between two models: pairs the entities, checks every rule (collecting a
/// reason for each one broken), and builds the mapping.
struct InferenceRun {
    let source: ObjectModel
    let destination: ObjectModel
    let sourceHierarchy: EntityHierarchy
    let destinationHierarchy: EntityHierarchy
    var reasons: [InferenceReason] = []
    /// Each existing entity: the source entity and the destination entity it becomes, in
    /// destination order.
    var pairs: [(source: Entity, destination: Entity)] = []
    /// The destination entity each paired source entity becomes, by source name.
    var destinationBySource: [String: Entity] = [:]

    init(source: ObjectModel, destination: ObjectModel) {
        self.source = source
        self.destination = destination
        sourceHierarchy = EntityHierarchy(source)
        destinationHierarchy = EntityHierarchy(destination)
    }

    mutating func reason(_ entity: String, _ property: String?, _ message: String, _ suggestion: String) {
        reasons.append(InferenceReason(entity: entity, property: property, message: message, suggestion: suggestion))
    }

    mutating func infer() -> MappingModel {
        pairEntities()
        checkHierarchies()
        for (sourceEntity, destinationEntity) in pairs {
            checkAttributes(sourceEntity, destinationEntity)
            checkRelationships(sourceEntity, destinationEntity)
        }
        // Entity mappings: one per pair of concrete entities, in destination order; then adds
        // for new entities, removes for dropped ones.
        var mapping = MappingModel(sourceModelName: source.name, destinationModelName: destination.name)
        for (sourceEntity, destinationEntity) in pairs where !sourceEntity.isAbstract {
            guard !destinationEntity.isAbstract else {
                reason(
                    destinationEntity.name, nil,
                    "the entity became abstract, so \(sourceEntity.name) objects have nowhere to go",
                    "write a mapping file that sends them to a sub-entity")
                continue
            }
            mapping.entityMappings.append(entityMapping(sourceEntity, destinationEntity))
        }
        let mappedDestinations = Set(pairs.map(\.destination.name))
        for entity in destination.entities where !mappedDestinations.contains(entity.name) {
            mapping.entityMappings.append(
                EntityMapping(name: "Add\(entity.name)", kind: .add, destinationEntityName: entity.name))
        }
        let mappedSources = Set(pairs.map(\.source.name))
        for entity in source.entities where !mappedSources.contains(entity.name) && !entity.isAbstract {
            mapping.entityMappings.append(
                EntityMapping(name: "Remove\(entity.name)", kind: .remove, sourceEntityName: entity.name))
        }
        return mapping
    }

    /// Pairs each destination entity with the source entity it comes from; a source entity
    /// claimed twice is a reason (its objects would have to be split).
    mutating func pairEntities() {
        var claimed: [String: String] = [:]
        for entity in destination.entities {
            guard let match = MappingInference.sourceEntity(for: entity, in: source) else { continue }
            if let other = claimed[match.name] {
                reason(
                    entity.name, nil, "both \(other) and \(entity.name) come from \(match.name)",
                    "give one of them another renaming identifier, or write a mapping file to say which objects go where"
                )
                continue
            }
            claimed[match.name] = entity.name
            pairs.append((match, entity))
            destinationBySource[match.name] = entity
        }
    }

    /// The source property a destination property comes from (the resolver's rule, so the
    /// inferred mapping and the engine agree).
    func match<T>(
        _ name: String, _ renamingIdentifier: String?, in candidates: [T], name key: (T) -> String,
        identifier: (T) -> String?
    ) -> T? {
        let found = MappingResolver.match(
            name, renamingIdentifier: renamingIdentifier, in: candidates.map { (key($0), identifier($0)) })
        return found.flatMap { found in candidates.first { key($0) == found } }
    }

    /// The stored attributes of a destination entity, each with the source attribute it comes
    /// from (nil for a new one).
    func attributePairs(_ sourceEntity: Entity, _ destinationEntity: Entity) -> [(old: Attribute?, new: Attribute)] {
        let sourceAttributes = source.allAttributes(of: sourceEntity).filter { !$0.isTransient }
        return destination.allAttributes(of: destinationEntity).filter { !$0.isTransient }.map { attribute in
            let old = match(
                attribute.name, attribute.renamingIdentifier, in: sourceAttributes, name: \.name,
                identifier: \.renamingIdentifier)
            return (old, attribute)
        }
    }

    mutating func checkAttributes(_ sourceEntity: Entity, _ destinationEntity: Entity) {
        let entity = destinationEntity.name
        for (old, attribute) in attributePairs(sourceEntity, destinationEntity) {
            guard let old else {
                if !attribute.isOptional, attribute.defaultValue == nil {
                    reason(
                        entity, attribute.name, "the new attribute is not optional and has no default value",
                        "give it a default value, make it optional, add a renaming identifier if it was renamed, or write a mapping file that sets it"
                    )
                }
                continue
            }
            if !TypeChanges.isSafe(from: old.type, to: attribute.type) {
                reason(
                    entity, attribute.name,
                    "the type changed from \(old.type.rawValue) to \(attribute.type.rawValue), which could lose or invent values",
                    "write a mapping file with an explicit value, such as <attribute name=\"\(attribute.name)\" value=\"…($source.\(old.name))\"/>"
                )
            }
            if old.isOptional, !attribute.isOptional, DefaultLiteral.expression(for: attribute) == nil {
                reason(
                    entity, attribute.name, "the attribute became non-optional and has no default value",
                    "give it a default value (empty values take it), or write a mapping file")
            }
        }
    }

    /// An entity mapping for a pair, with explicit values only where inference needs to say
    /// something: a renamed attribute, a conversion, a default for empty values. Relationships
    /// are left to the resolver, which maps them through the entity mappings of their objects.
    func entityMapping(_ sourceEntity: Entity, _ destinationEntity: Entity) -> EntityMapping {
        var mapping = EntityMapping(
            name: sourceEntity.name == destinationEntity.name
                ? sourceEntity.name : "\(sourceEntity.name)To\(destinationEntity.name)",
            kind: .transform, sourceEntityName: sourceEntity.name, destinationEntityName: destinationEntity.name)
        for (old, attribute) in attributePairs(sourceEntity, destinationEntity) {
            guard let old else { continue }
            // A composite's leaf is read by its path, as a mapping file writes it (`$source.home.city`);
            // any other name is one key, whatever characters it holds.
            let parts = old.name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            let path = source.leafPath(parts, in: sourceEntity)?.count == parts.count ? parts : [old.name]
            var value = MappingExpression(.keyPath(base: MappingExpression(.variable("source")), components: path))
            var explicit = old.name != attribute.name
            if TypeChanges.needsConversion(from: old.type, to: attribute.type) {
                value = MappingExpression(.function(name: BuiltinFunction.string.rawValue, arguments: [value]))
                explicit = true
            }
            if old.isOptional, !attribute.isOptional, let fallback = DefaultLiteral.expression(for: attribute) {
                value = MappingExpression(
                    .function(name: BuiltinFunction.coalesce.rawValue, arguments: [value, fallback]))
                explicit = true
            }
            if explicit {
                mapping.attributeMappings.append(PropertyMapping(name: attribute.name, value: .expression(value)))
            }
        }
        return mapping
    }
}
