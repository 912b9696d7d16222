import Foundation
import MoltCore
import MoltMapping
@_spi(RouteSwitches) import MoltMigration
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
    /// Cases where the destination puts objects of two source tables in one table, which the
    /// in-place path leaves to the heavyweight engine.
    static let copiedCases: Set<String> = ["entity moved into a hierarchy"]

    @Test(
        "same objects, keys, values, links and orders as a heavyweight migration", arguments: InferenceCases.inferable)
    func sameResult(_ inferenceCase: InferenceCase) throws {
        let (source, destination) = try inferenceCase.models()
        let mapping = try #require(MappingInference.infer(from: source, to: destination).mapping)
        var migrated = 0
        let runs = EquivalentRuns(
            result: { try EquivalentRuns.dump($0, destination) }, unmigrated: { try EquivalentRuns.dump($0, source) })
        var objectByObject = MigrationOptions()
        objectByObject.allowsSQLOnCopy = false
        objectByObject.allowsRelateInSQL = false
        let heavyweight = EquivalentRuns.Way("heavyweight, object by object") {
            try HeavyweightMigration(
                store: $0, source: source, destination: destination, mapping: mapping, options: objectByObject
            ).run()
        }
        let copied = Self.copiedCases.contains(inferenceCase.name)
        for seeder in StoreSeeder.twoShapes {
            let folder = TemporaryDirectory("molt-inplace")
            defer { withExtendedLifetime(folder) {} }
            let original = folder.path("Store.sqlite")
            _ = try ObjectStore.create(at: original, model: source) { try seeder.fill($0) }
            let bySQL = try runs.compare(
                original, in: folder, expected: heavyweight,
                actual: .init("heavyweight, SQL path") {
                    try HeavyweightMigration(store: $0, source: source, destination: destination, mapping: mapping)
                        .run()
                },
                label: "seed \(seeder.seed)")
            if let bySQL { #expect((bySQL.actual.route == .sqlOnCopy) == !copied) }
            let inPlace = try runs.compare(
                original, in: folder, expected: heavyweight,
                actual: .init("lightweight, in place") {
                    try LightweightMigration(store: $0, source: source, destination: destination, mapping: mapping)
                        .run()
                },
                label: "seed \(seeder.seed)")
            if let report = inPlace?.actual {
                migrated += 1
                #expect(
                    report.inPlace == !copied,
                    "in place: \(report.inPlace), obstacle: \(report.inPlaceObstacle ?? "none")")
            }
        }
        #expect(migrated > 0, "no seed migrated")
    }
}
