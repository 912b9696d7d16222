import Foundation
import MoltCore
import MoltMapping
import MoltTestSupport
import Testing

@Suite("Reading and writing mapping files")
struct MappingReaderTests {
    @Test("the example mapping file reads with every part")
    func example() throws {
        let model = try MappingReader().read(contentsOf: MappingText.examplePath)
        #expect(model.sourceModelName == "Blog" && model.destinationModelName == "Blog 2")
        #expect(
            model.entityMappings.map(\.name) == [
                "AuthorToAuthor", "ArticleToArticle", "VideoToVideo", "CommentToComment", "TagToNothing", "Section",
            ])
        #expect(model.entityMappings.map(\.kind) == [.transform, .transform, .transform, .transform, .remove, .add])
        let comments = try #require(model.entityMapping(named: "CommentToComment"))
        #expect(comments.filter?.description == "text != \"\" AND createdAt >= $cutoff")
        #expect(comments.userInfo == [UserInfoEntry(key: "cutoff", value: "2001-01-01T00:00:00Z")])
        let articles = try #require(model.entityMapping(named: "ArticleToArticle"))
        #expect(
            articles.attributeMapping(named: "headline")?.value
                == .expression(try ExpressionParser().parse("$source.title")))
        #expect(articles.sourceEntityName == "Article" && articles.destinationEntityName == "Article")
        #expect(model.entityMapping(named: "Section")?.destinationEntityName == "Section")
    }

    @Test("load, write, load gives an equal model, and writing is repeatable")
    func roundTrip() throws {
        let model = try MappingReader().read(contentsOf: MappingText.examplePath)
        let written = MappingWriter().text(of: model)
        let (again, problems) = MappingReader().read(Data(written.utf8), file: "written.xml")
        #expect(problems.isEmpty, "\(problems)")
        #expect(again == model)
        #expect(MappingWriter().text(of: again!) == written)
    }

    @Test("awkward text survives writing: quotes, ampersands, new lines, hashes, nil and default")
    func awkwardRoundTrip() throws {
        let model = MappingModel(
            sourceModelName: "A & \"B\"", destinationModelName: "C <D>",
            entityMappings: [
                EntityMapping(
                    name: "M'1", kind: .transform, sourceEntityName: "Post", destinationEntityName: "Article",
                    policyName: "App.Policy",
                    filter: try ExpressionParser().parse("title CONTAINS[cd] 'it\\'s \"x\" & <y>'"),
                    attributeMappings: [
                        PropertyMapping(
                            name: "a", value: .expression(try ExpressionParser().parse("concat('line\\none', \"\\t\")"))
                        ),
                        PropertyMapping(name: "b", value: .noValue), PropertyMapping(name: "c", value: .inferred),
                    ],
                    relationshipMappings: [
                        PropertyMapping(name: "r", value: .expression(try ExpressionParser().parse("$x")))
                    ],
                    userInfo: [UserInfoEntry(key: "k", value: "multi\nline & \"quoted\" 'text'\t")],
                    sourceVersionHash: Data(repeating: 0xAB, count: 32),
                    destinationVersionHash: Data(repeating: 1, count: 32)),
                EntityMapping(name: "Gone", kind: .remove, sourceEntityName: "Tag"),
            ])
        let written = MappingWriter().text(of: model)
        let (again, problems) = MappingReader().read(Data(written.utf8), file: "written.xml")
        #expect(problems.isEmpty, "\(problems)\n\(written)")
        #expect(again == model, "\(written)")
    }

    @Test("every schema violation is reported with its line")
    func schemaViolations() {
        let (model, problems) = MappingText.read(
            """
            <mapping-model format="2">
              <entity-mapping name="A" type="morph" sourc="X"/>
              <entity-mapping type="add"/>
              <entity-mapping name="B" type="add" source-hash="xyz"/>
              <unknown/>
            </mapping-model>
            """)
        #expect(model == nil)
        #expect(problems.map { $0.location?.line } == [1, 2, 2, 3, 4, 5])
        #expect(problems.allSatisfy { $0.severity == .error && $0.message.hasPrefix("does not follow the schema") })
        #expect(problems[1].message.contains("'morph'"))
        #expect(problems[2].message.contains("'sourc' is not allowed"))
    }

    @Test("a filter of 500,000 characters is read in one pass and refused by its length, with its line")
    func hugeFilter() {
        let clause = "views > 1 AND "
        let text = String(repeating: clause, count: 500_000 / clause.count) + "views > 2"
        let (_, problems) = MappingText.read(
            MappingText.document(
                """
                    <entity-mapping name="M" type="transform" source="Post" destination="Post">
                        <filter>\(text.replacingOccurrences(of: ">", with: "&gt;"))</filter>
                    </entity-mapping>
                """))
        #expect(problems.count == 1, "\(problems.map(\.message))")
        #expect(problems.first?.message.contains("at most 100000 are accepted") == true, "\(problems)")
        #expect(problems.first?.location?.line == 4)
    }

    @Test("an end tag inside an open CDATA section is text; the filter ends at the real end tag")
    func endTagInsideCDATA() {
        let (model, problems) = MappingText.read(
            MappingText.document(
                """
                    <entity-mapping name="M" type="transform" source="Post" destination="Post">
                        <filter><![CDATA[title != "</filter>"]]></filter>
                    </entity-mapping>
                """))
        #expect(problems.isEmpty, "\(problems)")
        #expect(model?.entityMappings.first?.filter?.description == "title != \"</filter>\"")
    }

    @Test("a syntax error in an expression points at its line and column in the file")
    func syntaxErrorLocation() {
        let (_, problems) = MappingText.read(
            MappingText.document(
                """
                    <entity-mapping name="M" type="transform" source="Post" destination="Post">
                        <attribute name="slug" value="lowercase(&quot;A&quot; +)"/>
                        <filter>
                            views &gt; 10 AND (title == "x"
                        </filter>
                    </entity-mapping>
                """))
        #expect(problems.count == 2)
        #expect(
            problems[0].description == "mapping.xml:4:64: <attribute>: error: M.slug: syntax error: unexpected \")\"")
        #expect(problems[1].location?.line == 7)
        #expect(problems[1].location?.column == 9)
        #expect(problems[1].message.contains("expected \")\""))
    }

    @Test(
        "what each mapping type needs and allows is checked",
        arguments: [
            (
                "<entity-mapping name='M' type='add' source='Post' destination='Post'/>",
                "an add mapping has no source entity"
            ),
            ("<entity-mapping name='M' type='add'/>", "an add mapping needs a destination entity"),
            (
                "<entity-mapping name='M' type='add' destination='Section'><attribute name='name' value='\"x\"'/></entity-mapping>",
                "takes no filter or property mappings"
            ),
            ("<entity-mapping name='M' type='remove' destination='Post'/>", "a remove mapping needs a source entity"),
            (
                "<entity-mapping name='M' type='remove' source='Tag'><filter>TRUEPREDICATE</filter></entity-mapping>",
                "takes no filter"
            ),
            ("<entity-mapping name='M' type='copy' source='Tag'/>", "a copy mapping needs a source and a destination"),
            (
                "<entity-mapping name='M' type='copy' source='Tag' destination='Tag'><attribute name='name' value='\"x\"'/></entity-mapping>",
                "make it a transform mapping"
            ),
            (
                "<entity-mapping name='M' type='transform' source='Tag'/>",
                "a transform mapping needs a source and a destination"
            ),
            ("<entity-mapping name='M' type='custom' source='Tag'/>", "a custom mapping needs a policy"),
            (
                "<entity-mapping name='M' type='transform' source='A' destination='A'><filter>1</filter><filter>2</filter></entity-mapping>",
                "at most one <filter>"
            ),
            (
                "<entity-mapping name='M' type='transform' source='A' destination='A'><filter>views + 1</filter></entity-mapping>",
                "a filter must be a condition"
            ),
            (
                "<entity-mapping name='M' type='transform' source='A' destination='A'><attribute name='x' value='1'/><attribute name='x' value='2'/></entity-mapping>",
                "\"x\" is mapped twice"
            ),
            (
                "<entity-mapping name='M' type='remove' source='A'/><entity-mapping name='M' type='remove' source='B'/>",
                "another entity mapping is called \"M\""
            ),
        ] as [(String, String)])
    func shapes(body: String, message: String) {
        let (_, problems) = MappingText.read(MappingText.document(body))
        #expect(problems.contains { $0.message.contains(message) }, "\(problems)")
        #expect(problems.allSatisfy { $0.location?.line != nil })
    }

    @Test("nil and default are the two special values")
    func specialValues() throws {
        let (model, problems) = MappingText.read(
            MappingText.document(
                """
                <entity-mapping name="M" type="transform" source="Post" destination="Post">
                    <attribute name="a" value="nil"/>
                    <attribute name="b" value=" default "/>
                    <attribute name="c" value="$source.default"/>
                </entity-mapping>
                """))
        #expect(problems.isEmpty)
        let mapping = try #require(model?.entityMappings.first)
        #expect(
            mapping.attributeMappings.map(\.value) == [
                .noValue, .inferred, .expression(try ExpressionParser().parse("$source.#default")),
            ])
    }

    @Test("hostile XML in a mapping file is refused")
    func hostile() throws {
        let folder = TemporaryDirectory()
        let secret = try folder.write("TOP-SECRET", to: "secret.txt")
        for text in [
            "<!DOCTYPE m [<!ENTITY x SYSTEM \"file://\(secret.path)\">]><mapping-model format=\"1\">&x;</mapping-model>",
            "<!DOCTYPE m [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">]><mapping-model format=\"1\"/>",
            String(repeating: "<a>", count: 100_000),
            "not xml at all",
        ] {
            let (model, problems) = MappingText.read(text)
            #expect(model == nil)
            #expect(problems.hasErrors)
            #expect(!problems.description.contains("TOP-SECRET"))
        }
    }

    @Test("a 10 MB expression is refused with a clear error, quickly")
    func hugeExpression() {
        let value = String(repeating: "a + ", count: 2_500_000) + "a"
        var problems: [Diagnostic] = []
        let spent = ThreadCPUTime.measure {
            problems =
                MappingText.read(
                    MappingText.document(
                        "<entity-mapping name='M' type='transform' source='Post' destination='Post'><attribute name='x' value='\(value)'/></entity-mapping>"
                    )
                ).1
        }
        #expect(problems.hasErrors)
        #expect(problems.first?.location?.line != nil)
        #expect(spent < .seconds(10), "took \(spent) of processor time")
    }

    @Test("the shipped schema file is the one compiled into Molt")
    func schemaFile() throws {
        let shipped = try Data(contentsOf: Fixtures.package("MappingModels/mapping.xsd"))
        let compiled = try Data(contentsOf: Fixtures.package("Sources/MoltMapping/Schema/mapping.xsd"))
        #expect(shipped == compiled)
    }

    @Test("read throws the first problem and lists the rest")
    func readThrows() throws {
        let folder = TemporaryDirectory()
        let file = try folder.write(
            MappingText.document(
                "<entity-mapping name='M' type='custom' source='A'><attribute name='x' value='('/></entity-mapping>"),
            to: "m.xml")
        let error = #expect(throws: MoltError.self) { try MappingReader().read(contentsOf: file) }
        #expect(error?.details.count == 2)
        #expect(error?.location?.file == file.path)
    }
}

@Suite("Stamping version hashes into mapping files")
struct MappingStamperTests {
    @Test("stamping adds the hashes, keeps comments and layout, and the result checks cleanly")
    func stamp() throws {
        let text = try String(contentsOf: MappingText.examplePath, encoding: .utf8)
        let v1 = try Examples.model("Blog")
        let v2 = try Examples.model("Blog 2")
        let stamped = try MappingStamper().stamp(text, file: "m.xml", source: v1, destination: v2)
        #expect(stamped.contains("<!-- Tags live on as each post's keywords. -->"))
        #expect(stamped.components(separatedBy: "\n").count == text.components(separatedBy: "\n").count)
        let model = try #require(MappingText.read(stamped).0)
        let authors = try #require(model.entityMapping(named: "AuthorToAuthor"))
        #expect(authors.sourceVersionHash == (try v1.entityVersionHashes()["Author"]))
        #expect(authors.destinationVersionHash == (try v2.entityVersionHashes()["Author"]))
        #expect(model.entityMapping(named: "Section")?.sourceVersionHash == nil)
        #expect(MappingChecker().check(model, source: v1, destination: v2).isEmpty)
        // Stamping again replaces the hashes rather than adding more.
        let twice = try MappingStamper().stamp(stamped, file: "m.xml", source: v1, destination: v2)
        #expect(twice == stamped)
        // Against another destination version, the stamped hashes catch the change.
        let wrong = MappingChecker().check(model, source: v1, destination: v1)
        #expect(wrong.contains { $0.message.contains("the destination-hash does not match Author") })
    }

    @Test("a file with errors is not stamped")
    func refusesBrokenFiles() throws {
        #expect(throws: MoltError.self) {
            try MappingStamper().stamp(
                MappingText.document("<entity-mapping name='M' type='custom' source='Tag'/>"), file: "m.xml",
                source: try Examples.model("Blog"), destination: try Examples.model("Blog 2"))
        }
    }
}
