import Foundation
import MoltSQLite
import MoltTestSupport
import Testing

@testable import MoltMigration

/// The association table answers from memory while a mapping's objects keep their keys, and
/// gives the same answers as its SQL table whatever breaks that form.
@Suite("The association table")
struct AssociationTableTests {
    typealias Key = AssociationTable.Key

    static func table(in folder: TemporaryDirectory) throws -> (AssociationTable, SQLiteConnection) {
        let connection = try SQLiteConnection(path: folder.path("Associations.sqlite").path, mode: .create)
        return (try AssociationTable(connection: connection), connection)
    }

    static func count(_ connection: SQLiteConnection) throws -> Int64 {
        try connection.scalar("SELECT COUNT(*) FROM molt_associations")?.integerValue ?? -1
    }

    @Test("kept keys are answered in memory, and written to the table when SQL reads it")
    func keptKeys() throws {
        let folder = TemporaryDirectory("molt-associations")
        let (table, connection) = try Self.table(in: folder)
        for key in Int64(1)...300 {
            try table.associate(
                mapping: 1, source: Key(root: 1, primaryKey: key, entity: 2),
                destination: Key(root: 3, primaryKey: key, entity: 4))
        }
        #expect(try Self.count(connection) == 0)
        #expect(try table.destinationCount(of: 1) == 300)
        #expect(try table.sqlTable() == "temp.molt_associations")
        #expect(try Self.count(connection) == 300)
        // Gone from the table, the answer still comes: it was not asked of SQL.
        try connection.execute("DELETE FROM molt_associations")
        #expect(
            try table.destinations(of: Key(root: 1, primaryKey: 7, entity: 2), mapping: 1)
                == [Key(root: 3, primaryKey: 7, entity: 4)])
        #expect(try table.destinations(of: Key(root: 1, primaryKey: 301, entity: 2), mapping: 1).isEmpty)
        #expect(try table.destinations(of: Key(root: 1, primaryKey: 100_000, entity: 2), mapping: 1).isEmpty)
    }

    @Test("what the kept form says of a mapping (count, entities) is what its rows in the table say")
    func keptFacts() throws {
        let folder = TemporaryDirectory("molt-associations")
        let (table, connection) = try Self.table(in: folder)
        for key in Int64(1)...40 {
            // 1: one source entity; 2: two (sub-entities of one hierarchy); both keep keys.
            try table.associate(
                mapping: 1, source: Key(root: 1, primaryKey: key, entity: 1),
                destination: Key(root: 2, primaryKey: key, entity: 2))
            try table.associate(
                mapping: 2, source: Key(root: 1, primaryKey: key, entity: key.isMultiple(of: 3) ? 5 : 1),
                destination: Key(root: 2, primaryKey: key, entity: 2))
        }
        // The same pair again is one association.
        try table.associate(
            mapping: 1, source: Key(root: 1, primaryKey: 7, entity: 1),
            destination: Key(root: 2, primaryKey: 7, entity: 2))
        try table.removeDestinations([Key(root: 2, primaryKey: 9, entity: 2)], mappings: 2)
        try table.removeDestinations([Key(root: 2, primaryKey: 9, entity: 2)], mappings: 2)
        _ = try table.sqlTable()
        for mapping in [1, 2] {
            let kept = try #require(table.keptIndex(of: mapping))
            let rows = try connection.scalar("SELECT count(*) FROM molt_associations WHERE mapping = \(mapping)")
            #expect(rows?.integerValue == Int64(kept.count), "mapping \(mapping)")
            #expect(try table.destinationCount(of: mapping) == 39)
            let sourceEntities = try connection.rows(
                "SELECT DISTINCT source_entity FROM molt_associations WHERE mapping = \(mapping)")
            #expect(kept.sourceEntity == (sourceEntities.count == 1 ? Int(sourceEntities[0][0].integerValue!) : nil))
        }
        #expect(table.keptIndex(of: 1)?.sourceEntity == 1)
        #expect(table.keptIndex(of: 2)?.sourceEntity == nil)
    }

    @Test("a pair that changes key, a second destination or a deletion gives the table's answers")
    func brokenForm() throws {
        let folder = TemporaryDirectory("molt-associations")
        let (table, _) = try Self.table(in: folder)
        for key in Int64(1)...10 {
            try table.associate(
                mapping: 1, source: Key(root: 1, primaryKey: key, entity: 1),
                destination: Key(root: 2, primaryKey: key, entity: 2))
            try table.associate(
                mapping: 2, source: Key(root: 1, primaryKey: key, entity: 1),
                destination: Key(root: 2, primaryKey: key, entity: 2))
        }
        // Mapping 1 makes a second object from source 3, with another key: the form is broken.
        try table.associate(
            mapping: 1, source: Key(root: 1, primaryKey: 3, entity: 1),
            destination: Key(root: 2, primaryKey: 50, entity: 2))
        #expect(
            try table.destinations(of: Key(root: 1, primaryKey: 3, entity: 1), mapping: 1)
                == [Key(root: 2, primaryKey: 3, entity: 2), Key(root: 2, primaryKey: 50, entity: 2)])
        #expect(
            try table.destinations(of: Key(root: 1, primaryKey: 4, entity: 1), mapping: 1)
                == [Key(root: 2, primaryKey: 4, entity: 2)])
        // Any mapping: both mappings' objects, in the order they were associated.
        #expect(
            try table.destinations(of: Key(root: 1, primaryKey: 3, entity: 1), mapping: nil)
                == [
                    Key(root: 2, primaryKey: 3, entity: 2), Key(root: 2, primaryKey: 3, entity: 2),
                    Key(root: 2, primaryKey: 50, entity: 2),
                ])
        // A deleted destination leaves mapping 2's kept form too.
        try table.removeDestinations([Key(root: 2, primaryKey: 5, entity: 2)], mappings: 2)
        #expect(try table.destinations(of: Key(root: 1, primaryKey: 5, entity: 1), mapping: 2).isEmpty)
        #expect(try table.destinations(of: Key(root: 1, primaryKey: 5, entity: 1), mapping: 1).isEmpty)
        #expect(
            try table.destinations(of: Key(root: 1, primaryKey: 6, entity: 1), mapping: 2)
                == [Key(root: 2, primaryKey: 6, entity: 2)])
        // Another hierarchy's object is asked of the table.
        #expect(try table.destinations(of: Key(root: 9, primaryKey: 6, entity: 9), mapping: 2).isEmpty)
        // A new pass starts empty.
        try table.removeAll()
        #expect(try table.destinations(of: Key(root: 1, primaryKey: 6, entity: 1), mapping: 2).isEmpty)
    }
}
