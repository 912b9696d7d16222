import Foundation
import Molt
import MoltTestSupport
import Testing

/// A mappings folder is an app's whole history: a file there that cannot be read stops only an
/// upgrade that may need it, as Core Data loads only the mapping model of the step it runs.
@Suite(
    "molt upgrade with an unreadable file in the mappings folder",
    .enabled(if: Tool.available, "the molt executable was not built"))
struct UnreadableMappingFileTests {
    let folder = TemporaryDirectory()

    /// Three versions, each adding an optional attribute: every step is inferred.
    static let versions: [(String, String)] = [
        (
            "Notes",
            #"<entity name="Note" representedClassName="Note"><attribute name="text" optional="YES" attributeType="String"/></entity>"#
        ),
        (
            "Notes 2",
            #"<entity name="Note" representedClassName="Note"><attribute name="text" optional="YES" attributeType="String"/><attribute name="pinned" optional="YES" attributeType="Boolean" usesScalarValueType="YES"/></entity>"#
        ),
        (
            "Notes 3",
            #"<entity name="Note" representedClassName="Note"><attribute name="text" optional="YES" attributeType="String"/><attribute name="pinned" optional="YES" attributeType="Boolean" usesScalarValueType="YES"/><attribute name="color" optional="YES" attributeType="String"/></entity>"#
        ),
    ]

    /// A mapping file for Notes → Notes 2 whose body does not parse (an unclosed element).
    static let broken = """
        <mapping-model format="1" source-model="Notes" destination-model="Notes 2">
            <entity-mapping name="NoteToNote" type="transform" source="Note" destination="Note">
        </mapping-model>
        """

    /// The bundle, a store at `version` holding two notes, and the mappings folder with `files`.
    func setUp(storeAt version: String, files: [String: String]) throws -> (store: URL, bundle: URL, mappings: URL) {
        let bundle = try ModelXML.writeBundle("Notes", versions: Self.versions, current: "Notes 3", in: folder)
        let model = try ModelLoader().loadVersion(
            at: bundle.appendingPathComponent("\(version).xcdatamodel"), name: version)
        let store = folder.path("Notes.sqlite")
        _ = try ObjectStore.create(at: store, model: model) { writer in
            for text in ["one", "two"] { try writer.insert("Note", attributes: ["text": .string(text)]) }
        }
        for (name, text) in files { try folder.write(text, to: "Mappings/\(name)") }
        try FileManager.default.createDirectory(at: folder.path("Mappings"), withIntermediateDirectories: true)
        return (store, bundle, folder.path("Mappings"))
    }

    @Test(
        "a broken file for a step the upgrade does not take: the upgrade runs, and the plan says why the file is not used"
    )
    func brokenFileOffThePath() throws {
        let (store, bundle, mappings) = try setUp(storeAt: "Notes 2", files: ["Notes-to-Notes2.xml": Self.broken])
        let arguments = [
            "upgrade", store.path, "--models", bundle.path, "--mappings", mappings.path, "--order-by-name",
        ]
        let plan = try Tool.run(arguments + ["--plan"])
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(
            plan.stdout.contains("Notes-to-Notes2.xml (Notes → Notes 2): not used: cannot be read ("), "\(plan.stdout)")
        #expect(plan.stdout.contains("outside the upgrade from Notes 2 to Notes 3"), "\(plan.stdout)")
        let run = try Tool.run(arguments)
        #expect(run.status == 0, "\(run.stderr)")
        let upgraded = try SQLiteStore(at: store)
        #expect(
            upgraded.metadata.entityVersionHashes
                == (try ModelBundle(url: bundle).model(named: "Notes 3").entityVersionHashes()))
    }

    @Test("a broken file for a step the upgrade takes stops it before any step, naming the file")
    func brokenFileOnThePath() throws {
        let (store, bundle, mappings) = try setUp(storeAt: "Notes", files: ["Notes-to-Notes2.xml": Self.broken])
        let before = try Data(contentsOf: store)
        let run = try Tool.run([
            "upgrade", store.path, "--models", bundle.path, "--mappings", mappings.path, "--order-by-name",
        ])
        #expect(run.status != 0)
        #expect(
            run.stderr.contains(
                "Notes-to-Notes2.xml cannot be read, and the upgrade may need it (it connects Notes and Notes 2, within the upgrade from Notes to Notes 3)"
            ),
            "\(run.stderr)")
        #expect(run.stderr.contains("Notes-to-Notes2.xml:"), "the error names the file (and line): \(run.stderr)")
        #expect(try Data(contentsOf: store) == before, "no step ran")
    }

    @Test("a file that says nothing of its versions stops any upgrade with steps, and none that is up to date")
    func brokenFileOfUnknownVersions() throws {
        let (store, bundle, mappings) = try setUp(
            storeAt: "Notes 2", files: ["scratch.xml": "<mapping-model format=\"1\"><oops"])
        let arguments = [
            "upgrade", store.path, "--models", bundle.path, "--mappings", mappings.path, "--order-by-name",
        ]
        let run = try Tool.run(arguments)
        #expect(run.status != 0)
        #expect(
            run.stderr.contains(
                "scratch.xml cannot be read, and the upgrade may need it (Molt cannot tell which versions it connects"),
            "\(run.stderr)")
        let current = try Tool.run(arguments + ["--to", "Notes 2"])
        #expect(current.status == 0, "already at Notes 2: nothing to do, \(current.stderr)")
    }
}
