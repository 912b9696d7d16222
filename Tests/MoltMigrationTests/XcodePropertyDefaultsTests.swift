import Foundation
import MoltCore
import MoltMapping
import MoltMigration
import MoltModel
import MoltStore
import MoltTestSupport
import Testing

/// Xcode fills in a property mapping without an expression by name only; Molt's own files and
/// inference follow renaming identifiers too. A to-one that became a to-many under a new name
/// shows the difference.
@Suite("Xcode's default property mappings match by name only")
struct XcodePropertyDefaultsTests {
    let folder = TemporaryDirectory()

    static let v1 = """
        <entity name="Category" representedClassName="Category" syncable="YES">
            <attribute name="title" optional="YES" attributeType="String"/>
            <relationship name="posts" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Post" inverseName="category" inverseEntity="Post"/>
        </entity>
        <entity name="Post" representedClassName="Post" syncable="YES">
            <attribute name="title" optional="YES" attributeType="String"/>
            <relationship name="category" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Category" inverseName="posts" inverseEntity="Category"/>
        </entity>
        """
    /// `category` became the to-many `categories` (renaming identifier `category`), without an
    /// inverse.
    static let v2 = """
        <entity name="Category" representedClassName="Category" syncable="YES">
            <attribute name="title" optional="YES" attributeType="String"/>
        </entity>
        <entity name="Post" representedClassName="Post" syncable="YES">
            <attribute name="title" optional="YES" attributeType="String"/>
            <relationship name="categories" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Category" elementID="category"/>
        </entity>
        """

    static let xcode = XcodeMappingXML.document(
        entityMappings: ["z10", "z20"],
        [
            XcodeMappingXML.entityMapping(
                "z10", number: 1, source: "Category", destination: "Category", attributes: ["z11"]),
            XcodeMappingXML.propertyMapping("z11", name: "title", owner: "z10"),
            XcodeMappingXML.entityMapping(
                "z20", number: 2, source: "Post", destination: "Post", attributes: ["z21"], relationships: ["z22"]),
            XcodeMappingXML.propertyMapping("z21", name: "title", owner: "z20"),
            XcodeMappingXML.propertyMapping("z22", name: "categories", owner: "z20", relationship: true),
        ].joined(separator: "\n"))

    static let seed = Data(
        """
        {"entities": {
          "Category": [{"@id": "Category/1", "title": "News"}],
          "Post": [{"@id": "Post/1", "title": "One", "category": "Category/1"}, {"@id": "Post/2", "title": "Two"}]
        }, "format": "molt-objects", "version": 1}
        """.utf8)

    func categories(after mapping: MappingModel, named name: String) throws -> [[Int64]] {
        let bundle = try ModelXML.writeBundle(
            "Blog", versions: [("Blog", Self.v1), ("Blog 2", Self.v2)], current: "Blog 2", in: folder)
        let models = try ModelBundle(url: bundle)
        let (v1, v2) = (try models.model(named: "Blog"), try models.model(named: "Blog 2"))
        let store = try MigrationFixtures.store(name, in: folder, model: v1, seed: Self.seed)
        #expect(MappingChecker().check(mapping, source: v1, destination: v2).errors.isEmpty)
        try HeavyweightMigration(store: store, source: v1, destination: v2, mapping: mapping).run()
        let objects = try ObjectStore(store: try SQLiteStore(at: store), model: v2)
        return try [1, 2].map { key in
            try objects.object(ObjectID(entity: "Post", primaryKey: key))?.relationships["categories"]?.objectIDs.map(
                \.primaryKey) ?? []
        }
    }

    @Test("an Xcode mapping leaves the renamed relationship empty, as Core Data does; Molt's inference fills it")
    func renamedToMany() throws {
        let xcode = try XcodeMappingXML.read(Self.xcode)
        #expect(try categories(after: xcode, named: "xcode.sqlite") == [[], []])

        var molt = xcode
        molt.propertyDefaults = .inferred
        #expect(try categories(after: molt, named: "molt.sqlite") == [[1], []])

        // Converted to Molt's format, the setting is kept.
        let text = MappingWriter().text(of: xcode)
        #expect(text.contains("property-defaults=\"same-name\""))
        #expect(try MigrationFixtures.mapping(text: text).propertyDefaults == .sameName)
    }
}
