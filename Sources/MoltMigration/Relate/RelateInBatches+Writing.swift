import MoltCore
import MoltMapping
import MoltModel
import MoltStore

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
    /// The relationship values of `objects`, computed in turn as the default does, with
    /// nothing written: the source store, the association table and what was read ahead for
    /// the batch are read, never the new store, so this may run on another thread than the
    /// writes (``RelateInBatches``'s read-ahead), one batch ahead of them. A failure ends
    /// the batch where it happened; ``writeRelateBatch(_:mapping:plan:each:)`` throws it there.
    func computeRelateBatch(
        _ objects: [DestinationObject], mapping: EntityMapping, plan: RelateInBatches, skipping skipped: Set<String>
    ) -> ComputedRelateBatch {
        let compiled = compiledMapping(mapping)
        let skippedAt = compiled.relationships.map { skipped.contains($0.relationship.name) }
        let batchedAt = compiled.relationships.map { plan.batched.contains($0.relationship.name) }
        // The numbers of the mappings the values name, looked up once (one not found is
        // looked up again where it is used, which says so).
        let targetMappings = compiled.canonicalRelationships.map {
            $0?.entityMapping.flatMap { try? number(of: $0) }
        }
        // The parts of each relationship's value, apart: an element of the list of triples is
        // copied whole, each time one part is read.
        let relationships = compiled.relationships.map(\.relationship)
        let expressions = compiled.relationships.map(\.expression)
        let propertyMappings = compiled.relationships.map(\.mapping)
        var computed = ComputedRelateBatch()
        computed.objects.reserveCapacity(objects.count)
        // Whether the default relates objects of an entity, asked once per run of one entity.
        var entity: String?
        var relates = false
        for object in objects {
            var values = ComputedRelateBatch.Object(object: object)
            do {
                try checkCancelled()
                if object.entity != entity {
                    relates = relatesByDefault(object, compiled)
                    entity = object.entity
                }
                if relates {
                    values.sources = try sourceIDs(for: object, mappingNumber: plan.number)
                    values.values.reserveCapacity(compiled.relationships.count)
                    for index in compiled.relationships.indices where !skippedAt[index] {
                        let (collected, existing) = try relationshipValue(
                            relationships[index], expressions[index], propertyMappings[index],
                            canonical: compiled.canonicalRelationships[index], of: object, from: values.sources,
                            mapping: mapping, canonicalMapping: targetMappings[index])
                        // What the writes take, worked out here: this may be the thread ahead.
                        let targets = batchedAt[index] ? Self.withoutRepeats(collected.map(\.id)) : []
                        values.values.append(
                            ComputedRelateBatch.Value(
                                index: index, objects: collected, existing: existing, targets: targets))
                    }
                }
            } catch {
                values.failure = error
                computed.objects.append(values)
                return computed
            }
            computed.objects.append(values)
        }
        return computed
    }

    /// Writes what ``computeRelateBatch(_:mapping:plan:skipping:)`` computed, as the
    /// object-by-object calls would: object by object, each relationship outside the plan's
    /// batched ones set at once and each batched one checked, then the batched ones written
    /// one relationship at a time for the whole batch (``ObjectWriter/setLinks(_:_:)``).
    func writeRelateBatch(
        _ computed: ComputedRelateBatch, mapping: EntityMapping, plan: RelateInBatches, each: () throws -> Void
    ) throws {
        let compiled = compiledMapping(mapping)
        // Per relationship, by its index in the mapping: looked up once per batch, not per object.
        let relationships = compiled.relationships.map(\.relationship)
        let batchedAt = relationships.map { plan.batched.contains($0.name) }
        var assignments = [[LinkAssignment]](repeating: [], count: relationships.count)
        for values in computed.objects {
            let object = values.object
            try checkCancelled()
            try PolicyCall.run(mapping, "createRelationships", object: object.id, state: self) {
                for value in values.values {
                    let index = value.index
                    try withRelationshipContext(mapping, object, values.sources, relationships[index]) {
                        guard batchedAt[index] else {
                            try setRelationship(
                                relationships[index].name, of: object, to: value.objects, existing: value.existing)
                            return
                        }
                        if !relationships[index].isToMany, value.targets.count > 1 {
                            throw MoltError(
                                .migration, "the to-one relationship was given \(value.targets.count) objects",
                                entity: object.entity, property: relationships[index].name)
                        }
                        try writer.checkLinks(
                            object.id, relationships[index].name, to: value.targets, existing: value.existing)
                        assignments[index].append(LinkAssignment(owner: object.id, targets: value.targets))
                    }
                }
                if let failure = values.failure { throw failure }
            }
            try each()
        }
        for (index, relationship) in relationships.enumerated() where !assignments[index].isEmpty {
            do {
                try writer.setLinks(relationship.name, assignments[index])
            } catch var error as MoltError {
                error.message = "\(mapping.name): \(relationship.name): \(error.message)"
                throw error.about(entity: mapping.name, property: relationship.name)
            }
        }
    }

    /// `ids` without repeats, in order (a short list searched, a long one hashed; one in
    /// ascending order, as a to-many is read, has none).
    static func withoutRepeats(_ ids: [ObjectID]) -> [ObjectID] {
        guard ids.count > 1 else { return ids }
        if zip(ids, ids.dropFirst()).allSatisfy({ $0 < $1 }) { return ids }
        if ids.count <= 16 {
            var unique: [ObjectID] = []
            for id in ids where !unique.contains(id) { unique.append(id) }
            return unique
        }
        var seen: Set<ObjectID> = []
        return ids.filter { seen.insert($0).inserted }
    }
}

/// A batch's relationship values, computed and not written yet
/// (``PassState/computeRelateBatch(_:mapping:plan:skipping:)``).
struct ComputedRelateBatch {
    /// One relationship's value of one object.
    struct Value {
        /// The relationship's index in the mapping's relationships.
        let index: Int
        let objects: [DestinationObject]
        let existing: KnownObjects
        /// For a relationship written in batches: the objects' IDs without repeats, in order.
        let targets: [ObjectID]
    }

    struct Object {
        let object: DestinationObject
        var sources: [ObjectID] = []
        var values: [Value] = []
        /// What computing the object's values threw; the batch ends with this object.
        var failure: (any Error)?
    }

    var objects: [Object] = []
}
