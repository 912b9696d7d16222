import Foundation
import MoltCore
import MoltMapping
import MoltMigration
import MoltModel
import MoltPolicies
import MoltStore
import MoltTestSupport
import Testing

/// Reads each note's archived `tags` (a Swift `[String]` the app stored with
/// `NSSecureUnarchiveFromData`) and comma-separated `keywords`, and writes: `labels`, the tags
/// lowercased plus "migrated" (keyed archive); `keywords`, the old keywords then the tags
/// (`App.CommaSeparatedTransformer`); `history`, an `NSMutableArray` built from what it reads
/// back of `labels` in the destination.
final class NoteTagsPolicy: EntityMigrationPolicy {
    required init() {}

    override func createDestinationInstances(
        forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        let note = try manager.createDefaultDestinationInstance(for: source)
        guard let tags = try source.transformable("tags")?.stringArray else {
            try manager.setTransformable("labels", of: note, to: nil)
            return
        }
        let keywords = try source.transformable("keywords")?.stringArray ?? []
        try manager.setTransformable(
            "labels", of: note, to: TransformableValue(strings: tags.map { $0.lowercased() } + ["migrated"]))
        try manager.setTransformable("keywords", of: note, to: TransformableValue(strings: keywords + tags))
        let written = try manager.transformable("labels", of: note)
        try manager.setTransformable("history", of: note, to: [.integer(Int64(tags.count)), written ?? .null])
    }
}

/// Reads a String attribute as if it were Transformable.
final class TitleAsTransformablePolicy: EntityMigrationPolicy {
    required init() {}

    override func createDestinationInstances(
        forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        _ = try source.transformable("title")
    }
}

@Suite("Transformable attributes in heavyweight migrations: policies read and write them through transformers")
struct TransformableMigrationTests {
    let folder = TemporaryDirectory()

    init() {
        MoltPolicies.CompiledPolicies.register()
        CompiledPolicies.register([NoteTagsPolicy.self, TitleAsTransformablePolicy.self])
    }

    static func v1(keywordsTransformer: String = "CommaSeparatedTransformer") -> String {
        """
        <entity name="Note" representedClassName="Note" syncable="YES">
            <attribute name="title" optional="YES" attributeType="String"/>
            <attribute name="tags" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData" customClassName="[String]"/>
            <attribute name="keywords" optional="YES" attributeType="Transformable" valueTransformerName="\(keywordsTransformer)" customClassName="[String]"/>
        </entity>
        """
    }

    static let v2 = """
        <entity name="Note" representedClassName="Note" syncable="YES">
            <attribute name="title" optional="YES" attributeType="String"/>
            <attribute name="labels" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData" customClassName="[String]"/>
            <attribute name="keywords" optional="YES" attributeType="Transformable" valueTransformerName="App.CommaSeparatedTransformer" customClassName="[String]"/>
            <attribute name="history" optional="YES" attributeType="Transformable" customClassName="NSMutableArray"/>
        </entity>
        """

    static func mapping(policy: String = "NoteTagsPolicy") throws -> MappingModel {
        try MigrationFixtures.mapping(
            text: MappingText.contacts(
                """
                <entity-mapping name="NoteToNote" type="custom" source="Note" destination="Note" policy="\(policy)"/>
                """, from: "Notes", to: "Notes 2"))
    }

    /// What an app stores for a Swift `[String]`: Foundation's keyed archive of an NSArray.
    static func archived(
        _ strings: [String], format: PropertyListSerialization.PropertyListFormat = .binary
    ) throws
        -> Data
    {
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.outputFormat = format
        archiver.encode(NSArray(array: strings.map { NSString(string: $0) }), forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        return archiver.encodedData
    }

    /// A keyed archive whose root array holds a UIColor, as an app that stored colours has.
    static func colourArchive() -> Data {
        let builder = KeyedArchiveBuilder()
        let root = builder.reserve()
        let name = builder.string("red")
        let colour = builder.object("UIColor", ["UIRed": .real(1), "UIGreen": .real(0), "UIBlue": .real(0)])
        builder.fill(root, "NSArray", ["NS.objects": .array([name, colour])])
        return BinaryPropertyListWriter().write(builder.archive(root: root))
    }

    /// Notes (each tags blob base64) as a seed.
    static func seed(_ notes: [(title: String, tags: Data?, keywords: String?)]) -> Data {
        let objects = notes.enumerated().map { index, note in
            var fields = ["\"@id\": \"Note/\(index + 1)\"", "\"title\": \"\(note.title)\""]
            if let tags = note.tags { fields.append("\"tags\": \"\(tags.base64EncodedString())\"") }
            if let keywords = note.keywords {
                fields.append("\"keywords\": \"\(Data(keywords.utf8).base64EncodedString())\"")
            }
            return "{\(fields.joined(separator: ", "))}"
        }
        return Data(
            """
            {"entities": {"Note": [\(objects.joined(separator: ", "))]}, "format": "molt-objects", "version": 1}
            """.utf8)
    }

    func setUp(
        _ seed: Data, keywordsTransformer: String = "CommaSeparatedTransformer"
    ) throws -> (
        store: URL, v1: ObjectModel, v2: ObjectModel, bundle: URL
    ) {
        let bundle = try ModelXML.writeBundle(
            "Notes", versions: [("Notes", Self.v1(keywordsTransformer: keywordsTransformer)), ("Notes 2", Self.v2)],
            current: "Notes 2", in: folder)
        let models = try ModelBundle(url: bundle)
        let v1 = try models.model(named: "Notes")
        let store = try MigrationFixtures.store("Notes.sqlite", in: folder, model: v1, seed: seed)
        return (store, v1, try models.model(named: "Notes 2"), bundle)
    }

    /// Runs the migration expecting it to fail; checks the store's bytes are unchanged.
    func expectFailure(_ migration: HeavyweightMigration, store: URL) throws -> MoltError? {
        try FailedRun.expectUntouched(store) { try migration.run() }
    }

    @Test("a policy reads archived [String] tags, changes them, and writes them to other Transformable attributes")
    func tagsMigrate() throws {
        let (store, v1, v2, bundle) = try setUp(
            Self.seed([
                ("First", try Self.archived(["Swift", "Core Data"]), "a,b"),
                ("Second", nil, nil),
                ("Third", try Self.archived(["XML"], format: .xml), nil),
            ]))
        try HeavyweightMigration(store: store, source: v1, destination: v2, mapping: try Self.mapping()).run()

        let objects = try ObjectStore.open(at: store, models: .bundle(try ModelBundle(url: bundle)))
        func note(_ key: Int64) throws -> StoredObject {
            try #require(try objects.object(ObjectID(entity: "Note", primaryKey: key)))
        }
        func bytes(_ value: AttributeValue?) throws -> Data {
            guard case .data(let data)? = value else {
                throw MoltError(.migration, "not data: \(String(describing: value))")
            }
            return data
        }

        let first = try note(1)
        #expect(first.attributes["title"] == .string("First"))
        let labels = try bytes(first.attributes["labels"])
        #expect(try TransformableValueDecoder().decode(labels) == ["swift", "core data", "migrated"])
        // The app reads it back with Foundation's secure unarchiver, as NSSecureUnarchiveFromData does.
        let unarchived =
            try NSKeyedUnarchiver.unarchivedObject(
                ofClasses: [NSArray.self, NSString.self], from: labels) as? NSArray
        #expect(unarchived == NSArray(array: ["swift", "core data", "migrated"].map { NSString(string: $0) }))
        #expect(String(decoding: try bytes(first.attributes["keywords"]), as: UTF8.self) == "a,b,Swift,Core Data")
        let history = try bytes(first.attributes["history"])
        #expect(try TransformableValueDecoder().decode(history) == [2, ["swift", "core data", "migrated"]])
        let mutable = try NSKeyedUnarchiver.unarchivedObject(
            ofClasses: [NSArray.self, NSString.self, NSNumber.self], from: history)
        #expect(mutable is NSMutableArray, "the attribute's custom class is NSMutableArray")

        let second = try note(2)
        #expect(second.attributes["labels"] == nil, "NULL tags give NULL labels")
        #expect(second.attributes["keywords"] == nil)

        let third = try note(3)
        #expect(try TransformableValueDecoder().decode(try bytes(third.attributes["labels"])) == ["xml", "migrated"])
        #expect(String(decoding: try bytes(third.attributes["keywords"]), as: UTF8.self) == "XML")
    }

    @Test(
        "a stored archive of a class outside Foundation's property-list classes fails, naming class, object and attribute"
    )
    func unknownClassFails() throws {
        let (store, v1, v2, _) = try setUp(
            Self.seed([("Fine", try Self.archived(["ok"]), nil), ("Colour", Self.colourArchive(), nil)]))
        let migration = HeavyweightMigration(store: store, source: v1, destination: v2, mapping: try Self.mapping())
        let error = try expectFailure(migration, store: store)
        #expect(error?.code == .coderReadCorrupt)
        #expect(error?.entity == "Note")
        #expect(error?.property == "tags")
        let text = error?.description ?? ""
        #expect(text.contains("Note.tags: source object Note/2: "), "\(text)")
        #expect(text.contains("it holds an object of class UIColor"), "\(text)")
    }

    @Test("damaged archive bytes fail the migration with 4864 and leave the store alone")
    func damagedBytesFail() throws {
        let damaged = try Self.archived(["a", "b"]).prefix(40)
        let (store, v1, v2, _) = try setUp(Self.seed([("Damaged", Data(damaged), nil)]))
        let error = try expectFailure(
            HeavyweightMigration(store: store, source: v1, destination: v2, mapping: try Self.mapping()), store: store)
        #expect(error?.code == .coderReadCorrupt)
        #expect(error?.description.contains("Note.tags: source object Note/1: the archived value") == true)
    }

    @Test("an attribute naming a transformer that is not compiled in fails, naming it and the attribute")
    func unknownTransformerFails() throws {
        let (store, v1, v2, _) = try setUp(
            Self.seed([("Note", try Self.archived(["a"]), "x")]), keywordsTransformer: "App.MissingTransformer")
        let error = try expectFailure(
            HeavyweightMigration(store: store, source: v1, destination: v2, mapping: try Self.mapping()), store: store)
        let text = error?.description ?? ""
        #expect(error?.code == .migration)
        #expect(
            text.contains(
                "Note.keywords: the attribute names the value transformer \"App.MissingTransformer\", which is not compiled in"
            ), "\(text)")
        #expect(text.contains("NSSecureUnarchiveFromData"), "lists the known transformers: \(text)")
        #expect(text.contains("CommaSeparatedTransformer"), "lists the known transformers: \(text)")
    }

    @Test("reading a non-Transformable attribute as a transformable value is refused")
    func nonTransformableRefused() throws {
        let (store, v1, v2, _) = try setUp(Self.seed([("Note", nil, nil)]))
        let error = try expectFailure(
            HeavyweightMigration(
                store: store, source: v1, destination: v2,
                mapping: try Self.mapping(policy: "TitleAsTransformablePolicy")),
            store: store)
        #expect(error?.description.contains("Note.title: the attribute is String, not Transformable") == true)
    }

    @Test("a value the destination's transformer cannot store fails with 4866, naming the object")
    func unstorableValueFails() throws {
        // The tags hold a comma, which CommaSeparatedTransformer cannot store in keywords.
        let (store, v1, v2, _) = try setUp(Self.seed([("Note", try Self.archived(["a,b"]), nil)]))
        let error = try expectFailure(
            HeavyweightMigration(store: store, source: v1, destination: v2, mapping: try Self.mapping()), store: store)
        #expect(error?.code == .coderInvalidValue)
        #expect(
            error?.description.contains(
                "Note.keywords: destination object Note/1: CommaSeparatedTransformer cannot store")
                == true, "\(String(describing: error))")
    }
}
