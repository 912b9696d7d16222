internal import MoltCore
internal import MoltMapping
internal import MoltModel
internal import MoltStore

/// The one way the policy-facing API (``MigrationManager``, `DestinationContext` and what
/// builds on them) reaches the destination store: policies are handed no store, and these types
/// hold no `PassState` to reach it with, only this checkpoint. (`SourceContext` passes it too
/// when a predicate names a destination object, which evaluating it reads.)
///
/// Why: keys written with new rows ahead of the relate pass (``KeyAtInsert``) must be
/// invisible to policies. Core Data's copy pass makes objects without relationships, and a
/// policy may look at the new store (a fetch, a count, a value, a relationship's objects, either
/// side of it) or change it (a relationship set, a delete and its delete rules) before the
/// relate pass. ``passed()`` first takes back every key written so far and stops the mappings
/// that wrote them from writing more (the relate pass then writes those relationships itself,
/// as it would have without the guess), and only then gives the passes' state.
///
/// A policy that never looks keeps the rows written once (the common case, and the point of
/// writing keys at insert). So besides ``passed()`` the checkpoint offers a short list of
/// operations that need no withdrawal because they give back nothing a key could show: writing
/// (inserting an object, setting attributes) without reading back, the schema, whether an
/// object exists, object IDs, and one stored attribute. Anything else a policy-facing method
/// needs goes through ``passed()``; a new narrow operation belongs here, with the reason it
/// cannot show a key.
///
/// On a copy worker (``CopyRecording``) the checkpoint records the writes instead, for the
/// writing thread to do in order; whatever would read the new store throws ``InOrderRequired``.
struct DestinationCheckpoint {
    /// The passes' state: reached by policy-facing code only through this type.
    private unowned let state: PassState
    /// On a copy worker: where the hook's writes go (nil on the writing thread).
    private let recording: CopyRecording?

    init(_ state: PassState, recording: CopyRecording? = nil) {
        self.state = state
        self.recording = recording
    }

    /// The passes' state, once every key written with a new row so far is taken back: for
    /// anything that reads the new store's objects or changes their relationships. Quick when
    /// no row holds a key.
    func passed() throws -> PassState {
        if let recording { throw recording.requireOrder("a read of the new store or a change of a relationship") }
        try state.withdrawKeysAtInsert()
        return state
    }

    // MARK: What shows no key

    /// The destination model (its schema, no data).
    var model: ObjectModel { state.destinationModel }

    /// The new store's tables and columns (no data).
    var layout: StoreLayout { state.destination.layout }

    /// The new store's UUID, which its objects' URIs name.
    var storeUUID: String { state.destination.store.metadata.storeUUID }

    /// Whether the object has a row: keys at insert change no row's existence, and nothing
    /// else of the row is given back. False for an entity the new store does not have.
    func exists(_ id: ObjectID) throws -> Bool {
        if let recording { throw recording.requireOrder("whether a destination object exists") }
        guard layout.entity(named: id.entity) != nil else { return false }
        return try state.destination.object(id, readingToMany: false) != nil
    }

    /// The ID of every object in the new store, by entity then key: IDs only.
    func objectIDs() throws -> [ObjectID] {
        if let recording { throw recording.requireOrder("the new store's objects") }
        var ids: [ObjectID] = []
        for entity in layout.entities where !entity.isAbstract {
            let cursor = try state.destination.objects(of: entity.name, includingSubentities: false)
            while let batch = try cursor.nextBatch() { ids += batch.map(\.id) }
        }
        return ids
    }

    /// The stored value of the attribute `key` of an object (nil for NULL), as the store holds
    /// it: an attribute only, never a relationship's key.
    func storedAttribute(_ key: String, of object: DestinationObject) throws -> AttributeValue? {
        if let recording { throw recording.requireOrder("a stored value of a destination object") }
        guard try layout.requireEntity(object.entity).attribute(named: key) != nil else {
            throw MoltError(
                .migration, "the destination entity has no stored attribute \"\(key)\"", entity: object.entity,
                property: key)
        }
        guard let stored = try state.destination.object(object.id, readingToMany: false) else {
            throw MoltError(
                .migration, "the destination object \(object.id) does not exist", entity: object.entity, property: key)
        }
        return stored.attributes[key]
    }

    /// Inserts an object (the manager's `createDestinationObject`): nothing is read back, and
    /// its row gets the keys the plan writes with a policy's own objects.
    func insert(entity: String, attributes: [String: ExpressionValue]) throws -> DestinationObject {
        if let recording { return try recording.insert(entity: entity, attributes: attributes) }
        return try state.createDestinationObject(entity: entity, attributes: attributes)
    }

    /// Makes the current mapping's default object from `source` (the manager's
    /// `createDefaultDestinationInstance`): a write, with the keys the plan writes at insert.
    /// The mapping's values read no destination object when the plan writes keys at insert.
    func createDefaultDestinationInstance(for source: SourceObject) throws -> DestinationObject {
        if let recording { return try recording.createDefaultDestinationInstance(for: source) }
        return try state.createDefaultDestinationInstance(for: source)
    }

    /// Sets attribute values of an object (the manager's `setAttributes`): an update of
    /// attribute columns, nothing read back.
    func setAttributes(_ attributes: [String: ExpressionValue], of object: DestinationObject) throws {
        if let recording { return try recording.setAttributes(attributes, of: object) }
        try state.setAttributes(attributes, of: object)
    }
}

extension PassState {
    /// The checkpoint through which policies reach the destination store.
    var destinationCheckpoint: DestinationCheckpoint { DestinationCheckpoint(self) }

    /// Clears every key written with a new row so far, and stops writing them for the
    /// mappings that wrote some; nothing to do when no row holds a key. Only
    /// ``DestinationCheckpoint/passed()`` calls it: private to this file.
    fileprivate func withdrawKeysAtInsert() throws {
        for (name, inserted) in keysAtInsert where inserted.rowCount > 0 || !inserted.farRows.isEmpty {
            guard let owner = inserted.links.first?.owner else { continue }
            logger.debug(
                "copy: a policy looks at the new store; keys written with new rows are taken back",
                metadata: ["molt.mapping": "\(name)"])
            try writer.clearColumns(inserted.columns, of: owner, rows: inserted.forEachRow)
            inserted.stop()
        }
    }
}
