import Foundation
import MoltCore
import MoltMapping
@_spi(RouteSwitches) import MoltMigration
import MoltModel
import MoltStore
import MoltTestSupport
import Testing

/// Models for a non-optional to-many relationship that is new in a version: `Post.sections`.
enum SectionsModels {
    static let author = """
        <entity name="Author" representedClassName="Author" syncable="YES">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="posts" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Post" inverseName="writer" inverseEntity="Post"/>
        </entity>
        """
    static let v1 =
        author + """
            <entity name="Post" representedClassName="Post" syncable="YES">
                <attribute name="title" optional="YES" attributeType="String"/>
                <relationship name="writer" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="posts" inverseEntity="Author"/>
            </entity>
            """

    /// Version 2: a Section entity and a non-optional `Post.sections` (with `minCount`, when
    /// given), which Xcode writes without `optional="YES"`.
    static func v2(minCount: Int? = nil) -> String {
        author + """
            <entity name="Post" representedClassName="Post" syncable="YES">
                <attribute name="title" optional="YES" attributeType="String"/>
                <relationship name="writer" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="posts" inverseEntity="Author"/>
                <relationship name="sections" toMany="YES"\(minCount.map { " minCount=\"\($0)\"" } ?? "") deletionRule="Cascade" destinationEntity="Section" inverseName="post" inverseEntity="Section"/>
            </entity>
            <entity name="Section" representedClassName="Section" syncable="YES">
                <attribute name="heading" optional="YES" attributeType="String"/>
                <relationship name="post" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Post" inverseName="sections" inverseEntity="Post"/>
            </entity>
            """
    }

    static let seed = Data(
        """
        {"entities": {
          "Author": [{"@id": "Author/1", "name": "Ann"}],
          "Post": [{"@id": "Post/1", "title": "One", "writer": "Author/1"}, {"@id": "Post/2", "title": "Two"}]
        }, "format": "molt-objects", "version": 1}
        """.utf8)

    /// The bundle `App.xcdatamodeld` with `App` and `App 2` (with `minCount` on `sections`).
    static func bundle(minCount: Int? = nil, in folder: TemporaryDirectory) throws -> URL {
        try ModelXML.writeBundle(
            "App", versions: [("App", v1), ("App 2", v2(minCount: minCount))], current: "App 2",
            in: folder)
    }

}

/// Gives the first post one section and the others none.
final class OneSectionPolicy: EntityMigrationPolicy {
    required init() {}

    override func createDestinationInstances(
        forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        let post = try manager.createDefaultDestinationInstance(for: source)
        guard source.id.primaryKey == 1 else { return }
        let section = try manager.destinationContext.insertNewObject(forEntityName: "Section", attributes: [:])
        try manager.setRelationship("sections", of: post, to: [section])
    }
}

@Suite("A non-optional to-many relationship may be empty")
struct EmptyToManyTests {
    let folder = TemporaryDirectory()

    func models(minCount: Int? = nil) throws -> (ObjectModel, ObjectModel) {
        let bundle = try ModelBundle(url: try SectionsModels.bundle(minCount: minCount, in: folder))
        return (try bundle.model(named: "App"), try bundle.model(named: "App 2"))
    }

    var bundle: URL { folder.path("App.xcdatamodeld") }

    func store(_ name: String, model: ObjectModel) throws -> URL {
        try MigrationFixtures.store(name, in: folder, model: model, seed: SectionsModels.seed)
    }

    /// Every Post's sections, by key.
    func sections(_ url: URL, model: ObjectModel) throws -> [Int64: Int] {
        let store = try ObjectStore(store: try SQLiteStore(at: url), model: model)
        var found: [Int64: Int] = [:]
        let cursor = try store.objects(of: "Post")
        while let batch = try cursor.nextBatch() {
            for post in batch { found[post.id.primaryKey] = post.relationships["sections"]?.objectIDs.count ?? -1 }
        }
        return found
    }

    @Test("a new non-optional to-many is inferred, and migrates empty in place and object by object")
    func inferredInPlaceAndHeavyweight() throws {
        let (v1, v2) = try models()
        let mapping = try #require(MappingInference.infer(from: v1, to: v2).mapping)

        let inPlace = try store("in-place.sqlite", model: v1)
        let report = try LightweightMigration(store: inPlace, source: v1, destination: v2, mapping: mapping).run()
        #expect(report.inPlace)
        #expect(try sections(inPlace, model: v2) == [1: 0, 2: 0])

        for allowsSQL in [false, true] {
            let copied = try store("heavy-\(allowsSQL).sqlite", model: v1)
            var options = MigrationOptions()
            options.allowsSQLOnCopy = allowsSQL
            options.allowsRelateInSQL = allowsSQL
            let heavy = try HeavyweightMigration(
                store: copied, source: v1, destination: v2, mapping: mapping, options: options
            ).run()
            #expect((heavy.route == .sqlOnCopy) == allowsSQL)
            #expect(try sections(copied, model: v2) == [1: 0, 2: 0])
            #expect(
                try MigrationFixtures.dump(copied, bundle: bundle) == MigrationFixtures.dump(inPlace, bundle: bundle),
                "in place and copied give the same store")
        }
        let problems = MappingChecker().check(mapping, source: v1, destination: v2)
        #expect(problems.filter { $0.property == "sections" }.isEmpty, "\(problems)")
    }

    @Test("an optional to-many may be empty below its minCount, but one object is too few: 1580 for that object only")
    func optionalWithMinimum() throws {
        CompiledPolicies.register([OneSectionPolicy.self])
        let (v1, _) = try models()
        let optionalTwo = SectionsModels.v2().replacingOccurrences(
            of: "<relationship name=\"sections\" toMany=\"YES\"",
            with: "<relationship name=\"sections\" optional=\"YES\" toMany=\"YES\" minCount=\"2\"")
        let bundle = try ModelXML.writeBundle(
            "Optional", versions: [("Optional", SectionsModels.v1), ("Optional 2", optionalTwo)], current: "Optional 2",
            in: folder)
        let v2 = try ModelBundle(url: bundle).model(named: "Optional 2")
        let mapping = try MigrationFixtures.mapping(
            text: """
                <mapping-model format="1">
                    <entity-mapping name="AuthorToAuthor" type="transform" source="Author" destination="Author"/>
                    <entity-mapping name="PostToPost" type="transform" source="Post" destination="Post" policy="OneSectionPolicy"/>
                    <entity-mapping name="AddSection" type="add" destination="Section"/>
                </mapping-model>
                """)
        #expect(MappingChecker().check(mapping, source: v1, destination: v2).errors.isEmpty)
        let url = try store("optional.sqlite", model: v1)
        let error = try #require(throws: MoltError.self) {
            try HeavyweightMigration(store: url, source: v1, destination: v2, mapping: mapping).run()
        }
        #expect(error.code == .validationRelationshipLacksMinimumCount)
        #expect(error.details == ["Post/1.sections: has 1 object, fewer than 2 (1580)"])
    }

    @Test("with a minCount the new relationship is not inferred, and a mapping nobody fills it in is an error")
    func minCountStillCounts() throws {
        let (v1, v2) = try models(minCount: 1)
        let reasons = MappingInference.infer(from: v1, to: v2).reasons
        #expect(reasons.map(\.description).contains { $0.hasPrefix("Post.sections: the new relationship is required") })

        // A mapping that maps nothing into it: check-mapping says who could fill it (nobody).
        let mapping = try MigrationFixtures.mapping(
            text: """
                <mapping-model format="1">
                    <entity-mapping name="AuthorToAuthor" type="transform" source="Author" destination="Author"/>
                    <entity-mapping name="PostToPost" type="transform" source="Post" destination="Post"/>
                    <entity-mapping name="AddSection" type="add" destination="Section"/>
                </mapping-model>
                """)
        let errors = MappingChecker().check(mapping, source: v1, destination: v2).errors
        #expect(
            errors.map(\.message) == [
                "the relationship is left empty: the source entity has no relationship called \"sections\", and it needs at least 1 object; map it with <relationship> (or name a policy that sets it)"
            ])
    }
}
