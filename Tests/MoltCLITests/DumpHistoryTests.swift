import Foundation
import Molt
import MoltTestSupport
import Testing

/// `molt dump --history`: a store's persistent history decoded with its model, for support
/// engineers; the same properties before and after a migration that moves columns.
@Suite("molt dump --history", .enabled(if: Tool.available, "the molt executable was not built"))
struct DumpHistoryTests {
    let folder = TemporaryDirectory()

    static let versions: [(String, String)] = [("Shop", ShopModels.version1()), ("Shop 2", ShopModels.version2())]

    /// A store at Shop made by `molt create`, with history: Item updates naming price, legacy
    /// and tags, Tag updates naming name, and a deleted Item's insert and delete.
    func setUp(history: Bool = true) throws -> (bundle: String, store: String) {
        let bundle = try ModelXML.writeBundle("Shop", versions: Self.versions, current: "Shop 2", in: folder).path
        let seed = try folder.write(
            """
            {"entities": {
              "Item": [{"@id": "Item/1", "name": "a", "tags": ["Tag/1"]}, {"@id": "Item/2", "name": "b", "legacy": "x"}],
              "Tag": [{"@id": "Tag/1", "name": "red"}, {"@id": "Tag/2", "name": "blue"}]}}
            """, to: "seed.json")
        let store = folder.path("default.store").path
        let created = try Tool.run(["create", store, "--model", bundle, "--model-version", "Shop", "--seed", seed.path])
        #expect(created.status == 0, "\(created.stderr)")
        guard history else { return (bundle, store) }
        let model = try ModelLoader().loadVersion(
            at: URL(fileURLWithPath: bundle).appendingPathComponent("Shop.xcdatamodel"), name: "Shop")
        try HistoryFixture.add(
            to: URL(fileURLWithPath: store), layout: try StoreLayout(model: model), entities: ["Item", "Tag"],
            deleted: [("Item", 9)], updated: ["Item": ["price", "legacy", "tags"], "Tag": ["name"]])
        return (bundle, store)
    }

    /// `dump --history --json`, each change as `change type entity: properties`.
    func history(_ store: String, _ bundle: String, objects: Bool = false) throws -> [String] {
        let run = try Tool.run(["dump", store, "--model", bundle, "--history", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)")
        let changes = try #require(json["history"] as? [[String: Any]], "\(run.stdout)")
        return changes.map { change in
            let head = "\(change["change"] ?? "?") \(change["type"] ?? "?") \(change["entity"] ?? "?")"
            let object = objects ? " \(change["object"] ?? "?")" : ""
            let properties = (change["properties"] as? [String] ?? ["?"]).joined(separator: ", ")
            return "\(head)\(object): \(properties)"
        }
    }

    static let before = [
        "1 insert Item Item/1: ", "2 insert Item Item/2: ", "3 update Item Item/2: legacy, price, tags",
        "4 insert Tag Tag/1: ", "5 insert Tag Tag/2: ", "6 update Tag Tag/2: name", "7 insert Item Item/9: ",
        "8 delete Item Item/9: ",
    ]

    /// After either route: the same changes of the same kinds, the same properties but the
    /// removed one (objects may have new keys in a new store).
    static let after = [
        "1 insert Item: ", "2 insert Item: ", "3 update Item: price, tags", "4 insert Tag: ", "5 insert Tag: ",
        "6 update Tag: name", "7 insert Item: ", "8 delete Item: ",
    ]

    @Test(
        "the changes decoded; after a migration into a new store and one in place, the same properties but the removed one"
    )
    func acrossMigrations() throws {
        let (bundle, store) = try setUp()
        #expect(try history(store, bundle, objects: true) == Self.before)
        let text = try Tool.run(["dump", store, "--model", bundle, "--history"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(
            text.stdout.split(separator: "\n").map(String.init) == [
                "change 1  transaction 1  insert  Item/1", "change 2  transaction 2  insert  Item/2",
                "change 3  transaction 3  update  Item/2  legacy, price, tags",
                "change 4  transaction 4  insert  Tag/1", "change 5  transaction 5  insert  Tag/2",
                "change 6  transaction 6  update  Tag/2  name", "change 7  transaction 7  insert  Item/9",
                "change 8  transaction 8  delete  Item/9",
            ], "\(text.stdout)")
        let copy = folder.path("in-place.store").path
        try FileManager.default.copyItem(atPath: store, toPath: copy)

        // Into a new store, object by object (a filter needs objects loaded).
        let mapping = try folder.write(
            """
            <mapping-model format="1" source-model="Shop" destination-model="Shop 2">
                <entity-mapping name="TagToTag" type="copy" source="Tag" destination="Tag"/>
                <entity-mapping name="ItemToItem" type="transform" source="Item" destination="Item">
                    <filter>name != "zzz"</filter>
                </entity-mapping>
            </mapping-model>
            """, to: "map.xml")
        let migrate = try Tool.run(["migrate", store, "--from", bundle, "--to", bundle, "--mapping", mapping.path])
        #expect(migrate.status == 0, "\(migrate.stderr)")
        #expect(
            migrate.stdout.contains("rewritten: the changed-property masks of 1 history updates"), "\(migrate.stdout)")
        #expect(try history(store, bundle) == Self.after)

        // In place: an upgrade whose step is inferred.
        let mappings = folder.path("mappings")
        try FileManager.default.createDirectory(at: mappings, withIntermediateDirectories: true)
        let upgrade = try Tool.run(["upgrade", copy, "--models", bundle, "--mappings", mappings.path])
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        #expect(upgrade.stdout.contains("in place"), "\(upgrade.stdout)")
        #expect(
            upgrade.stdout.contains("rewritten: the changed-property masks of 1 history updates"), "\(upgrade.stdout)")
        #expect(
            try history(copy, bundle, objects: true)
                == Self.before.map {
                    $0.replacingOccurrences(of: "legacy, ", with: "")
                })
    }

    @Test("a store without history says so, in text and in JSON")
    func noHistory() throws {
        let (bundle, store) = try setUp(history: false)
        let text = try Tool.run(["dump", store, "--model", bundle, "--history"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(
            text.stdout
                == "The store has no persistent history (no ACHANGE table: it was never opened with history tracking on).\n",
            "\(text.stdout)")
        let json = try Tool.run(["dump", store, "--model", bundle, "--history", "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json.stdout)")
        #expect(object["history"] is NSNull, "\(json.stdout)")
        #expect((object["note"] as? String)?.contains("no persistent history") == true, "\(json.stdout)")
    }
}
