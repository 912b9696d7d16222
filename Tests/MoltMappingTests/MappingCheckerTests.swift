import Foundation
import MoltCore
import MoltMapping
import MoltModel
import MoltTestSupport
import Testing

@Suite("Checking mapping files against models")
struct MappingCheckerTests {
    @Test("the example mapping checks without errors or warnings")
    func exampleIsClean() throws {
        let model = try MappingReader().read(contentsOf: MappingText.examplePath)
        let diagnostics = MappingChecker(knownPolicies: []).check(
            model, source: try Examples.model("Blog"), destination: try Examples.model("Blog 2"))
        #expect(diagnostics.isEmpty, "\(diagnostics)")
    }

    static let transformPrefix = "<entity-mapping name='P' type='transform' source='Article' destination='Article'>"

    @Test(
        "each problem is reported where it is",
        arguments: [
            (
                "<entity-mapping name='M' type='transform' source='Artcle' destination='Article'/>",
                "the source model has no entity \"Artcle\"; did you mean \"Article\"?", Diagnostic.Severity.error
            ),
            (
                "<entity-mapping name='M' type='transform' source='Article' destination='Tag'/>",
                "the destination model has no entity \"Tag\"", .error
            ),
            ("<entity-mapping name='M' type='transform' source='Tag' destination='Post'/>", "Post is abstract", .error),
            (
                transformPrefix + "<attribute name='headlin' value='$source.title'/></entity-mapping>",
                "Article has no attribute \"headlin\"; did you mean \"headline\"?", .error
            ),
            (
                transformPrefix + "<attribute name='author' value='nil'/></entity-mapping>",
                "\"author\" is a relationship; map it with <relationship>", .error
            ),
            (
                transformPrefix + "<relationship name='slug' value='nil'/></entity-mapping>",
                "\"slug\" is an attribute; map it with <attribute>", .error
            ),
            (
                transformPrefix + "<attribute name='slug' value='$source.tittle'/></entity-mapping>",
                "Article has no attribute or relationship \"tittle\"; did you mean \"title\"?", .error
            ),
            (
                transformPrefix + "<attribute name='slug' value='$source.views'/></entity-mapping>",
                "an integer cannot be stored in a String attribute (use string() to turn it into text)", .error
            ),
            (
                transformPrefix + "<attribute name='publishedAt' value='$source.views'/></entity-mapping>",
                "use date() to turn it into a date", .error
            ),
            (
                transformPrefix + "<attribute name='views' value='$source.title'/></entity-mapping>",
                "text is stored in a Integer 64 attribute only when it reads as a number", .warning
            ),
            (
                transformPrefix + "<attribute name='slug' value='$source.tags'/></entity-mapping>",
                "cannot be stored in a String attribute", .error
            ),
            (
                transformPrefix + "<attribute name='slug' value='nil'/></entity-mapping>",
                "nil for a non-optional attribute fails validation", .warning
            ),
            (
                "<entity-mapping name='P' type='transform' source='Article' destination='Article'/>",
                "the attribute is not optional, but no source attribute matches it and it has no default value", .error
            ),
            (
                transformPrefix + "<relationship name='author' value='$source.author'/></entity-mapping>",
                "a relationship needs destination objects, but this gives source objects", .error
            ),
            (
                transformPrefix
                    + "<relationship name='comments' value=\"FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', 'P', $source.comments)\"/></entity-mapping>",
                "the entity mapping \"P\" makes Article objects, but the relationship leads to Comment", .error
            ),
            (
                transformPrefix
                    + "<relationship name='comments' value=\"FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', 'Nope', $source.comments)\"/></entity-mapping>",
                "there is no entity mapping called \"Nope\"", .error
            ),
            (
                transformPrefix
                    + "<relationship name='comments' value=\"FUNCTION($manager, 'instancesFor:', $source)\"/></entity-mapping>",
                "$manager has no function \"instancesFor:\"", .error
            ),
            (
                transformPrefix
                    + "<attribute name='slug' value=\"FUNCTION($entityPolicy, 'slugFrom:', $source.title)\"/></entity-mapping>",
                "needs a policy on this entity mapping", .error
            ),
            (
                transformPrefix + "<attribute name='slug' value='$prefix'/></entity-mapping>",
                "unknown variable $prefix", .error
            ),
            (
                transformPrefix + "<filter>title MATCHES '['</filter></entity-mapping>",
                "is not a valid regular expression", .error
            ),
            (
                transformPrefix + "<filter>views > 'ten'</filter></entity-mapping>", "compares text with a number",
                .warning
            ),
            (
                transformPrefix + "<filter>tags.name == 'x'</filter></entity-mapping>", "start the comparison with ANY",
                .error
            ),
            (transformPrefix + "<filter>ANY title == 'x'</filter></entity-mapping>", "ANY needs a collection", .error),
            (
                transformPrefix + "<filter>title BEGINSWITH 5</filter></entity-mapping>", "BEGINSWITH compares text",
                .error
            ),
            (
                transformPrefix + "<filter>TERNARY(title, 1, 0)</filter></entity-mapping>",
                "a condition must be true or false, not text", .error
            ),
            (
                transformPrefix + "<attribute name='slug' value='uppercase($source.views)'/></entity-mapping>",
                "uppercase() needs text", .error
            ),
            (
                transformPrefix + "<attribute name='slug' value='$source.title + 1'/></entity-mapping>",
                "use concat() to join text", .error
            ),
            (
                "<entity-mapping name='P' type='transform' source='Article' destination='Article' policy='SplitPolicy'/>",
                "no compiled-in policy is called \"SplitPolicy\" (none are compiled in)", .error
            ),
            (
                "<entity-mapping name='P' type='transform' source='Article' destination='Article' source-hash='00000000000000000000000000000000000000000000000000000000000000ff'/>",
                "the source-hash does not match Article in the source model", .error
            ),
        ] as [(String, String, Diagnostic.Severity)])
    func problems(body: String, message: String, severity: Diagnostic.Severity) throws {
        let diagnostics = try MappingText.check(body, knownPolicies: [])
        let match = diagnostics.first { $0.message.contains(message) }
        #expect(match != nil, "expected “\(message)” in:\n\(diagnostics.map(\.description).joined(separator: "\n"))")
        #expect(match?.severity == severity)
        #expect(match?.location?.line != nil)
        #expect(match?.entity != nil)
    }

    @Test("errors inside expressions point at the column in the file")
    func columns() throws {
        let diagnostics = try MappingText.check(
            "<entity-mapping name='P' type='transform' source='Article' destination='Article'>\n"
                + "  <attribute name='slug' value='concat($source.title, $source.nope)'/>\n</entity-mapping>")
        let match = try #require(diagnostics.first { $0.message.contains("\"nope\"") })
        #expect(match.location?.line == 4)
        #expect(match.location?.column == 55)
        #expect(match.property == "slug")
    }

    @Test("a source entity no mapping reads is a warning; model names that differ are a warning")
    func coverageAndNames() throws {
        let (model, _) = MappingText.read(
            MappingText.document("<entity-mapping name='T' type='remove' source='Tag'/>", source: "Blog 0"))
        let diagnostics = MappingChecker().check(
            model!, source: try Examples.model("Blog"), destination: try Examples.model("Blog 2"))
        #expect(diagnostics.allSatisfy { $0.severity == .warning })
        #expect(diagnostics.contains { $0.message.contains("names \"Blog 0\" as its source model") })
        for entity in ["Author", "Article", "Video", "Comment"] {
            #expect(diagnostics.contains { $0.entity == entity && $0.message.contains("no entity mapping reads") })
        }
        #expect(!diagnostics.contains { $0.entity == "Post" }, "abstract entities have no objects of their own")
    }

    @Test("a known policy passes, with or without a module prefix")
    func knownPolicy() throws {
        for policy in ["SplitPolicy", "App.SplitPolicy"] {
            let diagnostics = try MappingText.check(
                "<entity-mapping name='P' type='custom' source='Article' destination='Article' policy='\(policy)'>"
                    + "<attribute name='slug' value=\"FUNCTION($entityPolicy, 'slugFrom:', $source.title)\"/>"
                    + "<attribute name='headline' value='$source.title'/></entity-mapping>",
                knownPolicies: ["SplitPolicy"])
            #expect(!diagnostics.contains { $0.message.contains("policy") }, "\(diagnostics)")
        }
    }
}
