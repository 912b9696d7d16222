public import MoltStore

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
    unowned let manager: MigrationManager

    /// The objects the request selects, in its order.
    public func fetch(_ request: FetchRequest) throws -> [SourceObject] {
        let query = try manager.query(for: request, on: .source)
        let found = try query.objects(in: manager.source, resolver: manager.resolver, side: .source)
        return found.map { stored in
            manager.resolver.remember(stored)
            return SourceObject(stored: stored, manager: manager)
        }
    }

    /// How many objects the request selects.
    public func count(for request: FetchRequest) throws -> Int {
        try manager.query(for: request, on: .source).count(
            in: manager.source, resolver: manager.resolver, cache: manager.queryState.sourceStatements)
    }

    /// The source object with `id` (Core Data's `object(with:)`); an error when there is none.
    public func object(with id: ObjectID) throws -> SourceObject {
        try manager.sourceObject(id)
    }
}

extension MigrationManager {
    /// The source store, for fetching (Core Data's `sourceContext`).
    public var sourceContext: SourceContext { SourceContext(manager: self) }
}
