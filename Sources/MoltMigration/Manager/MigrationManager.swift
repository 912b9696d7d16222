public import Foundation
public import Logging
internal import MoltCore
public import MoltMapping
public import MoltModel
import MoltSQLite
public import MoltStore

/// The state of one heavyweight migration, and what policies use to do their work: the two
/// stores, the mapping being run, the association table, object creation and relationships,
/// and cancellation.
///
/// The source store is only read. The destination store is a new file the migration fills;
/// objects are written in batches, in transactions of their own. A manager is used from one
/// thread; ``cancel(with:)`` may be called from any.
public final class MigrationManager {
    public let sourceModel: ObjectModel
    public let destinationModel: ObjectModel
    /// The mapping model of the pass being run (see ``passNumber``).
    public private(set) var mappingModel: MappingModel
    /// Which pass is running, from 1: a step split into several mapping models (Core Data's
    /// "multiple passes") runs them one after the other into the same destination store, each
    /// pass seeing and able to fetch what earlier passes made.
    public private(set) var passNumber = 1
    /// How many passes the step has.
    public let passCount: Int
    /// The source store, opened read-only with the source model.
    public let source: ObjectStore
    /// The destination store being built, opened with the destination model.
    public let destination: ObjectStore
    public let logger: Logger

    /// The entity mapping being run.
    public private(set) var currentEntityMapping: EntityMapping? {
        didSet { mappingVariables = nil }
    }
    /// The expression variables of the current mapping (its user info and the function
    /// targets), made once per mapping.
    private var mappingVariables: [String: ExpressionValue]?
    /// The time `now()` stands for during the whole migration.
    public let startDate: Date

    let writer: ObjectWriter
    let associations: AssociationTable
    let resolver: StoreObjectResolver
    private(set) var resolverModel: MappingResolver
    private var mappingNumbers: [String: Int] = [:]
    private var compiled: [String: CompiledMapping] = [:]
    var policies: [String: any EntityMigrationPolicy] = [:]
    /// The source object whose destination objects are being made (copy pass), if any: new
    /// objects take its primary key when that key is free.
    var currentSource: ObjectID?
    /// The destination relationship whose value is being computed, if any.
    var currentRelationship: Relationship?
    /// The run this manager is part of (its cancellation is the run's).
    let context: RunContext
    var cancellation: Cancellation { context.cancellation }
    let sqlState = SetBasedState()
    let queryState = QueryState()
    /// The relate pass's current batch, read ahead (``beginRelateBatch(_:mapping:)``).
    var relateBatch: RelateBatch?
    /// What a non-throwing call of a policy (Core Data's `associate`) failed with during the
    /// current hook; thrown when the hook returns.
    var deferredError: (any Error)?
    /// Source objects deleted from the source context in passes before this one.
    var deletedSourcesOfEarlierPasses = 0
    /// Destination objects the association table gave while a relationship value is computed
    /// (they exist, so setting the relationship need not look their rows up).
    var associatedDestinations: Set<ObjectID> = []
    /// ``destinationKinds(of:)``'s answers.
    var kindsOfDestinationEntity: [String: Set<String>] = [:]

    init(
        source: ObjectStore, destination: ObjectStore, mappingResolver: MappingResolver, passCount: Int = 1,
        context: RunContext, startDate: Date
    ) throws {
        let mappingModel = mappingResolver.mappingModel
        self.source = source
        self.destination = destination
        self.sourceModel = source.model
        self.destinationModel = destination.model
        self.mappingModel = mappingModel
        self.passCount = passCount
        self.context = context
        self.logger = context.logger
        self.startDate = startDate
        userInfo = MigrationUserInfo()
        writer = try ObjectWriter(
            connection: destination.store.connection, layout: destination.layout, path: destination.store.url.path,
            externalData: destination.externalData)
        associations = try AssociationTable(connection: destination.store.connection)
        resolver = StoreObjectResolver(source: source, destination: destination)
        resolverModel = mappingResolver
        numberMappings()
    }

    func numberMappings() {
        mappingNumbers = [:]
        for (index, mapping) in mappingModel.entityMappings.enumerated() {
            mappingNumbers[mapping.name] = index + 1
        }
    }

    /// Starts pass `number` with its mapping model and policies. As in Core Data, where each
    /// pass is a migration of its own into the same destination, the association table starts
    /// empty (a later pass finds earlier passes' objects by fetching them); the manager's
    /// ``userInfo`` carries on.
    func beginPass(
        _ number: Int, mappingResolver: MappingResolver, policies: [String: any EntityMigrationPolicy]
    ) throws {
        let mappingModel = mappingResolver.mappingModel
        if number != passNumber {
            try associations.removeAll()
            // What earlier passes wrote in SQL names their mappings' numbers, which this pass
            // gives to its own mappings.
            sqlState.written = []
            // Each pass is a migration of its own in Core Data, with a fresh source context:
            // what an earlier pass deleted from it is back.
            deletedSourcesOfEarlierPasses += resolver.deletedSources.count
            resolver.deletedSources = []
        }
        passNumber = number
        self.mappingModel = mappingModel
        self.policies = policies
        currentEntityMapping = nil
        compiled = [:]
        resolverModel = mappingResolver
        resolver.forget(.destination)
        numberMappings()
    }

    // MARK: The current mapping

    /// The migration's shared store of values (Core Data's `NSMigrationManager.userInfo`):
    /// every mapping, hook and pass sees the same one. See ``MigrationUserInfo``.
    public let userInfo: MigrationUserInfo

    /// The current entity mapping's own user info (read-only; what `$name` reads in its
    /// expressions).
    public var mappingUserInfo: [String: String] { currentEntityMapping?.userInfoDictionary ?? [:] }

    /// The source entity of `mapping` in the source model.
    public func sourceEntity(for mapping: EntityMapping) -> Entity? {
        mapping.sourceEntityName.flatMap { sourceModel.entity(named: $0) }
    }

    /// The destination entity of `mapping` in the destination model.
    public func destinationEntity(for mapping: EntityMapping) -> Entity? {
        mapping.destinationEntityName.flatMap { destinationModel.entity(named: $0) }
    }

    func begin(_ mapping: EntityMapping) {
        currentEntityMapping = mapping
    }

    func requireCurrentMapping() throws -> EntityMapping {
        guard let currentEntityMapping else {
            throw MoltError(.migration, "no entity mapping is running")
        }
        return currentEntityMapping
    }

    func number(of mapping: String) throws -> Int {
        guard let number = mappingNumbers[mapping] else {
            throw MoltError(.migration, "there is no entity mapping called \"\(mapping)\"")
        }
        return number
    }

    /// The mapping's values, resolved and compiled once.
    func compiledMapping(_ mapping: EntityMapping) -> CompiledMapping {
        if let existing = compiled[mapping.name] { return existing }
        let made = CompiledMapping(resolved: resolverModel.resolve(mapping), sourceModel: source.model)
        compiled[mapping.name] = made
        return made
    }

    // MARK: Cancelling

    /// Stops the migration at the next object: it fails with `error` (Core Data's 134120,
    /// "cancelled", when nil), the source store untouched. Safe to call from any thread.
    public func cancel(with error: (any Error & Sendable)? = nil) {
        cancellation.cancel(with: error)
    }

    /// Runs `body` (the passes) with a cancellation of the run interrupting the SQL statement
    /// the manager is running, if any.
    func interruptible<T>(_ body: () throws -> T) throws -> T {
        let state = sqlState
        nonisolated(unsafe) let connection = destination.store.connection
        return try cancellation.whileRunning(
            interrupt: { state.interruptIfRunning { connection.interrupt() } }, body)
    }

    /// Whether the migration has been cancelled.
    public var isCancelled: Bool { cancellation.error != nil }

    func checkCancelled() throws {
        if let error = cancellation.error { throw error }
    }

    // MARK: Reading the source

    /// A source object by ID.
    public func sourceObject(_ id: ObjectID) throws -> SourceObject {
        // Read for what is asked of it: a to-many relationship is read when it is asked for.
        guard let found = try resolver.objectIfPresent(ObjectReference(.source, id)) else {
            throw MoltError(.sourceStore, "the source object \(id) does not exist")
        }
        return SourceObject(stored: found.object, complete: found.complete, reader: self)
    }

    /// Every source object of `entity` (not its sub-entities) that passes `filter` (a
    /// predicate, optional), in key order; `body` is called for each.
    public func forEachSourceObject(
        of entity: String, filter: String? = nil, _ body: (SourceObject) throws -> Void
    ) throws {
        let predicate = try filter.map { text -> MappingExpression in
            do {
                return try ExpressionParser().parse(text)
            } catch {
                throw MoltError(.migration, "the filter \"\(text)\" is not valid: \(error)")
            }
        }
        try forEachSourceObject(of: entity, filterExpression: predicate, body)
    }

    func forEachSourceObject(
        of entity: String, filterExpression predicate: MappingExpression?, _ body: (SourceObject) throws -> Void
    ) throws {
        let objects = try FilteredObjects(
            store: source, entity: entity, filter: predicate, variables: variables(), includingSubentities: false,
            now: startDate, resolver: resolver)
        while let batch = try objects.nextBatch() {
            for stored in batch {
                try checkCancelled()
                resolver.remember(stored)
                try body(SourceObject(stored: stored, reader: self))
            }
        }
    }

    /// Variables for expressions of the current mapping: its user info and the targets.
    func variables() -> [String: ExpressionValue] {
        if let mappingVariables { return mappingVariables }
        let made = EvaluationContext.variables(userInfo: mappingUserInfo)
        mappingVariables = made
        return made
    }

}
