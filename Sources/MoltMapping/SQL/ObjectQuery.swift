public import Foundation
internal import MoltCore
public import MoltStore

/// A query of one store's objects, as a Core Data fetch request runs one: the objects of an
/// entity (and by default its sub-entities) that pass a predicate, sorted, from an offset, at
/// most a limit of them.
///
/// What SQLite can check of the predicate is checked while reading the table, the rest on each
/// object read (see ``FilteredObjects``); values given as variables are bound, never written
/// into SQL. Objects are sorted by key paths (which may cross to-one relationships) with the
/// comparison rules of predicates (``ValueComparison``): nil first when ascending, then by
/// primary key so the order is stable; without sort keys objects come in primary-key order.
///
/// ```swift
/// let query = ObjectQuery(entity: "User", predicate: try ExpressionParser().parse("userId == $id"),
///                         variables: ["id": .integer(7)], sortKeys: [("name", true)], limit: 1)
/// let users = try query.objects(in: store, resolver: StoreObjectResolver(source: store))
/// ```
public struct ObjectQuery {
    public var entity: String
    public var predicate: MappingExpression?
    /// Values of the predicate's variables.
    public var variables: [String: ExpressionValue]
    /// Key paths to sort by, each ascending or not, most significant first.
    public var sortKeys: [(keyPath: String, ascending: Bool)]
    /// The most objects returned; 0 for no limit (as `NSFetchRequest.fetchLimit`).
    public var limit: Int
    /// How many objects (after sorting) are skipped first.
    public var offset: Int
    public var includingSubentities: Bool
    /// The time `now()` stands for.
    public var now: Date

    public init(
        entity: String, predicate: MappingExpression? = nil, variables: [String: ExpressionValue] = [:],
        sortKeys: [(keyPath: String, ascending: Bool)] = [], limit: Int = 0, offset: Int = 0,
        includingSubentities: Bool = true, now: Date = Date()
    ) {
        self.entity = entity
        self.predicate = predicate
        self.variables = variables
        self.sortKeys = sortKeys
        self.limit = limit
        self.offset = offset
        self.includingSubentities = includingSubentities
        self.now = now
    }

    /// The matching objects of `store`, which is `side` of `resolver` (the resolver reads key
    /// paths that leave the objects, for the predicate and the sort keys).
    public func objects(
        in store: ObjectStore, resolver: StoreObjectResolver, side: ObjectReference.Store = .source,
        batchSize: Int = 500
    ) throws -> [StoredObject] {
        let wanted = limit > 0 ? offset + limit : Int.max
        // Without sorting, objects come in key order and reading can stop at the limit.
        let objects = try FilteredObjects(
            store: store, entity: entity, filter: predicate, variables: variables,
            includingSubentities: includingSubentities,
            batchSize: sortKeys.isEmpty ? min(batchSize, wanted) : batchSize,
            now: now, resolver: resolver, side: side)
        var found: [StoredObject] = []
        while let batch = try objects.nextBatch() {
            found.append(contentsOf: batch)
            if sortKeys.isEmpty, found.count >= wanted { break }
        }
        if !sortKeys.isEmpty { found = try sorted(found, resolver: resolver, side: side) }
        let start = min(offset, found.count)
        let end = limit > 0 ? min(found.count, start + limit) : found.count
        return Array(found[start..<end])
    }

    /// How many objects of `store` match (the limit and offset applied, as `count(for:)` does).
    public func count(
        in store: ObjectStore, resolver: StoreObjectResolver, side: ObjectReference.Store = .source
    ) throws -> Int {
        let layout = try store.layout.requireEntity(entity)
        let plan =
            predicate.map { PredicateSQLTranslator.plan($0, entity: layout, variables: variables, now: now) }
            ?? FilterPlan(condition: nil, residual: nil)
        let total: Int
        if plan.residual == nil, plan.condition?.sql.contains(MappingSQLFunctions.stringOperator) != true {
            total = try store.count(of: entity, includingSubentities: includingSubentities, where: plan.condition)
        } else {
            var unlimited = self
            unlimited.limit = 0
            unlimited.offset = 0
            unlimited.sortKeys = []
            total = try unlimited.objects(in: store, resolver: resolver, side: side).count
        }
        let afterOffset = max(0, total - offset)
        return limit > 0 ? min(limit, afterOffset) : afterOffset
    }

    private var allVariables: [String: ExpressionValue] {
        var all = EvaluationContext.variables(userInfo: [:])
        all.merge(variables) { _, new in new }
        return all
    }

    private func sorted(
        _ objects: [StoredObject], resolver: StoreObjectResolver, side: ObjectReference.Store
    ) throws -> [StoredObject] {
        let keys = try sortKeys.map { key -> (CompiledExpression, Bool) in
            do {
                return (ExpressionCompiler.compile(try ExpressionParser().parse(key.keyPath)), key.ascending)
            } catch {
                throw MoltError(
                    .migration, "the sort key \"\(key.keyPath)\" is not a key path: \(error)", entity: entity)
            }
        }
        let context = EvaluationContext(variables: allVariables, resolver: resolver)
        context.now = { [now] in now }
        var rows: [(object: StoredObject, values: [ExpressionValue])] = []
        rows.reserveCapacity(objects.count)
        for object in objects {
            resolver.remember(object, in: side)
            let reference = ExpressionValue.object(ObjectReference(side, object.id))
            context.object = reference
            context.variables["source"] = reference
            rows.append((object, try keys.map { try $0.0.evaluate(context) }))
        }
        var failure: (any Error)?
        rows.sort { a, b in
            guard failure == nil else { return false }
            for (index, key) in keys.enumerated() {
                let order: ComparisonResult
                do {
                    order = try Self.order(a.values[index], b.values[index])
                } catch {
                    failure = MoltError(
                        .migration, "objects cannot be sorted by \"\(sortKeys[index].keyPath)\": \(error)",
                        entity: entity)
                    return false
                }
                if order != .orderedSame { return key.1 ? order == .orderedAscending : order == .orderedDescending }
            }
            return a.object.id < b.object.id
        }
        if let failure { throw failure }
        return rows.map(\.object)
    }

    /// Sort order: nil before any value, then the comparison rules of predicates.
    static func order(_ a: ExpressionValue, _ b: ExpressionValue) throws -> ComparisonResult {
        switch (a.isNull, b.isNull) {
        case (true, true): return .orderedSame
        case (true, false): return .orderedAscending
        case (false, true): return .orderedDescending
        case (false, false): return try ValueComparison.order(a, b) ?? .orderedSame
        }
    }
}
