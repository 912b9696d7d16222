import Foundation
import MoltCore
import MoltMapping
import MoltMigration
import MoltModel
import MoltStore
import MoltTestSupport
import Testing

@Suite("What a migration discards is listed and counted, never lost without a word")
struct DiscardSurveyTests {
    let folder = TemporaryDirectory()

    static let source = """
        <entity name="Category" representedClassName="Category" syncable="YES">
            <attribute name="title" optional="YES" attributeType="String"/>
            <relationship name="products" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Product" inverseName="category" inverseEntity="Product"/>
        </entity>
        <entity name="Coupon" representedClassName="Coupon" syncable="YES">
            <attribute name="code" optional="YES" attributeType="String"/>
        </entity>
        <entity name="Draft" representedClassName="Draft" syncable="YES">
            <attribute name="text" optional="YES" attributeType="String"/>
        </entity>
        <entity name="Product" representedClassName="Product" syncable="YES">
            <attribute name="legacyCode" optional="YES" attributeType="String"/>
            <attribute name="name" optional="YES" attributeType="String"/>
            <attribute name="price" optional="YES" attributeType="Double" defaultValueString="0" usesScalarValueType="YES"/>
            <relationship name="category" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Category" inverseName="products" inverseEntity="Category"/>
            <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="products" inverseEntity="Tag"/>
        </entity>
        <entity name="Tag" representedClassName="Tag" syncable="YES">
            <attribute name="label" optional="YES" attributeType="String"/>
            <relationship name="products" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Product" inverseName="tags" inverseEntity="Product"/>
        </entity>
        """

    /// Coupon and Draft are gone, `legacyCode` too, `price` is renamed `cost`, and tags no
    /// longer know their products (nor products their tags).
    static let destination = """
        <entity name="Category" representedClassName="Category" syncable="YES">
            <attribute name="title" optional="YES" attributeType="String"/>
            <relationship name="products" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Product" inverseName="category" inverseEntity="Product"/>
        </entity>
        <entity name="Product" representedClassName="Product" syncable="YES">
            <attribute name="cost" optional="YES" attributeType="Double" defaultValueString="0" usesScalarValueType="YES" elementID="price"/>
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="category" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Category" inverseName="products" inverseEntity="Category"/>
        </entity>
        <entity name="Tag" representedClassName="Tag" syncable="YES">
            <attribute name="label" optional="YES" attributeType="String"/>
        </entity>
        """

    static let seed = Data(
        """
        {"entities": {
          "Category": [{"@id": "Category/1", "title": "Tools"}],
          "Coupon": [{"@id": "Coupon/1", "code": "SAVE"}],
          "Product": [
            {"@id": "Product/1", "name": "Hammer", "legacyCode": "H-1", "price": 12, "category": "Category/1", "tags": ["Tag/1", "Tag/2"]},
            {"@id": "Product/2", "name": "Nail", "legacyCode": "N-2", "price": 0.5, "tags": ["Tag/1"]},
            {"@id": "Product/3", "name": "Saw", "price": 20}
          ],
          "Tag": [{"@id": "Tag/1", "label": "metal"}, {"@id": "Tag/2", "label": "heavy"}]
        }, "format": "molt-objects", "version": 1}
        """.utf8)

    func models() throws -> (ObjectModel, ObjectModel) {
        let bundle = try ModelBundle(
            url: try ModelXML.writeBundle(
                "Shop", versions: [("Shop", Self.source), ("Shop 2", Self.destination)], current: "Shop 2", in: folder))
        return (try bundle.model(named: "Shop"), try bundle.model(named: "Shop 2"))
    }

    @Test("from the inferred mapping: removed entities, attributes and links; a renamed attribute is kept")
    func inferred() throws {
        let (v1, v2) = try models()
        let mapping = try #require(MappingInference.infer(from: v1, to: v2).mapping)
        let survey = DiscardSurvey(source: v1, destination: v2, mapping: mapping)
        #expect(
            survey.items().map(\.description) == [
                "Coupon objects: the mapping RemoveCoupon removes them",
                "Draft objects: the mapping RemoveDraft removes them",
                "values of Product.legacyCode: no value of the mapping Product reads them",
                "links of Product.tags: neither the mapping Product nor a mapping of the other side keeps them",
            ])
        let store = try MigrationFixtures.store("Shop.sqlite", in: folder, model: v1, seed: Self.seed)
        let counted = try survey.counted(in: try ObjectStore(store: try SQLiteStore(at: store), model: v1))
        #expect(
            counted.map(\.description) == [
                "1 Coupon object: the mapping RemoveCoupon removes them",
                "2 values of Product.legacyCode: no value of the mapping Product reads them",
                "3 links of Product.tags: neither the mapping Product nor a mapping of the other side keeps them",
            ], "Draft has no objects: nothing is lost there")

        let report = try LightweightMigration(store: store, source: v1, destination: v2, mapping: mapping).run()
        #expect(report.inPlace)
        #expect(report.discarded == counted)
    }

    @Test("a hand-written mapping: what its values read is kept, a policy is named, a filter's leftovers counted")
    func handWritten() throws {
        let (v1, v2) = try models()
        let mapping = try MigrationFixtures.mapping(
            text: """
                <mapping-model format="1" source-model="Shop" destination-model="Shop 2">
                    <entity-mapping name="CategoryToCategory" type="transform" source="Category" destination="Category"/>
                    <entity-mapping name="ProductToProduct" type="transform" source="Product" destination="Product">
                        <filter>price &gt; 1</filter>
                        <attribute name="name" value="concat($source.name, ' (', $source.legacyCode, ')')"/>
                    </entity-mapping>
                    <entity-mapping name="TagToTag" type="transform" source="Tag" destination="Tag"/>
                    <entity-mapping name="RemoveCoupon" type="remove" source="Coupon"/>
                </mapping-model>
                """)
        let store = try MigrationFixtures.store("Shop.sqlite", in: folder, model: v1, seed: Self.seed)
        var options = MigrationOptions()
        options.dryRun = true
        let report = try HeavyweightMigration(
            store: store, source: v1, destination: v2, mapping: mapping, options: options
        )
        .run()
        #expect(
            report.discarded.map(\.description) == [
                "1 Coupon object: the mapping RemoveCoupon removes them",
                "1 Product object left out by a filter: those that fail the filter of the mapping ProductToProduct: price > 1",
                "3 links of Product.tags: neither the mapping ProductToProduct nor a mapping of the other side keeps them",
            ])

        // A value that hands $source itself to a function may read anything; a policy may too.
        var whole = mapping
        whole.entityMappings[1].filter = nil
        whole.entityMappings[1].attributeMappings = [
            PropertyMapping(
                name: "name",
                value: .expression(try ExpressionParser().parse("FUNCTION($entityPolicy, 'describe:', $source)")))
        ]
        whole.entityMappings[1].policyName = "DescribePolicy"
        #expect(
            DiscardSurvey(source: v1, destination: v2, mapping: whole).items().map(\.description) == [
                "Coupon objects: the mapping RemoveCoupon removes them",
                "Draft objects: no entity mapping reads them, so the new version Shop 2 has none",
            ])
        whole.entityMappings[1].attributeMappings = []
        #expect(
            DiscardSurvey(source: v1, destination: v2, mapping: whole).items().map(\.description).dropFirst(2) == [
                "values of Product.legacyCode: no value of the mapping ProductToProduct reads them; the policy DescribePolicy may carry them",
                "links of Product.tags: neither the mapping ProductToProduct nor a mapping of the other side keeps them; the policy DescribePolicy may carry them",
            ])
    }

    @Test("links one side keeps are not lost")
    func inverseSideKeeps() throws {
        let (v1, _) = try models()
        // Only the tags keep their products: the links survive through them.
        let keeping = try ModelXML.writeBundle(
            "Kept", versions: [("Kept", Self.source), ("Kept 2", Self.source)], current: "Kept 2", in: folder)
        let v2 = try ModelBundle(url: keeping).model(named: "Kept 2")
        let mapping = try MigrationFixtures.mapping(
            text: """
                <mapping-model format="1">
                    <entity-mapping name="ProductToProduct" type="transform" source="Product" destination="Product">
                        <relationship name="tags" value="nil"/>
                    </entity-mapping>
                    <entity-mapping name="TagToTag" type="transform" source="Tag" destination="Tag"/>
                    <entity-mapping name="CategoryToCategory" type="copy" source="Category" destination="Category"/>
                    <entity-mapping name="CouponToCoupon" type="copy" source="Coupon" destination="Coupon"/>
                    <entity-mapping name="DraftToDraft" type="copy" source="Draft" destination="Draft"/>
                </mapping-model>
                """)
        #expect(DiscardSurvey(source: v1, destination: v2, mapping: mapping).items().isEmpty)
    }
}
