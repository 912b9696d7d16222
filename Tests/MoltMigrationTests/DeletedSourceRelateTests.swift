import Foundation
import MoltCore
import MoltMapping
import MoltMigration
import MoltModel
import MoltSQLite
import MoltStore
import MoltTestSupport
import Testing

/// Deletes the source Tag labelled "tag 3" from the source context once the mapping's objects
/// are made (every Tag and Record was copied by then): the Tag made from it stays, with its
/// association, and the relate pass visits it.
final class DeletingAfterCopyTestPolicy: EntityMigrationPolicy {
    override class var policyName: String { "DeletingAfterCopyTestPolicy" }
    required init() {}

    override func endInstanceCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {
        try DeletedSourceRelateTests.deleteTag3(manager)
    }
}

/// The same delete, and a `createRelationships` of its own that reads each Tag's sources
/// through `sourceObjects(for:)` (Core Data's `sourceInstances`) before the default: the deleted
/// one is among them, its label readable, and it holds no Record by a relationship with an
/// inverse; the Records it favours (no inverse) it still holds. `end` fails the run if the
/// deleted one was never among them.
final class ReadingDeletedSourceTestPolicy: EntityMigrationPolicy {
    override class var policyName: String { "ReadingDeletedSourceTestPolicy" }
    private var sawDeleted = false
    required init() {}

    override func endInstanceCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {
        try DeletedSourceRelateTests.deleteTag3(manager)
    }

    override func createRelationships(
        forDestination destination: DestinationObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        for source in try manager.sourceObjects(for: destination) where try source.text("label") == "tag 3" {
            sawDeleted = true
            let held = try ["owned", "tagged", "favourites"].map { try source.objects($0).count }
            guard held[0] == 0, held[1] == 0, held[2] > 0 else {
                throw MoltError(.migration, "the deleted Tag holds owned, tagged, favourites: \(held)")
            }
            let stored = try source.stored
            guard stored.relationships["owned"]?.objectIDs.isEmpty == true,
                stored.relationships["favourites"]?.objectIDs.count == held[2]
            else { throw MoltError(.migration, "the deleted Tag's stored relationships differ: \(stored)") }
        }
        try manager.createDefaultRelationships(for: destination)
    }

    override func end(_ mapping: EntityMapping, manager: MigrationManager) throws {
        guard sawDeleted else { throw MoltError(.migration, "sourceObjects(for:) never gave the deleted Tag") }
    }
}

/// A source object a policy deletes from the source context after a mapping copied it: the
/// object made from it stays, and is related as Core Data's context holds the deleted object
/// (its delete rules nullified the other side of each relationship with an inverse, so it
/// holds none; a relationship without an inverse keeps the objects that were not deleted).
/// Every route gives the object-by-object passes' store, whichever mapping is related first.
@Suite("Source objects deleted after they were copied")
struct DeletedSourceRelateTests {
    init() {
        CompiledPolicies.register([DeletingAfterCopyTestPolicy.self, ReadingDeletedSourceTestPolicy.self])
    }

    static func deleteTag3(_ manager: MigrationManager) throws {
        var request = FetchRequest(entityName: "Tag")
        request.predicate = ObjectPredicate(format: "label == %@", "tag 3")
        try manager.sourceContext.delete(try manager.sourceContext.fetch(request))
    }

    /// Records with a to-one `owner` (inverse `owned`) and a to-many `tags` (inverse `tagged`);
    /// Tags with a to-many `favourites` of Records without an inverse.
    static func model(_ name: String) -> String {
        let extra = name == "V2" ? #"<attribute name="extra" optional="YES" attributeType="String"/>"# : ""
        return """
            <entity name="Record" representedClassName="Record" syncable="YES">
                <attribute name="name" attributeType="String"/>
                \(extra)
                <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Tag" inverseName="owned" inverseEntity="Tag"/>
                <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="tagged" inverseEntity="Tag"/>
            </entity>
            <entity name="Tag" representedClassName="Tag" syncable="YES">
                <attribute name="label" attributeType="String"/>
                <relationship name="owned" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Record" inverseName="owner" inverseEntity="Record"/>
                <relationship name="tagged" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Record" inverseName="tags" inverseEntity="Record"/>
                <relationship name="favourites" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Record"/>
            </entity>
            """
    }

    /// Both mappings in one pass, in the order given; the Tags' mapping has `tagPolicy`.
    static func mapping(tagsFirst: Bool, tagPolicy: String) -> String {
        let value = { (mapping: String, relationship: String) in
            #"FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "\#(mapping)", $source.\#(relationship))"#
        }
        let records = """
                <entity-mapping name="RecordToRecord" type="transform" source="Record" destination="Record">
                    <attribute name="name" value="$source.name"/>
                    <relationship name="owner" value='\(value("TagToTag", "owner"))'/>
                    <relationship name="tags" value='\(value("TagToTag", "tags"))'/>
                </entity-mapping>
            """
        let tags = """
                <entity-mapping name="TagToTag" type="transform" source="Tag" destination="Tag" policy="\(tagPolicy)">
                    <attribute name="label" value="$source.label"/>
                    <relationship name="owned" value='\(value("RecordToRecord", "owned"))'/>
                    <relationship name="tagged" value='\(value("RecordToRecord", "tagged"))'/>
                    <relationship name="favourites" value='\(value("RecordToRecord", "favourites"))'/>
                </entity-mapping>
            """
        return """
            <mapping-model format="1" source-model="V1" destination-model="V2">
            \(tagsFirst ? tags + records : records + tags)
            </mapping-model>
            """
    }

    /// 200 Records over 12 Tags: most with an owner, each with up to three tags; each Tag
    /// favours a few Records.
    static func seed(_ url: URL, model: ObjectModel) throws {
        _ = try ObjectStore.create(at: url, model: model) { writer in
            var random = SplitMix(seed: 11)
            let tags = try (0..<12).map { try writer.insert("Tag", attributes: ["label": .string("tag \($0)")]) }
            var records: [ObjectID] = []
            for index in 0..<200 {
                let record = try writer.insert("Record", attributes: ["name": .string("record \(index)")])
                records.append(record)
                if random.next() % 5 != 0 { try writer.setToOne(record, "owner", to: tags[random.next(below: 12)]) }
                let tagged = Set((0..<random.next(below: 4)).map { _ in tags[random.next(below: 12)] })
                try writer.setToMany(record, "tags", to: tagged.sorted { $0.primaryKey < $1.primaryKey })
            }
            for (index, tag) in tags.enumerated() {
                try writer.setToMany(tag, "favourites", to: stride(from: index, to: 200, by: 23).map { records[$0] })
            }
        }
    }

    /// Migrates copies of the seeded store object by object, in SQL where it may (it may not
    /// once a source object is deleted: batches then) and in batches, compares every row, and
    /// gives the object-by-object run's store (in `folder`, which holds it while it lives).
    static func run(tagsFirst: Bool, tagPolicy: String) throws -> (store: URL, source: URL, folder: TemporaryDirectory)
    {
        let source = try InferenceCase.model(model("V1"), name: "V1")
        let destination = try InferenceCase.model(model("V2"), name: "V2")
        let mapping = try MigrationFixtures.mapping(text: Self.mapping(tagsFirst: tagsFirst, tagPolicy: tagPolicy))
        let folder = TemporaryDirectory("molt-deleted-source")
        let original = folder.path("Store.sqlite")
        try seed(original, model: source)
        let outcomes = try RelateRouteRuns.compare(
            original, in: folder, source: source, destination: destination, mapping: mapping, batchSize: 16,
            label: "\(tagPolicy), tags first: \(tagsFirst),")
        for outcome in outcomes { #expect(outcome.expected.deletedSourceObjects == 1) }
        // The run allowed SQL planned it for the mappings that keep the default relationships,
        // and the report says each fell back to batches, and why.
        let planned = try #require(outcomes.first).actual.related.filter { $0.planned == .inSQL }
        #expect(!planned.isEmpty, "a mapping planned in SQL")
        let plans = try #require(outcomes.first).actual.plan?.passes.flatMap(\.relate) ?? []
        for outcome in planned {
            #expect(outcome.actual == .inBatches, "\(outcome)")
            #expect(outcome.fallbackReason?.contains("deleted source objects") == true, "\(outcome)")
            // The plan named the fallback, and when it is taken, before the run.
            let plan = try #require(plans.first { $0.mapping == outcome.mapping })
            #expect(plan.fallbacks == [outcome.actual], "\(plan)")
            #expect(plan.fallsBackWhen?.contains("deletes source objects") == true, "\(plan)")
        }
        for outcome in try #require(outcomes.last).actual.related {
            #expect(outcome.actual == outcome.planned && outcome.fallbackReason == nil, "as planned: \(outcome)")
        }
        return (try #require(outcomes.first).expectedStore, original, folder)
    }

    /// Checks the migrated store against the source: every Tag and Record made; the Tag made
    /// from the deleted one holds no Record by `owned` or `tagged`, and no Record holds it;
    /// every other link as in the source; its `favourites` as in the source.
    static func check(_ store: URL, source: URL) throws {
        let old = try SQLiteConnection(path: source.path, mode: .readOnly)
        let new = try SQLiteConnection(path: store.path, mode: .readOnly)
        defer {
            old.close()
            new.close()
        }
        func count(_ connection: SQLiteConnection, _ sql: String) throws -> Int64 {
            try #require(try connection.scalar(sql)?.integerValue)
        }
        /// The first column of a row, when it is text.
        func text(_ row: [SQLiteValue]) -> String? {
            if case .text(let name) = row.first { return name }
            return nil
        }
        /// The join table `Z_<number><NAME>` of the new store.
        func table(named name: String, in connection: SQLiteConnection) throws -> String {
            let found = try connection.rows(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z\\_%\(name)' ESCAPE '\\'")
            return try #require(found.first.flatMap(text))
        }
        let tag3 = "(SELECT Z_PK FROM ZTAG WHERE ZLABEL = 'tag 3')"
        #expect(try count(new, "SELECT count(*) FROM ZTAG") == 12)
        #expect(try count(new, "SELECT count(*) FROM ZRECORD") == 200)
        #expect(try count(old, "SELECT count(*) FROM ZRECORD WHERE ZOWNER = \(tag3)") > 0, "the seed owns some")
        #expect(try count(new, "SELECT count(*) FROM ZRECORD WHERE ZOWNER = \(tag3)") == 0)
        let joinTable = try table(named: "TAGS", in: new)
        let columns = try new.rows("SELECT name FROM pragma_table_info('\(joinTable)') ORDER BY cid").compactMap(text)
        let tagColumn = try #require(columns.first { $0.hasSuffix("TAGS") })
        #expect(try count(old, "SELECT count(*) FROM \"\(joinTable)\" WHERE \"\(tagColumn)\" = \(tag3)") > 0)
        #expect(try count(new, "SELECT count(*) FROM \"\(joinTable)\" WHERE \"\(tagColumn)\" = \(tag3)") == 0)
        // Every other owner and tag link as the source has it (keys are kept).
        #expect(
            try count(old, "SELECT count(*) FROM ZRECORD WHERE ZOWNER IS NOT NULL AND ZOWNER != \(tag3)")
                == count(new, "SELECT count(*) FROM ZRECORD WHERE ZOWNER IS NOT NULL"))
        #expect(
            try count(old, "SELECT count(*) FROM \"\(joinTable)\" WHERE \"\(tagColumn)\" != \(tag3)")
                == count(new, "SELECT count(*) FROM \"\(joinTable)\""))
        let favouritesTable = try table(named: "FAVOURITES", in: new)
        #expect(
            try count(old, "SELECT count(*) FROM \"\(favouritesTable)\"")
                == count(new, "SELECT count(*) FROM \"\(favouritesTable)\""),
            "a relationship without an inverse keeps the deleted Tag's Records")
    }

    @Test("deleted after the copy, Tags related first: the Tag made from it holds no Record, and none holds it")
    func tagsFirst() throws {
        let (store, source, folder) = try Self.run(tagsFirst: true, tagPolicy: DeletingAfterCopyTestPolicy.policyName)
        try Self.check(store, source: source)
        _ = folder
    }

    @Test("deleted after the copy, Records related first: the same store")
    func recordsFirst() throws {
        let (store, source, folder) = try Self.run(tagsFirst: false, tagPolicy: DeletingAfterCopyTestPolicy.policyName)
        try Self.check(store, source: source)
        _ = folder
    }

    @Test("a policy's createRelationships reads the deleted source through sourceObjects(for:)")
    func policyReadsDeletedSource() throws {
        for tagsFirst in [true, false] {
            let (store, source, folder) = try Self.run(
                tagsFirst: tagsFirst, tagPolicy: ReadingDeletedSourceTestPolicy.policyName)
            try Self.check(store, source: source)
            _ = folder
        }
    }
}
