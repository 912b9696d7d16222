import Foundation
import MoltCore
import MoltMapping
import MoltMigration
import MoltModel
import MoltStore
import MoltTestSupport
import Testing

/// Makes each Record itself, as a ported `createDestinationInstances` does: the object, then
/// its association with the source.
final class OwnRecordsTestPolicy: EntityMigrationPolicy {
    override class var policyName: String { "OwnRecordsTestPolicy" }
    required init() {}

    override func createDestinationInstances(
        forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        try Self.make(source, mapping, manager)
    }

    @discardableResult
    static func make(
        _ source: SourceObject, _ mapping: EntityMapping, _ manager: MigrationManager
    ) throws
        -> DestinationObject
    {
        let made = try manager.destinationContext.insertNewObject(
            forEntityName: mapping.destinationEntityName ?? "Record", attributes: ["name": try source.value("name")])
        try manager.associate(source: source, destination: made)
        return made
    }
}

/// Makes each Record itself; every 50th looks at the Records made so far and fails if one
/// already has an owner (Core Data's copy pass makes objects without relationships).
final class LookingTestPolicy: EntityMigrationPolicy {
    override class var policyName: String { "LookingTestPolicy" }
    required init() {}

    override func createDestinationInstances(
        forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        try OwnRecordsTestPolicy.make(source, mapping, manager)
        guard source.id.primaryKey % 50 == 0 else { return }
        let context = manager.destinationContext
        for record in try context.fetch(FetchRequest(entityName: "Record")) {
            guard case .null = try context.value(forKey: "owner", of: record) else {
                throw MoltError(.migration, "\(record.id) has an owner before the relate pass")
            }
        }
        var owned = FetchRequest(entityName: "Record")
        owned.predicate = ObjectPredicate(format: "owner != nil")
        let seen = try context.count(for: owned)
        guard seen == 0 else { throw MoltError(.migration, "\(seen) Records have an owner before the relate pass") }
    }
}

/// Makes a Record for every source but associates only those whose key is not a multiple of 7
/// (the others stay in the new store, made by no source: the relate pass never visits them).
final class UnassociatedRecordsTestPolicy: EntityMigrationPolicy {
    override class var policyName: String { "UnassociatedRecordsTestPolicy" }
    required init() {}

    override func createDestinationInstances(
        forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        let made = try manager.destinationContext.insertNewObject(
            forEntityName: "Record", attributes: ["name": try source.value("name")])
        if source.id.primaryKey % 7 != 0 { try manager.associate(source: source, destination: made) }
    }
}

/// Keeps the destination context in `begin` and looks through it only once every Record is
/// made: it fails if one already has an owner (Core Data's copy pass makes objects without
/// relationships), though keys were written with every row until then.
final class ContextHoldingTestPolicy: EntityMigrationPolicy {
    override class var policyName: String { "ContextHoldingTestPolicy" }
    private var context: DestinationContext?
    required init() {}

    override func begin(_ mapping: EntityMapping, with manager: MigrationManager) throws {
        context = manager.destinationContext
    }

    override func endInstanceCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {
        guard let context else { throw MoltError(.migration, "no context kept in begin") }
        var owned = FetchRequest(entityName: "Record")
        owned.predicate = ObjectPredicate(format: "owner != nil")
        let seen = try context.count(for: owned)
        guard seen == 0 else { throw MoltError(.migration, "\(seen) Records have an owner before the relate pass") }
    }
}

/// Deletes the Tag labelled "tag 3" from the source context before the Records are made (the
/// Tags' mapping ran first): Records it owned get no owner from the relate pass.
final class SourceDeletingTestPolicy: EntityMigrationPolicy {
    override class var policyName: String { "SourceDeletingTestPolicy" }
    required init() {}

    override func begin(_ mapping: EntityMapping, with manager: MigrationManager) throws {
        var request = FetchRequest(entityName: "Tag")
        request.predicate = ObjectPredicate(format: "label == %@", "tag 3")
        try manager.sourceContext.delete(try manager.sourceContext.fetch(request))
    }

    override func createDestinationInstances(
        forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        try OwnRecordsTestPolicy.make(source, mapping, manager)
    }
}

/// Keys written with the rows a policy makes itself (``RelatePlan/keysAtInsert``): the
/// store the object-by-object passes leave, in SQL and in batches, whatever the policy does
/// with the new store, and no key a policy can see before the relate pass.
@Suite("Keys written with the rows a policy makes")
struct PolicyRowsAtInsertTests {
    init() {
        CompiledPolicies.register([
            OwnRecordsTestPolicy.self, LookingTestPolicy.self, UnassociatedRecordsTestPolicy.self,
            ContextHoldingTestPolicy.self, SourceDeletingTestPolicy.self,
        ])
    }

    /// The reports of a run in SQL and a run in batches, each compared row by row with the
    /// object-by-object run (no keys at insert there).
    static func run(
        policy: String, records: Int = 300, tags: Int = 40, mapping text: String? = nil, inverse: Bool = true
    ) throws -> [MigrationReport] {
        let source = try InferenceCase.model(KeyAtInsertTests.model("V1", inverse: inverse), name: "V1")
        let destination = try InferenceCase.model(
            KeyAtInsertTests.model("V2", inverse: inverse), name: "V2")
        let mapping = try MigrationFixtures.mapping(
            text: text ?? KeyAtInsertTests.mapping(recordPolicy: policy))
        let folder = TemporaryDirectory("molt-policy-rows")
        let original = folder.path("Store.sqlite")
        try KeyAtInsertTests.seed(original, model: source, records: records, tags: tags)
        let outcomes = try RelateRouteRuns.compare(
            original, in: folder, source: source, destination: destination, mapping: mapping, batchSize: 64,
            label: policy)
        for outcome in outcomes { #expect(outcome.expected.keysWrittenAtInsert.isEmpty) }
        return outcomes.map(\.actual)
    }

    static func planned(_ report: MigrationReport) -> [String] {
        report.plan?.passes.first?.relate.first { $0.mapping == "RecordToRecord" }?.keysAtInsert ?? []
    }

    @Test("a policy's own rows get their keys, and the relate pass leaves them")
    func policyRows() throws {
        let reports = try Self.run(policy: OwnRecordsTestPolicy.policyName)
        #expect(reports[0].relatedInSQL.contains("RecordToRecord"))
        #expect(reports[1].relatedInBatches.contains("RecordToRecord"))
        for report in reports {
            #expect(Self.planned(report) == ["owner"])
            #expect(report.keysWrittenAtInsert == ["RecordToRecord.owner"])
        }
    }

    @Test("a policy that looks at the new store sees no key; the relate pass writes them")
    func policyLooks() throws {
        // The policy fails the run if it sees an owner, so the comparison's success is the check.
        for report in try Self.run(policy: LookingTestPolicy.policyName) {
            #expect(Self.planned(report) == ["owner"])
            #expect(report.keysWrittenAtInsert.isEmpty)
        }
    }

    @Test("rows made by no source keep no key: cleared before the relate pass")
    func unassociatedRows() throws {
        for report in try Self.run(policy: UnassociatedRecordsTestPolicy.policyName) {
            #expect(Self.planned(report) == ["owner"])
            #expect(report.keysWrittenAtInsert.isEmpty)
        }
    }

    @Test("a source object a policy deleted: the keys naming it do not hold")
    func deletedSource() throws {
        // Tags first, and no inverse (a Tag's side would be related first), so the Records'
        // keys are planned.
        let text = KeyAtInsertTests.mapping(
            tagsFirst: true, recordPolicy: SourceDeletingTestPolicy.policyName, tagsOwned: false)
        for report in try Self.run(policy: SourceDeletingTestPolicy.policyName, mapping: text, inverse: false) {
            #expect(Self.planned(report) == ["owner"])
            #expect(report.keysWrittenAtInsert.isEmpty)
        }
    }

    @Test("a policy that keeps the destination context and looks later sees no key; the relate pass writes them")
    func contextHeld() throws {
        // The policy fails the run if it sees an owner, so the comparison's success is the check.
        for report in try Self.run(policy: ContextHoldingTestPolicy.policyName) {
            #expect(Self.planned(report) == ["owner"])
            #expect(report.keysWrittenAtInsert.isEmpty)
        }
    }
}
