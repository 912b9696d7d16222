public import Foundation
internal import MoltCore
internal import MoltModel
internal import MoltSQLite
public import MoltStore

/// A query of one store's objects, as a Core Data fetch request runs one: the objects of an
/// entity (and by default its sub-entities) that pass a predicate, sorted, from an offset, at
/// most a limit of them.
///
/// What SQLite can check of the predicate is checked while reading the table, the rest on each
/// object read (see ``FilteredObjects``); values given as variables are bound, never written
/// into SQL. Objects are sorted by key paths (which may cross to-one relationships) with the
/// comparison rules of predicates (`ValueComparison`): nil first when ascending, then by
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

    /// The IDs of the matching objects, in order. When SQLite can check the whole predicate and
    /// sort by the sort keys (attributes of the entity itself, of types SQLite orders as
    /// predicates compare them), one query reads only keys and entity numbers, with a statement
    /// kept in `cache`; otherwise the objects are read and sorted as
    /// ``objects(in:resolver:side:batchSize:)`` does.
    public func objectIDs(
        in store: ObjectStore, resolver: StoreObjectResolver, side: ObjectReference.Store = .source,
        cache: StatementCache? = nil
    ) throws -> [ObjectID] {
        let layout = try store.layout.requireEntity(entity)
        guard let condition = try sqlCondition(layout, store: store, side: side), let order = sqlOrder(layout) else {
            return try objects(in: store, resolver: resolver, side: side).map(\.id)
        }
        let sql = """
            SELECT "Z_PK", "Z_ENT" FROM \(SQL.identifier(layout.table)) WHERE \(condition.sql) \
            ORDER BY \(order) LIMIT ? OFFSET ?
            """
        let connection = store.store.connection
        let statement = try cache?.statement(sql, on: connection) ?? connection.prepare(sql)
        defer { try? statement.reset() }
        try statement.bind(condition.bindings + [.integer(limit > 0 ? Int64(limit) : -1), .integer(Int64(offset))])
        var ids: [ObjectID] = []
        while try statement.step() {
            let number = Int(statement.int64(at: 1))
            guard let kind = store.layout.entity(number: number) else {
                throw MoltError(.migration, "a row of \(layout.table) has the unknown entity number \(number)")
            }
            ids.append(ObjectID(entity: kind.name, primaryKey: statement.int64(at: 0)))
        }
        return ids
    }

    /// The entity's rows that match, as SQL on its table, when SQLite checks the whole predicate.
    private func sqlCondition(
        _ layout: EntityLayout, store: ObjectStore, side: ObjectReference.Store
    ) throws -> SQLCondition? {
        let kinds = includingSubentities ? layout.kindNumbers : [layout.number]
        var condition = SQLCondition(sql: "\"Z_ENT\" IN (\(kinds.map(String.init).joined(separator: ", ")))")
        guard let predicate else { return condition }
        let plan = PredicateSQLTranslator.plan(
            predicate, entity: layout, variables: variables, now: now, objects: (side, store.layout))
        guard plan.residual == nil else { return nil }
        guard let part = plan.condition else { return condition }
        if part.sql.contains(MappingSQLFunctions.stringOperator) {
            try MappingSQLFunctions.register(on: store.store.connection)
        }
        condition.sql += " AND (\(part.sql))"
        condition.bindings += part.bindings
        return condition
    }

    /// `ORDER BY` terms for the sort keys when each is a stored attribute SQLite orders as
    /// predicates compare (numbers, booleans, dates, strings by their UTF-8 bytes), then the key.
    private func sqlOrder(_ layout: EntityLayout) -> String? {
        var terms: [String] = []
        for key in sortKeys {
            guard let column = layout.attribute(named: key.keyPath) else { return nil }
            switch column.attribute.type {
            case .integer16, .integer32, .integer64, .double, .float, .boolean, .date, .string:
                terms.append("\(SQL.identifier(column.column)) \(key.ascending ? "ASC" : "DESC")")
            default:
                return nil
            }
        }
        return (terms + ["\"Z_PK\""]).joined(separator: ", ")
    }

    /// How many objects of `store` match (the limit and offset applied, as `count(for:)` does).
    public func count(
        in store: ObjectStore, resolver: StoreObjectResolver, side: ObjectReference.Store = .source,
        cache: StatementCache? = nil
    ) throws -> Int {
        let layout = try store.layout.requireEntity(entity)
        let total: Int
        if let condition = try sqlCondition(layout, store: store, side: side) {
            let sql = "SELECT count(*) FROM \(SQL.identifier(layout.table)) WHERE \(condition.sql)"
            let connection = store.store.connection
            let statement = try cache?.statement(sql, on: connection) ?? connection.prepare(sql)
            defer { try? statement.reset() }
            try statement.bind(condition.bindings)
            total = try statement.step() ? Int(statement.int64(at: 0)) : 0
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
            return a.object.id.primaryKey < b.object.id.primaryKey
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
