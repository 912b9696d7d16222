public import Foundation
public import Logging
public import MoltCore
public import MoltMapping
public import MoltModel
public import MoltStore

/// What policies use to do their work, as Core Data's `NSMigrationManager`: the two models
/// and the contexts of the two stores (``sourceContext``, ``destinationContext``), the mapping
/// being run, making destination objects and setting their values and relationships, the
/// association of source and destination objects, the shared `userInfo`, and cancellation. As
/// in Core Data, a policy gets no store itself: it reads and changes objects through the
/// manager and the two contexts.
///
/// The source store is only read. The destination store is a new file the migration fills;
/// objects are written in batches, in transactions of their own. A manager is used from one
/// thread; ``cancel(with:)`` may be called from any.
///
/// Keys the engine writes with new rows ahead of the relate pass (``RelatePlan/keysAtInsert``)
/// are taken back before a policy reads the destination store's objects or changes their
/// relationships (``destinationContext``'s fetches, counts, values, relationship changes and
/// deletes, ``setRelationship(_:of:to:)``, ``createDefaultRelationships(for:)``): a policy sees
/// objects without relationships until the relate pass, as in Core Data.
///
/// The manager is the policies' view only. The run's state (the writer, the association table,
/// compiled mappings, what the relate pass reads ahead, the SQL relate state) is the passes'
/// own, in `State/PassState.swift`; every method here hands its work to it, and reaches the
/// destination store only through the one checkpoint that takes those keys back
/// (`State/DestinationCheckpoint.swift`).
public final class MigrationManager {
    /// The run's state, which the passes own, seen without the destination store: that is
    /// reached through `state.destinationCheckpoint` only.
    let state: any ManagerState

    init(state: any ManagerState) {
        self.state = state
    }

    /// The only way to the destination store.
    var checkpoint: DestinationCheckpoint { state.destinationCheckpoint }

    /// The model the source store was made with.
    public var sourceModel: ObjectModel { state.sourceModel }

    /// The model of the store being built.
    public var destinationModel: ObjectModel { state.destinationModel }

    /// The mapping model of the pass being run (see ``passNumber``).
    public var mappingModel: MappingModel { state.mappingModel }

    /// Which pass is running, from 1: a step split into several mapping models (Core Data's
    /// "multiple passes") runs them one after the other into the same destination store, each
    /// pass seeing and able to fetch what earlier passes made.
    public var passNumber: Int { state.passNumber }

    /// How many passes the step has.
    public var passCount: Int { state.passCount }

    /// No longer given: a policy reads the source store through ``sourceContext`` (and
    /// ``sourceObject(_:)``, ``forEachSourceObject(of:filter:_:)``), as Core Data's
    /// `NSMigrationManager` offers no store either.
    @available(
        *, unavailable,
        message: "Policies get no store: fetch and read through sourceContext (Core Data's spelling)"
    )
    public var source: ObjectStore { fatalError("unavailable") }

    /// No longer given: a policy reads and changes the new store through
    /// ``destinationContext`` and the manager's own methods, which keep the objects as Core
    /// Data's copy pass leaves them.
    @available(
        *, unavailable,
        message:
            "Policies get no store: fetch, read and change objects through destinationContext (Core Data's spelling)"
    )
    public var destination: ObjectStore { fatalError("unavailable") }

    /// The run's logger (its context's), for a policy's own messages.
    public var logger: Logger { state.logger }

    /// The entity mapping being run.
    public var currentEntityMapping: EntityMapping? { state.currentEntityMapping }

    /// The time `now()` stands for during the whole migration.
    public var startDate: Date { state.startDate }

    /// The migration's shared store of values (Core Data's `NSMigrationManager.userInfo`):
    /// every mapping, hook and pass sees the same one. See ``MigrationUserInfo``.
    public var userInfo: MigrationUserInfo { state.userInfo }

    /// The current entity mapping's own user info (read-only; what `$name` reads in its
    /// expressions).
    public var mappingUserInfo: [String: String] { state.mappingUserInfo }

    /// The source entity of `mapping` in the source model.
    public func sourceEntity(for mapping: EntityMapping) -> Entity? {
        state.sourceEntity(for: mapping)
    }

    /// The destination entity of `mapping` in the destination model.
    public func destinationEntity(for mapping: EntityMapping) -> Entity? {
        state.destinationEntity(for: mapping)
    }

    /// Stops the migration at the next object: it fails with `error` (Core Data's 134120,
    /// "cancelled", when nil), the source store untouched. Safe to call from any thread.
    public func cancel(with error: (any Error & Sendable)? = nil) {
        state.cancel(with: error)
    }

    /// Whether the migration has been cancelled.
    public var isCancelled: Bool { state.isCancelled }

    /// A source object by ID.
    public func sourceObject(_ id: ObjectID) throws -> SourceObject {
        try state.sourceObject(id)
    }

    /// Every source object of `entity` (not its sub-entities) that passes `filter` (a
    /// predicate, optional), in key order; `body` is called for each.
    public func forEachSourceObject(
        of entity: String, filter: String? = nil, _ body: (SourceObject) throws -> Void
    ) throws {
        try state.forEachSourceObject(of: entity, filter: filter, body)
    }

    /// Makes one destination object of the current mapping's destination entity from `source`:
    /// each attribute from its value expression (explicit or inferred), the model's default, or
    /// none; then associates the two.
    @discardableResult
    public func createDefaultDestinationInstance(for source: SourceObject) throws -> DestinationObject {
        try checkpoint.createDefaultDestinationInstance(for: source)
    }

    /// Sets the relationships of a destination object the current mapping made, from the
    /// mapping's relationship values, evaluated for each source object it was made from: a
    /// to-many gets the objects of all of them (without repeats), a to-one the first found.
    public func createDefaultRelationships(for destination: DestinationObject) throws {
        try checkpoint.passed().createDefaultRelationships(for: destination)
    }

    /// The source objects the current mapping made `destination` from. One a policy deleted
    /// from the source context after it was copied is among them, as in Core Data (where it
    /// stays in the context, deleted, until the run ends): its attributes as stored, its
    /// relationships without the deleted objects, and none by a relationship with an inverse
    /// (the delete rules left no object holding it).
    public func sourceObjects(for destination: DestinationObject) throws -> [SourceObject] {
        try state.sourceObjects(for: destination)
    }

    /// The destination objects the entity mapping `name` made from `sources`, in order (while
    /// a relationship's value is computed, only those of the relationship's entity: a policy may
    /// have made objects of several entities from one source).
    public func destinationInstances(
        forEntityMappingName name: String, sourceIDs sources: [ObjectID]
    ) throws -> [DestinationObject] {
        try state.destinationInstances(forEntityMappingNamed: name, sourceInstances: sources)
    }

    /// The destination objects the entity mapping `name` made from the source objects `sources`.
    @available(*, deprecated, renamed: "destinationInstances(forEntityMappingName:sourceIDs:)")
    public func destinationInstances(
        forEntityMappingNamed name: String, sourceInstances sources: [ObjectID]
    ) throws -> [DestinationObject] {
        try destinationInstances(forEntityMappingName: name, sourceIDs: sources)
    }

    /// The destination objects any entity mapping made from `sources` (reached through a
    /// source relationship), in order; while a relationship's value is computed, only those
    /// of the relationship's entity.
    public func destinationInstances(
        forSourceRelationshipNamed name: String, sourceInstances sources: [ObjectID]
    ) throws -> [DestinationObject] {
        try state.destinationInstances(forSourceRelationshipNamed: name, sourceInstances: sources)
    }

    /// The IDs of the source objects the entity mapping `name` made `destinations` from, in
    /// order (``sourceInstances(forEntityMappingName:destinationInstances:)`` gives the objects).
    public func sourceIDs(
        forEntityMappingName name: String, destinationInstances destinations: [DestinationObject]
    ) throws -> [ObjectID] {
        try state.sourceInstances(forEntityMappingNamed: name, destinationInstances: destinations)
    }

    /// The IDs of the source objects the entity mapping `name` made `destinations` from.
    @available(*, deprecated, renamed: "sourceIDs(forEntityMappingName:destinationInstances:)")
    public func sourceInstances(
        forEntityMappingNamed name: String, destinationInstances destinations: [DestinationObject]
    ) throws -> [ObjectID] {
        try sourceIDs(forEntityMappingName: name, destinationInstances: destinations)
    }

    /// Inserts a destination object of `entity` with attribute values (converted as
    /// ``/MoltMapping/AttributeAssignment`` describes; attributes not given take the model's default).
    /// During the copy pass the object takes the source object's primary key when it is free,
    /// so a migration that maps objects one to one keeps every key.
    @available(
        *, deprecated,
        message:
            "Use destinationContext.insertNewObject(forEntityName:attributes:), Core Data's spelling of the same call"
    )
    public func createDestinationObject(
        entity: String, attributes: [String: ExpressionValue] = [:]
    ) throws -> DestinationObject {
        try checkpoint.insert(entity: entity, attributes: attributes)
    }

    /// Sets attribute values of a destination object made by this migration.
    public func setAttributes(_ attributes: [String: ExpressionValue], of object: DestinationObject) throws {
        try checkpoint.setAttributes(attributes, of: object)
    }

    /// Records that the current entity mapping made `destination` from `source`.
    public func associate(source: SourceObject, destination: DestinationObject) throws {
        try state.associate(source: source, destination: destination)
    }

    /// Sets a relationship of a destination object to destination objects: a to-one takes
    /// none or one, a to-many any number (in order, if ordered).
    public func setRelationship(_ name: String, of object: DestinationObject, to objects: [DestinationObject]) throws {
        try checkpoint.passed().setRelationship(name, of: object, to: objects)
    }

    /// Sets a Transformable attribute of a destination object: `value` is turned into bytes
    /// by the transformer the DESTINATION model names for the attribute (the built-in
    /// keyed-archive transformer for `NSSecureUnarchiveFromData` or none) and stored; nil
    /// stores NULL.
    ///
    /// Throws a ``/MoltCore/MoltError`` naming the object, entity and attribute when the attribute is
    /// not a stored Transformable one, when its transformer is not compiled in, or when the
    /// transformer cannot store the value.
    ///
    /// ```swift
    /// let tags = try source.transformable("tags")?.stringArray ?? []
    /// try manager.setTransformable("tags", of: note, to: TransformableValue(strings: tags.map { $0.lowercased() }))
    /// ```
    public func setTransformable(_ key: String, of object: DestinationObject, to value: TransformableValue?) throws {
        try checkpoint.setTransformable(key, of: object, to: value)
    }

    /// The value of a Transformable attribute of a destination object, as this migration has
    /// written it so far, read with the transformer the DESTINATION model names; nil when it
    /// is NULL.
    ///
    /// ```swift
    /// var tags = try manager.transformable("tags", of: note)?.stringArray ?? []
    /// tags.append("migrated")
    /// try manager.setTransformable("tags", of: note, to: TransformableValue(strings: tags))
    /// ```
    public func transformable(_ key: String, of object: DestinationObject) throws -> TransformableValue? {
        try checkpoint.transformable(key, of: object)
    }

    /// The source store, for fetching (Core Data's `sourceContext`).
    public var sourceContext: SourceContext { state.sourceContext }

    /// The destination store, for fetching, reading, changing and deleting objects (Core
    /// Data's `destinationContext`).
    public var destinationContext: DestinationContext { DestinationContext(checkpoint: checkpoint) }
}
