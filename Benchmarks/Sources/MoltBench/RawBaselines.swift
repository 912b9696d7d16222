import Foundation
import Molt

/// What a user would do without Molt, written directly against the sqlite3 C API.
enum RawBaselines {
    /// A new store with the destination model's schema (made by Molt, as the engine also makes
    /// one), filled with `INSERT INTO … SELECT` from the attached source: the physical limit
    /// of a copy.
    static func copy(store: URL, destination: ObjectModel) throws {
        let target = store.deletingLastPathComponent().appendingPathComponent("raw-target.sqlite")
        let layout = try StoreLayout(model: destination)
        try SQLiteStore.create(at: target, layout: layout)
        let db = try RawDatabase(path: target.path)
        try db.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;")
        try db.execute("ATTACH DATABASE '\(store.path.replacingOccurrences(of: "'", with: "''"))' AS source; BEGIN")
        let tables =
            layout.tables.map { ($0.name, $0.columns.map(\.name)) }
            + layout.joinTables.map {
                ($0.name, $0.columns.map(\.name))
            }
        for (table, columns) in tables {
            let list = columns.map(quoted).joined(separator: ", ")
            try db.execute("INSERT INTO main.\(quoted(table)) (\(list)) SELECT \(list) FROM source.\(quoted(table))")
        }
        try db.execute(
            """
            UPDATE main.Z_PRIMARYKEY SET Z_MAX = (SELECT s.Z_MAX FROM source.Z_PRIMARYKEY s WHERE s.Z_ENT = Z_PRIMARYKEY.Z_ENT);
            COMMIT
            """)
    }

    /// A Swift loop over the source rows: each Record read, transformed as the policy does,
    /// and inserted into a new store; Tags and tag links copied row by row too.
    static func transformLoop(store: URL, source sourceModel: ObjectModel, destination: ObjectModel) throws {
        let target = store.deletingLastPathComponent().appendingPathComponent("raw-target.sqlite")
        let targetLayout = try StoreLayout(model: destination)
        try SQLiteStore.create(at: target, layout: targetLayout)
        let sourceLayout = try StoreLayout(model: sourceModel)
        let source = try RawDatabase(path: store.path)
        let db = try RawDatabase(path: target.path)
        try db.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN")

        let from = try sourceLayout.requireEntity("Record")
        let to = try targetLayout.requireEntity("Record")
        let names = ["name", "note", "count", "amount", "created", "flag", "code", "ratio"]
        func column(_ entity: EntityLayout, _ name: String) throws -> String {
            guard let found = entity.attribute(named: name)?.column else {
                throw RawDatabase.Failure(description: "no column for \(name)")
            }
            return quoted(found)
        }
        guard case .foreignKey(let fromOwner, _, _)? = from.relationship(named: "owner")?.storage,
            case .foreignKey(let toOwner, _, _)? = to.relationship(named: "owner")?.storage
        else { throw RawDatabase.Failure(description: "unexpected layout") }
        let read = try source.prepare(
            "SELECT Z_PK, \(try names.map { try column(from, $0) }.joined(separator: ", ")), \(quoted(fromOwner)) FROM \(quoted(from.table)) ORDER BY Z_PK"
        )
        let written = try names.map { try column(to, $0) } + [column(to, "title"), column(to, "day"), quoted(toOwner)]
        let insert = try db.prepare(
            "INSERT INTO \(quoted(to.table)) (Z_PK, Z_ENT, Z_OPT, \(written.joined(separator: ", "))) VALUES (?, \(to.number), 1, \(Array(repeating: "?", count: written.count).joined(separator: ", ")))"
        )
        while try read.step() {
            insert.bind(1, read.int64(0))
            let name = read.text(1) ?? ""
            insert.bind(2, name)
            insert.bind(3, read.text(2).map(RecordTransform.note))
            insert.bind(4, read.isNull(3) ? nil : read.int64(3))
            insert.bind(5, read.isNull(4) ? nil : read.double(4))
            insert.bind(6, read.isNull(5) ? nil : read.double(5))
            insert.bind(7, read.isNull(6) ? nil : read.int64(6))
            insert.bind(8, read.isNull(7) ? nil : read.int64(7))
            insert.bind(9, read.isNull(8) ? nil : read.double(8))
            insert.bind(10, RecordTransform.title(name))
            insert.bind(11, read.isNull(5) ? nil : RecordTransform.day(read.double(5)))
            insert.bind(12, read.isNull(9) ? nil : read.int64(9))
            _ = try insert.step()
            insert.reset()
        }

        let fromTag = try sourceLayout.requireEntity("Tag")
        let toTag = try targetLayout.requireEntity("Tag")
        let readTag = try source.prepare(
            "SELECT Z_PK, \(try column(fromTag, "label")) FROM \(quoted(fromTag.table)) ORDER BY Z_PK")
        let insertTag = try db.prepare(
            "INSERT INTO \(quoted(toTag.table)) (Z_PK, Z_ENT, Z_OPT, \(try column(toTag, "label"))) VALUES (?, \(toTag.number), 1, ?)"
        )
        while try readTag.step() {
            insertTag.bind(1, readTag.int64(0))
            insertTag.bind(2, readTag.text(1))
            _ = try insertTag.step()
            insertTag.reset()
        }

        guard
            case .joinTable(let fromJoin, let fromOwn, let fromOther, _, _, _)? = from.relationship(named: "tags")?
                .storage,
            case .joinTable(let toJoin, let toOwn, let toOther, _, _, _)? = to.relationship(named: "tags")?.storage
        else { throw RawDatabase.Failure(description: "unexpected layout") }
        let readLink = try source.prepare(
            "SELECT \(quoted(fromOwn)), \(quoted(fromOther)) FROM \(quoted(fromJoin))")
        let insertLink = try db.prepare(
            "INSERT INTO \(quoted(toJoin)) (\(quoted(toOwn)), \(quoted(toOther))) VALUES (?, ?)")
        while try readLink.step() {
            insertLink.bind(1, readLink.int64(0))
            insertLink.bind(2, readLink.int64(1))
            _ = try insertLink.step()
            insertLink.reset()
        }
        try db.execute(
            """
            UPDATE Z_PRIMARYKEY SET Z_MAX = (SELECT MAX(Z_PK) FROM \(quoted(to.table))) WHERE Z_ENT = \(to.number);
            UPDATE Z_PRIMARYKEY SET Z_MAX = (SELECT MAX(Z_PK) FROM \(quoted(toTag.table))) WHERE Z_ENT = \(toTag.number);
            COMMIT
            """)
    }

    /// Runs, one by one, the statements an in-place migration issued (as it logged them, with
    /// their values bound) on a fresh copy of the same store.
    static func replay(_ log: String, on store: URL) throws {
        let db = try RawDatabase(path: store.path)
        for statement in log.components(separatedBy: "\n\u{1E}\n") where !statement.isEmpty {
            try db.execute(statement)
        }
    }
}
