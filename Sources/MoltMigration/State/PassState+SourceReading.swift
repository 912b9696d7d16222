internal import MoltMapping
internal import MoltStore

/// The run's state is what source objects read through.
extension PassState: SourceReading {
    var sourceStore: ObjectStore { source }

    func completeSourceObject(_ id: ObjectID) throws -> StoredObject? {
        try source.object(id)
    }

    func relationshipsAsHeld(_ object: StoredObject) -> [String: RelationshipValue] {
        resolver.relationshipsAsHeld(object)
    }

    func sourceValue(of key: String, on id: ObjectID) throws -> ExpressionValue {
        // Asked by a source object that holds every attribute value read: an attribute it
        // does not hold is NULL (what the resolver would answer, without looking it up).
        if sourceAttributeNames(of: id.entity).contains(key) { return .null }
        return try resolver.value(of: key, on: ObjectReference(.source, id))
    }

    /// The names of the stored attributes of a source entity (the last entity asked is kept).
    private func sourceAttributeNames(of entity: String) -> Set<String> {
        if let memo = memos.sourceAttributeNames, memo.entity == entity { return memo.names }
        let names = Set(source.layout.entity(named: entity)?.attributes.map(\.attribute.name) ?? [])
        memos.sourceAttributeNames = (entity, names)
        return names
    }
}
