import Foundation
import MoltCore
import MoltMapping
import MoltMigration
import MoltModel
import MoltSQLite
import MoltStore
import MoltTestSupport
import Testing

/// Every inference rule, run on a seeded store three ways: in place, by the heavyweight engine
/// object by object, and by the heavyweight engine's SQL path (a copy of the file migrated with
/// the in-place SQL), all with the same inferred mapping. All must give the same `molt dump`,
/// or fail the same way and leave the store as it was.
@Suite("In-place lightweight migration gives the heavyweight engine's result")
struct InPlaceEquivalenceTests {
    /// Seeds: the default (lists of up to three objects), and one with at most one object per
    /// list, so "to-many to to-one" has a store that migrates.
    static let seeders: [StoreSeeder] = {
        var sparse = StoreSeeder()
        sparse.maximumToMany = 1
        sparse.seed = 7
        return [StoreSeeder(), sparse]
    }()

    /// Cases where the destination puts objects of two source tables in one table, which the
    /// in-place path leaves to the heavyweight engine.
    static let copiedCases: Set<String> = ["entity moved into a hierarchy"]

    @Test(
        "same objects, keys, values, links and orders as a heavyweight migration", arguments: InferenceCases.inferable)
    func sameResult(_ inferenceCase: InferenceCase) throws {
        let (source, destination) = try inferenceCase.models()
        let mapping = try #require(MappingInference.infer(from: source, to: destination).mapping)
        var migrated = 0
        for seeder in Self.seeders {
            let folder = TemporaryDirectory("molt-inplace")
            defer { withExtendedLifetime(folder) {} }
            let original = folder.path("Store.sqlite")
            _ = try ObjectStore.create(at: original, model: source) { try seeder.fill($0) }
            let before = try Self.dump(original, source)
            let heavy = try folder.copy(original, as: "Heavy.sqlite")
            let light = try folder.copy(original, as: "Light.sqlite")
            let bySQL = try folder.copy(original, as: "SQL.sqlite")
            var objectByObject = MigrationOptions()
            objectByObject.allowsSQLCopy = false
            let heavyResult = Result {
                try HeavyweightMigration(
                    store: heavy, source: source, destination: destination, mapping: mapping, options: objectByObject
                ).run()
            }
            let sqlResult = Result {
                try HeavyweightMigration(store: bySQL, source: source, destination: destination, mapping: mapping).run()
            }
            switch (heavyResult, sqlResult) {
            case (.success, .success(let report)):
                #expect(report.setBased == !Self.copiedCases.contains(inferenceCase.name))
                #expect(
                    try Self.dump(bySQL, destination) == Self.dump(heavy, destination),
                    "seed \(seeder.seed): the SQL path differs from object by object")
            case (.failure(let heavyError), .failure(let sqlError)):
                #expect(
                    (heavyError as? MoltError)?.code == (sqlError as? MoltError)?.code, "\(heavyError) / \(sqlError)")
                #expect(try Self.dump(bySQL, source) == before, "a failed SQL-path migration changed the store")
            case (.success, .failure(let error)):
                Issue.record("seed \(seeder.seed): only the SQL path failed: \(error)")
            case (.failure(let error), .success):
                Issue.record("seed \(seeder.seed): only the SQL path succeeded: \(error)")
            }
            let lightResult = Result {
                try LightweightMigration(store: light, source: source, destination: destination, mapping: mapping).run()
            }
            switch (heavyResult, lightResult) {
            case (.success, .success(let report)):
                migrated += 1
                #expect(
                    report.inPlace == !Self.copiedCases.contains(inferenceCase.name),
                    "in place: \(report.inPlace), obstacle: \(report.inPlaceObstacle ?? "none")")
                let expected = try Self.dump(heavy, destination)
                let actual = try Self.dump(light, destination)
                #expect(actual == expected, "seed \(seeder.seed): in place differs from heavyweight")
                if actual != expected { try Self.describeDifference(expected, actual) }
            case (.failure(let heavyError), .failure(let lightError)):
                #expect(
                    (heavyError as? MoltError)?.code == (lightError as? MoltError)?.code,
                    "\(heavyError) / \(lightError)")
                #expect(try Self.dump(light, source) == before, "a failed in-place migration changed the store")
            case (.success, .failure(let error)):
                Issue.record("seed \(seeder.seed): only the in-place migration failed: \(error)")
            case (.failure(let error), .success):
                Issue.record("seed \(seeder.seed): only the heavyweight migration failed: \(error)")
            }
        }
        #expect(migrated > 0, "no seed migrated")
    }

    static func dump(_ url: URL, _ model: ObjectModel) throws -> String {
        try ObjectsJSONExporter().exportString(ObjectStore(store: SQLiteStore(at: url), model: model))
    }

    /// Records the first differing lines, to make a failure readable.
    static func describeDifference(_ expected: String, _ actual: String) throws {
        let a = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let b = actual.split(separator: "\n", omittingEmptySubsequences: false)
        for index in 0..<max(a.count, b.count)
        where (index < a.count ? a[index] : "") != (index < b.count ? b[index] : "") {
            let lines = a[max(0, index - 6)..<min(a.count, index + 3)].joined(separator: "\n")
            let other = b[max(0, index - 6)..<min(b.count, index + 3)].joined(separator: "\n")
            Issue.record("first difference at line \(index + 1):\nheavyweight:\n\(lines)\nin place:\n\(other)")
            return
        }
    }
}
