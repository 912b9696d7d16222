import Foundation
import MoltCore
import MoltMigration
import MoltModel
import MoltStore
import MoltTestSupport
import Testing

@Suite("Upgrades from a store's embedded model")
struct EmbeddedSourceUpgradeTests {
    let folder = TemporaryDirectory()
    static let emptySeed = Data(#"{"entities": {}, "format": "molt-objects", "version": 1}"#.utf8)

    /// A store at `version` of the Contacts example carrying that version as its embedded model,
    /// and the upgrade versions without it (only `given`).
    func setUp(at version: String, given: [String]) throws -> (store: URL, versions: UpgradeVersions) {
        let model = try MigrationFixtures.contacts(version)
        let url = try MigrationFixtures.store("Store.sqlite", in: folder, model: model, seed: Self.emptySeed)
        try ModelCacheSupport.setModelCache([ModelCacheSupport.blob(for: model)], in: url)
        let versions = try UpgradeVersions(
            models: try given.map { try MigrationFixtures.contacts($0) }, currentVersionName: given.last)
        return (url, versions)
    }

    @Test("without the option a store at no given version fails with 134130; with it, one inferred step")
    func upgrade() throws {
        let (store, versions) = try setUp(at: "Contacts 3", given: ["Contacts 4"])
        let refused = try #require(throws: MoltError.self) {
            try StoreUpgrade(store: store, versions: versions, mappingFiles: []).plan()
        }
        #expect(refused.code == .missingSourceModel)

        let upgrade = StoreUpgrade(store: store, versions: versions, mappingFiles: [])
        upgrade.allowsEmbeddedSourceModel = true
        let plan = try upgrade.plan()
        #expect(plan.usesEmbeddedSourceModel)
        #expect(
            plan.lines == [
                "No version given matches the store: using the store's embedded model, whose hashes match the store.",
                "The store is at embedded model; 1 step to Contacts 4 (version order: not needed: one inferred step from the store's embedded model):",
                "  1. embedded model → Contacts 4: lightweight",
                "       Route: in place (the inferred mapping changes tables SQL rewrites in one transaction)",
                "       Store contents besides the objects:",
                "         rewritten: the model cache (Z_MODELCACHE) (now the new version's model, compiled as Core Data keeps it)",
            ])
        let report = try upgrade.run()
        #expect(report.usedEmbeddedSourceModel)
        #expect(report.storeVersion == "embedded model")
        // The cache held the old model; it holds the new one now, whose hashes are the store's.
        #expect(
            report.steps.first?.migration.contents.rewritten.map(\.what) == ["the model cache (Z_MODELCACHE)"],
            "\(String(describing: report.steps.first?.migration.contents))")
        let migrated = try SQLiteStore(at: store, readOnly: true)
        defer { migrated.connection.close() }
        let embedded = try #require(try migrated.embeddedModel())
        #expect(embedded.matchesStore)
        #expect(
            try embedded.model.entityVersionHashes()
                == (try MigrationFixtures.contacts("Contacts 4").entityVersionHashes()))
        #expect(report.steps.count == 1)
        let after = try SQLiteStore(at: store)
        #expect(
            after.metadata.entityVersionHashes == (try MigrationFixtures.contacts("Contacts 4").entityVersionHashes()))
    }

    @Test("a dry run keeps the option and changes nothing; a step that does not infer is 134140")
    func dryRunAndImpossible() throws {
        let (store, versions) = try setUp(at: "Contacts 3", given: ["Contacts 4"])
        var options = MigrationOptions()
        options.dryRun = true
        let dry = StoreUpgrade(store: store, versions: versions, mappingFiles: [], options: options)
        dry.allowsEmbeddedSourceModel = true
        let before = try Data(contentsOf: store)
        #expect(try dry.run().dryRun)
        #expect(try Data(contentsOf: store) == before)

        let other = TemporaryDirectory()
        let bundle = try ModelBundle(url: Examples.bundle)
        let blog = try bundle.model(named: "Blog")
        let url = try MigrationFixtures.store("Old.sqlite", in: other, model: blog, seed: Self.emptySeed)
        try ModelCacheSupport.setModelCache([ModelCacheSupport.blob(for: blog)], in: url)
        let upgrade = StoreUpgrade(
            store: url,
            versions: try UpgradeVersions(models: [try bundle.model(named: "Blog 2")], currentVersionName: "Blog 2"),
            mappingFiles: [])
        upgrade.allowsEmbeddedSourceModel = true
        let error = try #require(throws: MoltError.self) { try upgrade.plan() }
        #expect(error.code == .missingMappingModel)
        #expect(error.message.hasPrefix("the store's embedded model cannot be migrated to Blog 2 by inference: "))
    }
}
