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

    /// Forgets the objects kept of one store (objects there have changed).
    public func forget(_ side: ObjectReference.Store) {
        if side == .source { visitingSource = nil }
        cache = cache.filter { $0.key.store != side }
        partial = partial.filter { $0.store != side }
    }

    /// The object, from those kept or read (to-many relationships left for later, unless
    /// `complete` says they were read), or nil when the store has no such object.
    package func objectIfPresent(_ reference: ObjectReference) throws -> (object: StoredObject, complete: Bool)? {
        if reference.store == .source, deletedSources.contains(reference.id) { return nil }
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

    private func object(_ reference: ObjectReference) throws -> StoredObject {
        guard let found = try objectIfPresent(reference) else {
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
                read = Self.without(deletedSources, links)
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
        throw MoltError(.migration, "\(entity.name) has no attribute or relationship \"\(key)\"")
    }
}
