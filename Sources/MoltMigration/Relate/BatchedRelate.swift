import MoltCore
import MoltMapping
import MoltModel
import MoltStore

/// Which relationships of an entity mapping the relate pass may write a batch at a time
/// (``PassState/relateBatchByDefault(_:mapping:plan:skipping:each:)``).
struct BatchedRelatePlan {
    /// Relationships written per batch; the others are set object by object.
    let batched: Set<String>
    /// The mapping's number in its pass, and its destination entity's number.
    let number: Int
    let entity: Int
    /// How each batched relationship's links would be written as a set, where they can be
    /// (``SetBasedRelate/link(_:_:of:from:to:_:)``): what tells that another mapping already
    /// wrote these very links from the other side (``InverseLinks``).
    let links: [String: SetBasedRelate.Link]
    /// The source relationship each relationship's value reads (those of Core Data's default
    /// form), by destination relationship name.
    let sourceRelationshipRead: [String: String]

    /// The plan for `mapping`, or nil when its relationships must be set object by object.
    init?(_ mapping: EntityMapping, facts: PassFacts) {
        let compiled = facts.compiled(mapping)
        guard let entity = compiled.resolved.destinationEntity, !compiled.relationships.isEmpty else { return nil }
        for property in compiled.resolved.relationships {
            guard case .expression(let expression) = property.value else { continue }
            if CanonicalRelationshipValue(expression) == nil { return nil }
        }
        let model = facts.destinationModel
        let names = Set(compiled.relationships.map(\.relationship.name))
        for (relationship, _, _) in compiled.relationships {
            if let inverse = model.inverse(of: relationship), names.contains(inverse.name),
                PassFacts.sharesHierarchy(relationship.destinationEntityName, entity.name, in: model)
            {
                return nil
            }
        }
        let batched = names.filter {
            ObjectWriter.canSetLinksInBatches($0, of: entity.name, layout: facts.destinationLayout)
        }
        guard !batched.isEmpty, let number = try? facts.number(of: mapping.name),
            let layout = facts.destinationLayout.entity(named: entity.name)
        else { return nil }
        self.batched = batched
        self.number = number
        self.entity = layout.number
        var links: [String: SetBasedRelate.Link] = [:]
        if let sourceName = mapping.sourceEntityName, let source = facts.sourceLayout.entity(named: sourceName) {
            for (relationship, expression, _) in compiled.relationships where batched.contains(relationship.name) {
                links[relationship.name] = SetBasedRelate.link(
                    relationship, expression, of: mapping, from: source, to: layout, facts)
            }
        }
        self.links = links
        var sources: [String: String] = [:]
        for (index, (relationship, _, _)) in compiled.relationships.enumerated() {
            if let value = compiled.canonicalRelationships[index] {
                sources[relationship.name] = value.sourceRelationship
            }
        }
        sourceRelationshipRead = sources
    }

    /// The join tables the mapping's batches fill (its batched relationships but `skipped`),
    /// each with the column of the other side's key, whose index ``IndexesSetAside`` may set
    /// aside: unordered, unmirrored join tables only (the order of an ordered other side is
    /// looked up by that column).
    func joinTablesFilled(skipping skipped: Set<String>, layout: StoreLayout) -> [(table: String, columns: [String])] {
        guard let owner = layout.entity(number: entity) else { return [] }
        return batched.subtracting(skipped).sorted().compactMap { name in
            guard case .joinTable(let table, _, let other, nil, nil, false)? = owner.relationship(named: name)?.storage
            else { return nil }
            return (table, [other])
        }
    }

    /// The source relationships the values of the mapping's relationships other than
    /// `skipped` read, or nil when one of them may read anything (read them all).
    func sourceRelationships(skipping skipped: Set<String>, of compiled: CompiledMapping) -> Set<String>? {
        var names: Set<String> = []
        for (relationship, _, _) in compiled.relationships where !skipped.contains(relationship.name) {
            guard let name = sourceRelationshipRead[relationship.name] else { return nil }
            names.insert(name)
        }
        return names
    }
}

/// The relate pass for a batch of destination objects whose policy keeps the default
/// `createRelationships`: each object's relationship values are computed in turn, as the
/// default does, and the relationships are then written one relationship at a time for the
/// whole batch (``ObjectWriter/setLinks(_:_:)``), leaving the store as the object-by-object
/// calls would.
///
/// Computing every value of a batch before writing any is only the same when computing a value
/// reads nothing the writes change: so every relationship value must be Core Data's default
/// form (``CanonicalRelationshipValue``: the source object's relationship, mapped through the
/// association table), which reads the source store and the associations only. And two
/// relationships of one mapping that are each other's inverse write the same links, so their
/// order counts: such mappings are related object by object.
extension PassState {
    /// Sets the default relationships of `objects` (destination objects `mapping` made, in the
    /// relate pass's order); `each` is called after each object's values are known.
    func relateBatchByDefault(
        _ objects: [DestinationObject], mapping: EntityMapping, plan: BatchedRelatePlan,
        skipping skipped: Set<String> = [], each: () throws -> Void
    ) throws {
        let compiled = compiledMapping(mapping)
        var assignments: [String: [LinkAssignment]] = [:]
        // Whether the default relates objects of an entity, asked once per run of one entity.
        var entity: String?
        var relates = false
        for object in objects {
            try checkCancelled()
            if object.entity != entity {
                relates = relatesByDefault(object, compiled)
                entity = object.entity
            }
            try PolicyCall.run(mapping, "createRelationships", object: object.id, state: self) {
                guard relates else { return }
                let sources = try sourceIDs(for: object, mapping: mapping)
                for (index, (relationship, expression, propertyMapping)) in compiled.relationships.enumerated()
                where !skipped.contains(relationship.name) {
                    let (collected, existing) = try relationshipValue(
                        relationship, expression, propertyMapping, canonical: compiled.canonicalRelationships[index],
                        of: object, from: sources, mapping: mapping)
                    try withRelationshipContext(mapping, object, sources, relationship) {
                        guard plan.batched.contains(relationship.name) else {
                            try setRelationship(relationship.name, of: object, to: collected, existing: existing)
                            return
                        }
                        let targets = Self.withoutRepeats(collected.map(\.id))
                        if !relationship.isToMany, targets.count > 1 {
                            throw MoltError(
                                .migration, "the to-one relationship was given \(targets.count) objects",
                                entity: object.entity, property: relationship.name)
                        }
                        try writer.checkLinks(object.id, relationship.name, to: targets, existing: existing)
                        assignments[relationship.name, default: []].append(
                            LinkAssignment(owner: object.id, targets: targets))
                    }
                }
            }
            try each()
        }
        for (relationship, _, _) in compiled.relationships {
            guard let batch = assignments[relationship.name] else { continue }
            do {
                try writer.setLinks(relationship.name, batch)
            } catch var error as MoltError {
                error.message = "\(mapping.name): \(relationship.name): \(error.message)"
                throw error.about(entity: mapping.name, property: relationship.name)
            }
        }
    }

    /// `ids` without repeats, in order (a short list searched, a long one hashed).
    static func withoutRepeats(_ ids: [ObjectID]) -> [ObjectID] {
        guard ids.count > 1 else { return ids }
        if ids.count <= 16 {
            var unique: [ObjectID] = []
            for id in ids where !unique.contains(id) { unique.append(id) }
            return unique
        }
        var seen: Set<ObjectID> = []
        return ids.filter { seen.insert($0).inserted }
    }
}
