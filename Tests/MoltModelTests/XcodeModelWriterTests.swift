import Foundation
import MoltCore
import MoltModel
import MoltTestSupport
import Testing

@Suite("Writing Xcode models")
struct XcodeModelWriterTests {
    static func readBack(_ model: ObjectModel) throws -> ObjectModel {
        try XcodeModelReader().read(XcodeModelWriter().data(for: model), file: "written contents")
    }

    /// Everything the reader reads, in file order, with text that needs escaping.
    static func everything() -> ObjectModel {
        var model = CompiledModelTests.fullModel()
        var entities = model.entities
        entities[1].attributes[0].regularExpression = "^[A-Z]{2}-\\d+ & <more> \"quoted\"$"
        entities[1].attributes[1].usesScalarValueType = true
        entities[1].attributes[0].defaultValue = ""
        entities[1].userInfo = ["line": "one\ntwo\tthree\r", "amp": "a & b < c > d \" e ' f", "unicode": "é 日本 🦋"]
        entities[1].fetchedProperties[0].predicate = "rating > 4 AND title BEGINSWITH \"A\""
        entities[1].relationships[2].userInfo = ["x": "y"]
        entities.append(
            Entity(
                name: "Zebra",
                fetchIndexes: [FetchIndex(name: "where", elements: [.init(property: "spot", kind: "RTree")])]
            ))
        entities[0].uniquenessConstraints = [["name"], [], ["name", "books"]]
        model = ObjectModel(
            entities: entities.reversed(),
            configurations: model.configurations + [Configuration(name: "Empty", entityNames: [])],
            versionIdentifiers: ["release 2 & <beta>"])
        return model
    }

    @Test("a model with every element and attribute reads back equal, with equal hashes")
    func roundTrip() throws {
        let model = Self.everything()
        let again = try Self.readBack(model)
        #expect(again == model)
        #expect(try again.entityVersionHashes() == model.entityVersionHashes())
        #expect(try XcodeModelWriter().text(for: again) == XcodeModelWriter().text(for: model))
    }

    @Test("the \"Used with CloudKit\" marks of the model and its configurations read back (they are not compared)")
    func cloudKitMarks() throws {
        let entities = [Entity(name: "Note"), Entity(name: "Cache")]
        let marked = ObjectModel(
            entities: entities,
            configurations: [
                Configuration(name: "Cloud", entityNames: ["Note"], usedWithCloudKit: true),
                Configuration(name: "Local", entityNames: ["Cache"]),
            ], usedWithCloudKit: true)
        let text = try XcodeModelWriter().text(for: marked)
        #expect(text.contains(#"sourceLanguage="Swift" usedWithCloudKit="YES""#))
        #expect(text.contains(#"<configuration name="Cloud" usedWithCloudKit="YES">"#))
        #expect(text.contains(#"<configuration name="Local">"#))
        let again = try Self.readBack(marked)
        #expect(again.usedWithCloudKit)
        #expect(again.configurations.map(\.usedWithCloudKit) == [true, false])
        let plain = try Self.readBack(ObjectModel(entities: entities))
        #expect(!plain.usedWithCloudKit)
        #expect(!(try XcodeModelWriter().text(for: plain)).contains("usedWithCloudKit"))
        #expect(ObjectModel(entities: entities, usedWithCloudKit: true) == ObjectModel(entities: entities))
    }

    @Test("the output looks like Xcode's")
    func shape() throws {
        let model = ObjectModel(entities: [
            Entity(
                name: "Note", className: "Note",
                attributes: [Attribute(name: "title", type: .string, isOptional: true, defaultValue: "Untitled")],
                relationships: [
                    Relationship(
                        name: "tags", destinationEntityName: "Tag", inverseName: "notes", isToMany: true,
                        deleteRule: .cascade)
                ]),
            Entity(
                name: "Tag",
                relationships: [
                    Relationship(name: "notes", destinationEntityName: "Note", inverseName: "tags", isToMany: true)
                ]),
        ])
        let text = try XcodeModelWriter().text(for: model)
        #expect(
            text == """
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="1" systemVersion="molt" minimumToolsVersion="Automatic" sourceLanguage="Swift">
                    <entity name="Note" representedClassName="Note">
                        <attribute name="title" optional="YES" attributeType="String" defaultValueString="Untitled"/>
                        <relationship name="tags" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Tag" inverseName="notes" inverseEntity="Tag"/>
                    </entity>
                    <entity name="Tag">
                        <relationship name="notes" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Note" inverseName="tags" inverseEntity="Note"/>
                    </entity>
                </model>

                """)
    }

    @Test("a control character is an error naming the entity and property")
    func unwritableText() throws {
        let model = ObjectModel(entities: [
            Entity(name: "Note", attributes: [Attribute(name: "title", type: .string, defaultValue: "a\u{1}b")])
        ])
        let error = try #require(throws: MoltError.self) { try XcodeModelWriter().data(for: model) }
        #expect(
            error.description
                == "Note.title: the defaultValueString value holds the character U+1, which XML cannot hold")
    }

    @Test("writing a version folder: contents inside, an existing folder is never replaced")
    func versionFolder() throws {
        let folder = TemporaryDirectory()
        let target = folder.path("Extracted.xcdatamodel")
        try XcodeModelWriter().write(Self.everything(), toVersionFolder: target)
        let loaded = try ModelLoader().load(at: target)
        #expect(loaded == Self.everything())
        #expect(loaded.name == "Extracted")
        let error = try #require(throws: MoltError.self) {
            try XcodeModelWriter().write(Self.everything(), toVersionFolder: target)
        }
        #expect(error.code == .fileWriteFileExists)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["Extracted.xcdatamodel"])
    }

    @Test(
        "every real model version reads back equal after writing, with the same hashes",
        .enabled(if: Fixtures.available, Comment(rawValue: Fixtures.absentMessage)))
    func realModels() throws {
        let files = RealModelCache.allModelContents()
        #expect(files.count >= 117)
        for file in files {
            let model = try XcodeModelReader().read(contentsOf: file)
            let again = try Self.readBack(model)
            #expect(again == model, "\(file.path)")
            #expect(try again.entityVersionHashes() == model.entityVersionHashes(), "\(file.path)")
        }
    }
}
