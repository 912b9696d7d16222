import Foundation
import MoltCore
import MoltMapping
import MoltMigration
import MoltModel
import MoltStore
import MoltTestSupport
import Testing

/// Notes, for each source Article, its tags and comments as a policy reads them in the copy
/// pass, three ways: the related objects, the relationship's value, and the stored object.
final class SourceLinksNotingPolicy: EntityMigrationPolicy {
    required init() {}

    override func createDestinationInstances(
        forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        try manager.createDefaultDestinationInstance(for: source)
        let tags = try source.objects("tags").map(\.id).sorted()
        let comments = try source.objects("comments").map(\.id)
        guard case .collection(let valued) = try source.value("comments") else {
            throw MoltError(.migration, "comments is not a collection")
        }
        let stored = try source.stored.relationships
        PolicyNotes.shared.add(
            manager,
            "\(source.id): tags \(tags) comments \(comments) valued \(valued.count) stored tags \((stored["tags"]?.objectIDs ?? []).sorted()) stored comments \(stored["comments"]?.objectIDs ?? [])"
        )
    }
}

/// The copy pass reads source objects without their to-many relationships (a value or a
/// policy that asks for one reads it then): what a policy sees is the same as a full read.
@Suite("Source objects read without their to-many relationships")
struct PartialSourceReadTests {
    let folder = TemporaryDirectory()

    @Test("a policy in the copy pass sees every to-many, ordered ones in order, as a full read gives them")
    func policySeesFullToMany() throws {
        CompiledPolicies.register([SourceLinksNotingPolicy.self])
        let bundle = try ModelBundle(url: Fixtures.package("MappingModels/Examples/Blog.xcdatamodeld"))
        let (v1, v2) = (try bundle.model(named: "Blog"), try bundle.model(named: "Blog 2"))
        let store = try folder.copy(Fixtures.package("MappingModels/Examples/Blog.sqlite"))
        var expected: [String] = []
        do {
            let source = try ObjectStore.open(at: store, models: .model(v1))
            let articles = try source.objects(of: "Article")
            while let batch = try articles.nextBatch() {
                for article in batch {
                    let tags = (article.relationships["tags"]?.objectIDs ?? []).sorted()
                    let comments = article.relationships["comments"]?.objectIDs ?? []
                    expected.append(
                        "\(article.id): tags \(tags) comments \(comments) valued \(comments.count) stored tags \(tags) stored comments \(comments)"
                    )
                }
            }
            source.store.connection.close()
        }
        #expect(expected.contains { !$0.contains("tags []") }, "the example has tagged articles")
        #expect(expected.contains { $0.contains("valued 2") || $0.contains("valued 3") }, "and ordered comments")
        var mapping = try MappingReader().read(contentsOf: Fixtures.package("MappingModels/Blog/Blog-to-Blog2.xml"))
        let index = try #require(mapping.entityMappings.firstIndex { $0.name == "ArticleToArticle" })
        mapping.entityMappings[index].policyName = "SourceLinksNotingPolicy"
        try HeavyweightMigration(store: store, source: v1, destination: v2, mapping: mapping).run()
        #expect(PolicyNotes.shared.notes(folder) == expected)
    }
}
