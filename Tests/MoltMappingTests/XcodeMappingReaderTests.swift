import Foundation
import MoltCore
import MoltMapping
import MoltTestSupport
import Testing

/// Xcode mapping models built by the tests (no fixtures): every archived expression kind, the
/// defaults, the kinds, and the round trip through Molt's format.
@Suite("Reading Xcode mapping models")
struct XcodeMappingReaderTests {
    static func parse(_ text: String) throws -> MappingExpression {
        try ExpressionParser().parse(text)
    }

    /// A file with five entity mappings listed out of order, an orphan, and one property of
    /// each archived kind.
    static let fullDocument: String = {
        let title = ArchiveBuilder.base64 { archive in
            let operand = archive.keyPath("source", "title")
            return archive.function(operand: nil, selector: "uppercase:", arguments: [operand])
        }
        let count = ArchiveBuilder.base64 { archive in
            let one = archive.constant(.integer(1))
            let two = archive.constant(.integer(2))
            return archive.function(operand: nil, selector: "add:to:", arguments: [one, two])
        }
        let created = ArchiveBuilder.base64 { $0.date(736_000_000) }
        let ratio = ArchiveBuilder.base64 { $0.constant(.real(2.5)) }
        let flag = ArchiveBuilder.base64 { $0.constant(nil) }
        let summary = ArchiveBuilder.base64 { archive in
            let a = archive.constant(.string("a"))
            let b = archive.keyPath("source", "tags.@count")
            let collection = archive.array([a, b])
            return archive.object(
                "NSAggregateExpression", ["NSExpressionType": .integer(14), "NSCollection": collection])
        }
        let author = ArchiveBuilder.base64 { archive in
            let manager = archive.variable("manager")
            let name = archive.constant(.string("People"))
            let writer = archive.keyPath("source", "writer")
            return archive.function(
                operand: manager, selector: "destinationInstancesForEntityMappingNamed:sourceInstances:",
                arguments: [name, writer])
        }
        let userInfo = ArchiveBuilder.base64 { archive in
            let cutoff = archive.add(.string("2024-01-01T00:00:00Z"))
            let note = archive.object("NSString", superclasses: [], ["NS.string": .string("kept")])
            return archive.dictionary([("cutoff", cutoff), ("a note", note)])
        }
        let fetch = ArchiveBuilder.base64 { $0.fetch("Note", "isDraft == NO AND title BEGINSWITH[c] 'x'") }
        let unused = ArchiveBuilder.base64 { $0.constant(.string("never runs")) }
        return XcodeMappingXML.document(
            entityMappings: ["z10", "z30", "z20", "z50", "z40"],
            [
                XcodeMappingXML.entityMapping(
                    "z10", number: 2, source: "Note", destination: "Note",
                    attributes: ["z11", "z12", "z13", "z14", "z15", "z16", "z17"], relationships: ["z18", "z19"],
                    extra: [
                        "        <attribute name=\"migrationpolicyclassname\" type=\"string\">App.NotePolicy</attribute>",
                        XcodeMappingXML.binary("userinfodata", userInfo),
                        XcodeMappingXML.binary("sourceexpressiondata", fetch),
                    ].joined(separator: "\n")),
                XcodeMappingXML.propertyMapping("z11", name: "title", owner: "z10", expression: title),
                XcodeMappingXML.propertyMapping("z12", name: "body", owner: "z10"),
                XcodeMappingXML.propertyMapping("z13", name: "count", owner: "z10", expression: count),
                XcodeMappingXML.propertyMapping("z14", name: "created", owner: "z10", expression: created),
                XcodeMappingXML.propertyMapping("z15", name: "ratio", owner: "z10", expression: ratio),
                XcodeMappingXML.propertyMapping("z16", name: "flag", owner: "z10", expression: flag),
                XcodeMappingXML.propertyMapping("z17", name: "summary", owner: "z10", expression: summary),
                XcodeMappingXML.propertyMapping(
                    "z18", name: "author", owner: "z10", expression: author, relationship: true),
                XcodeMappingXML.propertyMapping("z19", name: "comments", owner: "z10", relationship: true),
                XcodeMappingXML.entityMapping(
                    "z20", number: 1, source: "Person", destination: "Author", type: "Transform",
                    extra: "        <attribute name=\"name\" type=\"string\">People</attribute>"),
                XcodeMappingXML.entityMapping(
                    "z30", number: 3, source: "Old", destination: "Section", type: "Add", attributes: ["z31"]),
                XcodeMappingXML.propertyMapping("z31", name: "title", owner: "z30", expression: unused),
                XcodeMappingXML.entityMapping("z40", number: 4, source: "Tag", destination: nil),
                XcodeMappingXML.entityMapping(
                    "z50", number: 5, source: "Comment", destination: "Comment", type: "Copy", attributes: ["z51"]),
                XcodeMappingXML.propertyMapping("z51", name: "text", owner: "z50"),
                XcodeMappingXML.entityMapping("z60", number: 0, source: "Orphan", destination: "Orphan"),
            ].joined(separator: "\n"))
    }()

    @Test("reads names, order, kinds, policy, user info, filter and every kind of archived value")
    func readsEverything() throws {
        let model = try XcodeMappingXML.read(Self.fullDocument)
        // Xcode's "Undefined" type with a policy: Core Data's custom mapping.
        var note = EntityMapping(
            name: "NoteToNote", kind: .custom, sourceEntityName: "Note", destinationEntityName: "Note",
            policyName: "App.NotePolicy", filter: try Self.parse("isDraft == NO AND title BEGINSWITH[c] \"x\""))
        note.attributeMappings = [
            PropertyMapping(name: "title", value: .expression(try Self.parse("uppercase($source.title)"))),
            PropertyMapping(name: "count", value: .expression(try Self.parse("1 + 2"))),
            PropertyMapping(name: "created", value: .expression(try Self.parse("date(736000000)"))),
            PropertyMapping(name: "ratio", value: .expression(try Self.parse("2.5"))),
            PropertyMapping(name: "flag", value: .noValue),
            PropertyMapping(name: "summary", value: .expression(try Self.parse("{\"a\", $source.tags.@count}"))),
        ]
        note.relationshipMappings = [
            PropertyMapping(
                name: "author",
                value: .expression(
                    try Self.parse(
                        "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"People\", $source.writer)"
                    )))
        ]
        note.userInfo = [
            UserInfoEntry(key: "a note", value: "kept"), UserInfoEntry(key: "cutoff", value: "2024-01-01T00:00:00Z"),
        ]
        let expected = MappingModel(
            sourceModelName: "Model", destinationModelName: "Model 2",
            entityMappings: [
                EntityMapping(
                    name: "People", kind: .transform, sourceEntityName: "Person", destinationEntityName: "Author"),
                note,
                EntityMapping(name: "OldToSection", kind: .add, destinationEntityName: "Section"),
                EntityMapping(name: "RemoveTag", kind: .remove, sourceEntityName: "Tag"),
                EntityMapping(
                    name: "CommentToComment", kind: .copy, sourceEntityName: "Comment", destinationEntityName: "Comment"
                ),
            ], propertyDefaults: .sameName)
        #expect(model == expected)
        #expect(model.sourceFile == "xcmapping.xml")
        #expect(model.entityMappings.map { $0.location?.line ?? 0 }.allSatisfy { $0 > 0 })
    }

    @Test("the mapping writes to Molt's format and reads back equal, and converts to this text")
    func roundTripsThroughMoltXML() throws {
        let model = try XcodeMappingXML.read(Self.fullDocument)
        let text = MappingWriter().text(of: model)
        let (again, problems) = MappingReader().read(Data(text.utf8), file: "converted.xml")
        #expect(problems.isEmpty, "\(problems)")
        #expect(again == model)
        #expect(
            text == """
                <?xml version="1.0" encoding="UTF-8"?>
                <mapping-model format="1" source-model="Model" destination-model="Model 2" property-defaults="same-name">
                    <entity-mapping name="People" type="transform" source="Person" destination="Author"/>
                    <entity-mapping name="NoteToNote" type="custom" source="Note" destination="Note" policy="App.NotePolicy">
                        <filter>isDraft == FALSE AND title BEGINSWITH[c] "x"</filter>
                        <attribute name="title" value="uppercase($source.title)"/>
                        <attribute name="count" value="1 + 2"/>
                        <attribute name="created" value="date(736000000)"/>
                        <attribute name="ratio" value="2.5"/>
                        <attribute name="flag" value="nil"/>
                        <attribute name="summary" value='{"a", $source.tags.@count}'/>
                        <relationship name="author" value='FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "People", $source.writer)'/>
                        <user-info key="a note" value="kept"/>
                        <user-info key="cutoff" value="2024-01-01T00:00:00Z"/>
                    </entity-mapping>
                    <entity-mapping name="OldToSection" type="add" destination="Section"/>
                    <entity-mapping name="RemoveTag" type="remove" source="Tag"/>
                    <entity-mapping name="CommentToComment" type="copy" source="Comment" destination="Comment"/>
                </mapping-model>

                """)
    }

    @Test("a source fetch of TRUEPREDICATE is no filter; a copy mapping with values becomes a transform")
    func defaultsAndKinds() throws {
        let everything = ArchiveBuilder.base64 { $0.fetch("Note", "TRUEPREDICATE") }
        let value = ArchiveBuilder.base64 { $0.keyPath("source", "text") }
        let text = XcodeMappingXML.document(
            entityMappings: ["z10", "z20", "z30"],
            [
                XcodeMappingXML.entityMapping(
                    "z10", number: 1, source: "Note", destination: "Note",
                    extra: XcodeMappingXML.binary("sourceexpressiondata", everything)),
                XcodeMappingXML.entityMapping(
                    "z20", number: 2, source: "Comment", destination: "Remark", type: "copy", attributes: ["z21"]),
                XcodeMappingXML.propertyMapping("z21", name: "body", owner: "z20", expression: value),
                XcodeMappingXML.entityMapping(
                    "z30", number: 3, source: "Person", destination: "Person", type: "Custom",
                    extra:
                        "        <attribute name=\"migrationpolicyclassname\" type=\"string\">App.SplitPolicy</attribute>"
                ),
            ].joined(separator: "\n"))
        let model = try XcodeMappingXML.read(text)
        #expect(model.entityMappings.map(\.name) == ["NoteToNote", "CommentToRemark", "PersonToPerson"])
        #expect(model.entityMappings.map(\.kind) == [.transform, .transform, .custom])
        #expect(model.entityMappings[0].filter == nil)
        #expect(model.entityMappings[1].attributeMappings.map(\.name) == ["body"])
        #expect(model.entityMappings[2].policyName == "App.SplitPolicy")
    }

    @Test("Undefined with a policy is custom, with one entity too; without a policy the entities decide")
    func undefinedWithPolicy() throws {
        let policy = "        <attribute name=\"migrationpolicyclassname\" type=\"string\">App.MakePolicy</attribute>"
        let empty = "        <attribute name=\"migrationpolicyclassname\" type=\"string\"></attribute>"
        let text = XcodeMappingXML.document(
            entityMappings: ["z10", "z20", "z30", "z40"],
            [
                XcodeMappingXML.entityMapping("z10", number: 1, source: "Note", destination: "Note", extra: policy),
                XcodeMappingXML.entityMapping("z20", number: 2, source: nil, destination: "Section", extra: policy),
                XcodeMappingXML.entityMapping("z30", number: 3, source: "Tag", destination: nil, extra: policy),
                XcodeMappingXML.entityMapping("z40", number: 4, source: "Person", destination: "Person", extra: empty),
            ].joined(separator: "\n"))
        let model = try XcodeMappingXML.read(text)
        #expect(model.entityMappings.map(\.kind) == [.custom, .custom, .custom, .transform])
        #expect(model.entityMappings.map(\.policyName) == ["App.MakePolicy", "App.MakePolicy", "App.MakePolicy", nil])
        #expect(model.propertyDefaults == .sameName, "Xcode's defaults match properties by name only")
    }

    @Test("a source fetch may name the context as a function; other source expressions are shown and refused")
    func sourceContextSpellings() throws {
        let called = ArchiveBuilder.base64 { archive in
            let request = archive.function(
                operand: archive.variable("manager"), selector: "fetchRequestForSourceEntityNamed:predicateString:",
                arguments: [archive.constant(.string("Note")), archive.constant(.string("title != nil"))])
            let context = archive.function(
                operand: archive.variable("manager"), selector: "sourceContext", arguments: [])
            return archive.object(
                "NSFetchRequestExpression",
                ["NSExpressionType": .integer(50), "NSFRExpression": request, "NSMOCExpression": context])
        }
        let text = XcodeMappingXML.document(
            entityMappings: ["z10"],
            XcodeMappingXML.entityMapping(
                "z10", number: 1, source: "Note", destination: "Note",
                extra: XcodeMappingXML.binary("sourceexpressiondata", called)))
        #expect(try XcodeMappingXML.read(text).entityMappings[0].filter == (try Self.parse("title != nil")))

        let instances = ArchiveBuilder.base64 { archive in
            archive.function(
                operand: archive.variable("manager"),
                selector: "sourceInstancesForEntityMappingNamed:destinationInstances:",
                arguments: [archive.constant(.string("PostToPost")), archive.constant(nil)])
        }
        let other = XcodeMappingXML.document(
            entityMappings: ["z10"],
            XcodeMappingXML.entityMapping(
                "z10", number: 1, source: "Note", destination: "Note",
                extra: XcodeMappingXML.binary("sourceexpressiondata", instances), autogenerated: false))
        let error = try #require(throws: MoltError.self) { try XcodeMappingXML.read(other) }
        #expect(
            error.message
                == "the source fetch is an NSFunctionExpression (FUNCTION($manager, \"sourceInstancesForEntityMappingNamed:destinationInstances:\", \"PostToPost\", nil)), not the fetch Xcode writes: Core Data would map each object of the collection it gives, which Molt cannot work out before the run"
        )
        #expect(error.recovery?.contains("Set the Source Fetch back to it in Xcode's mapping editor") == true)
    }

    @Test("the model names come from the recorded model paths")
    func modelNames() throws {
        let text = XcodeMappingXML.document(
            entityMappings: [], "", source: "⭐️Sources/Demo/Demo.xcdatamodeld/Demo.V1.xcdatamodel",
            destination: "Storage/Model.xcdatamodeld")
        let model = try XcodeMappingXML.read(text)
        #expect(model.sourceModelName == "Demo.V1")
        #expect(model.destinationModelName == nil)
        #expect(model.entityMappings.isEmpty)
    }

    @Test("MappingFile tells the formats apart by path and by root element")
    func formats() throws {
        let folder = TemporaryDirectory()
        let xcode = try folder.write(
            XcodeMappingXML.document(entityMappings: [], ""), to: "A.xcmappingmodel/xcmapping.xml")
        let renamed = try folder.write(XcodeMappingXML.document(entityMappings: [], ""), to: "renamed.xml")
        let molt = try folder.write(MappingText.document(""), to: "mapping.xml")
        #expect(MappingFile.format(of: xcode.deletingLastPathComponent()) == .xcode)
        #expect(MappingFile.format(of: xcode) == .xcode)
        #expect(MappingFile.format(of: renamed) == .xcode)
        #expect(MappingFile.format(of: molt) == .molt)
        #expect(MappingFile.format(of: folder.path("missing.xml")) == .molt)
        let model = try MappingFile.read(contentsOf: xcode.deletingLastPathComponent(), displayName: "A.xcmappingmodel")
        #expect(model.sourceFile == "A.xcmappingmodel/xcmapping.xml")
        #expect(try MappingFile.read(contentsOf: molt).sourceModelName == "Blog")

        let empty = folder.path("Empty.xcmappingmodel")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        #expect(throws: MoltError.self) { try MappingFile.read(contentsOf: empty) }
        do {
            _ = try MappingFile.read(contentsOf: empty, displayName: "Empty.xcmappingmodel")
        } catch let error as MoltError {
            #expect(
                error.description
                    == "Empty.xcmappingmodel: the folder has no xcmapping.xml, so it is not an Xcode mapping model")
            #expect(error.code == .fileReadNoSuchFile)
        }
        let broken = try folder.write(
            XcodeMappingXML.document(entityMappings: ["z9"], ""), to: "B.xcmappingmodel/xcmapping.xml")
        let (nothing, problems) = try MappingFile.readReportingAll(
            contentsOf: broken.deletingLastPathComponent(), displayName: "B.xcmappingmodel")
        #expect(nothing == nil)
        #expect(
            problems.map(\.description) == [
                "B.xcmappingmodel/xcmapping.xml:13: <relationship>: error: \"entitymappings\" of object z1 names z9, which is not in the file"
            ])
    }
}
