/// What to fetch from one of a migration's stores, as an `NSFetchRequest` says it: an entity,
/// a predicate, sort keys, an offset and a limit.
///
/// ```swift
/// // Core Data:
/// //   let request = NSFetchRequest<NSManagedObject>(entityName: "User")
/// //   request.predicate = NSPredicate(format: "userId == %@", userId)
/// //   request.fetchLimit = 1
/// //   let user = try manager.destinationContext.fetch(request).first
/// var request = FetchRequest(entityName: "User")
/// request.predicate = ObjectPredicate(format: "userId == %@", userId)
/// request.fetchLimit = 1
/// let user = try manager.destinationContext.fetch(request).first
/// ```
public struct FetchRequest {
    public var entityName: String
    /// Which objects; nil for all.
    public var predicate: ObjectPredicate?
    /// The order; without any, objects come in primary-key order.
    public var sortDescriptors: [KeySortDescriptor]
    /// The most objects fetched; 0 for no limit.
    public var fetchLimit: Int
    /// How many objects (after sorting) are skipped.
    public var fetchOffset: Int
    /// Whether objects of the entity's sub-entities are fetched too (Core Data's default: yes).
    public var includesSubentities: Bool

    public init(
        entityName: String, predicate: ObjectPredicate? = nil, sortDescriptors: [KeySortDescriptor] = [],
        fetchLimit: Int = 0, fetchOffset: Int = 0, includesSubentities: Bool = true
    ) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.includesSubentities = includesSubentities
    }
}
