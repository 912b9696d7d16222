import MoltCore
import MoltSQLite
import MoltStore

/// Which destination objects each entity mapping made from which source objects: Core Data's
/// association table, kept on disk in a temporary SQLite table of the destination connection
/// (so a million associations cost no memory), indexed both ways. A mapping whose objects all
/// kept their keys is held in memory as bits (``KeptKeyIndex``), which answer every question
/// about it without a query; its rows wait there and are written to the table only when SQL
/// must read them (``sqlTable()``) or the mapping leaves that form, in the order
/// ``AssociationOrder`` keeps.
///
/// Objects are identified by hierarchy (the root entity's number, as primary keys are unique
/// per hierarchy), primary key and entity number.
final class AssociationTable {
    /// One side of an association: where the object lives and what it is.
    struct Key: Hashable {
        var root: Int
        var primaryKey: Int64
        var entity: Int

        /// Where the object lives, whatever its entity.
        var slot: Slot { Slot(root: root, primaryKey: primaryKey) }
    }

    /// An object's place: its hierarchy and primary key (unique together).
    struct Slot: Hashable {
        var root: Int
        var primaryKey: Int64
    }

    private let connection: SQLiteConnection
    private var statements: [String: SQLiteStatement] = [:]
    /// Answers of ``destinations(of:mapping:)`` kept while no association changes: the relate
    /// pass asks the same question for every object related to a popular one. Bounded (it
    /// starts over when full), so memory does not grow with the store.
    private var lookups: [Lookup: [Key]] = [:]
    static let lookupCapacity = 65_536

    /// Each mapping's associations in memory while they keep their keys (``KeptKeyIndex``);
    /// a mapping whose associations broke the form is in `unkept`.
    private(set) var kept: [Int: KeptKeyIndex] = [:]
    private var unkept: Set<Int> = []
    /// Which kept mappings' rows wait in memory, and the order of all rows.
    private var order = AssociationOrder()
    /// Whether kept mappings' rows wait (off: every row is written when made, as a reference
    /// for tests).
    private let keepsRowsWaiting: Bool

    private struct Lookup: Hashable {
        let source: Slot
        let mapping: Int?
    }

    init(connection: SQLiteConnection, keepsRowsWaiting: Bool = true) throws {
        self.connection = connection
        self.keepsRowsWaiting = keepsRowsWaiting
        try connection.execute(
            """
            PRAGMA temp_store = FILE;
            CREATE TEMP TABLE molt_associations (
                mapping INTEGER NOT NULL,
                source_root INTEGER NOT NULL, source_pk INTEGER NOT NULL, source_entity INTEGER NOT NULL,
                destination_root INTEGER NOT NULL, destination_pk INTEGER NOT NULL, destination_entity INTEGER NOT NULL
            );
            CREATE UNIQUE INDEX temp.molt_associations_by_source
                ON molt_associations (source_root, source_pk, mapping, destination_root, destination_pk);
            CREATE INDEX temp.molt_associations_by_destination
                ON molt_associations (mapping, destination_root, destination_pk);
            """)
    }

    /// The statement for `sql`, prepared once and kept.
    func statement(_ sql: String) throws -> SQLiteStatement {
        if let cached = statements[sql] { return cached }
        let prepared = try connection.prepare(sql)
        statements[sql] = prepared
        return prepared
    }

    /// Records that `mapping` made `destination` from `source` (once per pair).
    func associate(mapping: Int, source: Key, destination: Key) throws {
        if !lookups.isEmpty { lookups.removeAll() }
        if let range = order.waiting[mapping] {
            // The same pair again changes nothing; a new one in the form, with no other
            // mapping's in between, waits too; anything else writes the waiting rows first.
            // (Every object of a copy comes here: the mapping's index is looked up once and
            // changed in place.)
            if let index = kept.index(forKey: mapping) {
                if kept.values[index].holds(source: source, destination: destination) { return }
                if order.canGrow(mapping, range: range), kept.values[index].sourceEntity == source.entity,
                    kept.values[index].add(source: source, destination: destination)
                {
                    order.grow(mapping, range: range)
                    return
                }
            }
            try writeWaitingRows(of: mapping)
        }
        let isFirst = kept[mapping] == nil && !unkept.contains(mapping)
        if kept[mapping]?.add(source: source, destination: destination) == false {
            kept[mapping] = nil
            unkept.insert(mapping)
        } else if isFirst {
            if let index = KeptKeyIndex(source: source, destination: destination) {
                kept[mapping] = index
                if keepsRowsWaiting {
                    order.startWaiting(mapping)
                    return
                }
            } else {
                unkept.insert(mapping)
            }
        }
        try insertRow(order.next(for: mapping), mapping: mapping, source: source, destination: destination)
    }

    /// Writes one association's row, numbered `rowid`; the unique index keeps each pair once.
    private func insertRow(_ rowid: Int64, mapping: Int, source: Key, destination: Key) throws {
        let insert = try statement(
            """
            INSERT OR IGNORE INTO molt_associations
                (rowid, mapping, source_root, source_pk, source_entity, destination_root, destination_pk, destination_entity)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """)
        try insert.bind([
            .integer(rowid), .integer(Int64(mapping)), .integer(Int64(source.root)), .integer(source.primaryKey),
            .integer(Int64(source.entity)),
            .integer(Int64(destination.root)), .integer(destination.primaryKey), .integer(Int64(destination.entity)),
        ])
        try insert.run()
    }

    /// Writes the rows of `mapping` that wait in memory, in key order, with the numbers its
    /// range reserved (``AssociationOrder``); from then on its rows are written when made.
    private func writeWaitingRows(of mapping: Int) throws {
        guard let range = order.stopWaiting(mapping), let index = kept[mapping] else { return }
        guard let sourceEntity = index.sourceEntity, index.count <= range.count else {
            throw MoltError(.migration, "the waiting associations of mapping \(mapping) do not fit their order")
        }
        var rowid = range.lowerBound
        try index.forEachKey { key in
            try insertRow(
                rowid, mapping: mapping,
                source: Key(root: index.sourceRoot, primaryKey: key, entity: sourceEntity),
                destination: Key(root: index.destinationRoot, primaryKey: key, entity: index.destinationEntity))
            rowid += 1
            return true
        }
    }

    /// The table's name for SQL, every association written to it first: statements that read
    /// it (relating in SQL, the history's keys) take it from here.
    func sqlTable() throws -> String {
        for mapping in order.waiting.keys.sorted() { try writeWaitingRows(of: mapping) }
        return "temp.molt_associations"
    }

    /// The destinations made from `source`, by one mapping or (nil) by any, in the order they
    /// were associated.
    func destinations(of source: Key, mapping: Int?) throws -> [Key] {
        if let mapping, let known = kept[mapping]?.destinations(of: source) { return known }
        let lookup = Lookup(source: source.slot, mapping: mapping)
        if let known = lookups[lookup] { return known }
        let found = try queryDestinations(of: source, mapping: mapping)
        if lookups.count >= Self.lookupCapacity { lookups.removeAll(keepingCapacity: true) }
        lookups[lookup] = found
        return found
    }

    private func queryDestinations(of source: Key, mapping: Int?) throws -> [Key] {
        let query: SQLiteStatement
        if let mapping {
            query = try statement(
                "SELECT rowid, destination_root, destination_pk, destination_entity FROM molt_associations WHERE source_root = ? AND source_pk = ? AND mapping = ? ORDER BY rowid"
            )
            try query.bind([.integer(Int64(source.root)), .integer(source.primaryKey), .integer(Int64(mapping))])
        } else {
            query = try statement(
                "SELECT rowid, destination_root, destination_pk, destination_entity FROM molt_associations WHERE source_root = ? AND source_pk = ? ORDER BY rowid"
            )
            try query.bind([.integer(Int64(source.root)), .integer(source.primaryKey)])
        }
        var rows: [(order: Int64, key: Key)] = []
        while try query.step() {
            rows.append(
                (
                    query.int64(at: 0),
                    Key(root: Int(query.int64(at: 1)), primaryKey: query.int64(at: 2), entity: Int(query.int64(at: 3)))
                ))
        }
        // Rows waiting in memory go where their mapping's numbers put them.
        var waited = false
        for (waiting, range) in order.waiting where mapping == nil || mapping == waiting {
            guard let made = kept[waiting]?.destinations(of: source)?.first else { continue }
            rows.append((range.lowerBound, made))
            waited = true
        }
        if waited { rows.sort { $0.order < $1.order } }
        return rows.map(\.key)
    }

    /// The sources `mapping` made `destination` from, in the order they were associated.
    func sources(of destination: Key, mapping: Int) throws -> [Key] {
        if let known = kept[mapping]?.sources(of: destination) { return known }
        let query = try statement(
            "SELECT source_root, source_pk, source_entity FROM molt_associations WHERE mapping = ? AND destination_root = ? AND destination_pk = ? ORDER BY rowid"
        )
        try query.bind([.integer(Int64(mapping)), .integer(Int64(destination.root)), .integer(destination.primaryKey)])
        var result: [Key] = []
        while try query.step() {
            result.append(
                Key(root: Int(query.int64(at: 0)), primaryKey: query.int64(at: 1), entity: Int(query.int64(at: 2))))
        }
        return result
    }

    /// Forgets every association (a new pass starts with none).
    func removeAll() throws {
        lookups.removeAll()
        kept.removeAll()
        unkept.removeAll()
        order.reset()
        try connection.execute("DELETE FROM molt_associations")
    }

    /// Forgets the associations of destination objects that were deleted; `mappings` is how
    /// many entity mappings there are (each is looked up through the index by mapping).
    func removeDestinations(_ keys: [Key], mappings: Int) throws {
        lookups.removeAll()
        for mapping in kept.keys {
            for key in keys { kept[mapping]?.remove(destination: key) }
        }
        guard mappings > 0 else { return }
        // One lookup of the index per mapping number (IN over its first column).
        let numbers = (1...mappings).map(String.init).joined(separator: ", ")
        let delete = try statement(
            "DELETE FROM molt_associations WHERE mapping IN (\(numbers)) AND destination_root = ? AND destination_pk = ?"
        )
        for key in keys {
            try delete.bind([.integer(Int64(key.root)), .integer(key.primaryKey)])
            try delete.run()
        }
    }

    /// The associations of `mapping` in memory, when every one of them kept its object's
    /// key (``KeptKeyIndex``): then facts about them (one source per destination, one
    /// destination per source, the entities) need no query of the table.
    func keptIndex(of mapping: Int) -> KeptKeyIndex? {
        kept[mapping]
    }

    /// How many distinct destinations `mapping` made.
    func destinationCount(of mapping: Int) throws -> Int {
        if let index = kept[mapping] { return index.count }
        let query = try statement(
            "SELECT COUNT(*) FROM (SELECT 1 FROM molt_associations WHERE mapping = ? GROUP BY destination_root, destination_pk)"
        )
        try query.bind([.integer(Int64(mapping))])
        // Reset once read: a cached statement left on its row keeps a cursor open on the
        // temporary database, which stops any DROP TABLE there.
        defer { try? query.reset() }
        guard try query.step() else { return 0 }
        return Int(query.int64(at: 0))
    }
}
