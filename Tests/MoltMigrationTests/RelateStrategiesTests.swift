import Foundation
import MoltTestSupport
import Testing

@testable @_spi(RouteSwitches) import MoltMigration

/// Keeps the default `createRelationships`, and overrides nothing else.
final class KeepingDefaultsTestPolicy: EntityMigrationPolicy {
    override class var policyName: String { "KeepingDefaultsTestPolicy" }
    required init() {}
}

/// The relate strategies' order and the chains the plan builds from it: one strategy per
/// public name, the last one never declining, and a fallback named in the plan exactly where
/// the strategy chosen may decline at run time.
@Suite("Relate strategies and the plan's chains")
struct RelateStrategiesTests {
    init() {
        CompiledPolicies.register([ReadingDeletedSourceTestPolicy.self, KeepingDefaultsTestPolicy.self])
    }

    @Test("one strategy per name the plan prints; the last takes every mapping and never declines")
    func order() {
        var kinds: [RelatePlan.Strategy] = []
        var declining: [RelatePlan.Strategy] = []
        for type in RelateStrategies.ordered {
            kinds.append(type.kind)
            if type.declinesWhen != nil { declining.append(type.kind) }
        }
        #expect(kinds == RelatePlan.Strategy.allCases, "in the order the plan prefers them")
        #expect(declining == [.inSQL], "only in SQL may decline; the last never does")
    }

    /// The plan of the deleted-source case's mapping (Records and Tags, the Tags' mapping with
    /// `tagPolicy`), with relationships in SQL and in batches on or off.
    static func plans(tagPolicy: String, inSQL: Bool, inBatches: Bool) throws -> [RelatePlan] {
        let source = try InferenceCase.model(DeletedSourceRelateTests.model("V1"), name: "V1")
        let destination = try InferenceCase.model(DeletedSourceRelateTests.model("V2"), name: "V2")
        let mapping = try MigrationFixtures.mapping(
            text: DeletedSourceRelateTests.mapping(tagsFirst: false, tagPolicy: tagPolicy))
        let folder = TemporaryDirectory("molt-relate-chains")
        let store = folder.path("Store.sqlite")
        try DeletedSourceRelateTests.seed(store, model: source)
        var options = MigrationOptions()
        options.allowsSQLOnCopy = false
        options.allowsRelateInSQL = inSQL
        options.allowsRelateInBatches = inBatches
        let plan = try #require(
            try HeavyweightMigration(
                store: store, source: source, destination: destination, mapping: mapping, options: options
            ).plan())
        return plan.passes.flatMap(\.relate)
    }

    @Test(
        "a fallback exactly where the chosen strategy may decline, ending in one that never does",
        arguments: [(true, true), (true, false), (false, true), (false, false)])
    func fallbacks(inSQL: Bool, inBatches: Bool) throws {
        for policy in ["KeepingDefaultsTestPolicy", "ReadingDeletedSourceTestPolicy"] {
            let plans = try Self.plans(tagPolicy: policy, inSQL: inSQL, inBatches: inBatches)
            #expect(plans.map(\.mapping) == ["RecordToRecord", "TagToTag"])
            for plan in plans {
                #expect(!plan.reason.isEmpty)
                let declines = plan.strategy == .inSQL
                #expect(plan.fallbacks.isEmpty == !declines, "\(plan)")
                #expect((plan.fallsBackWhen != nil) == declines, "\(plan)")
                if declines {
                    #expect(plan.fallbacks == [inBatches ? .inBatches : .objectByObject], "\(plan)")
                }
                if !inSQL { #expect(plan.strategy != .inSQL) }
                if !inBatches { #expect(plan.strategy != .inBatches && !plan.fallbacks.contains(.inBatches)) }
                if !inSQL && !inBatches {
                    #expect(plan.strategy == .objectByObject, "\(plan)")
                    let why =
                        plan.reason.contains("switched off") || plan.reason.contains("overrides createRelationships")
                    #expect(why, "\(plan)")
                }
            }
            // A policy that overrides createRelationships is called for each object, whatever
            // the switches.
            let tags = try #require(plans.last)
            if policy == "ReadingDeletedSourceTestPolicy" {
                #expect(tags.strategy == .objectByObject && tags.fallbacks.isEmpty, "\(tags)")
                #expect(tags.reason.contains("overrides createRelationships"), "\(tags)")
            } else if inSQL || inBatches {
                #expect(tags.strategy != .objectByObject, "\(tags)")
            }
        }
    }
}
