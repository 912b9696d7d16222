import Molt

/// Keeps one user per `userId` (Forum → Forum 2, where `User.userId` is unique): every account
/// becomes a user as the mapping says, then `end` deletes the later duplicates, keeping for
/// each `userId` the user who signed up first. Core Data checks uniqueness constraints when the
/// destination is saved, after every `end`, so the duplicates are gone by then; Molt checks them
/// at the same point.
///
/// A port of the usual Core Data shape:
///
/// ```swift
/// override func end(_ mapping: NSEntityMapping, manager: NSMigrationManager) throws {
///     let request = NSFetchRequest<NSManagedObject>(entityName: "User")
///     request.sortDescriptors = [NSSortDescriptor(key: "userId", ascending: true),
///                                NSSortDescriptor(key: "signedUpAt", ascending: true)]
///     var previous: Int64?
///     for user in try manager.destinationContext.fetch(request) {
///         let id = user.value(forKey: "userId") as! Int64
///         if id == previous { manager.destinationContext.delete(user) }
///         previous = id
///     }
/// }
/// ```
///
/// Used by `MappingModels/Forum/Forum-to-Forum2.1.xml` (pass 1).
final class UniqueUserPolicy: EntityMigrationPolicy {
    required init() {}

    override func end(_ mapping: EntityMapping, manager: MigrationManager) throws {
        var request = FetchRequest(entityName: "User")
        request.sortDescriptors = [
            KeySortDescriptor(key: "userId", ascending: true), KeySortDescriptor(key: "signedUpAt", ascending: true),
        ]
        let context = manager.destinationContext
        var previous: ExpressionValue?
        var duplicates: [DestinationObject] = []
        for user in try context.fetch(request) {
            let id = try context.value(forKey: "userId", of: user)
            if id == previous { duplicates.append(user) }
            previous = id
        }
        try context.delete(duplicates)
        manager.logger.info(
            "removed duplicate users",
            metadata: ["molt.mapping": "\(mapping.name)", "molt.count": "\(duplicates.count)"])
    }
}
