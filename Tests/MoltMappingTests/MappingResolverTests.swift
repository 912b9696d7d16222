import Foundation
import MoltMapping
import MoltModel
import MoltTestSupport
import Testing

@Suite("Inferring what a mapping file leaves out")
struct MappingResolverTests {
    func resolve(_ mappingName: String) throws -> ResolvedEntityMapping {
        let model = try MappingReader().read(contentsOf: MappingText.examplePath)
        let resolver = MappingResolver(
            source: try Examples.model("Blog"), destination: try Examples.model("Blog 2"), mappingModel: model)
        return resolver.resolve(try #require(model.entityMapping(named: mappingName)))
    }

    func value(_ resolved: ResolvedEntityMapping, _ name: String, relationship: Bool = false) -> ResolvedProperty? {
        (relationship ? resolved.relationships : resolved.attributes).first { $0.name == name }
    }

    @Test("attributes come from the same name, the renaming identifier, explicit values or defaults")
    func attributes() throws {
        let authors = try resolve("AuthorToAuthor")
        #expect(value(authors, "name")?.origin == .inferred(sourceProperty: "name"))
        #expect(value(authors, "contactEmail")?.origin == .inferred(sourceProperty: "email"))
        #expect(value(authors, "contactEmail")?.value == .expression(try ExpressionParser().parse("$source.email")))
        #expect(value(authors, "handle")?.origin == .explicit)
        #expect(value(authors, "displayName") == nil, "transient attributes are not mapped")
        let articles = try resolve("ArticleToArticle")
        #expect(value(articles, "title") == nil, "title is gone in Blog 2")
        #expect(
            value(articles, "summary")?.origin == .inferred(sourceProperty: "summary"),
            "inherited from the sub-entity's own")
        #expect(value(articles, "views")?.origin == .inferred(sourceProperty: "views"), "inherited from Post")
    }

    @Test("relationships go through the one mapping that makes their objects, or through all of them")
    func relationships() throws {
        let articles = try resolve("ArticleToArticle")
        #expect(
            value(articles, "author", relationship: true)?.value
                == .expression(
                    try ExpressionParser().parse(
                        "FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', 'AuthorToAuthor', $source.author)"
                    )))
        let authors = try resolve("AuthorToAuthor")
        #expect(
            value(authors, "posts", relationship: true)?.value
                == .expression(
                    try ExpressionParser().parse(
                        "FUNCTION($manager, 'destinationInstancesForSourceRelationshipNamed:sourceInstances:', 'posts', $source.posts)"
                    )),
            "Articles and Videos are made by two mappings")
        #expect(value(articles, "section", relationship: true)?.value == ResolvedProperty.Value.noValue)
        #expect(articles.newRelationships == ["section"])
    }

    @Test("a match by renaming identifier works across renames on both sides")
    func renamingChains() {
        let candidates: [(name: String, renamingIdentifier: String?)] = [("colour", "paint"), ("size", nil)]
        #expect(MappingResolverTestHooks.match("hue", renamingIdentifier: "colour", in: candidates) == "colour")
        #expect(MappingResolverTestHooks.match("tint", renamingIdentifier: "paint", in: candidates) == "colour")
        #expect(MappingResolverTestHooks.match("size", renamingIdentifier: nil, in: candidates) == "size")
        #expect(MappingResolverTestHooks.match("weight", renamingIdentifier: nil, in: candidates) == nil)
    }
}
