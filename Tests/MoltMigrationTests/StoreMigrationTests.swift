import Foundation
import MoltCore
import MoltMapping
import MoltMigration
import MoltModel
import MoltSQLite
import MoltStore
import MoltTestSupport
import Testing

/// The library's entry point for one step: from the store, the bundle and the mapping files,
/// it finds the source version, plans once, runs, and knows a store already migrated.
@Suite("One step from what a user has (StoreMigration)")
struct StoreMigrationTests {
    let folder = TemporaryDirectory("molt-store-migration")

    func blogStore() throws -> URL {
        try folder.copy(Fixtures.package("MappingModels/Examples/Blog.sqlite"))
    }

    static func blogMapping() throws -> MappingModel {
        try MigrationFixtures.mapping("Blog/Blog-to-Blog2.xml")
    }

    @Test("the source version is the bundle's version matching the store; a second run has nothing to do")
    func findsSourceAndFinishes() throws {
        let store = try blogStore()
        let bundle = try ModelBundle(url: Examples.bundle)
        let migration = StoreMigration(
            store: store, from: .bundle(bundle), to: try bundle.model(named: "Blog 2"),
            mappings: [try Self.blogMapping()])
        let plan = try #require(try migration.plan())
        #expect(plan.route == .objects, "the mapping reads tags to make keywords: \(plan.reason)")
        #expect(plan.passes.count == 1)
        #expect(try migration.chosenSourceModel().model.name == "Blog")
        let report = try migration.run()
        #expect(report.sourceModelName == "Blog")
        #expect(!report.usedEmbeddedSourceModel)
        #expect(report.plan == plan, "the run carries out the plan it showed")
        #expect(
            try MigrationFixtures.dump(store, bundle: Examples.bundle)
                == String(
                    contentsOf: Fixtures.package("MappingModels/Examples/Blog2.json"), encoding: .utf8))
        let again = try migration.run()
        #expect(again.alreadyMigrated)
        #expect(again.plan == nil)
        #expect(try migration.plan() == nil)
    }

    @Test("a mapping file from another version is refused, naming both, and the store is untouched")
    func mappingFromAnotherVersion() throws {
        let store = try blogStore()
        let before = try Data(contentsOf: store)
        let bundle = try ModelBundle(url: Examples.bundle)
        var mapping = try Self.blogMapping()
        mapping.sourceModelName = "Blog 0"
        let migration = StoreMigration(
            store: store, from: .bundle(bundle), to: try bundle.model(named: "Blog 2"), mappings: [mapping])
        let error = try #require(throws: MoltError.self) { try migration.run() }
        #expect(error.code == .missingMappingModel)
        #expect(error.message.contains("\"Blog\""), "\(error.message)")
        #expect(error.message.contains("\"Blog 0\""), "\(error.message)")
        #expect(try Data(contentsOf: store) == before)
    }

    @Test("without mapping models the inferred mapping runs in place when SQL can do it, as planned")
    func inferredInPlace() throws {
        let (source, destination) = try InferenceCases.named("add optional attribute").models()
        let store = folder.path("Library.sqlite")
        _ = try ObjectStore.create(at: store, model: source) { try StoreSeeder().fill($0) }
        let migration = StoreMigration(store: store, from: .model(source), to: destination)
        #expect(try migration.plan()?.route == .inPlace)
        let report = try migration.run()
        #expect(report.inPlace)
        #expect(report.plan?.route == .inPlace)
        #expect(report.sourceModelName == source.name)
    }

    @Test("a store with a trigger: planned object by object, refused unless told to keep or drop it, as asked")
    func triggerFoundByThePlanner() throws {
        let (source, destination) = try InferenceCases.named("add optional attribute").models()
        let store = folder.path("Triggered.sqlite")
        _ = try ObjectStore.create(at: store, model: source) { try StoreSeeder().fill($0) }
        let sqlite = try SQLiteStore(at: store, readOnly: false)
        let table = try #require(try StoreLayout(model: source).entities.first?.table)
        try sqlite.connection.execute(
            "CREATE TRIGGER \"audit\" AFTER UPDATE ON \(SQL.identifier(table)) BEGIN SELECT 1; END")
        sqlite.connection.close()
        let before = try Data(contentsOf: store)
        let refused = try #require(throws: MoltError.self) {
            try StoreMigration(store: store, from: .model(source), to: destination).plan()
        }
        #expect(refused.message.contains("trigger audit"), "\(refused.message)")
        #expect(try Data(contentsOf: store) == before)

        var keep = MigrationOptions()
        keep.unknownContents = .keep
        let plan = try #require(
            try StoreMigration(store: store, from: .model(source), to: destination, options: keep).plan())
        #expect(plan.route == .objects)
        #expect(plan.reason.contains("trigger audit"), "\(plan.reason)")
        #expect(plan.contents.kept.map(\.what) == ["trigger audit"], "\(plan.contents)")
        let report = try StoreMigration(store: store, from: .model(source), to: destination, options: keep).run()
        #expect(report.contents.kept.map(\.what) == ["trigger audit"])
        let migrated = try SQLiteStore(at: store, readOnly: true)
        defer { migrated.connection.close() }
        #expect(
            try migrated.connection.scalar(
                "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name = 'audit'")
                == .integer(1), "the trigger is in the new store")
    }
}
