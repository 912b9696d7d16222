import Foundation
import MoltCore
import MoltMapping
import MoltMigration
import MoltModel
import MoltStore
import MoltTestSupport
import Testing

/// The Tags' policy: makes each Tag, then, once every Tag is made (still in the copy pass),
/// looks at the Records the earlier mapping made in ONE way, the mapping's user info `read`
/// naming it, and fails the run if it sees an owner: Core Data's copy pass makes objects
/// without relationships, though the engine wrote the Records' `owner` with their rows.
///
/// The Records and Tags it reads are found in the association table (which shows no row), so
/// the read named is the policy's first look at the new store.
final class PeekingTestPolicy: EntityMigrationPolicy {
    override class var policyName: String { "PeekingTestPolicy" }
    required init() {}

    /// The ways a policy reads a Record's `owner`, or a Tag's `owned` (its other side): through
    /// the destination context, or through the source context with a predicate naming a
    /// destination Record (which reads it in the new store).
    static let reads = [
        "fetch", "fetchNaming", "count", "value", "keyPath", "text", "objects", "inverse", "sourceFetch", "sourceCount",
    ]

    override func endInstanceCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {
        let read = manager.mappingUserInfo["read"] ?? "?"
        let context = manager.destinationContext
        let records = try made(of: "Record", by: "RecordToRecord", manager)
        let tags = try made(of: "Tag", by: "TagToTag", manager)
        guard !records.isEmpty, !tags.isEmpty else { throw MoltError(.migration, "nothing to read") }
        var owned = FetchRequest(entityName: "Record")
        owned.predicate = ObjectPredicate(format: "owner != nil")
        let seen: Int
        switch read {
        case "fetch":
            seen = try context.fetch(owned).count
        case "fetchNaming":
            var count = 0
            for tag in tags {
                var request = FetchRequest(entityName: "Record")
                request.predicate = ObjectPredicate(format: "owner == %@", tag)
                count += try context.fetch(request).count
            }
            seen = count
        case "count":
            seen = try context.count(for: owned)
        case "value":
            seen = try records.filter { try context.value(forKey: "owner", of: $0) != .null }.count
        case "keyPath":
            seen = try records.filter { try context.value(forKey: "owner.label", of: $0) != .null }.count
        case "text":
            seen = try records.filter { try context.text(forKey: "owner.label", of: $0) != nil }.count
        case "objects":
            seen = try records.map { try context.objects(forKey: "owner", of: $0).count }.reduce(0, +)
        case "inverse":
            seen = try tags.map { try context.objects(forKey: "owned", of: $0).count }.reduce(0, +)
        case "sourceFetch":
            var count = 0
            for record in records {
                var request = FetchRequest(entityName: "Tag")
                request.predicate = ObjectPredicate(format: "%@.owner != nil", record)
                count += try manager.sourceContext.fetch(request).count
            }
            seen = count
        case "sourceCount":
            var count = 0
            for record in records {
                var request = FetchRequest(entityName: "Tag")
                request.predicate = ObjectPredicate(format: "label == %@.owner.label", record)
                count += try manager.sourceContext.count(for: request)
            }
            seen = count
        default:
            throw MoltError(.migration, "no read called \(read)")
        }
        guard seen == 0 else {
            throw MoltError(.migration, "\(read): \(seen) owners seen before the relate pass")
        }
    }

    /// The destination objects `mapping` made from every source object of `entity`.
    private func made(
        of entity: String, by mapping: String, _ manager: MigrationManager
    ) throws -> [DestinationObject] {
        var sources: [ObjectID] = []
        try manager.forEachSourceObject(of: entity) { sources.append($0.id) }
        return try manager.destinationInstances(forEntityMappingName: mapping, sourceIDs: sources)
    }
}

/// Every way a policy reads the new store goes through the one checkpoint that takes back the
/// keys written with new rows: a policy of a later mapping, in the copy pass, reading the
/// Records' owners in any one of those ways sees none, in SQL and in batches as object by
/// object (where no key is written at insert), though keys were planned and written with the
/// Records' rows. Each read fails the test when it bypasses the checkpoint (the two source
/// reads did, before the source context passed it for a predicate naming a destination object).
@Suite("Policies see the new store through one checkpoint")
struct PolicyCheckpointTests {
    init() {
        CompiledPolicies.register([PeekingTestPolicy.self])
    }

    @Test("a read of the new store by a policy sees no key written at insert", arguments: PeekingTestPolicy.reads)
    func readSeesNoKey(read: String) throws {
        let text = KeyAtInsertTests.mapping(
            tagPolicy: PeekingTestPolicy.policyName, tagUserInfo: ["read": read])
        // The policy fails the run if it sees an owner, so the comparison's success is the check.
        for report in try PolicyRowsAtInsertTests.run(policy: PeekingTestPolicy.policyName, mapping: text) {
            #expect(PolicyRowsAtInsertTests.planned(report) == ["owner"], "\(read)")
            #expect(report.keysWrittenAtInsert.isEmpty, "\(read): the keys were taken back")
        }
    }
}
