/// Resolving the entity hierarchy: parents, sub-entities and inherited properties.
///
/// Every walk up the hierarchy stops after as many steps as there are entities, so a model
/// with a cycle (which ``ModelChecker`` reports) never makes these loop.
extension ObjectModel {
    /// The entity's parent entity, if it has one and it exists.
    public func parent(of entity: Entity) -> Entity? {
        entity.parentName.flatMap { self.entity(named: $0) }
    }

    /// The entity's ancestors, nearest first.
    public func ancestors(of entity: Entity) -> [Entity] {
        var result: [Entity] = []
        var seen: Set<String> = [entity.name]
        var current = parent(of: entity)
        while let ancestor = current, !seen.contains(ancestor.name) {
            result.append(ancestor)
            seen.insert(ancestor.name)
            current = parent(of: ancestor)
        }
        return result
    }

    /// The root of the entity's hierarchy (the entity itself when it has no parent).
    public func root(of entity: Entity) -> Entity {
        ancestors(of: entity).last ?? entity
    }

    /// Whether `entity` is `ancestor` or one of its descendants.
    public func entity(_ entity: Entity, isKindOf ancestor: String) -> Bool {
        entity.name == ancestor || ancestors(of: entity).contains { $0.name == ancestor }
    }

    /// The entity's direct sub-entities, by name.
    public func subentities(of entity: Entity) -> [Entity] {
        subentities(named: entity.name)
    }

    /// The entity's descendants, depth first, each entity's sub-entities by name.
    public func descendants(of entity: Entity) -> [Entity] {
        var result: [Entity] = []
        var seen: Set<String> = [entity.name]
        func visit(_ current: Entity) {
            for child in subentities(of: current) where !seen.contains(child.name) {
                seen.insert(child.name)
                result.append(child)
                visit(child)
            }
        }
        visit(entity)
        return result
    }

    /// The entity's attributes as stored, including inherited ones, the root's first: each
    /// composite attribute stands as its leaves, named by their paths (`home.city`; see
    /// ``storedAttributes(declaredBy:)``). ``declaredAttributes(of:)`` keeps composites whole.
    public func allAttributes(of entity: Entity) -> [Attribute] {
        (ancestors(of: entity).reversed() + [entity]).flatMap(storedAttributes(declaredBy:))
    }

    /// The entity's relationships including inherited ones, the root's first.
    public func allRelationships(of entity: Entity) -> [Relationship] {
        (ancestors(of: entity).reversed() + [entity]).flatMap(\.relationships)
    }

    /// The stored attribute called `name`, own or inherited (a composite's leaf by its path).
    public func attribute(named name: String, in entity: Entity) -> Attribute? {
        allAttributes(of: entity).last { $0.name == name }
    }

    /// The relationship called `name`, own or inherited.
    public func relationship(named name: String, in entity: Entity) -> Relationship? {
        allRelationships(of: entity).last { $0.name == name }
    }

    /// The entity that declares the relationship `name` that `entity` has (itself or an ancestor).
    public func declaringEntity(ofRelationship name: String, in entity: Entity) -> Entity? {
        (ancestors(of: entity).reversed() + [entity]).last { $0.relationship(named: name) != nil }
    }

    /// The inverse of `relationship`, looked up on its destination entity and its ancestors.
    public func inverse(of relationship: Relationship) -> Relationship? {
        guard let inverseName = relationship.inverseName,
            let destination = entity(named: relationship.destinationEntityName)
        else { return nil }
        return self.relationship(named: inverseName, in: destination)
    }

    /// The root entities (those without a parent), by name.
    public var rootEntities: [Entity] {
        entities.filter { $0.parentName == nil }.sorted { NameOrder.precedes($0.name, $1.name) }
    }
}
