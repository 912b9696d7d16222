import Foundation
import MoltCore
import MoltMapping
import MoltMigration
import MoltModel
import MoltSQLite
import MoltStore
import MoltTestSupport
import Testing

@Suite("Heavyweight migrations end to end")
struct MigrationTests {
    let folder = TemporaryDirectory()

    init() {
        MigrationFixtures.registerPolicies()
    }

    func blogMigration(
        _ url: URL, mapping: MappingModel? = nil, options: MigrationOptions = MigrationOptions()
    ) throws
        -> HeavyweightMigration
    {
        HeavyweightMigration(
            store: url, source: try Examples.model("Blog"), destination: try Examples.model("Blog 2"),
            mapping: try mapping ?? MigrationFixtures.mapping("Blog/Blog-to-Blog2.xml"), options: options)
    }

    @Test("the example store migrates from Blog to Blog 2 exactly as expected")
    func blogToBlog2() throws {
        let url = try MigrationFixtures.blogStore(in: folder)
        let uuid = try SQLiteStore(at: url).metadata.storeUUID
        let report = try blogMigration(url).run()
        let expected = try String(contentsOf: Fixtures.package("MappingModels/Examples/Blog2.json"), encoding: .utf8)
        #expect(try MigrationFixtures.dump(url, bundle: Examples.bundle) == expected)
        #expect(
            try MigrationFixtures.files(folder) == ["Blog.sqlite"], "no companion, temporary or backup file is left")
        let migrated = try SQLiteStore(at: url)
        #expect(migrated.metadata.storeUUID == uuid, "the store keeps its UUID")
        #expect(migrated.metadata.entityVersionHashes == (try Examples.model("Blog 2").entityVersionHashes()))
        #expect(try migrated.journalMode() == "wal")
        #expect(
            report.mappings.map(\.mapping) == [
                "AuthorToAuthor", "ArticleToArticle", "VideoToVideo", "CommentToComment",
            ])
        #expect(report.sourceCounts["Tag"] == 3 && report.destinationCounts["Section"] == 0)
        #expect(report.destinationCounts["Article"] == 2 && report.destinationCounts["Comment"] == 4)
    }

    @Test("a filter keeps only the objects it selects")
    func filter() throws {
        let url = try MigrationFixtures.blogStore(in: folder)
        var mapping = try MigrationFixtures.mapping("Blog/Blog-to-Blog2.xml")
        let index = try #require(mapping.entityMappings.firstIndex { $0.name == "CommentToComment" })
        mapping.entityMappings[index].userInfo = [UserInfoEntry(key: "cutoff", value: "2024-01-01T00:00:00Z")]
        let report = try blogMigration(url, mapping: mapping).run()
        #expect(report.mappings.first { $0.mapping == "CommentToComment" }?.sourceObjects == 2)
        let store = try ObjectStore.open(at: url, models: .model(try Examples.model("Blog 2")))
        #expect(
            try store.objects(of: "Comment").all().compactMap { $0.attributes["text"] } == [
                .string("First!"), .string("Second"),
            ])
        #expect(
            try store.object(ObjectID(entity: "Article", primaryKey: 1))?.relationships["comments"]
                == .toMany([
                    ObjectID(entity: "Comment", primaryKey: 2), ObjectID(entity: "Comment", primaryKey: 1),
                ]))
    }

    @Test("a dry run builds, validates and counts, and changes nothing")
    func dryRun() throws {
        let url = try MigrationFixtures.blogStore(in: folder)
        let before = try Data(contentsOf: url)
        var options = MigrationOptions()
        options.dryRun = true
        let report = try blogMigration(url, options: options).run()
        #expect(report.dryRun && report.destinationCounts["Author"] == 3)
        #expect(try Data(contentsOf: url) == before)
        #expect(try MigrationFixtures.files(folder) == ["Blog.sqlite"])
    }

    @Test("--backup keeps the old store, complete, under a documented name")
    func backup() throws {
        let url = try MigrationFixtures.blogStore(in: folder)
        let old = try MigrationFixtures.dump(url, bundle: Examples.bundle)
        var options = MigrationOptions()
        options.backup = true
        let report = try blogMigration(url, options: options).run()
        let backup = try #require(report.backup)
        #expect(
            URL(fileURLWithPath: backup).lastPathComponent.range(
                of: #"^Blog\.molt-backup-\d{8}T\d{6}\.sqlite$"#, options: .regularExpression) != nil)
        #expect(try MigrationFixtures.dump(URL(fileURLWithPath: backup), bundle: Examples.bundle) == old)
        #expect(try MigrationFixtures.files(folder).count == 2)
    }

    @Test("the new store keeps the old one's permissions")
    func permissions() throws {
        let url = try MigrationFixtures.blogStore(in: folder)
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: url.path)
        try blogMigration(url).run()
        let mode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
        #expect(mode == 0o640)
    }

    @Test("a policy splits one source object into objects of three entities")
    func splitPolicy() throws {
        let url = try MigrationFixtures.store(
            "c.sqlite", in: folder, model: try MigrationFixtures.contacts("Contacts"),
            seed: MigrationFixtures.contactsSeed)
        try HeavyweightMigration(
            store: url, source: try MigrationFixtures.contacts("Contacts"),
            destination: try MigrationFixtures.contacts("Contacts 2"),
            mapping: try MigrationFixtures.mapping("Contacts/Contacts-to-Contacts2.xml")
        ).run()
        let store = try ObjectStore.open(at: url, models: .model(try MigrationFixtures.contacts("Contacts 2")))
        #expect(try store.count(of: "Person") == 4 && store.count(of: "Address") == 2 && store.count(of: "Phone") == 2)
        let ann = try #require(try store.object(ObjectID(entity: "Person", primaryKey: 1)))
        #expect(ann.attributes["name"] == .string("Ann"))
        #expect(ann.relationships["phones"]?.objectIDs.count == 1)
        let phoneID = try #require(ann.relationships["phones"]?.objectIDs.first)
        let phone = try #require(try store.object(phoneID))
        #expect(phone.attributes["number"] == .string("+44 20 7946 0000"), "the policy trims the number")
        #expect(phone.attributes["label"] == .string("main"), "the model's default applies")
        #expect(
            try store.object(ObjectID(entity: "Group", primaryKey: 2))?.relationships["members"]?.objectIDs.map(
                \.primaryKey) == [3, 4])
    }

    @Test("a policy merges duplicates, and their relationships follow through the association table")
    func mergePolicy() throws {
        let v1 = try MigrationFixtures.contacts("Contacts")
        let v2 = try MigrationFixtures.contacts("Contacts 2")
        let v3 = try MigrationFixtures.contacts("Contacts 3")
        let url = try MigrationFixtures.store("c.sqlite", in: folder, model: v1, seed: MigrationFixtures.contactsSeed)
        try HeavyweightMigration(
            store: url, source: v1, destination: v2,
            mapping: try MigrationFixtures.mapping("Contacts/Contacts-to-Contacts2.xml")
        ).run()
        try HeavyweightMigration(
            store: url, source: v2, destination: v3,
            mapping: try MigrationFixtures.mapping("Contacts/Contacts2-to-Contacts3.xml")
        ).run()
        let store = try ObjectStore.open(at: url, models: .model(v3))
        let people = try store.objects(of: "Person").all()
        #expect(people.map { $0.attributes["email"] } == [.string("ann@example.com"), nil, .string("cy@example.com")])
        #expect(people.map { $0.attributes["mergedRecords"] } == [.integer(2), .integer(1), .integer(1)])
        #expect(people[0].relationships["addresses"]?.objectIDs.count == 2)
        #expect(people[0].relationships["phones"]?.objectIDs.count == 2)
        #expect(people[0].relationships["groups"]?.objectIDs.count == 2, "the union of both records' groups")
    }

    @Test("the Contacts example upgrades through its mapping folder: two copies with policies, then in place")
    func contactsUpgrade() throws {
        MigrationFixtures.registerPolicies()
        let v1 = try MigrationFixtures.contacts("Contacts")
        let url = try MigrationFixtures.store("c.sqlite", in: folder, model: v1, seed: MigrationFixtures.contactsSeed)
        let upgrade = StoreUpgrade(
            store: url, versions: try UpgradeVersions(contentsOf: MigrationFixtures.contactsBundle),
            mappingFiles: try UpgradeMappingFile.readFolder(Fixtures.package("MappingModels/Contacts")),
            order: try VersionOrder.read(contentsOf: Fixtures.package("MappingModels/Contacts/versions.txt")))
        let report = try upgrade.run()
        #expect(
            report.steps.map { "\($0.step.from.name) → \($0.step.to.name)" } == [
                "Contacts → Contacts 2", "Contacts 2 → Contacts 3", "Contacts 3 → Contacts 4",
            ])
        #expect(report.steps.map(\.step.kind) == [.heavyweight, .heavyweight, .lightweight])
        #expect(report.steps.map(\.inPlace) == [false, false, true])
        let store = try ObjectStore.open(
            at: url, models: .bundle(try ModelBundle(url: MigrationFixtures.contactsBundle)))
        #expect(store.model.name == "Contacts 4")
        let people = try store.objects(of: "Person").all()
        #expect(people.map { $0.attributes["mergedRecords"] } == [.integer(2), .integer(1), .integer(1)])
        #expect(people.allSatisfy { $0.attributes["nickname"] == nil })
        let phones = try store.objects(of: "Phone").all()
        #expect(!phones.isEmpty && phones.allSatisfy { $0.attributes["kind"] == .string("main") }, "label became kind")
    }

    @Test("every mapping type: add makes an empty entity, remove drops objects, copy copies")
    func mappingTypes() throws {
        let v2 = try MigrationFixtures.contacts("Contacts 2")
        let v3 = try MigrationFixtures.contacts("Contacts 3")
        let url = try MigrationFixtures.store(
            "c.sqlite", in: folder, model: v2,
            seed: Data(
                #"{"entities": {"Person": [{"@id": "p", "name": "P", "email": "p@x", "createdAt": 0, "phones": ["t"]}], "Phone": [{"@id": "t", "number": "1"}], "Group": [{"name": "G"}]}}"#
                    .utf8))
        let mapping = try MigrationFixtures.mapping(
            text: MappingText.contacts(
                """
                <entity-mapping name="PersonToPerson" type="transform" source="Person" destination="Person"/>
                <entity-mapping name="PhoneToPhone" type="copy" source="Phone" destination="Phone"/>
                <entity-mapping name="Groups" type="remove" source="Group"/>
                <entity-mapping name="Addresses" type="add" destination="Address"/>
                """))
        let report = try HeavyweightMigration(store: url, source: v2, destination: v3, mapping: mapping).run()
        #expect(report.destinationCounts == ["Person": 1, "Phone": 1, "Group": 0, "Address": 0])
        let store = try ObjectStore.open(at: url, models: .model(v3))
        #expect(
            try store.objects(of: "Phone").all().first?.relationships["person"]
                == .toOne(ObjectID(entity: "Person", primaryKey: 1)))
    }
}

enum MappingText {
    static func contacts(_ body: String, from: String = "Contacts 2", to: String = "Contacts 3") -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <mapping-model format="1" source-model="\(from)" destination-model="\(to)">
        \(body)
        </mapping-model>
        """
    }
}
