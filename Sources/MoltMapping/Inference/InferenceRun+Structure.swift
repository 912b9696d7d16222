import MoltModel

/// The rules about how entities hang together: relationships and hierarchies.
extension InferenceRun {
    mutating func checkRelationships(_ sourceEntity: Entity, _ destinationEntity: Entity) {
        let entity = destinationEntity.name
        let sourceRelationships = source.allRelationships(of: sourceEntity).filter { !$0.isTransient }
        for relationship in destination.allRelationships(of: destinationEntity) where !relationship.isTransient {
            guard
                let old = match(
                    relationship.name, relationship.renamingIdentifier, in: sourceRelationships, name: \.name,
                    identifier: \.renamingIdentifier)
            else {
                // A new relationship starts empty: fine unless it may not be (a non-optional
                // to-one, or a minCount above 0; a non-optional to-many may be empty).
                if relationship.requiresObjects {
                    reason(
                        entity, relationship.name,
                        "the new relationship is required, and no source relationship fills it",
                        "make it optional, or write a mapping file (with a policy) that sets it")
                }
                continue
            }
            if let stranded = strandedObjects(old, relationship) {
                reason(
                    entity, relationship.name,
                    "the relationship now leads to \(relationship.destinationEntityName), which \(stranded) objects do not become",
                    "write a mapping file that says which objects it holds")
            }
            if relationship.isStricter(than: old) {
                reason(
                    entity, relationship.name, "the relationship became required, and existing objects may have none",
                    "keep it optional, or write a mapping file (with a policy) that fills it")
            }
        }
    }

    /// The source entity whose objects the old relationship may hold but which do not become
    /// objects of the new relationship's entity (or a sub-entity); nil when they all do.
    ///
    /// The old relationship holds objects of its entity and of its sub-entities: every
    /// concrete one of those must become an object the new relationship accepts, and at least
    /// one of them must exist in both versions.
    func strandedObjects(_ old: Relationship, _ new: Relationship) -> String? {
        var carried = false
        for kind in sourceHierarchy.kinds(of: old.destinationEntityName) {
            guard let destinationEntity = destinationBySource[kind] else { continue }
            if destinationHierarchy.isKind(destinationEntity.name, of: new.destinationEntityName) {
                carried = true
            } else if source.entity(named: kind)?.isAbstract == false {
                return kind
            }
        }
        return carried ? nil : old.destinationEntityName
    }

    /// Core Data's rule against merging hierarchies: if two existing entities share no common
    /// parent in the source, they cannot share one in the destination (their objects lived in
    /// separate hierarchies, with separate tables and keys).
    ///
    /// Two existing entities X and Y are refused when some destination entity is a proper
    /// ancestor of both, but in the source they belonged to separate hierarchies. So a new
    /// parent over one existing hierarchy is accepted, and so is a root entity (with its
    /// sub-entities) moved under another existing root that has no existing sub-entity: no two
    /// entities of separate hierarchies end up below one ancestor. A new parent over two former
    /// roots, or a root moved under an entity that already has another existing sub-entity,
    /// is refused. One reason is given per pair of source hierarchies merged, naming two of
    /// their entities and the ancestor they would share.
    ///
    /// Two entities share a proper ancestor exactly when they have the same root and neither
    /// is that root, so the check compares precomputed roots: quadratic in the number of
    /// entities at worst, with no walk up a hierarchy per pair.
    mutating func checkHierarchies() {
        struct Member {
            var name: String
            var sourceRoot: String
        }
        // Existing entities that have a parent in the destination, grouped by their
        // destination root (roots themselves share no proper ancestor with anything).
        var groups: [String: [Member]] = [:]
        var order: [String] = []
        for (sourceEntity, destinationEntity) in pairs {
            let root = destinationHierarchy.root(of: destinationEntity.name)
            guard root != destinationEntity.name else { continue }
            if groups[root] == nil { order.append(root) }
            groups[root, default: []].append(
                Member(name: destinationEntity.name, sourceRoot: sourceHierarchy.root(of: sourceEntity.name)))
        }
        var reported: Set<[String]> = []
        for root in order {
            let members = groups[root] ?? []
            for (index, first) in members.enumerated() {
                for second in members[(index + 1)...] where second.sourceRoot != first.sourceRoot {
                    guard reported.insert([first.sourceRoot, second.sourceRoot].sorted()).inserted else { continue }
                    let shared = destinationHierarchy.nearestCommonAncestor(second.name, first.name) ?? root
                    reason(
                        second.name, nil,
                        "\(second.name) and \(first.name) were in separate hierarchies in the source (rooted at \(second.sourceRoot) and \(first.sourceRoot)), but both would descend from \(shared): that merges two hierarchies",
                        "keep them in separate hierarchies, or write a mapping file")
                }
            }
        }
    }
}
