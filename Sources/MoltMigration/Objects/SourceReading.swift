internal import MoltMapping
internal import MoltStore

/// What a ``SourceObject`` reads through: the run's source side. The object path's state
/// conforms (`PassState`), so objects never name the manager and the arrow between the
/// two folders runs one way, `Manager/` → `Objects/`.
protocol SourceReading: AnyObject {
    /// The source store, opened with the source model.
    var sourceStore: ObjectStore { get }
    /// The object with `id`, every relationship read.
    func completeSourceObject(_ id: ObjectID) throws -> StoredObject?
    /// Source objects a policy deleted from the source context: no longer related to any.
    var deletedSourceObjects: Set<ObjectID> { get }
    /// A key's value on a source object, asked when the object's read attribute values do not
    /// hold it: NULL for an attribute, else the related object(s).
    func sourceValue(of key: String, on id: ObjectID) throws -> ExpressionValue
    /// The source object with `id`, read for what is asked of it.
    func sourceObject(_ id: ObjectID) throws -> SourceObject
}
