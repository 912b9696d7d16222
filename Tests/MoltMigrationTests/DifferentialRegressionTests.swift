import Foundation
import MoltCore
import MoltMapping
@_spi(RouteSwitches) import MoltMigration
import MoltModel
import MoltStore
import MoltTestSupport
import Testing

/// Divergences the differential test found between the routes, each kept as the smallest case
/// it shrank to (seeds 362, 896 and 6560 of its first long runs): every route must give the
/// object-by-object route's store, or its failure.
@Suite("Divergences found by the differential test, kept")
struct DifferentialRegressionTests {
    let folder = TemporaryDirectory("molt-differential-regressions")

    /// Every route: the reference (object by object) and each faster switch on its own.
    static let routes: [(String, MigrationOptions)] = {
        func options(sql: Bool, inSQL: Bool, batches: Bool) -> MigrationOptions {
            var options = MigrationOptions()
            options.allowsSQLOnCopy = sql
            options.allowsRelateInSQL = inSQL
            options.allowsRelateInBatches = batches
            return options
        }
        return [
            ("object by object", options(sql: false, inSQL: false, batches: false)),
            ("relate in batches", options(sql: false, inSQL: false, batches: true)),
            ("relate in SQL", options(sql: false, inSQL: true, batches: true)),
            ("planned", MigrationOptions()),
        ]
    }()

    /// Runs every route on a copy of a store made from `seed` and compares it with the first.
    func compareRoutes(
        source: String, destination: String, seed: String, passes: [String],
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws -> [Result<MigrationReport, any Error>] {
        let v1 = try InferenceCase.model(source, name: "V1")
        let v2 = try InferenceCase.model(destination, name: "V2")
        let store = try MigrationFixtures.store("Store.sqlite", in: folder, model: v1, seed: Data(seed.utf8))
        let mappings =
            try passes.isEmpty
            ? [#require(MappingInference.infer(from: v1, to: v2).mapping)]
            : passes.map { try MigrationFixtures.mapping(text: $0) }
        let runs = EquivalentRuns(
            result: { try EquivalentRuns.dump($0, v2) }, unmigrated: { try EquivalentRuns.dump($0, v1) })
        let reference = Self.routes[0]
        var results: [Result<MigrationReport, any Error>] = []
        for (name, options) in Self.routes.dropFirst() {
            try runs.compare(
                store, in: folder,
                expected: .init(reference.0) {
                    try HeavyweightMigration(
                        store: $0, source: v1, destination: v2, mappings: mappings, options: reference.1
                    ).run()
                },
                actual: .init(name) {
                    try HeavyweightMigration(
                        store: $0, source: v1, destination: v2, mappings: mappings, options: options
                    )
                    .run()
                },
                label: name, sourceLocation: sourceLocation)
            let copy = try folder.copy(store, as: "\(name)-\(UUID().uuidString.prefix(6)).sqlite")
            results.append(
                Result {
                    try HeavyweightMigration(
                        store: copy, source: v1, destination: v2, mappings: mappings, options: options
                    )
                    .run()
                })
        }
        return results
    }

    @Test("a many-to-many made one-to-many: relate in SQL fails as the objects do when an object has two")
    func toManyBecomesToOne() throws {
        let bravo = """
            <entity name="Bravo" representedClassName="Bravo">
                <attribute name="ratio" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
                <relationship name="deltas" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Delta" inverseName="bravos" inverseEntity="Delta"/>
            </entity>
            """
        let results = try compareRoutes(
            source: bravo + """
                <entity name="Delta" representedClassName="Delta">
                    <attribute name="big" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
                    <attribute name="price" optional="YES" attributeType="Decimal" defaultValueString="0"/>
                    <attribute name="count" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
                    <relationship name="bravos" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Bravo" inverseName="deltas" inverseEntity="Bravo"/>
                </entity>
                """,
            destination: bravo + """
                <entity name="Delta" representedClassName="Delta">
                    <relationship name="bravos" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Bravo" inverseName="deltas" inverseEntity="Bravo"/>
                </entity>
                """,
            seed: """
                {"format": "molt-objects", "version": 1, "entities": {
                  "Bravo": [{"@id": "Bravo/1", "ratio": 38.25}, {"@id": "Bravo/2", "ratio": -11.875}],
                  "Delta": [{"@id": "Delta/1", "count": 362000, "price": "-955.25", "bravos": ["Bravo/1", "Bravo/2"]},
                            {"@id": "Delta/2", "big": 464000003248, "count": -353000, "price": "-806.25"}]}}
                """, passes: [])
        for result in results {
            #expect(throws: MoltError.self) { try result.get() }
        }
    }

    @Test("two passes whose mappings have the same number: the second is related, not taken as written")
    func passesShareMappingNumbers() throws {
        let entities = """
            <entity name="Alpha" representedClassName="Alpha">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="next" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Alpha" inverseName="previous" inverseEntity="Alpha"/>
                <relationship name="previous" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Alpha" inverseName="next" inverseEntity="Alpha"/>
            </entity>
            """
        let results = try compareRoutes(
            source: entities.replacingOccurrences(of: #"toMany="YES""#, with: #"maxCount="1""#),
            destination: entities
                + #"<entity name="Juliett" representedClassName="Juliett" parentEntity="Alpha"/>"#,
            seed: """
                {"format": "molt-objects", "version": 1, "entities": {
                  "Alpha": [{"@id": "Alpha/1", "name": "a", "next": "Alpha/1"},
                            {"@id": "Alpha/2", "name": "b", "next": "Alpha/3"}, {"@id": "Alpha/3", "name": "c"}]}}
                """,
            passes: [
                """
                <mapping-model format="1" source-model="V1" destination-model="V2">
                    <entity-mapping name="AlphaToJuliett" type="copy" source="Alpha" destination="Juliett"/>
                </mapping-model>
                """,
                """
                <mapping-model format="1" source-model="V1" destination-model="V2">
                    <entity-mapping name="AlphaToAlpha" type="copy" source="Alpha" destination="Alpha"/>
                </mapping-model>
                """,
            ])
        for result in results {
            let report = try result.get()
            #expect(report.destinationCounts == ["Alpha": 3, "Juliett": 3])
        }
    }

    @Test("a mapping that writes a relationship and its inverse with different images: set in object order")
    func relationshipAndInverseInOneMapping() throws {
        let entities = """
            <entity name="Charlie" representedClassName="Charlie">
                <relationship name="left" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Charlie" inverseName="right" inverseEntity="Charlie"/>
                <relationship name="right" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Charlie" inverseName="left" inverseEntity="Charlie"/>
            </entity>
            <entity name="Delta" representedClassName="Delta" parentEntity="Charlie"/>
            """
        let results = try compareRoutes(
            source: entities, destination: entities,
            seed: """
                {"format": "molt-objects", "version": 1, "entities": {
                  "Charlie": [{"@id": "Charlie/1", "left": ["Charlie/1", "Delta/3"], "right": ["Charlie/1"]},
                              {"@id": "Charlie/2"}],
                  "Delta": [{"@id": "Delta/3", "right": ["Charlie/1"]}]}}
                """,
            passes: [
                """
                <mapping-model format="1" source-model="V1" destination-model="V2">
                    <entity-mapping name="CharlieToCharlie" type="transform" source="Charlie" destination="Charlie">
                        <relationship name="right" value="FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', 'DeltaToDelta', $source.right)"/>
                    </entity-mapping>
                    <entity-mapping name="DeltaToDelta" type="copy" source="Delta" destination="Delta"/>
                </mapping-model>
                """
            ])
        for result in results { _ = try result.get() }
    }
    @Test("a relationship whose inverse another mapping writes with other links: set in mapping order")
    func sidesWrittenByTwoMappingsDisagree() throws {
        let entities = """
            <entity name="Alpha" representedClassName="Alpha">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="charlie" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Charlie" inverseName="alphas" inverseEntity="Charlie"/>
            </entity>
            <entity name="Charlie" representedClassName="Charlie" isAbstract="YES">
                <attribute name="count" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/>
                <relationship name="alphas" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Alpha" inverseName="charlie" inverseEntity="Alpha"/>
            </entity>
            <entity name="Delta" representedClassName="Delta" parentEntity="Alpha"/>
            <entity name="Echo" representedClassName="Echo" parentEntity="Charlie"/>
            """
        let results = try compareRoutes(
            source: entities, destination: entities,
            seed: """
                {"format": "molt-objects", "version": 1, "entities": {
                  "Alpha": [{"@id": "Alpha/1", "name": "a", "charlie": "Echo/3"}],
                  "Delta": [{"@id": "Delta/2", "name": "d", "charlie": "Echo/3"}],
                  "Echo": [{"@id": "Echo/3", "count": 2}]}}
                """,
            passes: [
                """
                <mapping-model format="1" source-model="V1" destination-model="V2">
                    <entity-mapping name="AlphaToAlpha" type="copy" source="Alpha" destination="Alpha"/>
                    <entity-mapping name="DeltaToDelta" type="copy" source="Delta" destination="Delta"/>
                    <entity-mapping name="EchoToEcho" type="transform" source="Echo" destination="Echo">
                        <relationship name="alphas" value="FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', 'AlphaToAlpha', $source.alphas)"/>
                    </entity-mapping>
                </mapping-model>
                """
            ])
        for result in results { _ = try result.get() }
    }
}
