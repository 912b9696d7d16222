internal import MoltModel
internal import MoltStore

/// What a mapping whose associations all kept their keys made, for a relationship's value:
/// ``PassState/associatedObjects(of:mapping:)``'s answer from the bits (``KeptKeyIndex``),
/// without a lookup per object. Each source object of the index's hierarchy whose bit is set
/// gave one destination object with its key, all of one entity; that entity is a kind of the
/// relationship's destination or none of them is kept.
struct KeptTarget {
    /// The facts hold for an index of this destination entity and a relationship to this one.
    let destinationEntity: Int
    let relationshipDestination: String
    /// The name of the destination entity, and whether it is a kind of the relationship's.
    let name: String
    let isKind: Bool
}

extension PassState {
    /// The destination objects the mapping numbered `mapping` made from `objects`, of
    /// `relationship`'s entity, in order; nil when the mapping's associations are not all
    /// kept keys (ask the table).
    func keptDestinations(
        of objects: [ObjectID], mapping: Int, relationship: Relationship
    ) throws
        -> [DestinationObject]?
    {
        guard let index = associations.keptIndex(of: mapping) else { return nil }
        let target = try keptTarget(mapping, index, relationship)
        guard target.isKind else { return [] }
        var result: [DestinationObject] = []
        result.reserveCapacity(objects.count)
        // Objects of one relationship are mostly of one entity: its hierarchy is looked up
        // when the entity changes.
        var entity: String?
        var root = 0
        for object in objects {
            if object.entity != entity {
                root = try key(object, in: source).root
                entity = object.entity
            }
            guard root == index.sourceRoot, index.contains(object.primaryKey) else { continue }
            result.append(DestinationObject(id: ObjectID(entity: target.name, primaryKey: object.primaryKey)))
        }
        return result
    }

    private func keptTarget(
        _ mapping: Int, _ index: KeptKeyIndex, _ relationship: Relationship
    ) throws
        -> KeptTarget
    {
        if let known = relating.keptTargets[mapping], known.destinationEntity == index.destinationEntity,
            known.relationshipDestination == relationship.destinationEntityName
        {
            return known
        }
        let name = try objectID(
            AssociationTable.Key(root: index.destinationRoot, primaryKey: 0, entity: index.destinationEntity),
            in: destination
        ).entity
        let target = KeptTarget(
            destinationEntity: index.destinationEntity, relationshipDestination: relationship.destinationEntityName,
            name: name, isKind: destinationKinds(of: relationship.destinationEntityName).contains(name))
        relating.keptTargets[mapping] = target
        return target
    }
}
