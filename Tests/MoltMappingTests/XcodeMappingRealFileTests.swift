import Foundation
import MoltCore
import MoltMapping
import MoltModel
import MoltTestSupport
import Testing

/// The Xcode mapping models in `../shared/fixtures/real`, each with the models it maps between.
enum RealXcodeMappings {
    /// Fixture folder, mapping model, and the bundle (in the same folder) holding both versions.
    static let files: [(folder: String, mapping: String, bundle: String)] = [
        (
            "corestore-evolution", "Advanced.EvolutionDemo.V1.FromV2.xcmappingmodel",
            "Advanced.EvolutionDemo.V1.xcdatamodeld"
        ),
        (
            "corestore-evolution", "Advanced.EvolutionDemo.V2.FromV1.xcmappingmodel",
            "Advanced.EvolutionDemo.V1.xcdatamodeld"
        ),
        ("woocommerce", "WooCommerceModelV9toV10.xcmappingmodel", "WooCommerce.xcdatamodeld"),
    ]

    static func url(_ index: Int) -> URL {
        Fixtures.real("\(files[index].folder)/\(files[index].mapping)")
    }

    /// The source and destination models, found from the paths the mapping model recorded:
    /// `…/<bundle>.xcdatamodeld/<version>.xcdatamodel`, the bundle being in the fixture folder.
    static func models(for imported: XcodeMappingImport, index: Int) throws -> (ObjectModel, ObjectModel) {
        func model(_ path: String?) throws -> ObjectModel {
            let components = (path ?? "").split(separator: "/").suffix(2).map(String.init)
            #expect(components.count == 2 && components[0] == files[index].bundle, "\(path ?? "no path")")
            let bundle = try ModelBundle(url: Fixtures.real("\(files[index].folder)/\(components[0])"))
            return try bundle.model(named: String(components[1].dropLast(".xcdatamodel".count)))
        }
        return (try model(imported.sourceModelPath), try model(imported.destinationModelPath))
    }
}

@Suite(
    "Apple's real Xcode mapping models",
    .enabled(if: Fixtures.available, Comment(rawValue: Fixtures.absentMessage)))
struct XcodeMappingRealFileTests {
    @Test(
        "each loads, checks without errors against the models it names, and round-trips through Molt's XML",
        arguments: RealXcodeMappings.files.indices)
    func loadsChecksAndRoundTrips(_ index: Int) throws {
        let url = RealXcodeMappings.url(index)
        #expect(MappingFile.format(of: url) == .xcode)
        let imported = try XcodeMappingReader().readImport(contentsOf: url)
        let mapping = imported.mapping
        #expect(mapping.sourceFile == url.path + "/xcmapping.xml")
        #expect(try MappingFile.read(contentsOf: url) == mapping)

        let (source, destination) = try RealXcodeMappings.models(for: imported, index: index)
        #expect(source.name == mapping.sourceModelName)
        #expect(destination.name == mapping.destinationModelName)
        let diagnostics = MappingChecker().check(mapping, source: source, destination: destination)
        #expect(diagnostics.errors.isEmpty, "\(diagnostics.map(\.description))")

        let text = MappingWriter().text(of: mapping)
        let (again, problems) = MappingReader().read(Data(text.utf8), file: "converted.xml")
        #expect(problems.isEmpty, "\(problems.map(\.description))")
        #expect(again == mapping)
        let rechecked = MappingChecker().check(try #require(again), source: source, destination: destination)
        #expect(rechecked.map(\.message) == diagnostics.map(\.message))
    }

    @Test("CoreStore's two mappings: a renamed attribute each way, a constant and a policy")
    func coreStore() throws {
        let backward = try XcodeMappingReader().read(contentsOf: RealXcodeMappings.url(0))
        #expect(
            MappingWriter().text(of: backward) == """
                <?xml version="1.0" encoding="UTF-8"?>
                <mapping-model format="1" source-model="Advanced.EvolutionDemo.V2" destination-model="Advanced.EvolutionDemo.V1" property-defaults="same-name">
                    <entity-mapping name="CreatureToCreature" type="transform" source="Creature" destination="Creature">
                        <attribute name="numberOfFlagella" value="$source.numberOfFlippers"/>
                    </entity-mapping>
                </mapping-model>

                """)
        let forward = try XcodeMappingReader().read(contentsOf: RealXcodeMappings.url(1))
        let creature = try #require(forward.entityMappings.first)
        #expect(forward.entityMappings.count == 1)
        #expect(creature.policyName == "Advanced_EvolutionDemo_V2_FromV1MigrationPolicy")
        #expect(
            creature.attributeMappings == [
                PropertyMapping(
                    name: "numberOfFlippers",
                    value: .expression(try ExpressionParser().parse("$source.numberOfFlagella"))),
                PropertyMapping(name: "hasHead", value: .expression(MappingExpression(.constant(.bool(true))))),
            ])
        // hasTail and hasVertebrae have no stored expression and no source attribute: they
        // take the model's default (YES), as Core Data leaves them; inference says the same.
        let (source, destination) = try RealXcodeMappings.models(
            for: try XcodeMappingReader().readImport(contentsOf: RealXcodeMappings.url(1)), index: 1)
        let resolved = MappingResolver(source: source, destination: destination, mappingModel: forward)
            .resolve(creature)
        #expect(
            resolved.attributes.map { "\($0.name) \($0.origin)" } == [
                "dnaCode inferred(sourceProperty: \"dnaCode\")", "hasHead explicit", "hasTail modelDefault",
                "hasVertebrae modelDefault", "numberOfFlippers explicit",
            ])
    }

    @Test("WooCommerce V9 → V10: 17 mappings in mappingnumber order, two new entities, one renamed attribute")
    func wooCommerce() throws {
        let mapping = try XcodeMappingReader().read(contentsOf: RealXcodeMappings.url(2))
        #expect(mapping.sourceModelName == "Model 9")
        #expect(mapping.destinationModelName == "Model 10")
        #expect(
            mapping.entityMappings.map(\.name) == [
                "SiteSettingToSiteSetting", "TopEarnerStatsToTopEarnerStats", "SiteVisitStatsItemToSiteVisitStatsItem",
                "OrderSearchResultsToOrderSearchResults", "AccountToAccount", "TopEarnerStatsItemToTopEarnerStatsItem",
                "SiteVisitStatsToSiteVisitStats", "AddShipmentTracking", "NoteToNote", "SiteToSite",
                "OrderNoteToOrderNote", "OrderToOrder", "OrderItemToOrderItem", "OrderCouponToOrderCoupon",
                "OrderStatsToOrderStats", "AddOrderStatus", "OrderStatsItemToOrderStatsItem",
            ])
        #expect(
            mapping.entityMappings.filter { $0.kind == .add }.compactMap(\.destinationEntityName) == [
                "ShipmentTracking", "OrderStatus",
            ])
        #expect(mapping.entityMappings.filter { $0.kind == .transform }.count == 15)
        let order = try #require(mapping.entityMapping(named: "OrderToOrder"))
        #expect(
            order.attributeMappings == [
                PropertyMapping(name: "statusKey", value: .expression(try ExpressionParser().parse("$source.status")))
            ])
        #expect(mapping.entityMappings.allSatisfy { $0.filter == nil && $0.policyName == nil && $0.userInfo.isEmpty })
        #expect(mapping.entityMappings.flatMap(\.relationshipMappings).isEmpty)
    }
}
