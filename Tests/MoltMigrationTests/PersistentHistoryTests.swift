import Foundation
import MoltCore
import MoltMapping
@_spi(RouteSwitches) import MoltMigration
import MoltModel
import MoltSQLite
import MoltStore
import MoltTestSupport
import Testing

/// Stores of today's Core Data and SwiftData keep persistent history, whose changes name
/// objects by entity number and primary key. A new version whose new entity sorts first
/// renumbers every entity; each route must leave every change naming the object it named,
/// the history's key counters as they were, and say what it did.
@Suite("Persistent history and Core Data's own rows across a migration")
struct PersistentHistoryTests {
    /// Item and Tag, linked many-to-many; `itemExtra` is added to Item.
    static func shop(itemExtra: String = "") -> String {
        """
        <entity name="Item" representedClassName="Item">
            <attribute name="name" attributeType="String"/>\(itemExtra)
            <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="items" inverseEntity="Tag"/>
        </entity>
        <entity name="Tag" representedClassName="Tag">
            <attribute name="name" attributeType="String"/>
            <relationship name="items" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="tags" inverseEntity="Item"/>
        </entity>
        """
    }

    static let apple = """
        <entity name="Apple" representedClassName="Apple">
            <attribute name="name" optional="YES" attributeType="String"/>
        </entity>
        """

    static let version1 = shop()

    /// A new entity that sorts first (every number moves) and a new Boolean with a default.
    static let version2 =
        apple
        + shop(
            itemExtra:
                #"<attribute name="done" attributeType="Boolean" defaultValueString="NO" usesScalarValueType="YES"/>"#)

    static let seed = """
        {"format": "molt-objects", "version": 1, "entities": {
          "Item": [
            {"@id": "Item/1", "name": "item 1", "tags": ["Tag/1"]},
            {"@id": "Item/2", "name": "item 2", "tags": ["Tag/1", "Tag/2"]},
            {"@id": "Item/3", "name": "item 3"},
            {"@id": "Item/4", "name": "item 4", "tags": ["Tag/3"]}],
          "Tag": [
            {"@id": "Tag/1", "name": "red"}, {"@id": "Tag/2", "name": "green"}, {"@id": "Tag/3", "name": "blue"}]
        }}
        """

    let folder = TemporaryDirectory("molt-history")

    func setUp(_ name: String = "default.store") throws -> (store: URL, v1: ObjectModel, v2: ObjectModel) {
        let v1 = try InferenceCase.model(Self.version1, name: "Shop")
        let v2 = try InferenceCase.model(Self.version2, name: "Shop 2")
        let store = try MigrationFixtures.store(name, in: folder, model: v1, seed: Data(Self.seed.utf8))
        try HistoryFixture.add(
            to: store, layout: try StoreLayout(model: v1), entities: ["Item", "Tag"],
            deleted: [("Item", 100), ("Tag", 50)])
        return (store, v1, v2)
    }

    /// The properties each update of the store's history names, decoded with `model`.
    func updates(_ url: URL, _ model: ObjectModel) throws -> [[String]] {
        let store = try ObjectStore(store: SQLiteStore(at: url, readOnly: true), model: model)
        defer { store.store.connection.close() }
        return try #require(try store.historyChanges()).filter { $0.kind == .update }.map(\.properties)
    }

    /// The model checksum the store's metadata records (`NSStoreModelVersionChecksumKey`).
    func checksum(_ url: URL) throws -> String? {
        let store = try SQLiteStore(at: url, readOnly: true)
        defer { store.connection.close() }
        return store.metadata.additionalEntries[StoreMetadata.modelChecksumKey]?.stringValue
    }

    @Test("in place: every change names the same object by its new entity number; counters kept; the report says so")
    func inPlace() throws {
        let (store, v1, v2) = try setUp()
        let before = try HistoryFixture.changes(in: store, layout: StoreLayout(model: v1), label: "name")
        let updatesBefore = try updates(store, v1)
        // Two Item updates and a Tag update, each naming the entity's attribute.
        #expect(updatesBefore == [["name"], ["name"], ["name"]], "\(updatesBefore)")
        let records = try HistoryFixture.privateRecords(in: store)
        #expect(before.count == 14, "\(before)")
        #expect(records == ["16001 CHANGE 14", "16002 TRANSACTION 14", "16003 TRANSACTIONSTRING 2"])
        let report = try LightweightMigration(store: store, source: v1, destination: v2).run()
        #expect(report.inPlace)
        let after = try HistoryFixture.changes(in: store, layout: StoreLayout(model: v2), label: "name")
        #expect(after == before)
        #expect(try HistoryFixture.privateRecords(in: store) == records)
        #expect(report.contents.kept.first?.what == "persistent history")
        // Item gained a property that sorts first: its 2 updates' masks are rewritten, and say
        // what they said.
        #expect(
            report.contents.rewritten.map(\.what) == [
                "14 history changes", "the changed-property masks of 2 history updates",
            ], "\(report.contents)")
        #expect(try updates(store, v2) == updatesBefore)
        // The model checksum is the new version's, as every store Molt writes records it.
        #expect(report.contents.discarded.isEmpty, "\(report.contents)")
        #expect(try checksum(store) == v2.versionChecksum())
    }

    @Test("object by object: each change names what the mapping made of its object; deleted objects get unused keys")
    func objectByObject() throws {
        let (store, v1, v2) = try setUp()
        let before = try HistoryFixture.changes(in: store, layout: StoreLayout(model: v1), label: "name")
        let records = try HistoryFixture.privateRecords(in: store)
        // Tags also become Items, made first, so they take the keys the old Items had; "item 2"
        // is not carried: its changes go, and the other Items' changes follow them to new keys.
        let mapping = try MigrationFixtures.mapping(
            text: """
                <mapping-model format="1" source-model="Shop" destination-model="Shop 2">
                    <entity-mapping name="TagToTag" type="copy" source="Tag" destination="Tag"/>
                    <entity-mapping name="TagToItem" type="transform" source="Tag" destination="Item">
                        <attribute name="name" value="$source.name"/>
                        <relationship name="tags" value="nil"/>
                    </entity-mapping>
                    <entity-mapping name="ItemToItem" type="transform" source="Item" destination="Item">
                        <filter>name != "item 2"</filter>
                    </entity-mapping>
                </mapping-model>
                """)
        var options = MigrationOptions()
        options.allowsSQLOnCopy = false
        let report = try HeavyweightMigration(
            store: store, source: v1, destination: v2, mapping: mapping, options: options
        ).run()
        #expect(report.plan?.route == .objects)
        let after = try HistoryFixture.changes(in: store, layout: StoreLayout(model: v2), label: "name")
        let expected = before.filter { $0.label != "item 2" }
        #expect(after.map(\.key) == expected.map(\.key))
        #expect(after.map(\.entity) == expected.map(\.entity))
        #expect(after.map(\.label) == expected.map(\.label), "\(after)")
        #expect(try HistoryFixture.privateRecords(in: store) == records)
        #expect(report.contents.discarded.map(\.what) == ["2 history changes"], "\(report.contents)")
        #expect(try checksum(store) == v2.versionChecksum())

        // A deleted object's changes share one key, which no object of the new store has.
        let opened = try SQLiteStore(at: store, readOnly: true)
        defer { opened.connection.close() }
        let deletedChanges = before.filter { $0.label == nil }.map { String($0.key) }.joined(separator: ", ")
        let tombstones = try opened.connection.rows(
            "SELECT ZENTITY, ZENTITYPK FROM ACHANGE WHERE Z_PK IN (\(deletedChanges)) ORDER BY Z_PK")
        #expect(tombstones.count == 4, "\(tombstones)")
        let layout = try StoreLayout(model: v2)
        let item = try #require(layout.entity(named: "Item"))
        let itemKeys = Set(
            tombstones.filter { $0[0].integerValue == Int64(item.number) }.compactMap { $0[1].integerValue })
        #expect(itemKeys.count == 1)
        let itemCounter = try #require(opened.entityRecords.first { $0.number == item.number }?.maximumKey)
        #expect(itemKeys.allSatisfy { $0 <= itemCounter && $0 > 3 }, "\(itemKeys) within the counter \(itemCounter)")
        let items = try opened.connection.rows("SELECT Z_PK FROM ZITEM").compactMap { $0[0].integerValue }
        #expect(itemKeys.isDisjoint(with: items), "no live Item has a deleted one's key")
        #expect(items.count == 6)
        let moved = try opened.connection.scalar(
            "SELECT count(*) FROM ACHANGE c JOIN ZITEM i ON i.Z_PK = c.ZENTITYPK WHERE c.ZENTITY = \(item.number) AND i.ZNAME LIKE 'item %' AND c.ZENTITYPK > 4"
        )
        #expect((moved?.integerValue ?? 0) > 0, "some Items got new keys, and their changes followed them")
    }

    @Test("SQL on a copy: the same history as object by object")
    func sqlOnCopy() throws {
        let (store, v1, v2) = try setUp()
        let before = try HistoryFixture.changes(in: store, layout: StoreLayout(model: v1), label: "name")
        let mapping = try #require(MappingInference.infer(from: v1, to: v2).mapping)
        let report = try HeavyweightMigration(store: store, source: v1, destination: v2, mapping: mapping).run()
        #expect(report.plan?.route == .sqlOnCopy)
        #expect(try HistoryFixture.changes(in: store, layout: StoreLayout(model: v2), label: "name") == before)
        #expect(try checksum(store) == v2.versionChecksum())
    }

    @Test("in place, an entity removed: its changes are deleted and counted; the others keep their objects")
    func removedEntity() throws {
        let (store, v1, _) = try setUp()
        let before = try HistoryFixture.changes(in: store, layout: StoreLayout(model: v1), label: "name")
        let onlyItems = try InferenceCase.model(
            Self.apple + """
                <entity name="Item" representedClassName="Item">
                    <attribute name="name" attributeType="String"/>
                </entity>
                """, name: "Shop 3")
        let report = try LightweightMigration(store: store, source: v1, destination: onlyItems).run()
        let after = try HistoryFixture.changes(in: store, layout: StoreLayout(model: onlyItems), label: "name")
        #expect(after == before.filter { $0.entity == "Item" })
        let removed = before.count - after.count
        #expect(report.contents.discarded.map(\.what).contains("\(removed) history changes"), "\(report.contents)")
        // The kept line counts what is left, not what there was.
        #expect(
            report.contents.kept.first?.detail.hasPrefix("\(after.count) changes,") == true, "\(report.contents)")
    }

    @Test("a table no model explains: kept in place; refused, kept or dropped, as asked, into a new store")
    func unknownTable() throws {
        let (store, v1, v2) = try setUp()
        let opened = try SQLiteStore(at: store, readOnly: false)
        try opened.connection.execute(
            "CREATE TABLE AuditLog (id INTEGER PRIMARY KEY, note TEXT); INSERT INTO AuditLog (note) VALUES ('a'), ('b');"
        )
        opened.connection.close()
        let copy = folder.path("copy.store")
        try FileManager.default.copyItem(at: store, to: copy)
        let mapping = try #require(MappingInference.infer(from: v1, to: v2).mapping)
        var objects = MigrationOptions()
        objects.allowsSQLOnCopy = false
        let error = try #require(throws: MoltError.self) {
            try HeavyweightMigration(store: store, source: v1, destination: v2, mapping: mapping, options: objects)
                .run()
        }
        #expect(error.message.contains("table AuditLog (2 rows)"), "\(error)")
        #expect(try HistoryFixture.changes(in: store, layout: StoreLayout(model: v1), label: "name").count == 14)

        objects.unknownContents = .keep
        let kept = try HeavyweightMigration(
            store: store, source: v1, destination: v2, mapping: mapping, options: objects
        ).run()
        #expect(kept.contents.kept.map(\.what).contains("table AuditLog"), "\(kept.contents)")
        let reopened = try SQLiteStore(at: store, readOnly: true)
        #expect(try reopened.connection.scalar("SELECT count(*) FROM AuditLog")?.integerValue == 2)
        reopened.connection.close()

        objects.unknownContents = .drop
        let dropped = try HeavyweightMigration(
            store: copy, source: v1, destination: v2, mapping: mapping, options: objects
        ).run()
        #expect(dropped.contents.discarded.map(\.what).contains("table AuditLog"), "\(dropped.contents)")

        let (inPlaceStore, _, _) = try setUp("in-place.store")
        let again = try SQLiteStore(at: inPlaceStore, readOnly: false)
        try again.connection.execute("CREATE TABLE AuditLog (id INTEGER PRIMARY KEY, note TEXT)")
        again.connection.close()
        let inPlace = try LightweightMigration(store: inPlaceStore, source: v1, destination: v2).run()
        #expect(inPlace.inPlace)
        #expect(inPlace.contents.kept.map(\.what).contains("table AuditLog"), "\(inPlace.contents)")
    }

    @Test("CloudKit mirroring: renumbered in place with the zone-fetch key set; refused into a new store")
    func cloudKit() throws {
        let (store, v1, v2) = try setUp()
        let layout = try StoreLayout(model: v1)
        let item = try #require(layout.entity(named: "Item")).number
        let opened = try SQLiteStore(at: store, readOnly: false)
        try opened.connection.execute(
            """
            CREATE TABLE ANSCKRECORDMETADATA (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZENTITYID INTEGER, ZENTITYPK INTEGER, ZCKRECORDNAME VARCHAR);
            INSERT INTO ANSCKRECORDMETADATA VALUES (1, 16004, 1, \(item), 1, 'record-1');
            INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (16004, 'NSCKRecordMetadata', 0, 1);
            """)
        opened.connection.close()
        let copy = folder.path("copy.store")
        try FileManager.default.copyItem(at: store, to: copy)

        let mapping = try #require(MappingInference.infer(from: v1, to: v2).mapping)
        var objects = MigrationOptions()
        objects.allowsSQLOnCopy = false
        let error = try #require(throws: MoltError.self) {
            try HeavyweightMigration(store: copy, source: v1, destination: v2, mapping: mapping, options: objects).run()
        }
        #expect(error.message.contains("CloudKit mirroring tables (ANSCKRECORDMETADATA)"), "\(error)")

        let report = try LightweightMigration(store: store, source: v1, destination: v2).run()
        #expect(report.inPlace)
        let after = try SQLiteStore(at: store, readOnly: true)
        defer { after.connection.close() }
        let newItem = try #require(try StoreLayout(model: v2).entity(named: "Item")).number
        #expect(newItem != item)
        #expect(
            try after.connection.scalar("SELECT ZENTITYID FROM ANSCKRECORDMETADATA")?.integerValue == Int64(newItem))
        #expect(after.metadata.additionalEntries[CloudKitMirroring.zoneFetchKey] == .bool(true))
        #expect(after.entityRecords.contains { $0.number == 16004 && $0.maximumKey == 1 })
    }

    /// A store shaped like a SwiftData app's: `default.store` whose latest history lives only in
    /// its `-wal`, and whose model is only the one in `Z_MODELCACHE`.
    func swiftDataStore(_ name: String) throws -> (store: URL, v1: ObjectModel, v2: ObjectModel) {
        let (store, v1, v2) = try setUp("\(name)-written.store")
        try ModelCacheSupport.setModelCache([ModelCacheSupport.blob(for: v1)], in: store)
        let writer = try SQLiteStore(at: store, readOnly: false)
        try writer.connection.execute("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;")
        try writer.connection.execute(
            """
            INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZBUNDLEIDTS, ZTIMESTAMP, ZBUNDLEID) VALUES (15, 16002, 1, 2, 15, 'com.example.app');
            INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS)
                SELECT 15, 16001, 1, 1, Z_ENT, Z_PK, 15, x'02' FROM ZITEM WHERE ZNAME = 'item 4';
            UPDATE Z_PRIMARYKEY SET Z_MAX = 15 WHERE Z_ENT IN (16001, 16002);
            """)
        // Copied while the writer holds them, as the app left them: the last rows only in the log.
        let copy = folder.path("\(name)/default.store")
        try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.copyItem(atPath: store.path + suffix, toPath: copy.path + suffix)
        }
        writer.connection.close()
        #expect(FileManager.default.fileExists(atPath: copy.path + "-wal"))
        return (copy, v1, v2)
    }

    @Test("a SwiftData-shaped store (history in the -wal, the model only in the cache): in place and object by object")
    func swiftDataShaped() throws {
        for route in ["in place", "objects"] {
            let (store, v1, v2) = try swiftDataStore(route == "in place" ? "inplace" : "objects")
            let before = try HistoryFixture.changes(in: store, layout: StoreLayout(model: v1), label: "name")
            #expect(before.count == 15, "the change in the -wal is read: \(before.count)")
            let records = try HistoryFixture.privateRecords(in: store)
            var options = MigrationOptions()
            options.allowsSQLOnCopy = route == "in place"
            let mappings = route == "in place" ? [] : [try #require(MappingInference.infer(from: v1, to: v2).mapping)]
            let migration = StoreMigration(
                store: store, from: .model(v2), to: v2, mappings: mappings, options: options)
            migration.allowsEmbeddedSourceModel = true
            let report = try migration.run()
            #expect(report.usedEmbeddedSourceModel, "\(route)")
            #expect(report.plan?.route == (route == "in place" ? .inPlace : .objects), "\(route)")
            let after = try HistoryFixture.changes(in: store, layout: StoreLayout(model: v2), label: "name")
            #expect(after == before, "\(route)")
            #expect(try HistoryFixture.privateRecords(in: store) == records, "\(route)")
            #expect(report.contents.discarded.isEmpty, "\(route): \(report.contents)")
            #expect(try checksum(store) == v2.versionChecksum(), "\(route)")
            // The cache holds the new version's model, which matches the migrated store.
            #expect(report.contents.rewritten.map(\.what).contains("the model cache (Z_MODELCACHE)"), "\(route)")
            let migrated = try SQLiteStore(at: store, readOnly: true)
            let embedded = try #require(try migrated.embeddedModel(), "\(route)")
            #expect(embedded.matchesStore, "\(route)")
            #expect(try embedded.model.entityVersionHashes() == (try v2.entityVersionHashes()), "\(route)")
            migrated.connection.close()
        }
    }
}
