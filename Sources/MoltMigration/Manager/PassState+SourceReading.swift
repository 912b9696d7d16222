internal import MoltMapping
internal import MoltStore

/// The run's state is what source objects read through.
extension PassState: SourceReading {
    var sourceStore: ObjectStore { source }

    func completeSourceObject(_ id: ObjectID) throws -> StoredObject? {
        try source.object(id)
    }

    var deletedSourceObjects: Set<ObjectID> {
        resolver.deletedSources
    }

    func sourceValue(of key: String, on id: ObjectID) throws -> ExpressionValue {
        // Asked by a source object that holds every attribute value read: an attribute it
        // does not hold is NULL (what the resolver would answer, without looking it up).
        if source.layout.entity(named: id.entity)?.attribute(named: key) != nil { return .null }
        return try resolver.value(of: key, on: ObjectReference(.source, id))
    }
}
