import Foundation
import MoltCore
import MoltMapping
import MoltMigration
import MoltModel
import MoltStore
import MoltTestSupport
import Testing

/// Xcode mapping models driving real migrations: in an upgrade's folder, and on their own.
@Suite("Migrating with Xcode mapping models")
struct XcodeMappingUpgradeTests {
    let folder = TemporaryDirectory()

    /// `UpgradeFixtures`' V2 → V3 step as Xcode stores it: `fullName` is
    /// `$source.firstName + " " + $source.lastName`; every other property mapping is listed
    /// with no expression (Xcode's default).
    static let twoToThree: String = {
        let fullName = ArchiveBuilder.base64 { archive in
            let first = archive.keyPath("source", "firstName")
            let space = archive.constant(.string(" "))
            let firstSpace = archive.function(operand: nil, selector: "add:to:", arguments: [first, space])
            let last = archive.keyPath("source", "lastName")
            return archive.function(operand: nil, selector: "add:to:", arguments: [firstSpace, last])
        }
        return XcodeMappingXML.document(
            entityMappings: ["z20", "z10"],
            [
                XcodeMappingXML.entityMapping(
                    "z10", number: 1, source: "Person", destination: "Person", attributes: ["z11", "z12"],
                    relationships: ["z13"]),
                XcodeMappingXML.propertyMapping("z11", name: "fullName", owner: "z10", expression: fullName),
                XcodeMappingXML.propertyMapping("z12", name: "email", owner: "z10"),
                XcodeMappingXML.propertyMapping("z13", name: "notes", owner: "z10", relationship: true),
                XcodeMappingXML.entityMapping(
                    "z20", number: 2, source: "Note", destination: "Note", attributes: ["z21"], relationships: ["z22"]),
                XcodeMappingXML.propertyMapping("z21", name: "body", owner: "z20"),
                XcodeMappingXML.propertyMapping("z22", name: "person", owner: "z20", relationship: true),
            ].joined(separator: "\n"), source: "Family/Family.xcdatamodeld/V2.xcdatamodel",
            destination: "Family/Family.xcdatamodeld/V3.xcdatamodel")
    }()

    @Test("upgrade's folder scan reads .xcmappingmodel folders, and a store goes from V1 to V4 through one")
    func upgradeThroughAnXcodeMappingModel() throws {
        let versions = try UpgradeFixtures.versions(in: folder)
        try folder.write(Self.twoToThree, to: "mappings/Family V2 to V3.xcmappingmodel/xcmapping.xml")
        try folder.write("<?xml version=\"1.0\"?>\n<other/>\n", to: "mappings/notes.xml")
        try folder.write("not a mapping", to: "mappings/README.md")
        let files = try UpgradeMappingFile.readFolder(folder.path("mappings"))
        #expect(files.map(\.name) == ["Family V2 to V3.xcmappingmodel"])
        #expect(files.first?.mapping.sourceModelName == "V2")

        let store = try UpgradeFixtures.store(
            "Store.sqlite", at: "V1", seed: UpgradeFixtures.seedV1, versions: versions, in: folder)
        let reference = try UpgradeFixtures.store(
            "Expected.sqlite", at: "V4", seed: UpgradeFixtures.seedV4, versions: versions, in: folder)
        let upgrade = StoreUpgrade(
            store: store, versions: versions, mappingFiles: files, order: .explicit(["V1", "V2", "V3", "V4"]))
        let report = try upgrade.run()
        #expect(report.steps.map(\.step.kind) == [.lightweight, .heavyweight, .lightweight])
        #expect(report.steps.map { $0.step.mappingFile?.name } == [nil, "Family V2 to V3.xcmappingmodel", nil])
        #expect(
            try UpgradeFixtures.dump(store, version: "V4", versions: versions)
                == UpgradeFixtures.dump(reference, version: "V4", versions: versions))
    }

    @Test(
        "CoreStore's V2 → V1 mapping model migrates a store: numberOfFlippers goes back to numberOfFlagella",
        .enabled(if: Fixtures.available, Comment(rawValue: Fixtures.absentMessage)))
    func coreStoreMigration() throws {
        let bundleURL = Fixtures.real("corestore-evolution/Advanced.EvolutionDemo.V1.xcdatamodeld")
        let bundle = try ModelBundle(url: bundleURL)
        let mapping = try MappingFile.read(
            contentsOf: Fixtures.real("corestore-evolution/Advanced.EvolutionDemo.V1.FromV2.xcmappingmodel"))
        let source = try bundle.model(named: try #require(mapping.sourceModelName))
        let destination = try bundle.model(named: try #require(mapping.destinationModelName))
        let seed = """
            {"entities": {"Creature": [
              {"@id": "Creature/1", "dnaCode": 7, "hasHead": true, "hasTail": false, "hasVertebrae": true, "numberOfFlippers": 4},
              {"@id": "Creature/2", "dnaCode": 9, "hasHead": false, "hasTail": true, "hasVertebrae": false, "numberOfFlippers": 0}
            ]}}
            """
        let store = try MigrationFixtures.store("Creatures.sqlite", in: folder, model: source, seed: Data(seed.utf8))
        let report = try HeavyweightMigration(store: store, source: source, destination: destination, mapping: mapping)
            .run()
        #expect(report.mappings.map(\.mapping) == ["CreatureToCreature"])
        let expected = """
            {"entities": {"Creature": [
              {"@id": "Creature/1", "dnaCode": 7, "numberOfFlagella": 4},
              {"@id": "Creature/2", "dnaCode": 9, "numberOfFlagella": 0}
            ]}}
            """
        let reference = try MigrationFixtures.store(
            "Expected.sqlite", in: folder, model: destination, seed: Data(expected.utf8))
        #expect(
            try MigrationFixtures.dump(store, bundle: bundleURL) == MigrationFixtures.dump(reference, bundle: bundleURL)
        )
    }

    @Test(
        "WooCommerce's upgrade plan uses its Xcode mapping model for Model 9 → Model 10",
        .enabled(if: Fixtures.available, Comment(rawValue: Fixtures.absentMessage)))
    func wooCommercePlan() throws {
        try folder.copy(Fixtures.real("woocommerce/WooCommerceModelV9toV10.xcmappingmodel"))
        let versions = try UpgradeVersions(contentsOf: Fixtures.real("woocommerce/WooCommerce.xcdatamodeld"))
        let files = try UpgradeMappingFile.readFolder(folder.url)
        let plan = try UpgradePlanner(versions: versions, mappingFiles: files, order: .byName)
            .plan(from: "Model 8", to: "Model 11")
        #expect(
            plan.steps.map { "\($0.from.name) → \($0.to.name) \($0.kind.rawValue) \($0.mappingFile?.name ?? "-")" } == [
                "Model 8 → Model 9 lightweight -",
                "Model 9 → Model 10 heavyweight WooCommerceModelV9toV10.xcmappingmodel",
                "Model 10 → Model 11 lightweight -",
            ])
    }
}
