import Foundation
import Molt
import MoltTestSupport
import Testing

@Suite("molt with Xcode mapping models", .enabled(if: Tool.available, "the molt executable was not built"))
struct XcodeMappingCommandTests {
    let folder = TemporaryDirectory()
    let bundle: URL
    let xcode: URL

    /// Notes → Notes 2 renames `title` to `heading` without a renaming identifier, so it takes
    /// a mapping: an Xcode mapping model whose `heading` is `$source.title`.
    init() throws {
        let note = "<entity name=\"Note\" representedClassName=\"Note\" syncable=\"YES\">"
        let body = "<attribute name=\"body\" optional=\"YES\" attributeType=\"String\"/>"
        bundle = try ModelXML.writeBundle(
            "Notes",
            versions: [
                ("Notes", "\(note)<attribute name=\"title\" attributeType=\"String\"/>\(body)</entity>"),
                ("Notes 2", "\(note)<attribute name=\"heading\" attributeType=\"String\"/>\(body)</entity>"),
            ], current: "Notes 2", in: folder)
        let heading = ArchiveBuilder.base64 { $0.keyPath("source", "title") }
        xcode = try folder.write(
            XcodeMappingXML.document(
                entityMappings: ["z10"],
                [
                    XcodeMappingXML.entityMapping(
                        "z10", number: 1, source: "Note", destination: "Note", attributes: ["z11", "z12"]),
                    XcodeMappingXML.propertyMapping("z11", name: "heading", owner: "z10", expression: heading),
                    XcodeMappingXML.propertyMapping("z12", name: "body", owner: "z10"),
                ].joined(separator: "\n"), source: "Notes.xcdatamodeld/Notes.xcdatamodel",
                destination: "Notes.xcdatamodeld/Notes 2.xcdatamodel"),
            to: "Notes.xcmappingmodel/xcmapping.xml"
        ).deletingLastPathComponent()
    }

    static let converted = """
        <?xml version="1.0" encoding="UTF-8"?>
        <mapping-model format="1" source-model="Notes" destination-model="Notes 2" property-defaults="same-name">
            <entity-mapping name="NoteToNote" type="transform" source="Note" destination="Note">
                <attribute name="heading" value="$source.title"/>
            </entity-mapping>
        </mapping-model>

        """

    @Test("convert-mapping prints Molt's format, or writes it with -o and says so")
    func convert() throws {
        let printed = try Tool.run(["convert-mapping", xcode.path])
        #expect(printed.status == 0, "\(printed.stderr)")
        #expect(printed.stdout == Self.converted)
        let output = folder.path("Notes-to-Notes2.xml").path
        let written = try Tool.run(["convert-mapping", xcode.path, "-o", output])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(written.stdout == "Wrote 1 entity mapping (Notes → Notes 2) to \(output)\n")
        #expect(try String(contentsOfFile: output, encoding: .utf8) == Self.converted)
        let check = try Tool.run(["check-mapping", output, "--from", bundle.path, "--to", bundle.path])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        let printedJSON = try Tool.run(["convert-mapping", xcode.path, "--json"])
        let printedResult = try JSONSerialization.jsonObject(with: Data(printedJSON.stdout.utf8)) as? [String: Any]
        #expect(printedResult?["mapping"] as? String == Self.converted && printedResult?["file"] == nil)
        #expect(printedResult?["from"] as? String == "Notes" && printedResult?["to"] as? String == "Notes 2")
        let writtenJSON = try Tool.run(["convert-mapping", xcode.path, "-o", output, "--json"])
        let writtenResult = try JSONSerialization.jsonObject(with: Data(writtenJSON.stdout.utf8)) as? [String: Any]
        #expect(writtenResult?["file"] as? String == output && writtenResult?["entityMappings"] as? Int == 1)
        #expect(writtenResult?["mapping"] == nil, "\(writtenJSON.stdout)")
        let help = try Tool.run(["help", "convert-mapping"])
        #expect(help.stdout.contains("molt convert-mapping Model9toModel10.xcmappingmodel -o"))
    }

    @Test("check-mapping and migrate take the .xcmappingmodel folder itself")
    func checkAndMigrate() throws {
        let check = try Tool.run(["check-mapping", xcode.path, "--from", bundle.path, "--to", bundle.path])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout == "Checked \(xcode.path): 0 errors, 0 warnings\n")
        let seed = try folder.write(
            #"{"entities": {"Note": [{"@id": "Note/1", "title": "Hello", "body": "text"}]}, "format": "molt-objects", "version": 1}"#,
            to: "seed.json")
        let store = folder.path("Notes.sqlite").path
        let created = try Tool.run([
            "create", store, "--model", bundle.path, "--model-version", "Notes", "--seed", seed.path,
        ])
        #expect(created.status == 0, "\(created.stderr)")
        let migrated = try Tool.run([
            "migrate", store, "--from", bundle.path, "--to", bundle.path, "--mapping", xcode.path,
        ])
        #expect(migrated.status == 0, "\(migrated.stderr)")
        let dumped = try Tool.run(["dump", store, "--model", bundle.path])
        #expect(dumped.stdout.contains("Note/1  heading=\"Hello\"  body=\"text\""), "\(dumped.stdout)")
    }

    @Test("an expression Molt cannot import exits with 65 naming file, line, mapping and property")
    func refusal() throws {
        let unknown = ArchiveBuilder.base64 { $0.object("NSSubqueryExpression", ["NSExpressionType": .integer(13)]) }
        let text = XcodeMappingXML.document(
            entityMappings: ["z10"],
            [
                XcodeMappingXML.entityMapping(
                    "z10", number: 1, source: "Note", destination: "Note", attributes: ["z11"]),
                XcodeMappingXML.propertyMapping("z11", name: "heading", owner: "z10", expression: unknown),
            ].joined(separator: "\n"))
        let file = try folder.write(text, to: "Bad.xcmappingmodel/xcmapping.xml")
        let line = XcodeMappingXML.line(of: "valueexpressiondata", in: text)
        let run = try Tool.run(["convert-mapping", file.deletingLastPathComponent().path])
        #expect(run.status == 65)
        #expect(run.stdout.isEmpty)
        #expect(
            run.stderr.hasPrefix(
                "molt: error: \(file.deletingLastPathComponent().path)/xcmapping.xml:\(line): <attribute>: NoteToNote.heading: the value expression contains an archived NSSubqueryExpression, which Molt cannot import\n"
            ), "\(run.stderr)")
        let check = try Tool.run([
            "check-mapping", file.deletingLastPathComponent().path, "--from", bundle.path, "--to", bundle.path,
        ])
        #expect(check.status == 1)
        #expect(
            check.stdout.contains(
                "xcmapping.xml:\(line): <attribute>: error: NoteToNote.heading: the value expression contains an archived NSSubqueryExpression"
            ), "\(check.stdout)")
    }
}
