public import Foundation
internal import MoltCore
public import MoltStore

/// Reads the objects of a source entity that pass a filter: what SQL can check is checked while
/// reading the table (so a filter keeping 1% of a million rows reads 1% of them), the rest on
/// each object read.
///
/// ```swift
/// let filter = try ExpressionParser().parse("status != \"deleted\" AND createdAt > $cutoff")
/// let objects = try FilteredObjects(store: store, entity: "Post", filter: filter, variables: ["cutoff": .string("2024-01-01T00:00:00Z")])
/// while let batch = try objects.nextBatch() { … }
/// ```
public final class FilteredObjects {
    public let plan: FilterPlan
    private let cursor: ObjectCursor
    private let residual: CompiledExpression?
    private let context: EvaluationContext
    private let resolver: StoreObjectResolver

    /// Which of the resolver's stores `store` is (objects are named as objects of that side).
    public let side: ObjectReference.Store
    /// Whether the objects are read with their to-many relationships (else the resolver reads
    /// one when a value asks for it).
    let readsToMany: Bool

    /// - Parameters:
    ///   - store: the store to read.
    ///   - entity: the entity whose objects are read.
    ///   - filter: the predicate the objects must pass; nil reads every object.
    ///   - variables: the values of the filter's `$` variables (a mapping's user info, say).
    ///   - includingSubentities: whether objects of the entity's sub-entities are read too.
    ///   - batchSize: objects read per query.
    ///   - now: the time `now()` gives in the filter, read once.
    ///   - resolver: what follows key paths through relationships; by default one over
    ///     `store` alone.
    ///   - side: which of `resolver`'s two stores `store` is; `.destination` for queries of a
    ///     migration's new store (the resolver must then have it as its destination).
    public convenience init(
        store: ObjectStore, entity: String, filter: MappingExpression?, variables: [String: ExpressionValue] = [:],
        includingSubentities: Bool = true, batchSize: Int = 500, now: Date = Date(),
        resolver: StoreObjectResolver? = nil, side: ObjectReference.Store = .source
    ) throws {
        try self.init(
            store: store, entity: entity, filter: filter, variables: variables,
            includingSubentities: includingSubentities, batchSize: batchSize, now: now, resolver: resolver, side: side,
            readingToMany: true)
    }

    /// The same, with `readingToMany` false: objects are read without their to-many
    /// relationships (a migration's copy pass, whose values seldom read them; the resolver
    /// reads one when a value or the filter asks for it).
    package init(
        store: ObjectStore, entity: String, filter: MappingExpression?, variables: [String: ExpressionValue] = [:],
        includingSubentities: Bool = true, batchSize: Int = 500, now: Date = Date(),
        resolver: StoreObjectResolver? = nil, side: ObjectReference.Store = .source, readingToMany: Bool
    ) throws {
        self.side = side
        self.readsToMany = readingToMany
        let layout = try store.layout.requireEntity(entity)
        plan =
            filter.map {
                // With source objects deleted from the run's context, what is gone is known to
                // the resolver only: identities and links are tested on the objects read.
                let deletions = side == .source && !(resolver?.deletedSources.isEmpty ?? true)
                return PredicateSQLTranslator.plan(
                    $0, entity: layout, variables: variables, now: now,
                    objects: deletions ? nil : (side, store.layout), relationshipsInSQL: !deletions)
            }
            ?? FilterPlan(condition: nil, residual: nil)
        if plan.condition?.sql.contains(MappingSQLFunctions.stringOperator) == true {
            try MappingSQLFunctions.register(on: store.store.connection)
        }
        cursor = try store.objects(
            of: entity, includingSubentities: includingSubentities, batchSize: batchSize, where: plan.condition,
            readingToMany: readingToMany)
        residual = plan.residual.map(ExpressionCompiler.compile)
        self.resolver = resolver ?? StoreObjectResolver(source: store)
        var allVariables = EvaluationContext.variables(userInfo: [:])
        allVariables.merge(variables) { _, new in new }
        context = EvaluationContext(variables: allVariables, resolver: self.resolver)
        context.now = { now }
    }

    /// Rows read from the table so far (objects that passed the SQL part of the filter).
    public var rowsRead: Int { cursor.rowsRead }

    /// The next objects that pass the filter, or nil when there are no more. A batch may be
    /// empty when the in-memory part of the filter turned every object of a read away.
    public func nextBatch() throws -> [StoredObject]? {
        guard var batch = try cursor.nextBatch() else { return nil }
        if side == .source, !resolver.deletedSources.isEmpty {
            let gone = resolver.deletedSources
            batch.removeAll { gone.contains($0.id) }  // deleted from the run's source context
        }
        guard let residual else { return batch }
        return try batch.filter { object in
            resolver.remember(object, in: side, complete: readsToMany)
            let reference = ExpressionValue.object(ObjectReference(side, object.id))
            context.variables["source"] = reference
            context.object = reference
            return try residual.test(context)
        }
    }
}
