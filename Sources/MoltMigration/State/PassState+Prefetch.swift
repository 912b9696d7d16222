internal import MoltMapping
internal import MoltStore

/// Reading ahead for the relate pass: for a batch of destination objects, which source objects
/// each was made from (one range query of the association table) and those source objects
/// themselves (one range read per entity when their keys are close together, as they are when
/// keys are kept), so relating an object asks the store nothing to evaluate its values.
extension PassState {
    /// Reads ahead for `batch`, destinations of the entity mapping numbered `mapping`; until
    /// ``endRelateBatch()``, ``sourceIDs(for:mapping:)`` answers from what was read.
    /// With `relationshipsOnly` (the batch's values read only source relationships), the
    /// source objects' relationships are read, kept for the batch alone
    /// (``RelateBatch/sourceLinks``), and no attribute is read; with `relationships` too, only
    /// the source relationships so named are read (the others the batch's values do not read).
    func beginRelateBatch(
        _ batch: [AssociationTable.Key], mapping: Int, relationshipsOnly: Bool = false,
        relationships: Set<String>? = nil
    ) throws {
        let found = try associations.sources(ofBatch: batch, mapping: mapping)
        var ids: [AssociationTable.Slot: [ObjectID]] = [:]
        ids.reserveCapacity(found.count)
        var keysByEntity: [String: [Int64]] = [:]
        // The sources are mostly of one entity: keys gathered for a run of one are added at once.
        var run: (entity: String, keys: [Int64])?
        for (slot, keys) in found {
            let objects = try keys.map { try objectID($0, in: source) }
            ids[slot] = objects
            for object in objects {
                if run?.entity != object.entity {
                    if let run { keysByEntity[run.entity, default: []] += run.keys }
                    run = (object.entity, [])
                }
                run?.keys.append(object.primaryKey)
            }
        }
        if let run { keysByEntity[run.entity, default: []] += run.keys }
        var links: [ObjectID: [String: RelationshipValue]] = [:]
        if relationshipsOnly { links.reserveCapacity(found.count) }
        defer { relating.batch = RelateBatch(mapping: mapping, sources: ids, sourceLinks: links) }
        resolver.capacity = max(resolver.capacity, 4 * batch.count)
        for (entity, keys) in keysByEntity {
            guard let low = keys.min(), let high = keys.max() else { continue }
            // Sparse keys would read many rows for nothing: those objects are read when needed.
            guard high - low < Int64(keys.count) * 4 + 64 else { continue }
            let wanted = Set(keys)
            if relationshipsOnly {
                // The links are only mapped through the associations (``canonicalValue``), where
                // a target without a row, made into nothing, drops out: no look-up per link.
                let cursor = try source.relationships(
                    of: entity, keys: low...high, named: relationships, checkingLinkTargets: false)
                while let objects = try cursor.nextBatch() {
                    for object in objects where wanted.contains(object.id.primaryKey) {
                        links[object.id] = resolver.relationshipsAsHeld(object)
                    }
                }
                continue
            }
            let cursor = try source.objects(of: entity, keys: low...high, batchSize: Int(high - low + 1))
            while let objects = try cursor.nextBatch() {
                for object in objects where wanted.contains(object.id.primaryKey) { resolver.remember(object) }
            }
        }
    }

    /// Forgets what ``beginRelateBatch(_:mapping:)`` read about associations.
    func endRelateBatch() {
        relating.batch = nil
    }
}

/// What the relate pass read ahead for its current batch: each destination's sources, and
/// when only relationships were read, those of the source objects.
struct RelateBatch {
    let mapping: Int
    let sources: [AssociationTable.Slot: [ObjectID]]
    var sourceLinks: [ObjectID: [String: RelationshipValue]] = [:]
}
