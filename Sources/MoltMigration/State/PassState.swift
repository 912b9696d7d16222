internal import Foundation
internal import Logging
internal import MoltCore
internal import MoltMapping
internal import MoltModel
import MoltSQLite
internal import MoltStore

/// The state of one object-by-object run, which the passes share: the two stores, the mapping
/// being run, the writer, the association table, compiled mappings and cancellation. What one
/// pass alone holds is in a part of its own: ``copying`` (the copy pass), ``relating`` (the
/// relate pass), and the answers kept while they hold, ``memos``. Policies see it through ``MigrationManager``,
/// whose methods hand their work to it.
final class PassState {
    let sourceModel: ObjectModel
    let destinationModel: ObjectModel
    /// The manager's `mappingModel` (documented there).
    private(set) var mappingModel: MappingModel
    /// The manager's `passNumber` (documented there).
    private(set) var passNumber = 1
    /// The manager's `passCount` (documented there).
    let passCount: Int
    /// The source store, opened read-only with the source model.
    let source: ObjectStore
    /// The store being built, opened with the destination model. The passes' own: policies
    /// reach it only through ``destinationCheckpoint``.
    let destination: ObjectStore
    let logger: Logger

    /// The manager's `currentEntityMapping` (documented there).
    private(set) var currentEntityMapping: EntityMapping? {
        didSet { mappingVariables = nil }
    }
    /// The expression variables of the current mapping (its user info and the function
    /// targets), made once per mapping.
    private var mappingVariables: [String: ExpressionValue]?
    /// The manager's `startDate` (documented there).
    let startDate: Date

    let writer: ObjectWriter
    let associations: AssociationTable
    let resolver: StoreObjectResolver
    private(set) var resolverModel: MappingResolver
    private var mappingNumbers: [String: Int] = [:]
    private var compiled: [String: CompiledMapping] = [:]
    /// Calls `FUNCTION($entityPolicy, selector, …)` on the policy of `mapping`. The policies
    /// are the passes' (the run makes them for each pass and sets this), so the state never
    /// names a policy type.
    var callEntityPolicy:
        ((_ mapping: EntityMapping, _ selector: String, _ arguments: [ExpressionValue]) throws -> ExpressionValue)?
    /// The number of the entity mapping being run (``begin(_:)``).
    private(set) var currentMappingNumber: Int?
    /// The run this state is part of (its cancellation is the run's).
    let context: RunContext
    var cancellation: Cancellation { context.cancellation }
    let queryState = QueryState()
    /// What the copy pass holds while it makes one source object's destination objects.
    let copying = CopyingState()
    /// What the relate pass holds across its mappings and while it computes one value.
    let relating = RelateState()
    /// Answers looked up once and kept while they hold (entity numbers, stored names, kinds).
    let memos = LookupMemos()
    /// What a non-throwing call of a policy (Core Data's `associate`) failed with during the
    /// current hook; thrown when the hook returns.
    var deferredError: (any Error)?
    /// Source objects deleted from the source context in passes before this one.
    var deletedSourcesOfEarlierPasses = 0
    /// Whether relationship values are evaluated even in Core Data's default form
    /// (``MigrationOptions/evaluatesEveryValue``).
    var evaluatesEveryValue = false
    /// The current pass's to-one keys the copy pass writes with each new row, and the keys
    /// written so far, by mapping name (``KeyAtInsert``).
    var keysAtInsert: [String: KeysAtInsert] = [:]

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

    /// Starts pass `number` with its mapping model. As in Core Data, where each
    /// pass is a migration of its own into the same destination, the association table starts
    /// empty (a later pass finds earlier passes' objects by fetching them); the manager's
    /// ``userInfo`` carries on.
    func beginPass(_ number: Int, mappingResolver: MappingResolver) throws {
        let mappingModel = mappingResolver.mappingModel
        if number != passNumber {
            try associations.removeAll()
            // What earlier passes wrote in SQL names their mappings' numbers, which this pass
            // gives to its own mappings.
            relating.written = []
            // Each pass is a migration of its own in Core Data, with a fresh source context:
            // what an earlier pass deleted from it is back.
            deletedSourcesOfEarlierPasses += resolver.deletedSources.count
            resolver.deletedSources = []
        }
        passNumber = number
        self.mappingModel = mappingModel
        currentEntityMapping = nil
        currentMappingNumber = nil
        compiled = [:]
        resolverModel = mappingResolver
        resolver.forget(.destination)
        numberMappings()
    }

    // MARK: The current mapping

    /// The manager's `userInfo` (documented there).
    let userInfo: MigrationUserInfo

    /// The manager's `mappingUserInfo` (documented there).
    var mappingUserInfo: [String: String] { currentEntityMapping?.userInfoDictionary ?? [:] }

    /// The work of the manager's `sourceEntity` (its documentation is there).
    func sourceEntity(for mapping: EntityMapping) -> Entity? {
        mapping.sourceEntityName.flatMap { sourceModel.entity(named: $0) }
    }

    /// The work of the manager's `destinationEntity` (its documentation is there).
    func destinationEntity(for mapping: EntityMapping) -> Entity? {
        mapping.destinationEntityName.flatMap { destinationModel.entity(named: $0) }
    }

    func begin(_ mapping: EntityMapping) {
        currentEntityMapping = mapping
        currentMappingNumber = mappingNumbers[mapping.name]
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

    /// The work of the manager's `cancel` (its documentation is there).
    func cancel(with error: (any Error & Sendable)? = nil) {
        cancellation.cancel(with: error)
    }

    /// Runs `body` (the passes) with a cancellation of the run interrupting the SQL statement
    /// the manager is running, if any.
    func interruptible<T>(_ body: () throws -> T) throws -> T {
        let state = relating
        nonisolated(unsafe) let connection = destination.store.connection
        return try cancellation.whileRunning(
            interrupt: { state.interruptIfRunning { connection.interrupt() } }, body)
    }

    /// The manager's `isCancelled` (documented there).
    var isCancelled: Bool { cancellation.error != nil }

    func checkCancelled() throws {
        if let error = cancellation.error { throw error }
    }

    // MARK: Reading the source

    /// The work of the manager's `sourceObject` (its documentation is there).
    func sourceObject(_ id: ObjectID) throws -> SourceObject {
        try sourceObject(id, includingDeleted: false)
    }

    /// A source object by ID; with
    /// `includingDeleted`, a source object a policy deleted from the run's context is given
    /// too: as the source of objects a mapping made from it before the delete.
    func sourceObject(_ id: ObjectID, includingDeleted: Bool) throws -> SourceObject {
        // Read for what is asked of it: a to-many relationship is read when it is asked for.
        guard let found = try resolver.objectIfPresent(ObjectReference(.source, id), includingDeleted: includingDeleted)
        else {
            throw MoltError(.sourceStore, "the source object \(id) does not exist")
        }
        return SourceObject(stored: found.object, complete: found.complete, reader: self)
    }

    /// The work of the manager's `forEachSourceObject` (its documentation is there).
    func forEachSourceObject(
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
        // Read without to-many relationships: a value or a policy that asks for one reads it
        // then (``SourceObject``, the resolver), so the objects a copy never follows are not
        // read with their links.
        let objects = try FilteredObjects(
            store: source, entity: entity, filter: predicate, variables: variables(), includingSubentities: false,
            now: startDate, resolver: resolver, readingToMany: false)
        // A policy may walk other objects while one is visited: the outer one is visited again after.
        let outer = resolver.visitingSource
        defer { resolver.visitingSource = outer }
        while let batch = try objects.nextBatch() {
            for stored in batch {
                try checkCancelled()
                // Kept by the resolver once a value or a policy asks it about the object.
                resolver.visitingSource = stored
                try body(SourceObject(stored: stored, complete: false, reader: self))
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

    /// The error a non-throwing call kept during the current hook, cleared.
    func takeDeferredError() -> (any Error)? {
        defer { deferredError = nil }
        return deferredError
    }
}
