import Molt

/// The second pass of Forum → Forum 2: finds, for each source post, the post pass 1 made (by
/// `postId`) and the user it made for the post's author (by `userId`), and links them. A later
/// pass starts with an empty association table, as in Core Data, so it finds earlier passes'
/// objects by fetching them.
///
/// A port of the usual Core Data shape:
///
/// ```swift
/// override func createDestinationInstances(forSource source: NSManagedObject, in mapping: NSEntityMapping,
///                                          manager: NSMigrationManager) throws {
///     let request = NSFetchRequest<NSManagedObject>(entityName: "Post")
///     request.predicate = NSPredicate(format: "postId == %@", source.value(forKey: "postId") as! NSNumber)
///     request.fetchLimit = 1
///     guard let post = try manager.destinationContext.fetch(request).first else { return }
///     manager.associate(sourceInstance: source, withDestinationInstance: post, for: mapping)
/// }
///
/// override func createRelationships(forDestination post: NSManagedObject, in mapping: NSEntityMapping,
///                                   manager: NSMigrationManager) throws {
///     let source = manager.sourceInstances(forEntityMappingName: mapping.name, destinationInstances: [post]).first!
///     let request = NSFetchRequest<NSManagedObject>(entityName: "User")
///     request.predicate = NSPredicate(format: "userId == %@", source.value(forKey: "authorId") as! NSNumber)
///     post.setValue(try manager.destinationContext.fetch(request).first, forKey: "author")
/// }
/// ```
///
/// Used by `MappingModels/Forum/Forum-to-Forum2.2.xml` (pass 2).
final class PostAuthorLinkPolicy: EntityMigrationPolicy {
    required init() {}

    override func createDestinationInstances(
        forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        var request = FetchRequest(entityName: "Post")
        request.predicate = ObjectPredicate(format: "postId == %@", try source.value("postId"))
        request.fetchLimit = 1
        guard let post = try manager.destinationContext.fetch(request).first else { return }
        try manager.associate(source: source, destination: post)
    }

    override func createRelationships(
        forDestination post: DestinationObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        let source = try manager.sourceObject(
            try manager.sourceIDs(forEntityMappingName: mapping.name, destinationInstances: [post])[0])
        var request = FetchRequest(entityName: "User")
        request.predicate = ObjectPredicate(format: "userId == %@", try source.value("authorId"))
        try manager.destinationContext.setValue(
            try manager.destinationContext.fetch(request).first, forKey: "author", of: post)
    }
}
