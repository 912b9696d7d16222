import Foundation
import MoltCore
import MoltMapping
@_spi(RouteSwitches) import MoltMigration
import MoltModel
import MoltSQLite
import MoltStore
import MoltTestSupport
import Synchronization
import Testing

/// A policy that overrides a hook and does nothing in it.
final class ObservingTestPolicy: EntityMigrationPolicy {
    override class var policyName: String { "ObservingTestPolicy" }
    required init() {}
    override func endInstanceCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {}
}

/// A to-one's foreign key written by the copy pass with each new row (``RelatePlan/keysAtInsert``)
/// leaves the store the object-by-object passes leave, whether the guess holds or not.
@Suite("Foreign keys written with the new row")
struct KeyAtInsertTests {
    init() {
        CompiledPolicies.register([ObservingTestPolicy.self])
    }

    static func model(_ name: String, specialTags: Bool = false, inverse: Bool = true) -> String {
        let extra = name == "V2" ? #"<attribute name="extra" optional="YES" attributeType="String"/>"# : ""
        let special =
            specialTags
            ? #"<entity name="SpecialTag" representedClassName="SpecialTag" parentEntity="Tag" syncable="YES"><attribute name="rank" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/></entity>"#
            : ""
        return """
            <entity name="Record" representedClassName="Record" syncable="YES">
                <attribute name="name" attributeType="String"/>
                \(extra)
                <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Tag"\(inverse ? #" inverseName="owned" inverseEntity="Tag""# : "")/>
            </entity>
            <entity name="Tag" representedClassName="Tag" syncable="YES">
                <attribute name="label" attributeType="String"/>
                \(inverse ? #"<relationship name="owned" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Record" inverseName="owner" inverseEntity="Record"/>"# : "")
            </entity>
            \(special)
            """
    }

    /// Records first, then Tags (or the other way round), each Tag's `owned` the mirror of
    /// the Records' `owner`; the Tags' mapping with `tagPolicy` and its `tagUserInfo`, if given.
    static func mapping(
        tagsFirst: Bool = false, tagFilter: String? = nil, recordPolicy: String? = nil, specialTags: Bool = false,
        tagsOwned: Bool = true, tagPolicy: String? = nil, tagUserInfo: [String: String] = [:]
    ) -> String {
        let value = { (mapping: String, relationship: String) in
            #"FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "\#(mapping)", $source.\#(relationship))"#
        }
        let policy = recordPolicy.map { #" policy="\#($0)""# } ?? ""
        let tagsPolicy = tagPolicy.map { #" policy="\#($0)""# } ?? ""
        let tagsUserInfo = tagUserInfo.sorted { $0.key < $1.key }
            .map { #"<user-info key="\#($0.key)" value="\#($0.value)"/>"# }.joined()
        // A Tag's `owned`, when set, is the mirror of the Records' `owner` (written again, or
        // skipped as written, after the Records).
        let owned = tagsOwned ? #"<relationship name="owned" value='\#(value("RecordToRecord", "owned"))'/>"# : ""
        let records = """
                <entity-mapping name="RecordToRecord" type="transform" source="Record" destination="Record"\(policy)>
                    <attribute name="name" value="$source.name"/>
                    <relationship name="owner" value='\(value("TagToTag", "owner"))'/>
                </entity-mapping>
            """
        let tags = """
                <entity-mapping name="TagToTag" type="transform" source="Tag" destination="Tag"\(tagsPolicy)>
                    \(tagFilter.map { "<filter>\($0)</filter>" } ?? "")\(tagsUserInfo)
                    <attribute name="label" value="$source.label"/>
                    \(owned)
                </entity-mapping>
            """
        let special =
            specialTags
            ? """
                <entity-mapping name="SpecialTagToSpecialTag" type="transform" source="SpecialTag" destination="SpecialTag">
                    <attribute name="label" value="$source.label"/>
                    <attribute name="rank" value="$source.rank"/>
                    \(owned)
                </entity-mapping>
            """ : ""
        return """
            <mapping-model format="1" source-model="V1" destination-model="V2">
            \(tagsFirst ? tags + records : records + tags)\(special)
            </mapping-model>
            """
    }

    /// `records` Records, most owned by one of `tags` Tags; `dangling` of them with an owner
    /// key that names no Tag (a store damaged by hand).
    static func seed(_ url: URL, model: ObjectModel, records: Int, tags: Int, dangling: Int = 0) throws {
        _ = try ObjectStore.create(at: url, model: model) { writer in
            var random = SplitMix(seed: 7)
            let special = model.entity(named: "SpecialTag") != nil
            let made = try (0..<tags).map {
                try writer.insert(
                    special && $0 % 3 == 0 ? "SpecialTag" : "Tag", attributes: ["label": .string("tag \($0)")])
            }
            for index in 0..<records {
                let record = try writer.insert("Record", attributes: ["name": .string("record \(index)")])
                if random.next() % 4 != 0 { try writer.setToOne(record, "owner", to: made[random.next(below: tags)]) }
            }
        }
        guard dangling > 0 else { return }
        let connection = try SQLiteConnection(path: url.path, mode: .readWrite)
        try connection.execute(
            "UPDATE ZRECORD SET ZOWNER = 100000 + Z_PK WHERE Z_PK IN (SELECT Z_PK FROM ZRECORD ORDER BY Z_PK LIMIT \(dangling))"
        )
        connection.close()
    }

    /// Migrates copies of a seeded store with batches (and keys at insert) and object by
    /// object, compares every row, and gives the batched run's report.
    static func run(
        mapping text: String, records: Int = 300, tags: Int = 40, dangling: Int = 0, batchSize: Int = 64,
        specialTags: Bool = false, inverse: Bool = true
    ) throws -> MigrationReport {
        let source = try InferenceCase.model(model("V1", specialTags: specialTags, inverse: inverse), name: "V1")
        let destination = try InferenceCase.model(
            model("V2", specialTags: specialTags, inverse: inverse), name: "V2")
        let mapping = try MigrationFixtures.mapping(text: text)
        let folder = TemporaryDirectory("molt-at-insert")
        let original = folder.path("Store.sqlite")
        try seed(original, model: source, records: records, tags: tags, dangling: dangling)
        let outcome = try #require(
            try RelateInBatchesTests.compare(
                original, in: folder, source: source, destination: destination, mapping: mapping,
                batchSize: batchSize, label: "keys at insert"))
        #expect(outcome.expected.keysWrittenAtInsert.isEmpty)
        return outcome.actual
    }

    @Test("the keys written with each row are those the relate pass would write")
    func keysHold() throws {
        for batchSize in [1, 64, 500] {
            let report = try Self.run(mapping: Self.mapping(), batchSize: batchSize)
            let planned = report.plan?.passes.first?.relate.first { $0.mapping == "RecordToRecord" }
            #expect(planned?.keysAtInsert == ["owner"])
            #expect(report.keysWrittenAtInsert == ["RecordToRecord.owner"])
            #expect(report.plan?.description.contains("owner written with each new row") == true)
        }
    }

    /// A Record owned by a SpecialTag is not given a key (the mapping named makes Tags only, so
    /// the default value is no object); the entity column holds the Tag's entity number.
    @Test("a target entity with sub-entities: keys only for the target mapping's own entity")
    func subEntities() throws {
        // Without an inverse the Records' mapping is the column's only writer; with one, the
        // Tags' mappings write it again from their side.
        for inverse in [false, true] {
            let report = try Self.run(
                mapping: Self.mapping(specialTags: true, tagsOwned: inverse), specialTags: true, inverse: inverse)
            #expect(report.plan?.passes.first?.relate.first?.keysAtInsert == ["owner"])
            #expect(report.keysWrittenAtInsert == ["RecordToRecord.owner"])
        }
    }

    @Test("a source key that names no object: the relate pass writes the relationship itself")
    func danglingKeys() throws {
        let report = try Self.run(mapping: Self.mapping(), dangling: 5)
        #expect(report.plan?.passes.first?.relate.first?.keysAtInsert == ["owner"])
        #expect(report.keysWrittenAtInsert.isEmpty)
    }

    @Test("Tags the target mapping leaves out: the relate pass writes the relationship itself")
    func filteredTargets() throws {
        let report = try Self.run(mapping: Self.mapping(tagFilter: #"label ENDSWITH "3""#))
        #expect(report.plan?.passes.first?.relate.first?.keysAtInsert == ["owner"])
        #expect(report.keysWrittenAtInsert.isEmpty)
    }

    @Test("not planned when the inverse is related first")
    func notPlanned() throws {
        let report = try Self.run(mapping: Self.mapping(tagsFirst: true))
        #expect(report.plan?.passes.first?.relate.allSatisfy { $0.keysAtInsert.isEmpty } == true)
        #expect(report.keysWrittenAtInsert.isEmpty)
    }

    /// Policies that look at the new store are `PolicyRowsAtInsertTests`'.
    @Test("a policy overriding a hook that does not look at the new store keeps the keys")
    func policyThatDoesNotLook() throws {
        let report = try Self.run(mapping: Self.mapping(recordPolicy: ObservingTestPolicy.policyName))
        #expect(report.plan?.passes.first?.relate.first?.keysAtInsert == ["owner"])
        #expect(report.keysWrittenAtInsert == ["RecordToRecord.owner"])
    }

    @Test("no row of the owner's table is updated when the keys hold")
    func noRowRewritten() throws {
        let source = try InferenceCase.model(Self.model("V1"), name: "V1")
        let destination = try InferenceCase.model(Self.model("V2"), name: "V2")
        let mapping = try MigrationFixtures.mapping(text: Self.mapping())
        let folder = TemporaryDirectory("molt-at-insert")
        let store = folder.path("Store.sqlite")
        try Self.seed(store, model: source, records: 200, tags: 20)
        let statements = Mutex<[String]>([])
        var options = MigrationOptions()
        options.allowsSQLOnCopy = false
        options.allowsRelateInSQL = false
        options.sqlTrace = { sql in statements.withLock { $0.append(sql) } }
        let report = try HeavyweightMigration(
            store: store, source: source, destination: destination, mapping: mapping, options: options
        ).run()
        #expect(report.keysWrittenAtInsert == ["RecordToRecord.owner"])
        let updates = statements.withLock { $0.filter { $0.hasPrefix("UPDATE \"ZRECORD\"") } }
        #expect(updates.isEmpty, "\(updates.prefix(2))")
        let inserts = statements.withLock { $0.filter { $0.hasPrefix("INSERT INTO \"ZRECORD\"") } }
        #expect(inserts.contains { $0.contains("\"ZOWNER\"") }, "the trace shows no insert naming ZOWNER")
    }
}
