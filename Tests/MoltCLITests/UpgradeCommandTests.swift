import Foundation
import Molt
import MoltTestSupport
import Testing

@Suite("molt upgrade", .enabled(if: Tool.available, "the molt executable was not built"))
struct UpgradeCommandTests {
    let folder = TemporaryDirectory()

    static let note = """
        <entity name="Note" representedClassName="Note" syncable="YES">
            <attribute name="body" optional="YES" attributeType="String"/>
        </entity>
        """
    static let noteRenamed = """
        <entity name="Note" representedClassName="Note" syncable="YES">
            <attribute name="text" optional="YES" attributeType="String" elementID="body"/>
        </entity>
        """
    static func person(_ attributes: String) -> String {
        "<entity name=\"Person\" representedClassName=\"Person\" syncable=\"YES\">\(attributes)</entity>"
    }

    /// Four versions: a rename (lightweight), names joined into a required full name (a mapping
    /// file), another rename (lightweight).
    static let versions: [(String, String)] = [
        (
            "Family",
            person(
                """
                <attribute name="firstName" optional="YES" attributeType="String"/>
                <attribute name="lastName" optional="YES" attributeType="String"/>
                <attribute name="mail" optional="YES" attributeType="String"/>
                """) + note
        ),
        (
            "Family 2",
            person(
                """
                <attribute name="firstName" optional="YES" attributeType="String"/>
                <attribute name="lastName" optional="YES" attributeType="String"/>
                <attribute name="email" optional="YES" attributeType="String" elementID="mail"/>
                """) + note
        ),
        (
            "Family 3",
            person(
                """
                <attribute name="fullName" attributeType="String"/>
                <attribute name="email" optional="YES" attributeType="String" elementID="mail"/>
                """) + note
        ),
        (
            "Family 10",
            person(
                """
                <attribute name="fullName" attributeType="String"/>
                <attribute name="email" optional="YES" attributeType="String" elementID="mail"/>
                """) + noteRenamed
        ),
    ]

    static func mapping(from source: String = "Family 2", to destination: String = "Family 3") -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <mapping-model format="1" source-model="\(source)" destination-model="\(destination)">
            <entity-mapping name="PersonToPerson" type="transform" source="Person" destination="Person">
                <attribute name="fullName" value="concat($source.firstName, ' ', $source.lastName)"/>
            </entity-mapping>
            <entity-mapping name="NoteToNote" type="copy" source="Note" destination="Note"/>
        </mapping-model>
        """
    }

    static let seed = """
        {"entities": {
          "Note": [{"@id": "Note/1", "body": "hello"}],
          "Person": [{"@id": "Person/1", "firstName": "Ann", "lastName": "Lee", "mail": "ann@example.com"}]
        }}
        """

    /// The bundle, a store at the first version, and a mappings folder with one file. `names`
    /// renames the four versions.
    func setUp(
        versionsFile: Bool, names: [String] = ["Family", "Family 2", "Family 3", "Family 10"]
    ) throws -> (bundle: String, store: String, mappings: String) {
        let versions = zip(names, Self.versions).map { ($0, $1.1) }
        let bundle = try ModelXML.writeBundle("Family", versions: versions, current: names[3], in: folder)
        try folder.write(Self.mapping(from: names[1], to: names[2]), to: "mappings/joined-names.xml")
        if versionsFile {
            try folder.write("# oldest first\nFamily\nFamily 2\nFamily 3\nFamily 10\n", to: "mappings/versions.txt")
        }
        let seed = try folder.write(Self.seed, to: "seed.json")
        let store = folder.path("Family.sqlite").path
        let created = try Tool.run([
            "create", store, "--model", bundle.path, "--model-version", names[0], "--seed", seed.path,
        ])
        #expect(created.status == 0, "\(created.stderr)")
        return (bundle.path, store, folder.path("mappings").path)
    }

    @Test(
        "--plan prints a line per step, --verbose each route with its reason, and leaves the store's bytes as they were"
    )
    func plan() throws {
        let (bundle, store, mappings) = try setUp(versionsFile: true)
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let brief = try Tool.run(["upgrade", store, "--models", bundle, "--mappings", mappings, "--plan"])
        #expect(brief.status == 0, "\(brief.stderr)")
        #expect(
            brief.stdout == """
                The store is at Family; 3 steps to Family 10 (version order: as listed (Family, Family 2, Family 3, Family 10)):
                  1. Family → Family 2: lightweight, in place
                  2. Family 2 → Family 3: heavyweight with joined-names.xml, SQL on a copy
                  3. Family 3 → Family 10: lightweight, in place
                --verbose adds each route's reason, each mapping's relate strategy and why each discard.

                """)
        let run = try Tool.run(["upgrade", store, "--models", bundle, "--mappings", mappings, "--plan", "--verbose"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stdout == """
                The store is at Family; 3 steps to Family 10 (version order: as listed (Family, Family 2, Family 3, Family 10)):
                  1. Family → Family 2: lightweight
                       Route: in place (the inferred mapping changes tables SQL rewrites in one transaction)
                  2. Family 2 → Family 3: heavyweight with joined-names.xml
                       Route: SQL on a copy (no entity mapping needs objects loaded: no policy, no filter, every value SQL computes)
                  3. Family 3 → Family 10: lightweight
                       Route: in place (the inferred mapping changes tables SQL rewrites in one transaction)

                """)
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == [
                "Family.sqlite", "Family.xcdatamodeld", "mappings", "seed.json",
            ])
    }

    @Test("upgrade migrates a store across three versions with one mapping file, ordered by name")
    func upgrade() throws {
        let (bundle, store, mappings) = try setUp(versionsFile: false)
        let run = try Tool.run([
            "upgrade", store, "--models", bundle, "--mappings", mappings, "--order-by-name", "--backup",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Step 1 of 3: Family → Family 2: lightweight"))
        #expect(run.stdout.contains("Step 2 of 3: Family 2 → Family 3: heavyweight with joined-names.xml"))
        #expect(run.stdout.contains("Upgraded \(store) from Family to Family 10 in 3 steps"))
        let backup = try #require(
            run.stdout.split(separator: "\n").first { $0.hasPrefix("The store as it was is kept as ") }?
                .dropFirst("The store as it was is kept as ".count))
        let inspectBackup = try Tool.run(["inspect", String(backup), "--model", bundle])
        #expect(inspectBackup.stdout.contains("Matching:     Family "), "the backup is the store before the upgrade")
        let dump = try Tool.run(["dump", store, "--model", bundle, "--json"])
        #expect(dump.status == 0, "\(dump.stderr)")
        #expect(dump.stdout.contains("\"fullName\": \"Ann Lee\""))
        #expect(dump.stdout.contains("\"email\": \"ann@example.com\""))
        #expect(dump.stdout.contains("\"text\": \"hello\""))
        let inspect = try Tool.run(["inspect", store, "--model", bundle])
        #expect(inspect.stdout.contains("Matching:     Family 10"))

        let again = try Tool.run(["upgrade", store, "--models", bundle, "--mappings", mappings, "--order-by-name"])
        #expect(again.status == 0)
        #expect(again.stdout.contains("is already at Family 10: nothing to migrate"))
    }

    @Test("errors exit with their documented codes: no order (65), newer than the destination (3), no mapping (3)")
    func errors() throws {
        // Names that make no order obvious: only the mapping file orders two of them.
        let (bundle, store, mappings) = try setUp(versionsFile: false, names: ["Alder", "Birch", "Cedar", "Dogwood"])
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let noOrder = try Tool.run(["upgrade", store, "--models", bundle, "--mappings", mappings])
        #expect(noOrder.status == 65)
        #expect(noOrder.stderr.contains("the order of the model versions is not known"))
        #expect(noOrder.stderr.contains("joined-names.xml goes from Birch to Cedar"))

        let backwards = try Tool.run([
            "upgrade", store, "--models", bundle, "--mappings", mappings, "--order-by-name", "--to", "Alder", "--plan",
        ])
        #expect(backwards.status == 0)
        let upgraded = try Tool.run([
            "upgrade", store, "--models", bundle, "--mappings", mappings, "--order-by-name", "--to", "Birch",
        ])
        #expect(upgraded.status == 0, "\(upgraded.stderr)")
        let newer = try Tool.run([
            "upgrade", store, "--models", bundle, "--mappings", mappings, "--order-by-name", "--to", "Alder", "--plan",
        ])
        #expect(newer.status == 3)
        #expect(newer.stderr.contains("the store is at Birch, which comes after Alder; Molt never migrates backwards"))

        try FileManager.default.removeItem(atPath: mappings + "/joined-names.xml")
        let missing = try Tool.run(["upgrade", store, "--models", bundle, "--mappings", mappings, "--order-by-name"])
        #expect(missing.status == 3)
        #expect(missing.stderr.contains("no mapping file goes from Birch to Cedar"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) != before, "only the upgrade to Birch changed it")
    }
}

/// The two inputs a new user mixes up, in `upgrade` and `verify`: usage errors (64) saying
/// what is expected, before anything is read.
@Suite(
    "molt upgrade and verify given one file for a folder",
    .enabled(if: Tool.available, "the molt executable was not built"))
struct UpgradeInputMixUpTests {
    let folder = TemporaryDirectory()
    let bundle = Fixtures.package("MappingModels/Examples/Blog.xcdatamodeld").path
    let mappings = Fixtures.package("MappingModels/Blog").path

    @Test("--mappings given one mapping file, and --models given one version", arguments: ["upgrade", "verify"])
    func mixUps(command: String) throws {
        let store = try folder.copy(Fixtures.package("MappingModels/Examples/Blog.sqlite"))
        let target = command == "upgrade" ? store.path : folder.url.path
        let before = try Data(contentsOf: store)
        let file = try Tool.run([command, target, "--models", bundle, "--mappings", mappings + "/Blog-to-Blog2.xml"])
        #expect(file.status == 64, "\(file.stderr)")
        #expect(file.stderr.contains("--mappings takes the folder of an app's mapping files"), "\(file.stderr)")
        #expect(file.stderr.contains("molt migrate STORE --from MODEL --to MODEL --mapping"), "\(file.stderr)")
        let version = try Tool.run([command, target, "--models", bundle + "/Blog.xcdatamodel", "--mappings", mappings])
        #expect(version.status == 64, "\(version.stderr)")
        #expect(version.stderr.contains("--models takes every version the store may be at"), "\(version.stderr)")
        #expect(version.stderr.contains("Give the bundle it is in"), "\(version.stderr)")
        #expect(try Data(contentsOf: store) == before)
    }
}
