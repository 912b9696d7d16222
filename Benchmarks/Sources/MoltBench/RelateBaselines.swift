import Foundation
import Molt

/// The floors of a relationship pass: the bench store's links (each Record's `owner`, its two
/// `tags`) written, with the sqlite3 C API, into a new store whose Records and Tags are already
/// there without links, as the copy pass leaves Molt's destination. Only the writing is timed.
enum RelateBaselines {
    /// One row at a time, as any pass that decides links object by object must write them:
    /// `UPDATE … SET owner = ? WHERE Z_PK = ?` per Record and `INSERT` per tag link, with
    /// statements prepared once and the pairs already in memory.
    static func rowByRow(store: URL, destination: ObjectModel) throws -> JobResult {
        let target = try prepareTarget(store: store, destination: destination)
        let source = try RawDatabase(path: store.path)
        var owners: [(Int64, Int64)] = []
        let readOwners = try source.prepare(
            "SELECT Z_PK, \(quoted(target.owner)) FROM \(quoted(target.recordTable)) WHERE \(quoted(target.owner)) IS NOT NULL ORDER BY Z_PK"
        )
        while try readOwners.step() { owners.append((readOwners.int64(0), readOwners.int64(1))) }
        var tags: [(Int64, Int64)] = []
        let readTags = try source.prepare(
            "SELECT \(quoted(target.joinOwn)), \(quoted(target.joinOther)) FROM \(quoted(target.joinTable)) ORDER BY 1")
        while try readTags.step() { tags.append((readTags.int64(0), readTags.int64(1))) }

        let db = target.database
        let start = DispatchTime.now()
        try db.execute("BEGIN")
        let update = try db.prepare(
            "UPDATE \(quoted(target.recordTable)) SET \(quoted(target.owner)) = ? WHERE Z_PK = ?")
        for (record, owner) in owners {
            update.bind(1, owner)
            update.bind(2, record)
            _ = try update.step()
            update.reset()
        }
        let insert = try db.prepare(
            "INSERT INTO \(quoted(target.joinTable)) (\(quoted(target.joinOwn)), \(quoted(target.joinOther))) VALUES (?, ?)"
        )
        for (record, tag) in tags {
            insert.bind(1, record)
            insert.bind(2, tag)
            _ = try insert.step()
            insert.reset()
        }
        try db.execute("COMMIT")
        let elapsed = seconds(since: start)
        return JobResult(
            seconds: elapsed, peakMB: peakMemoryMB(), relateSeconds: elapsed, links: owners.count + tags.count)
    }

    /// In SQL, keys kept: one `UPDATE … FROM` for the owners and one `INSERT … SELECT` for
    /// the tag links, from the attached old store, which is what Molt's SQL relate pass can at
    /// best do.
    static func inSQL(store: URL, destination: ObjectModel) throws -> JobResult {
        let target = try prepareTarget(store: store, destination: destination)
        let db = target.database
        let record = quoted(target.recordTable)
        let owner = quoted(target.owner)
        let start = DispatchTime.now()
        try db.execute(
            """
            BEGIN;
            UPDATE main.\(record) SET \(owner) = s.\(owner) FROM source.\(record) s WHERE s.Z_PK = main.\(record).Z_PK AND s.\(owner) IS NOT NULL;
            INSERT INTO main.\(quoted(target.joinTable)) (\(quoted(target.joinOwn)), \(quoted(target.joinOther)))
                SELECT \(quoted(target.joinOwn)), \(quoted(target.joinOther)) FROM source.\(quoted(target.joinTable));
            COMMIT
            """)
        let elapsed = seconds(since: start)
        let links = Int(
            try db.scalar(
                "SELECT (SELECT COUNT(\(owner)) FROM main.\(record)) + (SELECT COUNT(*) FROM main.\(quoted(target.joinTable)))"
            ))
        return JobResult(seconds: elapsed, peakMB: peakMemoryMB(), relateSeconds: elapsed, links: links)
    }

    /// A new store with every Record and Tag of the old one and no links (untimed), the old
    /// store attached as `source`; the bench's copy and the new version share table and
    /// column names.
    private struct Target {
        let database: RawDatabase
        let recordTable: String
        let owner: String
        let joinTable: String
        let joinOwn: String
        let joinOther: String
    }

    private static func prepareTarget(store: URL, destination: ObjectModel) throws -> Target {
        let path = store.deletingLastPathComponent().appendingPathComponent("raw-target.sqlite")
        let layout = try StoreLayout(model: destination)
        try SQLiteStore.create(at: path, layout: layout)
        let record = try layout.requireEntity("Record")
        guard case .foreignKey(let owner, _, _)? = record.relationship(named: "owner")?.storage,
            case .joinTable(let join, let own, let other, _, _, _)? = record.relationship(named: "tags")?.storage
        else { throw RawDatabase.Failure(description: "unexpected layout") }
        let db = try RawDatabase(path: path.path)
        try db.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;")
        try db.execute("ATTACH DATABASE '\(store.path.replacingOccurrences(of: "'", with: "''"))' AS source; BEGIN")
        for table in layout.tables {
            let columns = table.columns.map(\.name)
            let values = columns.map { $0 == owner && table.name == record.table ? "NULL" : quoted($0) }
            try db.execute(
                "INSERT INTO main.\(quoted(table.name)) (\(columns.map(quoted).joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM source.\(quoted(table.name))"
            )
        }
        try db.execute(
            """
            UPDATE main.Z_PRIMARYKEY SET Z_MAX = (SELECT s.Z_MAX FROM source.Z_PRIMARYKEY s WHERE s.Z_ENT = Z_PRIMARYKEY.Z_ENT);
            COMMIT
            """)
        return Target(
            database: db, recordTable: record.table, owner: owner, joinTable: join, joinOwn: own, joinOther: other)
    }
}
