import Foundation
import MoltSQLite
import MoltTestSupport
import Testing

@testable import MoltMigration

/// Rows of kept mappings wait in memory (``AssociationOrder``): every answer, and the table SQL
/// finally reads, must be those of a table that wrote each row when it was made. Random runs of
/// associations (kept and broken forms, several mappings interleaved, the same pair again,
/// deletions, SQL reading the table midway, a new pass) are played on both and compared.
@Suite("Associations waiting in memory")
struct AssociationOrderTests {
    typealias Key = AssociationTable.Key

    /// The two tables, one letting kept rows wait and one writing every row at once.
    struct Pair {
        let waiting: AssociationTable
        let written: AssociationTable
        let waitingConnection: SQLiteConnection
        let writtenConnection: SQLiteConnection

        init(in folder: TemporaryDirectory) throws {
            waitingConnection = try SQLiteConnection(path: folder.path("Waiting.sqlite").path, mode: .create)
            writtenConnection = try SQLiteConnection(path: folder.path("Written.sqlite").path, mode: .create)
            waiting = try AssociationTable(connection: waitingConnection)
            written = try AssociationTable(connection: writtenConnection, keepsRowsWaiting: false)
        }
    }

    static let mappings = 1...4
    static let keys = Int64(1)...24

    /// One random association of `mapping`: mostly the kept form (the source's key, one
    /// hierarchy and entity each side), sometimes another key, hierarchy or source entity.
    static func pair(_ mapping: Int, _ generator: inout SplitMix) -> (Key, Key) {
        let key = Int64.random(in: keys, using: &generator)
        let source = Key(
            root: 1, primaryKey: key, entity: Int.random(in: 0..<30, using: &generator) == 0 ? 7 : mapping)
        var destination = Key(root: 2, primaryKey: key, entity: 10 + mapping)
        switch Int.random(in: 0..<60, using: &generator) {
        case 0: destination.primaryKey += 100
        case 1: destination.root = 3
        case 2: destination.entity += 1
        default: break
        }
        return (source, destination)
    }

    /// Asks both tables the same questions; `context` names the step for a failure.
    static func compare(_ tables: Pair, _ generator: inout SplitMix, _ context: String) throws {
        for key in keys {
            let source = Key(root: 1, primaryKey: key, entity: 1)
            let destination = Key(root: 2, primaryKey: key, entity: 11)
            for mapping in [nil] + mappings.map(Optional.some) {
                #expect(
                    try tables.waiting.destinations(of: source, mapping: mapping)
                        == tables.written.destinations(of: source, mapping: mapping),
                    "\(context): destinations of \(key) by \(mapping.map(String.init) ?? "any")")
            }
            for mapping in mappings {
                #expect(
                    try tables.waiting.sources(of: destination, mapping: mapping)
                        == tables.written.sources(of: destination, mapping: mapping),
                    "\(context): sources of \(key) by \(mapping)")
            }
        }
        for mapping in mappings {
            #expect(
                try tables.waiting.destinationCount(of: mapping) == tables.written.destinationCount(of: mapping),
                "\(context): count of \(mapping)")
            let after = (
                root: Int.random(in: 0...2, using: &generator), primaryKey: Int64.random(in: 0...30, using: &generator)
            )
            let limit = Int.random(in: 1...40, using: &generator)
            let batch = try tables.written.destinations(of: mapping, after: after, limit: limit)
            #expect(
                try tables.waiting.destinations(of: mapping, after: after, limit: limit) == batch,
                "\(context): destinations of \(mapping) after \(after) (\(limit))")
            #expect(
                try tables.waiting.sources(ofBatch: batch, mapping: mapping)
                    == tables.written.sources(ofBatch: batch, mapping: mapping),
                "\(context): sources of a batch of \(mapping)")
        }
    }

    /// Every row as SQL reads it, each source's rows in rowid order.
    static func rows(_ table: AssociationTable, _ connection: SQLiteConnection) throws -> [[SQLiteValue]] {
        try connection.rows(
            """
            SELECT source_root, source_pk, mapping, source_entity, destination_root, destination_pk, destination_entity
            FROM \(try table.sqlTable()) ORDER BY source_root, source_pk, rowid
            """)
    }

    @Test("random runs give the answers and rows of a table written row by row", arguments: [3, 261_126, 9_091_127])
    func randomRuns(seed: UInt64) throws {
        let folder = TemporaryDirectory("molt-association-order")
        let tables = try Pair(in: folder)
        var generator = SplitMix(seed: seed)
        // A run mostly keeps to one mapping for a while, as the copy pass does, and sometimes
        // switches, as policies associating for other mappings do.
        var mapping = 1
        for step in 0..<1500 {
            let roll = Int.random(in: 0..<100, using: &generator)
            if roll < 8 { mapping = Int.random(in: Self.mappings, using: &generator) }
            switch roll {
            case 0:
                let gone = (0..<Int.random(in: 1...3, using: &generator)).map { _ in
                    Key(root: 2, primaryKey: Int64.random(in: Self.keys, using: &generator), entity: 11)
                }
                try tables.waiting.removeDestinations(gone, mappings: Self.mappings.count)
                try tables.written.removeDestinations(gone, mappings: Self.mappings.count)
            case 1:
                #expect(
                    try Self.rows(tables.waiting, tables.waitingConnection)
                        == Self.rows(tables.written, tables.writtenConnection), "step \(step): rows")
            case 2 where step % 5 == 0:
                try tables.waiting.removeAll()
                try tables.written.removeAll()
            default:
                let (source, destination) = Self.pair(mapping, &generator)
                try tables.waiting.associate(mapping: mapping, source: source, destination: destination)
                try tables.written.associate(mapping: mapping, source: source, destination: destination)
            }
            if step % 50 == 0 { try Self.compare(tables, &generator, "seed \(seed), step \(step)") }
        }
        try Self.compare(tables, &generator, "seed \(seed), end")
        #expect(
            try Self.rows(tables.waiting, tables.waitingConnection)
                == Self.rows(tables.written, tables.writtenConnection), "seed \(seed): final rows")
    }

    @Test("a mapping's rows wait until another mapping's come between them, then take their places")
    func interleaved() throws {
        let folder = TemporaryDirectory("molt-association-order")
        let tables = try Pair(in: folder)
        func both(_ mapping: Int, _ key: Int64) throws {
            let pair = (Key(root: 1, primaryKey: key, entity: 1), Key(root: 2, primaryKey: key, entity: 10 + mapping))
            try tables.waiting.associate(mapping: mapping, source: pair.0, destination: pair.1)
            try tables.written.associate(mapping: mapping, source: pair.0, destination: pair.1)
        }
        // 1 makes 1…3; 2 makes 2 and 1; 1 makes 4 (its rows are written, in their place).
        for key in Int64(1)...3 { try both(1, key) }
        try both(2, 2)
        try both(2, 1)
        #expect(try tables.waitingConnection.scalar("SELECT count(*) FROM molt_associations")?.integerValue == 0)
        try both(1, 4)
        #expect(try tables.waitingConnection.scalar("SELECT count(*) FROM molt_associations")?.integerValue == 4)
        let source = Key(root: 1, primaryKey: 2, entity: 1)
        #expect(
            try tables.waiting.destinations(of: source, mapping: nil)
                == [Key(root: 2, primaryKey: 2, entity: 11), Key(root: 2, primaryKey: 2, entity: 12)])
        #expect(
            try Self.rows(tables.waiting, tables.waitingConnection)
                == Self.rows(tables.written, tables.writtenConnection))
    }
}
