import Foundation
import MoltCore
import MoltMapping
import MoltModel
import MoltTestSupport
import Testing

/// WooCommerce's 117 model versions, read once for the whole suite (a few seconds).
enum WooCommerceVersions {
    struct LoadFailure: Error, CustomStringConvertible {
        var description: String
    }

    static let models: Result<[ObjectModel], LoadFailure> = Result {
        try ModelBundle(url: Fixtures.real("woocommerce/WooCommerce.xcdatamodeld")).allModels()
    }.mapError { LoadFailure(description: "\(($0 as? MoltError)?.description ?? "\($0)")") }

    /// Each pair of consecutive versions, in display order, with what inference makes of it.
    static let pairs: Result<[(old: ObjectModel, new: ObjectModel, result: InferenceResult)], LoadFailure> = models.map
    {
        versions in
        zip(versions, versions.dropFirst()).map { old, new in (old, new, MappingInference.infer(from: old, to: new)) }
    }
}

@Suite(
    "Inferring WooCommerce's consecutive model versions",
    .enabled(if: Fixtures.available, Comment(rawValue: Fixtures.absentMessage)))
struct WooCommerceInferenceTests {
    @Test("113 of the 116 consecutive pairs infer; the three that do not are 9 → 10, 31 → 32 and 32 → 33")
    func counts() throws {
        let versions = try WooCommerceVersions.models.get()
        #expect(versions.map(\.name) == ["Model"] + (2...117).map { "Model \($0)" })
        let pairs = try WooCommerceVersions.pairs.get()
        #expect(pairs.count == 116)
        #expect(pairs.filter { $0.result.mapping != nil }.count == 113)
        let refused = pairs.filter { $0.result.mapping == nil }.map { "\($0.old.name ?? "?") → \($0.new.name ?? "?")" }
        #expect(refused == ["Model 9 → Model 10", "Model 31 → Model 32", "Model 32 → Model 33"])
    }

    @Test("the three refusals say which entity and property, and why")
    func refusals() throws {
        let pairs = try WooCommerceVersions.pairs.get()
        func reasons(_ old: String) -> [InferenceReason] {
            pairs.first { $0.old.name == old }?.result.reasons ?? []
        }
        // Order.status became statusKey without a renaming identifier: a new non-optional
        // attribute with no default (the project shipped a mapping model for this step).
        let status = reasons("Model 9")
        #expect(status.map { [$0.entity, $0.property] } == [["Order", "statusKey"]])
        #expect(status.first?.message == "the new attribute is not optional and has no default value")
        let attributes = reasons("Model 31")
        #expect(attributes.map { [$0.entity, $0.property] } == [["ProductVariation", "attributes"]])
        #expect(
            attributes.first?.message.contains("now leads to GenericAttribute, which Attribute objects do not become")
                == true)
        let date = reasons("Model 32")
        #expect(date.map { [$0.entity, $0.property] } == [["Product", "date"]])
        #expect(date.first?.message == "the new attribute is not optional and has no default value")
    }

    @Test("with a renaming identifier on Order.statusKey, 9 → 10 infers exactly what the shipped mapping says")
    func statusRename() throws {
        // The project's WooCommerceModelV9toV10.xcmappingmodel sets one value that is not the
        // default: Order.statusKey from $source.status. Giving statusKey the renaming
        // identifier "status" lets inference find the same value, and the rest is inferred.
        let models = try WooCommerceVersions.models.get()
        let old = try #require(models.first { $0.name == "Model 9" })
        let contents = Fixtures.real("woocommerce/WooCommerce.xcdatamodeld/Model 10.xcdatamodel/contents")
        let text = try String(contentsOf: contents, encoding: .utf8)
        #expect(text.contains(#"<attribute name="statusKey" attributeType="String""#))
        let renamed = text.replacingOccurrences(
            of: #"<attribute name="statusKey" "#, with: #"<attribute name="statusKey" elementID="status" "#)
        let new = try XcodeModelReader().read(Data(renamed.utf8), file: contents.path, name: "Model 10")
        let mapping = try #require(MappingInference.infer(from: old, to: new).mapping)
        let order = try #require(mapping.entityMapping(named: "Order"))
        #expect(order.attributeMappings.map(\.name) == ["statusKey"])
        #expect(
            order.attributeMapping(named: "statusKey")?.value
                == .expression(try ExpressionParser().parse("$source.status")))
    }

    @Test("every inferred mapping checks without errors against its two versions and round-trips")
    func inferredMappingsCheck() throws {
        for (old, new, result) in try WooCommerceVersions.pairs.get() {
            guard let mapping = result.mapping else { continue }
            let label = "\(old.name ?? "?") → \(new.name ?? "?")"
            let errors = MappingChecker(knownPolicies: []).check(mapping, source: old, destination: new).errors
            #expect(errors.isEmpty, "\(label): \(errors.map(\.description))")
            let (read, problems) = MappingReader().read(Data(MappingWriter().text(of: mapping).utf8), file: label)
            #expect(problems.isEmpty && read == mapping, "\(label): \(problems.map(\.description))")
        }
    }

    @Test("Integer 64 → Double (OrderGiftCard.amount, Model 87 → 88) is inferred, as Core Data infers it")
    func giftCardAmount() throws {
        let pair = try #require(try WooCommerceVersions.pairs.get().first { $0.old.name == "Model 87" })
        let before = try #require(pair.old.entity(named: "OrderGiftCard")?.attribute(named: "amount"))
        let after = try #require(pair.new.entity(named: "OrderGiftCard")?.attribute(named: "amount"))
        #expect(before.type == .integer64 && after.type == .double)
        #expect(pair.result.mapping != nil, "\(pair.result.reasons.map(\.description))")
    }
}
