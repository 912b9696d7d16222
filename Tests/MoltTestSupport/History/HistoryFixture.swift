public import Foundation
public import Molt
internal import MoltSQLite

/// Persistent history added to a store as today's Core Data and SwiftData write it (tables,
/// columns and `Z_PRIMARYKEY` rows as in a real SwiftData store, framework 1345), so tests can
/// check that a migration keeps every change naming the object it named.
public enum HistoryFixture {
    /// One change as a test reads it back: its type and the object it names, by its entity's
    /// name and the value of one of its attributes (nil when no object of the store has that
    /// key: a deleted object's change).
    public struct Change: Hashable, Sendable, CustomStringConvertible {
        public var key: Int64
        public var type: Int64
        public var entity: String
        public var label: String?
        public var description: String { "#\(key) \(type) \(entity) \(label ?? "-")" }
    }

    /// Creates the history tables and their `Z_PRIMARYKEY` rows; for every object of each
    /// entity in `entities` an insert change (and an update for every second one, whose mask
    /// names `updated[entity]`, by default the entity's attributes); for each `(entity, key)`
    /// in `deleted` an insert and a delete of an object no longer in the store; and the
    /// metadata's model checksum (as Core Data records it).
    public static func add(
        to url: URL, layout: StoreLayout, entities: [String], deleted: [(entity: String, key: Int64)] = [],
        updated: [String: [String]] = [:]
    ) throws {
        let store = try SQLiteStore(at: url, readOnly: false)
        defer { store.connection.close() }
        let connection = store.connection
        try connection.execute(
            """
            CREATE TABLE ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR );
            CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER,
                ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR,
                ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB );
            CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER,
                ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB );
            CREATE INDEX ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID);
            CREATE INDEX ATRANSACTION_ZTIMESTAMP_INDEX ON ATRANSACTION (ZTIMESTAMP);
            INSERT INTO ATRANSACTIONSTRING VALUES (1, 16003, 1, 'NSCoreDataCoreSpotlightExporter');
            INSERT INTO ATRANSACTIONSTRING VALUES (2, 16003, 1, 'com.example.app');
            """)
        var change: Int64 = 0
        var transaction: Int64 = 0
        func mask(_ number: Int) -> SQLiteValue {
            guard let entity = layout.entity(number: number), let mask = layout.historyColumnMask(of: entity.name)
            else { return .null }
            return .blob(mask.mask(for: updated[entity.name] ?? entity.attributes.map(\.attribute.name)))
        }
        func record(_ type: Int64, _ entity: Int, _ key: Int64) throws {
            transaction += 1
            try connection.run(
                "INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZBUNDLEIDTS, ZTIMESTAMP, ZBUNDLEID) VALUES (?, 16002, 1, 2, ?, 'com.example.app')",
                [.integer(transaction), .real(Double(transaction))])
            change += 1
            try connection.run(
                "INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS) VALUES (?, 16001, 1, ?, ?, ?, ?, ?)",
                [
                    .integer(change), .integer(type), .integer(Int64(entity)), .integer(key), .integer(transaction),
                    type == 1 ? mask(entity) : .null,
                ])
        }
        for name in entities {
            guard let entity = layout.entity(named: name) else { continue }
            let keys = try connection.rows(
                "SELECT Z_PK FROM \(SQL.identifier(entity.table)) WHERE Z_ENT = ? ORDER BY Z_PK",
                [.integer(Int64(entity.number))]
            ).compactMap { $0[0].integerValue }
            for (offset, key) in keys.enumerated() {
                try record(0, entity.number, key)
                if offset % 2 == 1 { try record(1, entity.number, key) }
            }
        }
        for (name, key) in deleted {
            guard let entity = layout.entity(named: name) else { continue }
            try record(0, entity.number, key)
            try record(2, entity.number, key)
        }
        try connection.run(
            "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (16001, 'CHANGE', 0, ?), (16002, 'TRANSACTION', 0, ?), (16003, 'TRANSACTIONSTRING', 0, 2)",
            [.integer(change), .integer(transaction)])
        var metadata = store.metadata
        metadata.modelChecksum = try layout.model.versionChecksum()
        try store.writeMetadata(metadata)
    }

    /// Every change in the store at `url`, read with `layout`: the object each names, by
    /// `label` (the attribute of each entity that tells its objects apart).
    public static func changes(in url: URL, layout: StoreLayout, label: String) throws -> [Change] {
        let store = try SQLiteStore(at: url, readOnly: true)
        defer { store.connection.close() }
        let rows = try store.connection.rows(
            "SELECT Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK FROM ACHANGE ORDER BY Z_PK")
        return try rows.map { row in
            let number = Int(row[2].integerValue ?? 0)
            guard let entity = layout.entity(number: number) else {
                return Change(key: row[0].integerValue ?? 0, type: row[1].integerValue ?? 0, entity: "#\(number)")
            }
            let column = entity.attribute(named: label)?.column ?? "Z_PK"
            let value = try store.connection.scalar(
                "SELECT \(SQL.identifier(column)) FROM \(SQL.identifier(entity.table)) WHERE Z_PK = ? AND Z_ENT = ?",
                [row[3], .integer(Int64(number))])
            return Change(
                key: row[0].integerValue ?? 0, type: row[1].integerValue ?? 0, entity: entity.name,
                label: value?.textValue)
        }
    }

    /// The `Z_PRIMARYKEY` rows of Core Data's own entities: number, name, counter.
    public static func privateRecords(in url: URL) throws -> [String] {
        let store = try SQLiteStore(at: url, readOnly: true)
        defer { store.connection.close() }
        return store.entityRecords.filter { $0.number > PersistentHistory.privateEntityFloor }.map {
            "\($0.number) \($0.name) \($0.maximumKey)"
        }
    }

    /// Every change in the store at `url`, read with `layout`, as a line naming the object by
    /// its entity and the values of its own attributes (keys left out: routes may renumber
    /// objects), or "no object" for a deleted one's change: what must not differ between two
    /// routes of one migration.
    public static func identities(in url: URL, layout: StoreLayout) throws -> [String] {
        let store = try SQLiteStore(at: url, readOnly: true)
        defer { store.connection.close() }
        let rows = try store.connection.rows(
            "SELECT Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK FROM ACHANGE ORDER BY Z_PK")
        return try rows.map { row in
            let head = "#\(row[0].integerValue ?? 0) type \(row[1].integerValue ?? 0)"
            let number = Int(row[2].integerValue ?? 0)
            guard let entity = layout.entity(number: number) else { return "\(head) entity #\(number)" }
            let columns = entity.attributes.filter { !$0.attribute.usesExternalStorage }.map {
                "quote(\(SQL.identifier($0.column)))"
            }
            let select = columns.isEmpty ? "'-'" : columns.joined(separator: " || ' | ' || ")
            let values = try store.connection.scalar(
                "SELECT \(select) FROM \(SQL.identifier(entity.table)) WHERE Z_PK = ? AND Z_ENT = ?",
                [row[3], .integer(Int64(number))])
            return "\(head) \(entity.name) \(values?.textValue ?? "no object")"
        }
    }
}
