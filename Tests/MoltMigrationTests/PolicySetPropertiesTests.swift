import Foundation
import MoltCore
import MoltMapping
import MoltMigration
import MoltModel
import MoltStore
import MoltTestSupport
import Testing

/// Makes each Post's slug and one Section for it, linked from the Section's side: what a real
/// app's policy does for properties its Xcode mapping leaves without a value.
final class SectionMakerPolicy: EntityMigrationPolicy {
    required init() {}

    override func createDestinationInstances(
        forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        let post = try manager.createDefaultDestinationInstance(for: source)
        let title = try source.text("title") ?? "untitled"
        try manager.setAttributes(["slug": .string(title.lowercased())], of: post)
        let section = try manager.destinationContext.insertNewObject(
            forEntityName: "Section", attributes: ["heading": "About \(title)"])
        try manager.setRelationship("post", of: section, to: [post])
    }
}

/// Sets the slug but forgets the sections.
final class ForgetfulSectionPolicy: EntityMigrationPolicy {
    required init() {}

    override func createDestinationInstances(
        forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        let post = try manager.createDefaultDestinationInstance(for: source)
        try manager.setAttributes(["slug": .string("post-\(source.id.primaryKey)")], of: post)
    }
}

@Suite("Properties a policy or an inverse sets: checked by the validate pass, not refused before")
struct PolicySetPropertiesTests {
    let folder = TemporaryDirectory()

    /// Version 3: the post gets a required slug (no default), its writer is now a required
    /// `author` (a new name: Xcode's default leaves it empty, the inverse `Author.posts` fills
    /// it), and it needs at least one Section.
    static let v3 = """
        <entity name="Author" representedClassName="Author" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="posts" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Post" inverseName="author" inverseEntity="Post"/>
        </entity>
        <entity name="Post" representedClassName="Post" syncable="YES">
            <attribute name="slug" attributeType="String"/>
            <attribute name="title" optional="YES" attributeType="String"/>
            <relationship name="author" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="posts" inverseEntity="Author"/>
            <relationship name="sections" toMany="YES" minCount="1" deletionRule="Cascade" destinationEntity="Section" inverseName="post" inverseEntity="Section"/>
        </entity>
        <entity name="Section" representedClassName="Section" syncable="YES">
            <attribute name="heading" optional="YES" attributeType="String"/>
            <relationship name="post" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Post" inverseName="sections" inverseEntity="Post"/>
        </entity>
        """

    /// The Xcode mapping model a developer makes in Xcode's editor: every property listed
    /// without an expression, the Post mapping's type never chosen ("Undefined") but a policy
    /// named with its module.
    static func xcodeMapping(policy: String) -> String {
        XcodeMappingXML.document(
            entityMappings: ["z10", "z20", "z30"],
            [
                XcodeMappingXML.entityMapping(
                    "z10", number: 1, source: "Author", destination: "Author", attributes: ["z11"],
                    relationships: ["z12"]),
                XcodeMappingXML.propertyMapping("z11", name: "name", owner: "z10"),
                XcodeMappingXML.propertyMapping("z12", name: "posts", owner: "z10", relationship: true),
                XcodeMappingXML.entityMapping(
                    "z20", number: 2, source: "Post", destination: "Post", attributes: ["z21", "z22"],
                    relationships: ["z23", "z24"],
                    extra:
                        "        <attribute name=\"migrationpolicyclassname\" type=\"string\">App.\(policy)</attribute>"
                ),
                XcodeMappingXML.propertyMapping("z21", name: "title", owner: "z20"),
                XcodeMappingXML.propertyMapping("z22", name: "slug", owner: "z20"),
                XcodeMappingXML.propertyMapping("z23", name: "author", owner: "z20", relationship: true),
                XcodeMappingXML.propertyMapping("z24", name: "sections", owner: "z20", relationship: true),
                XcodeMappingXML.entityMapping("z30", number: 3, source: nil, destination: "Section"),
            ].joined(separator: "\n"), source: "App/App.xcdatamodeld/App.xcdatamodel",
            destination: "App/App.xcdatamodeld/App 3.xcdatamodel")
    }

    static let seed = Data(
        """
        {"entities": {
          "Author": [{"@id": "Author/1", "name": "Ann"}, {"@id": "Author/2", "name": "Bo"}],
          "Post": [{"@id": "Post/1", "title": "One", "writer": "Author/1"}, {"@id": "Post/2", "title": "Two", "writer": "Author/2"}]
        }, "format": "molt-objects", "version": 1}
        """.utf8)

    func setUp(seed: Data = seed) throws -> (store: URL, v1: ObjectModel, v3: ObjectModel, bundle: URL) {
        CompiledPolicies.register([SectionMakerPolicy.self, ForgetfulSectionPolicy.self])
        let bundle = try ModelXML.writeBundle(
            "App", versions: [("App", SectionsModels.v1), ("App 3", Self.v3)], current: "App 3", in: folder)
        let models = try ModelBundle(url: bundle)
        let v1 = try models.model(named: "App")
        let store = try MigrationFixtures.store("App.sqlite", in: folder, model: v1, seed: seed)
        return (store, v1, try models.model(named: "App 3"), bundle)
    }

    @Test("check-mapping: no error; a warning names the policy that must set each property, a note the inverse")
    func checked() throws {
        let (_, v1, v3, _) = try setUp()
        let mapping = try XcodeMappingXML.read(Self.xcodeMapping(policy: "SectionMakerPolicy"))
        #expect(mapping.entityMappings.map(\.kind) == [.transform, .custom, .add])
        let diagnostics = MappingChecker(knownPolicies: Set(PolicyRegistry.names)).check(
            mapping, source: v1, destination: v3)
        #expect(diagnostics.errors.isEmpty, "\(diagnostics.map(\.description))")
        #expect(
            diagnostics.map { "\($0.severity) \($0.entity ?? "").\($0.property ?? ""): \($0.message)" } == [
                "warning PostToPost.slug: no source attribute matches it and it has no default value, so the policy App.SectionMakerPolicy must set it; otherwise the validate pass fails (1570)",
                "note PostToPost.author: the mapping gives the relationship no value (the source entity has no relationship called \"author\"), and it is not optional: the policy App.SectionMakerPolicy or the inverse Author.posts (mapped by AuthorToAuthor) may set it; the validate pass checks that it is set",
                "warning PostToPost.sections: the mapping gives the relationship no value (the source entity has no relationship called \"sections\"), and it needs at least 1 object: the policy App.SectionMakerPolicy may set it; the validate pass checks that it is set",
            ])
    }

    @Test(
        "the policy sets a required to-many from the other side and a required attribute; the inverse fills the to-one")
    func policySetsThem() throws {
        let (store, v1, v3, bundle) = try setUp()
        let mapping = try XcodeMappingXML.read(Self.xcodeMapping(policy: "SectionMakerPolicy"))
        let report = try HeavyweightMigration(store: store, source: v1, destination: v3, mapping: mapping).run()
        #expect(report.destinationCounts == ["Author": 2, "Post": 2, "Section": 2])
        let objects = try ObjectStore.open(at: store, models: .bundle(try ModelBundle(url: bundle)))
        for key in [1, 2] as [Int64] {
            let post = try #require(try objects.object(ObjectID(entity: "Post", primaryKey: key)))
            #expect(post.attributes["slug"] == .string(key == 1 ? "one" : "two"))
            #expect(post.relationships["author"]?.objectIDs == [ObjectID(entity: "Author", primaryKey: key)])
            let sections = try #require(post.relationships["sections"]?.objectIDs)
            #expect(sections.count == 1)
            let section = try #require(try objects.object(sections[0]))
            #expect(section.relationships["post"]?.objectIDs == [post.id], "both sides of the link agree")
            #expect(section.attributes["heading"] == .string(key == 1 ? "About One" : "About Two"))
        }
    }

    @Test("what the policy leaves empty fails the validate pass with Core Data's codes, naming object and property")
    func validatePassJudges() throws {
        let seed = Data(
            String(decoding: Self.seed, as: UTF8.self).replacingOccurrences(of: ", \"writer\": \"Author/2\"", with: "")
                .utf8)
        let (store, v1, v3, _) = try setUp(seed: seed)
        let before = try Data(contentsOf: store)
        let files = try MigrationFixtures.files(folder)
        let mapping = try XcodeMappingXML.read(Self.xcodeMapping(policy: "ForgetfulSectionPolicy"))
        let error = try #require(throws: MoltError.self) {
            try HeavyweightMigration(store: store, source: v1, destination: v3, mapping: mapping).run()
        }
        #expect(error.code == .validationMultiple)
        #expect(
            error.details == [
                "Post/1.sections: has 0 objects, fewer than 1 (1580)",
                "Post/2.author: is not optional but has no object (1570)",
                "Post/2.sections: has 0 objects, fewer than 1 (1580)",
            ])
        #expect(StoreBytes.same(try Data(contentsOf: store), before))
        #expect(try MigrationFixtures.files(folder) == files)
    }
}
