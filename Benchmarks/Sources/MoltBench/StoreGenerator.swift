import Foundation
import Molt

/// Makes a Core Data-shaped store of `records` Records and `tags` Tags: the empty
/// store comes from Molt (its schema and metadata), the rows from plain SQL in one transaction.
/// Each Record has an owner and two tags; every fifth has no note. Values are deterministic.
enum StoreGenerator {
    static func tagCount(records: Int) -> Int { max(2, records / 10) }

    static func make(at url: URL, model: ObjectModel, records: Int, tags: Int) throws {
        let layout = try StoreLayout(model: model)
        var options = StoreCreationOptions()
        options.usesWriteAheadLog = true
        try SQLiteStore.create(at: url, layout: layout, options: options)

        let record = try layout.requireEntity("Record")
        let tag = try layout.requireEntity("Tag")
        guard case .foreignKey(let ownerColumn, _, _)? = record.relationship(named: "owner")?.storage,
            case .joinTable(let joinTable, let ownColumn, let otherColumn, _, _, _)? = record.relationship(
                named: "tags")?.storage
        else { throw RawDatabase.Failure(description: "unexpected layout for Record's relationships") }
        let columns = record.attributes.map(\.column)

        let db = try RawDatabase(path: url.path)
        try db.execute("PRAGMA journal_mode = WAL; BEGIN")
        let insertTag = try db.prepare(
            "INSERT INTO \(quoted(tag.table)) (Z_PK, Z_ENT, Z_OPT, \(quoted(tag.attributes[0].column))) VALUES (?, \(tag.number), 1, ?)"
        )
        for index in 1...tags {
            insertTag.bind(1, Int64(index))
            insertTag.bind(2, "Tag \(index)")
            _ = try insertTag.step()
            insertTag.reset()
        }
        let names = ["Z_PK", "Z_ENT", "Z_OPT"] + columns + [ownerColumn]
        let insertRecord = try db.prepare(
            "INSERT INTO \(quoted(record.table)) (\(names.map(quoted).joined(separator: ", "))) VALUES (?, \(record.number), 1, \(Array(repeating: "?", count: columns.count + 1).joined(separator: ", ")))"
        )
        let insertLink = try db.prepare(
            "INSERT INTO \(quoted(joinTable)) (\(quoted(ownColumn)), \(quoted(otherColumn))) VALUES (?, ?)")
        for index in 1...max(1, records) {
            let i = Int64(index)
            insertRecord.bind(1, i)
            var position: Int32 = 2
            for column in record.attributes {
                bindValue(insertRecord, position, attribute: column.attribute.name, index: index)
                position += 1
            }
            insertRecord.bind(position, Int64(index % tags + 1))
            _ = try insertRecord.step()
            insertRecord.reset()
            let first = Int64(index * 7 % tags + 1)
            var second = Int64((index * 13 + 1) % tags + 1)
            if second == first { second = first % Int64(tags) + 1 }
            for other in [first, second] {
                insertLink.bind(1, i)
                insertLink.bind(2, other)
                _ = try insertLink.step()
                insertLink.reset()
            }
        }
        try db.execute(
            """
            UPDATE Z_PRIMARYKEY SET Z_MAX = \(records) WHERE Z_ENT = \(record.number);
            UPDATE Z_PRIMARYKEY SET Z_MAX = \(tags) WHERE Z_ENT = \(tag.number);
            COMMIT; PRAGMA wal_checkpoint(TRUNCATE);
            """)
    }

    private static func bindValue(_ statement: RawStatement, _ position: Int32, attribute: String, index: Int) {
        switch attribute {
        case "name": statement.bind(position, "  record number \(index)  ")
        case "note": statement.bind(position, index % 5 == 0 ? nil : "Note \(index) ABC")
        case "count": statement.bind(position, Int64(index % 1000))
        case "amount": statement.bind(position, Double(index) * 0.25)
        case "created": statement.bind(position, 600_000_000 + Double(index) * 37)
        case "flag": statement.bind(position, Int64(index % 2))
        case "code": statement.bind(position, Int64(index) * 1_000_003)
        case "ratio": statement.bind(position, Double(index % 100) / 8)
        default: statement.bind(position, nil as Int64?)
        }
    }
}

/// An SQL identifier in double quotes.
func quoted(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
