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
    private let cancellation = Cancellation()
    let sqlState = SetBasedState()
    let queryState = QueryState()
    /// The relate pass's current batch, read ahead (``beginRelateBatch(_:mapping:)``).
    var relateBatch: RelateBatch?
    /// Destination objects the association table gave while a relationship value is computed
    /// (they exist, so setting the relationship need not look their rows up).
    var associatedDestinations: Set<ObjectID> = []
    /// ``destinationKinds(of:)``'s answers.
    var kindsOfDestinationEntity: [String: Set<String>] = [:]

    init(
        source: ObjectStore, destination: ObjectStore, mappingModel: MappingModel, passCount: Int = 1,
        logger: Logger, startDate: Date
    ) throws {
        self.source = source
        self.destination = destination
        self.sourceModel = source.model
        self.destinationModel = destination.model
        self.mappingModel = mappingModel
        self.passCount = passCount
        self.logger = logger
        self.startDate = startDate
        userInfo = MigrationUserInfo()
        writer = try ObjectWriter(
            connection: destination.store.connection, layout: destination.layout, path: destination.store.url.path,
            externalData: destination.externalData)
        associations = try AssociationTable(connection: destination.store.connection)
        resolver = StoreObjectResolver(source: source, destination: destination)
        resolverModel = MappingResolver(
            source: source.model, destination: destination.model, mappingModel: mappingModel)
        numberMappings()
    }

    private func numberMappings() {
        mappingNumbers = [:]
        for (index, mapping) in mappingModel.entityMappings.enumerated() {
            mappingNumbers[mapping.name] = index + 1
        }
    }

    /// Starts pass `number` with its mapping model and policies. As in Core Data, where each
    /// pass is a migration of its own into the same destination, the association table starts
    /// empty (a later pass finds earlier passes' objects by fetching them); the manager's
    /// ``userInfo`` carries on.
    func beginPass(_ number: Int, mappingModel: MappingModel, policies: [String: any EntityMigrationPolicy]) throws {
        if number != passNumber {
            try associations.removeAll()
        }
        passNumber = number
        self.mappingModel = mappingModel
        self.policies = policies
        currentEntityMapping = nil
        compiled = [:]
        resolverModel = MappingResolver(
            source: source.model, destination: destination.model, mappingModel: mappingModel)
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
        let connection = destination.store.connection
        sqlState.interruptIfRunning { connection.interrupt() }
    }

    /// Whether the migration has been cancelled.
    public var isCancelled: Bool { cancellation.error != nil }

    func checkCancelled() throws {
        if let error = cancellation.error { throw error }
    }

    // MARK: Reading the source

    /// A source object by ID.
    public func sourceObject(_ id: ObjectID) throws -> SourceObject {
        guard let stored = try source.object(id) else {
            throw MoltError(.sourceStore, "the source object \(id) does not exist")
        }
        resolver.remember(stored)
        return SourceObject(stored: stored, manager: self)
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
                try body(SourceObject(stored: stored, manager: self))
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

    // MARK: Making destination objects

    /// Inserts a destination object of `entity` with attribute values (converted as
    /// ``/MoltMapping/AttributeAssignment`` describes; attributes not given take the model's default).
    /// During the copy pass the object takes the source object's primary key when it is free,
    /// so a migration that maps objects one to one keeps every key.
    public func createDestinationObject(
        entity: String, attributes: [String: ExpressionValue] = [:]
    ) throws
        -> DestinationObject
    {
        let plan = try writer.insertPlan(for: entity)
        var row = plan.defaults
        // Converted in column order, so the first failure is the same whatever the dictionary's order.
        var given: [(column: Int, value: ExpressionValue)] = []
        given.reserveCapacity(attributes.count)
        var unknown: [String] = []
        for (name, value) in attributes {
            if let column = plan.columnIndex[name] { given.append((column, value)) } else { unknown.append(name) }
        }
        given.sort { $0.column < $1.column }
        for (column, value) in given {
            row[column] = try AttributeAssignment.convert(value, to: plan.attributes[column])
        }
        if let name = unknown.sorted().first {
            throw MoltError(.migration, "the destination entity has no stored attribute \"\(name)\"", entity: entity)
        }
        return DestinationObject(
            id: try writer.insert(entity, columnValues: row, preferredKey: currentSource?.primaryKey))
    }

    /// Sets attribute values of a destination object made by this migration.
    public func setAttributes(_ attributes: [String: ExpressionValue], of object: DestinationObject) throws {
        let layout = try destination.layout.requireEntity(object.entity)
        var values: [String: AttributeValue?] = [:]
        for (name, value) in attributes {
            guard let column = layout.attribute(named: name) else {
                throw MoltError(
                    .migration, "the destination entity has no stored attribute \"\(name)\"", entity: object.entity)
            }
            values[name] = try AttributeAssignment.convert(value, to: column.attribute)
        }
        try writer.update(object.id, attributes: values)
    }

    /// Records that the current entity mapping made `destination` from `source`.
    public func associate(source: SourceObject, destination: DestinationObject) throws {
        try associate(source: source.id, destination: destination.id, mapping: try requireCurrentMapping().name)
    }

    func associate(source: ObjectID, destination: ObjectID, mapping: String) throws {
        relateBatch = nil  // what was read ahead no longer tells every source
        try associations.associate(
            mapping: try number(of: mapping), source: try key(source, in: self.source),
            destination: try key(destination, in: self.destination))
    }

    /// Sets a relationship of a destination object to destination objects: a to-one takes
    /// none or one, a to-many any number (in order, if ordered).
    public func setRelationship(_ name: String, of object: DestinationObject, to objects: [DestinationObject]) throws {
        try setRelationship(name, of: object, to: objects, existing: .none)
    }

    /// ``setRelationship(_:of:to:)``; the objects in `existing` are known to exist (the relate
    /// pass's own, from the association table), so their rows are not looked up.
    func setRelationship(
        _ name: String, of object: DestinationObject, to objects: [DestinationObject], existing: KnownObjects
    ) throws {
        let layout = try destination.layout.requireEntity(object.entity)
        guard let link = layout.relationship(named: name) else {
            throw MoltError(.migration, "the destination entity has no relationship \"\(name)\"", entity: object.entity)
        }
        var seen: Set<ObjectID> = []
        let unique = objects.map(\.id).filter { seen.insert($0).inserted }
        if link.relationship.isToMany {
            try writer.setToMany(object.id, name, to: unique, existing: existing)
        } else {
            guard unique.count <= 1 else {
                throw MoltError(
                    .migration, "the to-one relationship was given \(unique.count) objects", entity: object.entity,
                    property: name)
            }
            try writer.setToOne(object.id, name, to: unique.first, existing: existing)
        }
    }

    /// Objects made in the destination store so far.
    func destinationObjectCount() -> Int {
        writer.insertedCount
    }

    // MARK: Keys

    func key(_ id: ObjectID, in store: ObjectStore) throws -> AssociationTable.Key {
        guard let numbers = store.layout.numbers(ofEntity: id.entity) else {
            _ = try store.layout.requireEntity(id.entity)  // the error naming the entity
            throw MoltError(.migration, "unknown entity \(id.entity)")
        }
        return AssociationTable.Key(root: numbers.root, primaryKey: id.primaryKey, entity: numbers.number)
    }

    func objectID(_ key: AssociationTable.Key, in store: ObjectStore) throws -> ObjectID {
        guard let entity = store.layout.entityName(number: key.entity) else {
            throw MoltError(.migration, "unknown entity number \(key.entity)")
        }
        return ObjectID(entity: entity, primaryKey: key.primaryKey)
    }
}

/// A cancellation flag shared across threads.
final class Cancellation: @unchecked Sendable {
    /// Core Data's 134120, for a migration stopped on request.
    static let cancelledError = MoltError(
        .migrationCancelled, "the migration was cancelled", recovery: "Run it again when ready.")

    private let lock = NSLock()
    private var stored: (any Error & Sendable)?

    var error: (any Error & Sendable)? {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    func cancel(with error: (any Error & Sendable)?) {
        lock.lock()
        defer { lock.unlock() }
        if stored == nil {
            stored =
                error
                ?? Self.cancelledError
        }
    }
}
