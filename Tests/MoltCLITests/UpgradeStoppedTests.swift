import Foundation
import Molt
import MoltTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// An upgrade stopped in its second step (Ctrl-C, or a step that fails) has changed the store:
/// its first step stays done. The error says the version the store is at, in text and in
/// `--json`, so that nobody reads "cancelled" as "the store is as it was".
@Suite(
    "molt upgrade stopped part way names the store's version",
    .enabled(if: Tool.available, "the molt executable was not built"))
struct UpgradeStoppedTests {
    let folder = TemporaryDirectory()

    /// The signal tests' two versions of Notes, and a third that adds a required title.
    static let versions: [(String, String)] =
        SignalTests.versions + [
            (
                "Notes 3",
                #"<entity name="Note" representedClassName="Note"><attribute name="text" attributeType="String"/><attribute name="length" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/><attribute name="title" attributeType="String"/></entity>"#
            )
        ]

    /// A store of `count` notes at Notes; the bundle of three versions (Xcode's names give the
    /// order); a mapping folder whose one file runs Notes 2 → Notes 3 object by object (a
    /// filter), setting `title` to `title`: an inferred step, then a heavyweight one.
    func setUp(count: Int, title: String) throws -> (store: String, bundle: String, mappings: String) {
        let bundle = try ModelXML.writeBundle("Notes", versions: Self.versions, current: "Notes 3", in: folder)
        let model = try ModelLoader().loadVersion(at: bundle.appendingPathComponent("Notes.xcdatamodel"), name: "Notes")
        let store = folder.path("Notes.sqlite")
        _ = try ObjectStore.create(at: store, model: model) { writer in
            for index in 0..<count { try writer.insert("Note", attributes: ["text": .string("note \(index)")]) }
        }
        let mappings = folder.path("mappings")
        try FileManager.default.createDirectory(at: mappings, withIntermediateDirectories: true)
        try """
        <mapping-model format="1" source-model="Notes 2" destination-model="Notes 3">
            <entity-mapping name="NoteToNote" type="transform" source="Note" destination="Note">
                <filter>text != ""</filter>
                <attribute name="title" value="\(title)"/>
            </entity-mapping>
        </mapping-model>
        """.write(to: mappings.appendingPathComponent("notes.xml"), atomically: true, encoding: .utf8)
        return (store.path, bundle.path, mappings.path)
    }

    @Test("Ctrl-C in step 2: exit 130, and the error says the store is at Notes 2 (text and JSON)")
    func cancelledInSecondStep() throws {
        let (store, bundle, mappings) = try setUp(count: 20_000, title: "$source.text")
        let running = try Tool.start(
            ["upgrade", store, "--models", bundle, "--mappings", mappings, "--json"],
            environment: ["MOLT_FAULT_TRACE": "1"])
        // Step 1 runs in place; only step 2 has a copy pass.
        #expect(running.waitForStderr(containing: "molt-fault-point: pass.copy"), "step 2's copy pass started")
        kill(running.process.processIdentifier, SIGINT)
        let run = running.wait()
        #expect(run.status == 130, "\(run.stderr.suffix(600))")
        #expect(run.stderr.contains("\n  the store is at: Notes 2\n"), "\(run.stderr.suffix(600))")
        let error = try #require(
            (try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])?["error"]
                as? [String: Any], "\(run.stdout)")
        #expect(error["codeName"] as? String == "NSMigrationCancelledError")
        #expect(error["storeVersion"] as? String == "Notes 2")
        #expect(
            (error["details"] as? [String])?.contains("1 of 2 steps finished and stay done: the store is at Notes 2")
                == true, "\(error)")
        let inspect = try Tool.run(["inspect", store, "--model", bundle])
        #expect(inspect.stdout.contains("Matching:     Notes 2"), "\(inspect.stdout)")
    }

    @Test("a step that fails after another finished: its exit code, and the store's version named")
    func failedInSecondStep() throws {
        // `title` is required and the mapping leaves it nil: step 2's store fails validation.
        let (store, bundle, mappings) = try setUp(count: 3, title: "nil")
        let run = try Tool.run(["upgrade", store, "--models", bundle, "--mappings", mappings])
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.contains("\n  the store is at: Notes 2"), "\(run.stderr)")
        let json = try Tool.run(["upgrade", store, "--models", bundle, "--mappings", mappings, "--json"])
        let error = try #require(
            (try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])?["error"]
                as? [String: Any], "\(json.stdout)")
        #expect(error["storeVersion"] as? String == "Notes 2", "\(error)")
        #expect(
            (error["details"] as? [String])?.contains(
                "no step of the upgrade finished: the store is at Notes 2, as it was")
                == true, "the second run starts at Notes 2: \(error)")
    }

    @Test("an error before the plan is made names no version")
    func failedBeforePlanning() throws {
        let (store, bundle, _) = try setUp(count: 1, title: "$source.text")
        let empty = folder.path("none")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let run = try Tool.run(["upgrade", store, "--models", bundle, "--mappings", empty.path, "--to", "Nowhere"])
        #expect(run.status != 0)
        #expect(!run.stderr.contains("the store is at: "), "\(run.stderr)")
    }
}
