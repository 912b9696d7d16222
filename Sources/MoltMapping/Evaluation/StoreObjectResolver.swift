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

    public init(source: ObjectStore, destination: ObjectStore? = nil) {
        self.source = source
        self.destination = destination
    }

    /// Adds an object already read (such as the one being filtered), so it is not read again.
    public func remember(_ object: StoredObject, in side: ObjectReference.Store = .source) {
        if cache.count >= capacity { cache.removeAll(keepingCapacity: true) }
        cache[ObjectReference(side, object.id)] = object
    }

    /// Forgets the objects kept of one store (objects there have changed).
    public func forget(_ side: ObjectReference.Store) {
        cache = cache.filter { $0.key.store != side }
    }

    public func value(of key: String, on reference: ObjectReference) throws -> ExpressionValue {
        guard let store = reference.store == .source ? source : destination else {
            throw MoltError(.migration, "no destination store to read \(reference.id) from")
        }
        let object: StoredObject
        if let cached = cache[reference] {
            object = cached
        } else {
            guard let loaded = try store.object(reference.id) else {
                throw MoltError(.migration, "the object \(reference.id) does not exist in the \(reference.store) store")
            }
            remember(loaded, in: reference.store)
            object = loaded
        }
        // A value read is an attribute's (a relationship's value is under its own name).
        if let value = object.attributes[key] { return ExpressionValue(value) }
        guard let entity = store.layout.entity(named: object.id.entity) else {
            throw MoltError(.migration, "unknown entity \(object.id.entity)")
        }
        if entity.attribute(named: key) != nil {
            return ExpressionValue(object.attributes[key])
        }
        if let link = entity.relationship(named: key) {
            switch object.relationships[key] ?? (link.relationship.isToMany ? .toMany([]) : .toOne(nil)) {
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
