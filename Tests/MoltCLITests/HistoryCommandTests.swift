import Foundation
import Molt
import MoltTestSupport
import Testing

/// A store with persistent history, shaped like a SwiftData app's (`default.store`, history
/// on), through `inspect`, `upgrade` and `migrate`.
@Suite(
    "Stores with persistent history on the command line",
    .enabled(if: Tool.available, "the molt executable was not built"))
struct HistoryCommandTests {
    let folder = TemporaryDirectory()

    static let item = """
        <entity name="Item" representedClassName="Item">
            <attribute name="name" attributeType="String"/>
        </entity>
        """
    static let versions: [(String, String)] = [
        ("Shop", item),
        (
            "Shop 2",
            """
            <entity name="Apple" representedClassName="Apple">
                <attribute name="name" optional="YES" attributeType="String"/>
            </entity>
            <entity name="Item" representedClassName="Item">
                <attribute name="name" attributeType="String"/>
                <attribute name="done" attributeType="Boolean" defaultValueString="NO" usesScalarValueType="YES"/>
            </entity>
            """
        ),
    ]

    func emptyFolder() throws -> String {
        let url = folder.path("mappings")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }

    func setUp() throws -> (bundle: String, store: String) {
        let bundle = try ModelXML.writeBundle("Shop", versions: Self.versions, current: "Shop 2", in: folder).path
        let seed = try folder.write(
            #"{"entities": {"Item": [{"@id": "Item/1", "name": "a"}, {"@id": "Item/2", "name": "b"}]}}"#,
            to: "seed.json")
        let store = folder.path("default.store").path
        let created = try Tool.run(["create", store, "--model", bundle, "--model-version", "Shop", "--seed", seed.path])
        #expect(created.status == 0, "\(created.stderr)")
        let opened = try SQLiteStore(at: URL(fileURLWithPath: store), readOnly: true)
        let shop = try model("Shop", in: bundle)
        #expect(opened.metadata.modelChecksum == (try shop.versionChecksum()), "molt create records the checksum")
        opened.connection.close()
        try HistoryFixture.add(
            to: URL(fileURLWithPath: store), layout: try StoreLayout(model: shop), entities: ["Item"],
            deleted: [("Item", 9)])
        return (bundle, store)
    }

    func model(_ version: String, in bundle: String) throws -> ObjectModel {
        try ModelLoader().loadVersion(
            at: URL(fileURLWithPath: bundle).appendingPathComponent("\(version).xcdatamodel"), name: version)
    }

    @Test("inspect counts the history's rows; upgrade keeps it, renumbered, discards nothing, records the new checksum")
    func inspectAndUpgrade() throws {
        let (bundle, store) = try setUp()
        let inspect = try Tool.run(["inspect", store])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        #expect(inspect.stdout.contains("16001  CHANGE"), "\(inspect.stdout)")
        #expect(inspect.stdout.contains("  ACHANGE             persistent history  5\n"), "\(inspect.stdout)")
        #expect(inspect.stdout.contains("16001  CHANGE             -       5        (Core Data's own entity)"))

        let upgrade = try Tool.run(["upgrade", store, "--models", bundle, "--mappings", try emptyFolder()])
        #expect(upgrade.status == 0, "\(upgrade.stderr)")
        #expect(
            upgrade.stdout.contains("kept: persistent history (5 changes, 5 transactions, 2 strings"),
            "\(upgrade.stdout)")
        #expect(upgrade.stdout.contains("rewritten: 5 history changes"), "\(upgrade.stdout)")
        #expect(!upgrade.stdout.contains("NSStoreModelVersionChecksumKey"), "\(upgrade.stdout)")
        #expect(!upgrade.stdout.contains("discarded:"), "\(upgrade.stdout)")
        #expect(upgrade.stdout.contains("Discarded: nothing"), "\(upgrade.stdout)")
        let upgraded = try SQLiteStore(at: URL(fileURLWithPath: store), readOnly: true)
        #expect(upgraded.metadata.modelChecksum == (try model("Shop 2", in: bundle).versionChecksum()))
        upgraded.connection.close()
        let after = try Tool.run(["inspect", store, "--json"])
        #expect(after.stdout.contains("\"name\" : \"ACHANGE\"") || after.stdout.contains("\"name\": \"ACHANGE\""))
    }

    @Test("migrate into a new store refuses a table no model explains until told to keep or drop it")
    func unknownTables() throws {
        let (bundle, store) = try setUp()
        let opened = try SQLiteStore(at: URL(fileURLWithPath: store), readOnly: false)
        try opened.connection.execute("CREATE TABLE Audit (note TEXT); INSERT INTO Audit VALUES ('x');")
        opened.connection.close()
        // A filter needs objects loaded: the run goes object by object into a new store.
        let mapping = try folder.write(
            """
            <mapping-model format="1" source-model="Shop" destination-model="Shop 2">
                <entity-mapping name="ItemToItem" type="transform" source="Item" destination="Item">
                    <filter>name != "zzz"</filter>
                </entity-mapping>
            </mapping-model>
            """, to: "map.xml")
        let arguments = ["migrate", store, "--from", bundle, "--to", bundle, "--mapping", mapping.path]
        let refused = try Tool.run(arguments)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("table Audit (1 rows)"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--unknown-tables keep|drop"), "\(refused.stderr)")
        let plan = try Tool.run(arguments + ["--unknown-tables", "drop", "--plan"])
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("Store contents besides the objects:"), "\(plan.stdout)")
        #expect(plan.stdout.contains("kept: persistent history (5 changes"), "\(plan.stdout)")
        #expect(plan.stdout.contains("discarded: table Audit (1 rows"), "\(plan.stdout)")
        #expect(!plan.stdout.contains("NSStoreModelVersionChecksumKey"), "\(plan.stdout)")
        let kept = try Tool.run(arguments + ["--unknown-tables", "keep", "--json"])
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(kept.stdout.contains("table Audit"), "\(kept.stdout)")
        let check = try SQLiteStore(at: URL(fileURLWithPath: store), readOnly: true)
        #expect(try check.connection.scalar("SELECT count(*) FROM Audit")?.integerValue == 1)
        #expect(check.metadata.modelChecksum == (try model("Shop 2", in: bundle).versionChecksum()))
        check.connection.close()
    }
}
