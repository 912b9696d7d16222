public import Foundation
internal import MoltCore
public import MoltMapping
public import MoltModel
internal import MoltStore

/// Core Data's own spellings of what policies call, so a port reads like the original:
/// object-returning `sourceInstances` and `destinationInstances`, an `associate` that does not
/// throw (usable in `defer`), object URIs, the destination model, and the destination
/// context's registered objects.
extension MigrationManager {
    /// The source objects the entity mapping `name` made `destinations` from (Core Data's
    /// `sourceInstances(forEntityMappingName:destinationInstances:)`), those a policy deleted
    /// from the source context since included (see ``sourceObjects(for:)``).
    public func sourceInstances(
        forEntityMappingName name: String, destinationInstances destinations: [DestinationObject]
    ) throws -> [SourceObject] {
        try sourceIDs(forEntityMappingName: name, destinationInstances: destinations).map {
            try state.sourceObject($0, includingDeleted: true)
        }
    }

    /// The destination objects the entity mapping `name` made from `sources` (Core Data's
    /// `destinationInstances(forEntityMappingName:sourceInstances:)`).
    public func destinationInstances(
        forEntityMappingName name: String, sourceInstances sources: [SourceObject]
    ) throws -> [DestinationObject] {
        try destinationInstances(forEntityMappingName: name, sourceIDs: sources.map(\.id))
    }

    /// Records that the mapping made `destination` from `source`, as Core Data's
    /// `associate(sourceInstance:withDestinationInstance:for:)` does: it does not throw, so a
    /// port may call it in `defer`. A failure (a mapping the model does not have, an object of
    /// another store) is kept and stops the migration when the hook returns, as if the hook had
    /// thrown it.
    public func associate(
        sourceInstance source: SourceObject, withDestinationInstance destination: DestinationObject,
        for mapping: EntityMapping
    ) {
        do {
            try state.associate(source: source.id, destination: destination.id, mapping: mapping.name)
        } catch {
            if state.deferredError == nil { state.deferredError = error }
        }
    }

    /// The object's URI, as Core Data's `objectID.uriRepresentation()` gives it:
    /// `x-coredata://<store UUID>/<Entity>/p<key>`, the store being the source store.
    public func uriRepresentation(of object: SourceObject) -> URL {
        Self.uri(of: object.id, storeUUID: state.sourceStoreUUID)
    }

    /// The object's URI in the new store (its UUID), as an app reads it after the migration.
    public func uriRepresentation(of object: DestinationObject) -> URL {
        // An object a copy worker made has no key yet: the hook runs again in order.
        if CopyRecording.isProvisional(object.id), state.deferredError == nil {
            state.deferredError = InOrderRequired(call: "the URI of an object made on a copy worker")
        }
        return Self.uri(of: object.id, storeUUID: checkpoint.storeUUID)
    }

    static func uri(of id: ObjectID, storeUUID: String) -> URL {
        var parts = URLComponents()
        parts.scheme = "x-coredata"
        parts.host = storeUUID
        parts.path = "/\(id.entity)/p\(id.primaryKey)"
        return parts.url!
    }

    /// The object an `x-coredata` URI names in the store whose UUID is `storeUUID` (Core Data's
    /// `managedObjectID(forURIRepresentation:)`), or nil when it names another store, an
    /// entity `layout` does not have, or no object's key.
    static func objectID(forURI uri: URL, storeUUID: String, layout: StoreLayout) -> ObjectID? {
        guard uri.scheme == "x-coredata", uri.host?.caseInsensitiveCompare(storeUUID) == .orderedSame else {
            return nil
        }
        let parts = uri.path.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count == 2, layout.entity(named: String(parts[0])) != nil, parts[1].first == "p",
            let key = Int64(parts[1].dropFirst()), key > 0
        else { return nil }
        return ObjectID(entity: String(parts[0]), primaryKey: key)
    }
}

extension SourceContext {
    /// The source object an `x-coredata` URI of the source store names (Core Data's
    /// `managedObjectID(forURIRepresentation:)` then `object(with:)`); nil when the URI names
    /// another store or no object there.
    public func object(forURIRepresentation uri: URL) throws -> SourceObject? {
        try requireInOrder("sourceContext.object(forURIRepresentation:)")
        guard
            let id = MigrationManager.objectID(
                forURI: uri, storeUUID: state.source.store.metadata.storeUUID, layout: state.source.layout),
            try state.source.object(id, readingToMany: false) != nil, !state.resolver.deletedSources.contains(id)
        else { return nil }
        return try state.sourceObject(id)
    }
}

extension DestinationContext {
    /// The destination model (Core Data's `destinationContext.persistentStoreCoordinator?.managedObjectModel`).
    public var model: ObjectModel { checkpoint.model }

    /// The destination object an `x-coredata` URI of the new store names; nil when the URI
    /// names another store or no object there. Only whether the object exists is read, which
    /// shows no relationship: keys written at insert stay (see `DestinationCheckpoint`).
    public func object(forURIRepresentation uri: URL) throws -> DestinationObject? {
        guard
            let id = MigrationManager.objectID(forURI: uri, storeUUID: checkpoint.storeUUID, layout: checkpoint.layout),
            try checkpoint.exists(id)
        else { return nil }
        return DestinationObject(id: id)
    }

    /// Every object of the new store so far, made by this migration (Core Data's
    /// `registeredObjects` of the destination context, which holds every object the migration
    /// inserted), by entity then key. Their IDs only are read, which show no relationship.
    public var registeredObjects: [DestinationObject] {
        get throws { try checkpoint.objectIDs().map { DestinationObject(id: $0) } }
    }
}
