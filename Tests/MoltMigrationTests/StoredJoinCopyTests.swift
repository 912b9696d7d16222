import Foundation
import MoltCore
import MoltMapping
@_spi(RouteSwitches) import MoltMigration
import MoltModel
import MoltSQLite
import MoltStore
import MoltTestSupport
import Testing

/// A many-to-many whose two mappings kept every key is copied from the source's join table as
/// stored (`INSERT … SELECT *`, which SQLite copies record by record, indexes too) only when the
/// two tables' columns correspond by position; whatever the source's join table looks like,
/// the links are those the object-by-object pass writes.
@Suite("Join tables copied as stored")
struct StoredJoinCopyTests {
    init() {
        CompiledPolicies.register([KeepsDefaultsTestPolicy.self])
    }

    /// The models, and the inferred mapping with a policy (so the relate pass runs in SQL on
    /// objects made one by one, not as SQL on a copy).
    static func manyToMany() throws -> (ObjectModel, ObjectModel, MappingModel) {
        let (source, destination) = try InferenceCases.named("many-to-many unchanged").models()
        let inferred = try #require(MappingInference.infer(from: source, to: destination).mapping)
        return (source, destination, RelateInSQLTests.withPolicy(inferred, KeepsDefaultsTestPolicy.policyName))
    }

    /// The store's join tables: name and columns in their order.
    static func joinTables(_ store: URL) throws -> [(name: String, columns: [String])] {
        let connection = try SQLiteConnection(path: store.path, mode: .readOnly)
        defer { connection.close() }
        return try connection.rows(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'Z_[0-9]*' ORDER BY name"
        ).compactMap { $0.first?.textValue }.map { name in
            (
                name,
                try connection.rows("SELECT name FROM pragma_table_info(?) ORDER BY cid", [.text(name)])
                    .compactMap { $0.first?.textValue }
            )
        }
    }

    @Test("the join table of kept keys is copied as stored, its index with it, and the links are the objects' own")
    func copiedAsStored() throws {
        let (source, destination, mapping) = try Self.manyToMany()
        let folder = TemporaryDirectory("molt-join-copy")
        let (store, expected) = try RelateInSQLTests.seeded(
            source, migratedObjectByObjectTo: destination, mapping, in: folder)
        let joins = try Self.joinTables(store)
        try #require(joins.count == 1, "the model has one many-to-many")
        let (report, statements) = try RelateInSQLTests.migrateTraced(store, source, destination, mapping)
        #expect(!report.relatedInSQL.isEmpty)
        let copies = statements.filter { $0.contains("SELECT * FROM") && $0.contains(joins[0].name) }
        #expect(copies.count == 1, "the join table was copied as stored")
        #expect(!statements.contains { $0.hasPrefix("DROP INDEX") && $0.contains(joins[0].name) })
        let (made, fresh) = try RelateInSQLTests.indexes(of: store, andOfANewStoreOf: destination, in: folder)
        #expect(made == fresh)
        #expect(try EquivalentRuns.dump(store, destination) == EquivalentRuns.dump(expected, destination))
    }

    /// The source's join table rebuilt with `columns` in that order (names of the original's),
    /// `indexed` keeping its index on the second key; its rows kept.
    static func rebuildJoinTable(
        of store: URL, columnsReversed: Bool, indexed: Bool
    ) throws {
        let join = try #require(try joinTables(store).first)
        let connection = try SQLiteConnection(path: store.path, mode: .readWrite)
        defer { connection.close() }
        let (first, second) = (SQL.identifier(join.columns[0]), SQL.identifier(join.columns[1]))
        let table = SQL.identifier(join.name)
        let order = columnsReversed ? "\(second) INTEGER, \(first) INTEGER" : "\(first) INTEGER, \(second) INTEGER"
        try connection.execute(
            """
            BEGIN;
            ALTER TABLE \(table) RENAME TO molt_old_join;
            CREATE TABLE \(table) (\(order), PRIMARY KEY (\(first), \(second)));
            INSERT INTO \(table) (\(first), \(second)) SELECT \(first), \(second) FROM molt_old_join;
            DROP TABLE molt_old_join;
            COMMIT;
            """)
        if indexed {
            try connection.execute(
                "CREATE INDEX \(SQL.identifier(join.name + "_" + join.columns[1] + "_INDEX")) ON \(table) (\(second), \(first))"
            )
        }
    }

    @Test(
        "a source join table whose columns stand the other way round, or that lacks its index, gives the objects' links",
        arguments: [(true, true), (false, false), (true, false)])
    func otherShapes(reversed: Bool, indexed: Bool) throws {
        let (source, destination, mapping) = try Self.manyToMany()
        let folder = TemporaryDirectory("molt-join-copy")
        let (store, expected) = try RelateInSQLTests.seeded(
            source, migratedObjectByObjectTo: destination, mapping, in: folder
        ) { try Self.rebuildJoinTable(of: $0, columnsReversed: reversed, indexed: indexed) }
        let links = try SQLiteConnection(path: store.path, mode: .readOnly).scalar(
            "SELECT count(*) FROM \(SQL.identifier(try #require(try Self.joinTables(store).first).name))")
        #expect((links?.integerValue ?? 0) > 0, "the seeded store has links: the test checks nothing otherwise")
        let (report, statements) = try RelateInSQLTests.migrateTraced(store, source, destination, mapping)
        #expect(!report.relatedInSQL.isEmpty)
        let copied = statements.contains { $0.contains("SELECT * FROM") }
        #expect(copied == !reversed, "copied as stored only when the columns correspond by position")
        let (made, fresh) = try RelateInSQLTests.indexes(of: store, andOfANewStoreOf: destination, in: folder)
        #expect(made == fresh)
        #expect(try EquivalentRuns.dump(store, destination) == EquivalentRuns.dump(expected, destination))
    }
}
