internal import MoltCore
public import MoltStore

/// Resolves key paths on objects of a source store (and optionally a destination store) by
/// reading them, keeping the most recently read objects at hand.
///
/// ```swift
/// let resolver = StoreObjectResolver(source: store)
/// let context = EvaluationContext(variables: ["source": .object(ObjectReference(.source, id))], resolver: resolver)
/// ```
public final class StoreObjectResolver: ObjectResolver {
    public let source: ObjectStore
    public let destination: ObjectStore?
    /// How many objects are kept; older ones are read again when needed.
    public var capacity = 1024
    private var cache: [ObjectReference: StoredObject] = [:]
    /// Objects kept without their to-many relationships, which are read one by one when a
    /// value asks for them (an object reached through a key path is read for what is asked of
    /// it: the tag of a post gives its name without its thousands of posts being read).
    private var partial: Set<ObjectReference> = []
    /// Source objects a migration's policy deleted from its source context: gone for the rest
    /// of the run (no longer read, and left out of every relationship that held them), while
    /// the source store itself is never written.
    package var deletedSources: Set<ObjectID> = [] {
        didSet { cache = cache.filter { $0.key.store != .source || !deletedSources.contains($0.key.id) } }
    }

    public init(source: ObjectStore, destination: ObjectStore? = nil) {
        self.source = source
        self.destination = destination
    }

    /// The source object a pass is visiting, read without its to-many relationships: kept
    /// (``remember(_:in:complete:)``) only once something asks the resolver about it, so an
    /// object whose values are all read from its row costs no cache entry.
    package var visitingSource: StoredObject?

    /// Adds an object already read (such as the one being filtered), so it is not read again.
    public func remember(_ object: StoredObject, in side: ObjectReference.Store = .source) {
        remember(object, in: side, complete: true)
    }

    /// Adds an object read; without `complete`, its to-many relationships were not read (see
    /// ``ObjectStore/object(_:readingToMany:)``) and are read when asked for.
    package func remember(_ object: StoredObject, in side: ObjectReference.Store, complete: Bool) {
        if cache.count >= capacity {
            cache.removeAll(keepingCapacity: true)
            partial.removeAll(keepingCapacity: true)
        }
        let reference = ObjectReference(side, object.id)
        cache[reference] = object
        if complete { partial.remove(reference) } else { partial.insert(reference) }
    }

    /// `links` without the objects in `gone`.
    package static func without(_ gone: Set<ObjectID>, _ links: RelationshipValue) -> RelationshipValue {
        switch links {
        case .toOne(let id): .toOne(id.flatMap { gone.contains($0) ? nil : $0 })
        case .toMany(let ids): .toMany(ids.filter { !gone.contains($0) })
        }
    }

    /// The links of the source object `id`'s relationship as the run's source context holds
    /// them once `gone` were deleted from it: without the deleted objects; and none at all on
    /// a deleted object whose relationship has an inverse, since every object it held no
    /// longer holds it (Nullify and No Action), was deleted with it (Cascade), or kept the
    /// delete from happening (Deny), and Core Data keeps the two sides of a relationship
    /// equal. A deleted object is read this way only as the source of objects a mapping made
    /// from it before the delete (they stay, with their associations).
    package static func links(
        _ links: RelationshipValue, of id: ObjectID, hasInverse: Bool, without gone: Set<ObjectID>
    ) -> RelationshipValue {
        guard !gone.isEmpty else { return links }
        guard hasInverse, gone.contains(id) else { return without(gone, links) }
        switch links {
        case .toOne: return .toOne(nil)
        case .toMany: return .toMany([])
        }
    }

    /// Every relationship of `object`, a source object, as ``links(_:of:hasInverse:without:)``
    /// gives it.
    package func relationshipsAsHeld(_ object: StoredObject) -> [String: RelationshipValue] {
        let gone = deletedSources
        guard !gone.isEmpty else { return object.relationships }
        let entity = source.layout.entity(named: object.id.entity)
        var held = object.relationships
        for (name, value) in object.relationships {
            let inverse = entity?.relationship(named: name)?.relationship.inverseName != nil
            held[name] = Self.links(value, of: object.id, hasInverse: inverse, without: gone)
        }
        return held
    }

    /// Forgets the objects kept of one store (objects there have changed).
    public func forget(_ side: ObjectReference.Store) {
        if side == .source { visitingSource = nil }
        cache = cache.filter { $0.key.store != side }
        partial = partial.filter { $0.store != side }
    }

    /// The object, from those kept or read (to-many relationships left for later, unless
    /// `complete` says they were read), or nil when the store has no such object or, unless
    /// `includingDeleted`, it is a source object deleted from the run's context.
    package func objectIfPresent(
        _ reference: ObjectReference, includingDeleted: Bool = false
    ) throws -> (object: StoredObject, complete: Bool)? {
        if !includingDeleted, reference.store == .source, deletedSources.contains(reference.id) { return nil }
        if let cached = cache[reference] { return (cached, !partial.contains(reference)) }
        if reference.store == .source, let visiting = visitingSource, visiting.id == reference.id {
            remember(visiting, in: .source, complete: false)
            return (visiting, false)
        }
        guard let store = reference.store == .source ? source : destination else {
            throw MoltError(.migration, "no destination store to read \(reference.id) from")
        }
        guard let loaded = try store.object(reference.id, readingToMany: false) else { return nil }
        remember(loaded, in: reference.store, complete: false)
        return (loaded, false)
    }

    /// The object a value is asked of. A deleted source object is still read: a reference
    /// to it is held only by what was made from it before the delete (its relationships are
    /// then read as ``links(_:of:hasInverse:without:)`` gives them).
    private func object(_ reference: ObjectReference) throws -> StoredObject {
        guard let found = try objectIfPresent(reference, includingDeleted: true) else {
            throw MoltError(.migration, "the object \(reference.id) does not exist in the \(reference.store) store")
        }
        return found.object
    }

    public func value(of key: String, on reference: ObjectReference) throws -> ExpressionValue {
        guard let store = reference.store == .source ? source : destination else {
            throw MoltError(.migration, "no destination store to read \(reference.id) from")
        }
        let object = try self.object(reference)
        // A value read is an attribute's (a relationship's value is under its own name).
        if let value = object.attributes[key] { return ExpressionValue(value) }
        guard let entity = store.layout.entity(named: object.id.entity) else {
            throw MoltError(.migration, "unknown entity \(object.id.entity)")
        }
        if entity.attribute(named: key) != nil {
            return ExpressionValue(object.attributes[key])
        }
        if let link = entity.relationship(named: key) {
            var read = object.relationships[key]
            if read == nil, link.relationship.isToMany, partial.contains(reference) {
                let related = RelationshipValue.toMany(try store.toMany(key, of: object.id))
                cache[reference]?.relationships[key] = related
                read = related
            }
            if reference.store == .source, !deletedSources.isEmpty, let links = read {
                read = Self.links(
                    links, of: reference.id, hasInverse: link.relationship.inverseName != nil, without: deletedSources)
            }
            switch read ?? (link.relationship.isToMany ? .toMany([]) : .toOne(nil)) {
            case .toOne(let id): return id.map { .object(ObjectReference(reference.store, $0)) } ?? .null
            case .toMany(let ids): return .collection(ids.map { .object(ObjectReference(reference.store, $0)) })
            }
        }
        if store.model.entity(named: entity.name)?.attributes.contains(where: { $0.name == key && $0.isTransient })
            == true
        {
            return .null  // transient attributes are never stored
        }
        let prefix = key + "."
        let leaves = entity.attributes.lazy.map(\.attribute.name).filter { $0.hasPrefix(prefix) }
        if !leaves.isEmpty {
            // A composite: nil when every leaf is (Core Data's nil composite), else read by key.
            return leaves.allSatisfy { object.attributes[$0] == nil } ? .null : .composite(reference, path: key)
        }
        if key.contains(".") {
            return .null  // an element a composite does not have reads as nil, as in a dictionary
        }
        throw MoltError(.migration, "\(entity.name) has no attribute or relationship \"\(key)\"")
    }
}
