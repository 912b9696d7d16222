import Foundation
import MoltCore
import MoltMapping
@_spi(RouteSwitches) import MoltMigration
import MoltModel
import MoltSQLite
import MoltStore
import MoltTestSupport
import Synchronization
import Testing

/// A policy that changes nothing: its mappings leave the SQL copy, so their objects are made one
/// by one, and their relationships may be set in SQL (the policy keeps the default).
final class KeepsDefaultsTestPolicy: EntityMigrationPolicy {
    override class var policyName: String { "KeepsDefaultsTestPolicy" }
    required init() {}
}

/// A policy with its own `createRelationships`, which does the default work: the relate pass
/// must call it for every object. Calls are counted per policy name, so suites running at the
/// same time each count their own (one subclass each).
class CountingRelationshipsPolicy: EntityMigrationPolicy {
    override class var policyName: String { "CountingRelationshipsPolicy" }
    nonisolated(unsafe) private static var counts: [String: Int] = [:]
    private static let lock = NSLock()
    required init() {}

    /// Calls of `policy`'s `createRelationships` since its last reset.
    static func calls(of policy: CountingRelationshipsPolicy.Type) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return counts[policy.policyName] ?? 0
    }

    static func reset(_ policy: CountingRelationshipsPolicy.Type) {
        lock.lock()
        counts[policy.policyName] = 0
        lock.unlock()
    }

    override func createRelationships(
        forDestination destination: DestinationObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        Self.lock.lock()
        Self.counts[type(of: self).policyName, default: 0] += 1
        Self.lock.unlock()
        try manager.createDefaultRelationships(for: destination)
    }
}

final class OwnRelationshipsTestPolicy: CountingRelationshipsPolicy {
    override class var policyName: String { "OwnRelationshipsTestPolicy" }
}

/// The relate pass in SQL gives the store the object-by-object pass gives, for every inference
/// rule on seeded stores; mappings it cannot do exactly are left to the objects.
@Suite("Relationships set in SQL")
struct RelateInSQLTests {
    init() {
        CompiledPolicies.register([KeepsDefaultsTestPolicy.self, OwnRelationshipsTestPolicy.self])
    }

    /// `mapping` with `policy` on every mapping that reads source objects.
    static func withPolicy(_ mapping: MappingModel, _ policy: String) -> MappingModel {
        var changed = mapping
        for index in changed.entityMappings.indices
        where [.copy, .transform, .custom].contains(changed.entityMappings[index].kind) {
            changed.entityMappings[index].policyName = policy
        }
        return changed
    }

    /// A seeded store of `source` in `folder`, and a copy of it migrated to `destination` with
    /// `mapping` object by object (no SQL copy, no relationships in SQL): what the SQL relate
    /// pass must give. `prepare` changes the seeded store first.
    static func seeded(
        _ source: ObjectModel, migratedObjectByObjectTo destination: ObjectModel, _ mapping: MappingModel,
        in folder: TemporaryDirectory, prepare: (URL) throws -> Void = { _ in }
    ) throws -> (store: URL, expected: URL) {
        let store = folder.path("Store.sqlite")
        _ = try ObjectStore.create(at: store, model: source) { try StoreSeeder().fill($0) }
        try prepare(store)
        let expected = try folder.copy(store, as: "Expected.sqlite")
        var objectByObject = MigrationOptions()
        objectByObject.allowsSQLOnCopy = false
        objectByObject.allowsRelateInSQL = false
        try HeavyweightMigration(
            store: expected, source: source, destination: destination, mapping: mapping, options: objectByObject
        ).run()
        return (store, expected)
    }

    /// Runs the migration of `store` with its SQL traced; the report and the statements run.
    static func migrateTraced(
        _ store: URL, _ source: ObjectModel, _ destination: ObjectModel, _ mapping: MappingModel
    ) throws -> (MigrationReport, [String]) {
        let statements = Mutex<[String]>([])
        var traced = MigrationOptions()
        traced.sqlTrace = { sql in statements.withLock { $0.append(sql) } }
        let report = try HeavyweightMigration(
            store: store, source: source, destination: destination, mapping: mapping, options: traced
        ).run()
        return (report, statements.withLock { $0 })
    }

    @Test("same store as object by object, for every inference rule", arguments: InferenceCases.inferable)
    func sameResult(_ inferenceCase: InferenceCase) throws {
        let (source, destination) = try inferenceCase.models()
        let inferred = try #require(MappingInference.infer(from: source, to: destination).mapping)
        let mapping = Self.withPolicy(inferred, KeepsDefaultsTestPolicy.policyName)
        let runs = EquivalentRuns(
            result: { try EquivalentRuns.dump($0, destination) }, unmigrated: { try EquivalentRuns.dump($0, source) })
        for seeder in StoreSeeder.twoShapes {
            let folder = TemporaryDirectory("molt-relate")
            defer { withExtendedLifetime(folder) {} }
            let original = folder.path("Store.sqlite")
            _ = try ObjectStore.create(at: original, model: source) { try seeder.fill($0) }
            var objectByObject = MigrationOptions()
            objectByObject.allowsSQLOnCopy = false
            objectByObject.allowsRelateInSQL = false
            let reports = try runs.compare(
                original, in: folder,
                expected: .init("object by object") {
                    try HeavyweightMigration(
                        store: $0, source: source, destination: destination, mapping: mapping, options: objectByObject
                    ).run()
                },
                actual: .init("relate in SQL") {
                    try HeavyweightMigration(store: $0, source: source, destination: destination, mapping: mapping)
                        .run()
                },
                label: "seed \(seeder.seed)")
            if let reports {
                #expect(reports.expected.relatedInSQL.isEmpty)
                #expect(reports.actual.route != .sqlOnCopy)
            }
        }
    }

    @Test("a model with to-ones, to-manys and a many-to-many is related in SQL")
    func relatedInSQL() throws {
        let (source, destination) = try InferenceCases.named("many-to-many unchanged").models()
        let inferred = try #require(MappingInference.infer(from: source, to: destination).mapping)
        let mapping = Self.withPolicy(inferred, KeepsDefaultsTestPolicy.policyName)
        let folder = TemporaryDirectory("molt-relate")
        let store = folder.path("Store.sqlite")
        _ = try ObjectStore.create(at: store, model: source) { try StoreSeeder().fill($0) }
        let report = try HeavyweightMigration(store: store, source: source, destination: destination, mapping: mapping)
            .run()
        #expect(!report.relatedInSQL.isEmpty, "no mapping was related in SQL")
        #expect(Set(report.relatedInSQL).isSubset(of: Set(mapping.entityMappings.map(\.name))))
    }

    @Test("objects a filter leaves out lose their links, as object by object")
    func filtered() throws {
        let (source, destination) = try InferenceCases.named("many-to-many unchanged").models()
        var mapping = try #require(MappingInference.infer(from: source, to: destination).mapping)
        for index in mapping.entityMappings.indices {
            switch mapping.entityMappings[index].sourceEntityName {
            case "Tag": mapping.entityMappings[index].filter = MappingExpression(.falsePredicate)
            case "Author": mapping.entityMappings[index].filter = MappingExpression(.truePredicate)
            default: break
            }
        }
        let folder = TemporaryDirectory("molt-relate")
        let (store, expected) = try Self.seeded(source, migratedObjectByObjectTo: destination, mapping, in: folder)
        let report = try HeavyweightMigration(store: store, source: source, destination: destination, mapping: mapping)
            .run()
        #expect(report.relatedInSQL.contains("Book"), "\(report.relatedInSQL)")
        #expect(report.destinationCounts["Tag"] == 0)
        #expect(
            try EquivalentRuns.dump(store, destination) == EquivalentRuns.dump(expected, destination))
    }

    @Test("a policy with its own createRelationships is called for every object, and nothing is set in SQL")
    func ownRelationships() throws {
        let (source, destination) = try InferenceCases.named("many-to-many unchanged").models()
        let inferred = try #require(MappingInference.infer(from: source, to: destination).mapping)
        let folder = TemporaryDirectory("molt-relate")
        let (store, expected) = try Self.seeded(
            source, migratedObjectByObjectTo: destination,
            Self.withPolicy(inferred, KeepsDefaultsTestPolicy.policyName),
            in: folder)
        CountingRelationshipsPolicy.reset(OwnRelationshipsTestPolicy.self)
        let report = try HeavyweightMigration(
            store: store, source: source, destination: destination,
            mapping: Self.withPolicy(inferred, OwnRelationshipsTestPolicy.policyName)
        ).run()
        #expect(report.relatedInSQL.isEmpty)
        let calls = CountingRelationshipsPolicy.calls(of: OwnRelationshipsTestPolicy.self)
        #expect(calls == report.destinationCounts.values.reduce(0, +))
        #expect(
            try EquivalentRuns.dump(store, destination) == EquivalentRuns.dump(expected, destination))
    }

    /// Writing a to-one's links from the join drops the indexes on its column and makes them
    /// again (``IndexesSetAside``): the store's indexes afterwards must be exactly those of a
    /// new store of the model, whole, and the links those of the object-by-object pass.
    /// The indexes of `store` and of a new store of `model` (name, table and the statement
    /// SQLite keeps, which names no schema), each file checked whole by SQLite first.
    static func indexes(
        of store: URL, andOfANewStoreOf model: ObjectModel, in folder: TemporaryDirectory
    ) throws -> (made: [[String]], fresh: [[String]]) {
        func indexes(_ store: URL) throws -> [[String]] {
            let connection = try SQLiteConnection(path: store.path, mode: .readOnly)
            #expect(try connection.scalar("PRAGMA integrity_check")?.textValue == "ok")
            return try connection.rows(
                "SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name"
            ).map { $0.map { $0.textValue ?? "" } }
        }
        let fresh = folder.path("Fresh.sqlite")
        _ = try ObjectStore.create(at: fresh, model: model) { _ in }
        return (try indexes(store), try indexes(fresh))
    }

    @Test("indexes set aside while links are written are made again, the same")
    func indexesMadeAgain() throws {
        let (source, destination) = try InferenceCases.named("many-to-many unchanged").models()
        let inferred = try #require(MappingInference.infer(from: source, to: destination).mapping)
        let mapping = Self.withPolicy(inferred, KeepsDefaultsTestPolicy.policyName)
        let folder = TemporaryDirectory("molt-relate")
        let (store, expected) = try Self.seeded(source, migratedObjectByObjectTo: destination, mapping, in: folder)
        let (report, statements) = try Self.migrateTraced(store, source, destination, mapping)
        #expect(!report.relatedInSQL.isEmpty)
        let dropped = statements.filter { $0.hasPrefix("DROP INDEX") }
        #expect(!dropped.isEmpty, "no index was set aside: the test checks nothing")
        let (made, fresh) = try Self.indexes(of: store, andOfANewStoreOf: destination, in: folder)
        #expect(made == fresh)
        #expect(try EquivalentRuns.dump(store, destination) == EquivalentRuns.dump(expected, destination))
    }
}
