import Foundation
import Molt
import MoltTestSupport
import Testing

@Suite("molt migrate without a mapping file", .enabled(if: Tool.available, "the molt executable was not built"))
struct LightweightMigrateCommandTests {
    let folder = TemporaryDirectory()
    let bundle: URL
    let store: URL

    /// Notes → Notes 2 renames `title` to `heading` and adds `pinned` (inferable); Notes 2 →
    /// Notes 3 adds `folder`, non-optional with no default (not inferable).
    init() throws {
        let note = #"<entity name="Note" representedClassName="Note" syncable="YES">"#
        let body = #"<attribute name="body" optional="YES" attributeType="String"/>"#
        let heading = #"<attribute name="heading" attributeType="String" elementID="title"/>"#
        let pinned =
            #"<attribute name="pinned" attributeType="Boolean" defaultValueString="YES" usesScalarValueType="YES"/>"#
        bundle = try ModelXML.writeBundle(
            "Notes",
            versions: [
                ("Notes", "\(note)<attribute name=\"title\" attributeType=\"String\"/>\(body)</entity>"),
                ("Notes 2", "\(note)\(heading)\(body)\(pinned)</entity>"),
                (
                    "Notes 3",
                    "\(note)\(heading)\(body)\(pinned)<attribute name=\"folder\" attributeType=\"String\"/></entity>"
                ),
            ], current: "Notes 3", in: folder)
        store = folder.path("Notes.sqlite")
        let model = try ModelBundle(url: bundle).model(named: "Notes")
        _ = try ObjectStore.create(at: store, model: model) { writer in
            for index in 1...3 {
                try writer.insert("Note", attributes: ["title": .string("Note \(index)"), "body": .string("text")])
            }
        }
    }

    @Test("infers the mapping and changes the store in place")
    func inPlace() throws {
        let run = try Tool.run([
            "migrate", store.path, "--from", bundle.path, "--to", bundle.path, "--to-version", "Notes 2", "--progress",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Migrated \(store.path) from Notes to Notes 2"))
        #expect(run.stdout.contains("The inferred mapping was applied in place."))
        #expect(run.stderr.contains("alter"), "progress names the in-place pass: \(run.stderr)")
        let dump = try Tool.run(["dump", store.path, "--model", bundle.path])
        #expect(dump.stdout.contains(#"Note/2  heading="Note 2"  body="text"  pinned=true"#), "\(dump.stdout)")
    }

    @Test("a mapping that cannot be inferred exits with 4, names what to do and changes nothing")
    func notInferable() throws {
        let before = try Data(contentsOf: store)
        let run = try Tool.run(["migrate", store.path, "--from", bundle.path, "--to", bundle.path])
        #expect(run.status == 4, "\(run.stderr)")
        #expect(run.stderr.contains("Note.folder"))
        #expect(try Data(contentsOf: store) == before)
    }
}
