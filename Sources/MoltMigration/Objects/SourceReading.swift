internal import MoltMapping
internal import MoltStore

/// What a ``SourceObject`` reads through: the run's source side. The object path's state
/// conforms (`PassState`), so objects never name the manager and the arrow between the
/// two folders runs one way, `State/` → `Objects/`.
protocol SourceReading: AnyObject {
    /// The source store, opened with the source model.
    var sourceStore: ObjectStore { get }
    /// The object with `id`, every relationship read.
    func completeSourceObject(_ id: ObjectID) throws -> StoredObject?
    /// The relationships of a source object as the run's source context holds them once a
    /// policy deleted objects from it (``/MoltMapping/StoreObjectResolver/relationshipsAsHeld(_:)``).
    func relationshipsAsHeld(_ object: StoredObject) -> [String: RelationshipValue]
    /// A key's value on a source object, asked when the object's read attribute values do not
    /// hold it: NULL for an attribute, else the related object(s).
    func sourceValue(of key: String, on id: ObjectID) throws -> ExpressionValue
    /// The source object with `id`, read for what is asked of it.
    func sourceObject(_ id: ObjectID) throws -> SourceObject
}
