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
                    values.sources = try sourceIDs(for: object, mapping: mapping)
                    for (index, (relationship, expression, propertyMapping)) in compiled.relationships.enumerated()
                    where !skipped.contains(relationship.name) {
                        let (collected, existing) = try relationshipValue(
                            relationship, expression, propertyMapping,
                            canonical: compiled.canonicalRelationships[index], of: object, from: values.sources,
                            mapping: mapping)
                        values.values.append((relationship, collected, existing))
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
        var assignments: [String: [LinkAssignment]] = [:]
        for values in computed.objects {
            let object = values.object
            try checkCancelled()
            try PolicyCall.run(mapping, "createRelationships", object: object.id, state: self) {
                for (relationship, collected, existing) in values.values {
                    try withRelationshipContext(mapping, object, values.sources, relationship) {
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
                if let failure = values.failure { throw failure }
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

/// A batch's relationship values, computed and not written yet
/// (``PassState/computeRelateBatch(_:mapping:plan:skipping:)``).
struct ComputedRelateBatch {
    struct Object {
        let object: DestinationObject
        var sources: [ObjectID] = []
        var values: [(relationship: Relationship, objects: [DestinationObject], existing: KnownObjects)] = []
        /// What computing the object's values threw; the batch ends with this object.
        var failure: (any Error)?
    }

    var objects: [Object] = []
}
