import Foundation
import Molt

/// Turns a post's or a draft's topic text into a relationship to a `Topic`, one Topic per
/// name (case and surrounding spaces ignored; the first spelling read names it) across every
/// mapping that uses this policy (Forum → Forum 2: `PostToPost` and `DraftToDraft`). The
/// lookup table lives in the manager's `userInfo`, which every mapping and pass of the
/// migration shares; each mapping has its own policy instance, so the table could not live
/// in the policy.
///
/// A port of the usual Core Data shape:
///
/// ```swift
/// override func createDestinationInstances(forSource source: NSManagedObject, in mapping: NSEntityMapping,
///                                          manager: NSMigrationManager) throws {
///     try super.createDestinationInstances(forSource: source, in: mapping, manager: manager)
///     let item = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [source]).first!
///     guard let name = (source.value(forKey: "topic") as? String)?.trimmingCharacters(in: .whitespaces),
///           !name.isEmpty else { return }
///     var topics = manager.userInfo?["topics"] as? [String: NSManagedObject] ?? [:]
///     let topic = topics[name.lowercased()] ?? {
///         let made = NSEntityDescription.insertNewObject(forEntityName: "Topic", into: manager.destinationContext)
///         made.setValue(name, forKey: "name")
///         return made
///     }()
///     topics[name.lowercased()] = topic
///     manager.userInfo = ["topics": topics]
///     item.setValue(topic, forKey: "topic")
/// }
/// ```
///
/// Used by `MappingModels/Forum/Forum-to-Forum2.1.xml` (pass 1).
final class TopicByNamePolicy: EntityMigrationPolicy {
    static let tableKey = "topicsByName"

    required init() {}

    override func createDestinationInstances(
        forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        let item = try manager.createDefaultDestinationInstance(for: source)
        guard let name = try source.text("topic")?.trimmingCharacters(in: .whitespaces), !name.isEmpty else {
            return
        }
        let context = manager.destinationContext
        let topic = try manager.userInfo.modify(Self.tableKey, default: [String: DestinationObject]()) { topics in
            if let known = topics[name.lowercased()] { return known }
            let made = try context.insertNewObject(forEntityName: "Topic", attributes: ["name": name])
            topics[name.lowercased()] = made
            return made
        }
        try context.setValue(topic, forKey: "topic", of: item)
    }
}
