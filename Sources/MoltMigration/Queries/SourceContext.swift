public import Foundation
internal import MoltMapping
internal import MoltStore

/// The source store, as a policy queries it: Core Data's `manager.sourceContext`. The source
/// store is only read.
///
/// ```swift
/// // Core Data: try manager.sourceContext.fetch(request)
/// var request = FetchRequest(entityName: "Comment")
/// request.predicate = ObjectPredicate(format: "post == %@", source)
/// let comments = try manager.sourceContext.fetch(request)
/// ```
public struct SourceContext {
    unowned let state: PassState
    /// On a copy worker, the recording of the object whose hook runs: the source store's
    /// queries are the writing thread's alone, so each throws ``InOrderRequired`` and the hook
    /// runs again there, in order.
    var worker: CopyRecording?

    /// Throws when the context is a copy worker's.
    func requireInOrder(_ call: String) throws {
        if let worker { throw worker.requireOrder(call) }
    }

    /// The source store's file (Core Data's `persistentStoreCoordinator?.persistentStores.first?.url`
    /// of the source context), for a policy that reads files an app keeps beside its store. The
    /// store itself is not given: it is read through this context.
    public var storeURL: URL { state.source.store.url }

    /// The objects the request selects, in its order (objects deleted from this context left
    /// out).
    public func fetch(_ request: FetchRequest) throws -> [SourceObject] {
        try requireInOrder("sourceContext.fetch")
        let found = try objects(request)
        return found.map { stored in
            state.resolver.remember(stored)
            return SourceObject(stored: stored, reader: state)
        }
    }

    /// How many objects the request selects.
    public func count(for request: FetchRequest) throws -> Int {
        try requireInOrder("sourceContext.count")
        guard state.hasDeletedSources else {
            return try query(request).count(
                in: state.source, resolver: state.resolver, cache: state.queryState.sourceStatements)
        }
        return try objects(request).count
    }

    /// Deletes a source object from this context (Core Data's `sourceContext.delete(_:)`): it
    /// is gone for the rest of the migration, its delete rules applied to the other source
    /// objects in memory; the source store is never written. See `deleteSourceObjects`.
    public func delete(_ object: SourceObject) throws {
        try requireInOrder("sourceContext.delete")
        try state.deleteSourceObjects([object.id])
    }

    /// Deletes several source objects at once (a Deny relationship between two of them does
    /// not stop it).
    public func delete(_ objects: [SourceObject]) throws {
        try requireInOrder("sourceContext.delete")
        try state.deleteSourceObjects(objects.map(\.id))
    }

    /// The stored objects the request selects (deleted ones are left out as they are read).
    private func objects(_ request: FetchRequest) throws -> [StoredObject] {
        try query(request).objects(in: state.source, resolver: state.resolver, side: .source)
    }

    /// The query of a request on the source store. A predicate may name a destination object
    /// (`"label == %@.owner.label"` given one): evaluating it reads that object in the new
    /// store, so the request then passes the destination checkpoint first, as the destination
    /// context's reads do, and sees no key written with a new row.
    private func query(_ request: FetchRequest) throws -> ObjectQuery {
        if let predicate = request.predicate,
            (predicate.arguments + predicate.substitutionVariables.values).contains(where: Self.namesDestinationObject)
        {
            _ = try state.destinationCheckpoint.passed()
        }
        return try state.query(for: request, on: .source)
    }

    /// Whether a predicate's value is, or holds, a destination object.
    private static func namesDestinationObject(_ value: ExpressionValue) -> Bool {
        switch value {
        case .object(let reference), .composite(let reference, _): reference.store == .destination
        case .collection(let values): values.contains(where: namesDestinationObject)
        default: false
        }
    }
}
