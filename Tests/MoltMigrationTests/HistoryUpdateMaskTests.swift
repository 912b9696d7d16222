import Foundation
import MoltCore
import MoltMapping
@_spi(RouteSwitches) import MoltMigration
import MoltModel
import MoltSQLite
import MoltStore
import MoltTestSupport
import Testing

/// An update's mask of changed properties (`ACHANGE.ZCOLUMNS`) is a bit per column in Core
/// Data's order. A new version that moves columns must leave each mask naming the properties
/// it named: on every route, read with the new model, the same names (a removed property's
/// gone, a renamed one under its new name), and the store records the new model's checksum.
@Suite("History update masks across a migration")
struct HistoryUpdateMaskTests {
    static let version1 = ShopModels.version1(withColor: true)
    static let version2 = ShopModels.version2(withColor: true)

    static let seed = """
        {"format": "molt-objects", "version": 1, "entities": {
          "Item": [
            {"@id": "Item/1", "name": "item 1", "color": "red", "legacy": "a", "tags": ["Tag/1"]},
            {"@id": "Item/2", "name": "item 2", "price": 2.5, "tags": ["Tag/1", "Tag/2"]},
            {"@id": "Item/3", "name": "item 3"},
            {"@id": "Item/4", "name": "item 4", "legacy": "d"}],
          "Tag": [{"@id": "Tag/1", "name": "red"}, {"@id": "Tag/2", "name": "green"}]
        }}
        """

    let folder = TemporaryDirectory("molt-history-masks")

    /// A store at version 1 whose history has Item updates naming price, color, legacy and
    /// tags, Tag updates naming name, then one Item update naming legacy and name, and one
    /// whose mask is empty (too short for Item: it names nothing).
    func setUp(_ name: String) throws -> (store: URL, v1: ObjectModel, v2: ObjectModel) {
        let v1 = try InferenceCase.model(Self.version1, name: "Shop")
        let v2 = try InferenceCase.model(Self.version2, name: "Shop 2")
        let store = try MigrationFixtures.store(name, in: folder, model: v1, seed: Data(Self.seed.utf8))
        let layout = try StoreLayout(model: v1)
        try HistoryFixture.add(
            to: store, layout: layout, entities: ["Item", "Tag"],
            updated: ["Item": ["price", "color", "legacy", "tags"], "Tag": ["name"]])
        let item = try #require(layout.entity(named: "Item"))
        let mask = try #require(layout.historyColumnMask(of: "Item"))
        let opened = try SQLiteStore(at: store, readOnly: false)
        defer { opened.connection.close() }
        for (key, columns) in [(Int64(101), mask.mask(for: ["legacy", "name"])), (102, Data())] {
            try opened.connection.run(
                "INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZTIMESTAMP) VALUES (?, 16002, 1, ?)",
                [.integer(key), .real(Double(key))])
            try opened.connection.run(
                """
                INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS)
                VALUES (?, 16001, 1, 1, ?, 1, ?, ?)
                """, [.integer(key), .integer(Int64(item.number)), .integer(key), .blob(columns)])
        }
        return (store, v1, v2)
    }

    /// Each update, decoded with `model`: `change entity: properties` (`?` when unreadable).
    func updates(_ url: URL, _ model: ObjectModel) throws -> [String] {
        let store = try ObjectStore(store: SQLiteStore(at: url, readOnly: true), model: model)
        defer { store.store.connection.close() }
        return try #require(try store.historyChanges()).filter { $0.kind == .update }.map {
            "\($0.change) \($0.object.entity): \($0.isMaskReadable ? $0.properties.joined(separator: ", ") : "?")"
        }
    }

    static let before = [
        "3 Item: color, legacy, price, tags", "6 Item: color, legacy, price, tags", "9 Tag: name",
        "101 Item: legacy, name", "102 Item: ?",
    ]

    /// The same names, read with version 2: legacy gone, color as hexColor; the short mask now
    /// of Item's new length, naming nothing.
    static let after = [
        "3 Item: hexColor, price, tags", "6 Item: hexColor, price, tags", "9 Tag: name", "101 Item: name",
        "102 Item: ",
    ]

    func checkAfter(_ store: URL, _ v2: ObjectModel, _ report: MigrationReport, route: String) throws {
        #expect(try updates(store, v2) == Self.after, "\(route)")
        #expect(
            report.contents.rewritten.map(\.what).contains("the changed-property masks of 4 history updates"),
            "\(route): \(report.contents)")
        let opened = try SQLiteStore(at: store, readOnly: true)
        defer { opened.connection.close() }
        #expect(opened.metadata.modelChecksum == (try v2.versionChecksum()), "\(route)")
        // The bytes Core Data would write for version 2: Item's key column of maker first, then
        // amount, hexColor, name, price, then tags; one byte.
        let masks = try opened.connection.rows(
            "SELECT hex(ZCOLUMNS) FROM ACHANGE WHERE Z_PK IN (3, 101, 102) ORDER BY Z_PK")
        #expect(masks.map { $0[0].textValue ?? "" } == ["2C", "10", "00"], "\(route)")
    }

    @Test("in place")
    func inPlace() throws {
        let (store, v1, v2) = try setUp("in-place.store")
        #expect(try updates(store, v1) == Self.before)
        let report = try LightweightMigration(store: store, source: v1, destination: v2).run()
        #expect(report.inPlace)
        try checkAfter(store, v2, report, route: "in place")
    }

    @Test("SQL on a copy, and object by object into a new store")
    func newStore() throws {
        for route in [MigrationPlan.Route.sqlOnCopy, .objects] {
            let (store, v1, v2) = try setUp("\(route.rawValue).store")
            #expect(try updates(store, v1) == Self.before)
            let mapping = try #require(MappingInference.infer(from: v1, to: v2).mapping)
            var options = MigrationOptions()
            options.allowsSQLOnCopy = route == .sqlOnCopy
            let report = try HeavyweightMigration(
                store: store, source: v1, destination: v2, mapping: mapping, options: options
            ).run()
            #expect(report.plan?.route == route)
            try checkAfter(store, v2, report, route: route.rawValue)
        }
    }

    @Test("a mapping's $source.legacy gives hexColor legacy's bit, not color's")
    func explicitOrigin() throws {
        let (store, v1, v2) = try setUp("explicit.store")
        let mapping = try MigrationFixtures.mapping(
            text: """
                <mapping-model format="1" source-model="Shop" destination-model="Shop 2">
                    <entity-mapping name="TagToTag" type="copy" source="Tag" destination="Tag"/>
                    <entity-mapping name="ItemToItem" type="transform" source="Item" destination="Item">
                        <attribute name="hexColor" value="$source.legacy"/>
                    </entity-mapping>
                </mapping-model>
                """)
        var options = MigrationOptions()
        options.allowsSQLOnCopy = false
        let report = try HeavyweightMigration(
            store: store, source: v1, destination: v2, mapping: mapping, options: options
        ).run()
        #expect(report.plan?.route == .objects)
        #expect(
            try updates(store, v2) == [
                "3 Item: hexColor, price, tags", "6 Item: hexColor, price, tags", "9 Tag: name",
                "101 Item: hexColor, name", "102 Item: ",
            ])
    }

    @Test("entities whose columns stay put keep their masks as they are, and nothing is counted")
    func unchanged() throws {
        let (store, v1, _) = try setUp("unchanged.store")
        let v1b = try InferenceCase.model(
            Self.version1
                + #"<entity name="Zoo"><attribute name="name" optional="YES" attributeType="String"/></entity>"#,
            name: "Shop 1b")
        let before = try SQLiteStore(at: store, readOnly: true)
        let bytes = try before.connection.rows("SELECT Z_PK, ZCOLUMNS FROM ACHANGE ORDER BY Z_PK")
        before.connection.close()
        let report = try LightweightMigration(store: store, source: v1, destination: v1b).run()
        #expect(report.inPlace)
        #expect(!report.contents.rewritten.map(\.what).contains { $0.contains("masks") }, "\(report.contents)")
        let after = try SQLiteStore(at: store, readOnly: true)
        defer { after.connection.close() }
        #expect(try after.connection.rows("SELECT Z_PK, ZCOLUMNS FROM ACHANGE ORDER BY Z_PK") == bytes)
    }

    @Test("composite leaves keep their bits by path when a leaf and an attribute are added")
    func composites() throws {
        let v1 = try InferenceCase.model(InferenceCases.travellers(), name: "Travel")
        let v2 = try InferenceCase.model(
            InferenceCases.travellers(addressExtra: [InferenceCases.zip], travellerExtra: [InferenceCases.age]),
            name: "Travel 2")
        let named = ["home.city", "name", "work.geo.latitude"]
        for route in ["in place", "objects"] {
            let store = try MigrationFixtures.store(
                "travel-\(route).store", in: folder, model: v1,
                seed: Data(
                    #"{"entities": {"Traveller": [{"@id": "Traveller/1", "name": "a"}, {"@id": "Traveller/2", "name": "b"}]}}"#
                        .utf8))
            try HistoryFixture.add(
                to: store, layout: try StoreLayout(model: v1), entities: ["Traveller"], updated: ["Traveller": named])
            #expect(try updates(store, v1) == ["3 Traveller: home.city, name, work.geo.latitude"], "\(route)")
            let report: MigrationReport
            if route == "in place" {
                report = try LightweightMigration(store: store, source: v1, destination: v2).run()
            } else {
                var options = MigrationOptions()
                options.allowsSQLOnCopy = false
                let mapping = try #require(MappingInference.infer(from: v1, to: v2).mapping)
                report = try HeavyweightMigration(
                    store: store, source: v1, destination: v2, mapping: mapping, options: options
                ).run()
                #expect(report.plan?.route == .objects)
            }
            #expect(try updates(store, v2) == ["3 Traveller: home.city, name, work.geo.latitude"], "\(route)")
            #expect(
                report.contents.rewritten.map(\.what).contains("the changed-property masks of 1 history updates"),
                "\(route): \(report.contents)")
            // age (bit 0) and home.zip (bit 3) moved the others: home.city is bit 2, name bit 6,
            // work.geo.latitude bit 10.
            let opened = try SQLiteStore(at: store, readOnly: true)
            defer { opened.connection.close() }
            #expect(
                try opened.connection.scalar("SELECT hex(ZCOLUMNS) FROM ACHANGE WHERE ZCHANGETYPE = 1")?.textValue
                    == "2220", "\(route)")
        }
    }
}
