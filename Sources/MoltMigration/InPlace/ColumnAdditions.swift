import Foundation
package import MoltSQLite

/// New columns for many tables at once, as one change of the schema rather than one
/// `ALTER TABLE … ADD COLUMN` each.
///
/// Each `ADD COLUMN` makes SQLite read and parse the whole schema again, so a model of 2,000
/// entities gaining a column each took 2,000 × 4,000 parses (44 s on the project's machine).
/// Adding a column at the end of a table, with no default and no constraint, changes no stored
/// row: only the table's `CREATE TABLE` text in the schema table. So the new texts are made by
/// SQLite itself (the same `ADD COLUMN` run on an in-memory database holding that table alone),
/// then written into the schema table in one go, the schema version increased once, and the
/// schema reloaded: SQLite's documented procedure for schema changes that leave the stored
/// content as it is ("Making Other Kinds Of Table Schema Changes"), inside the migration's
/// transaction, so a failure rolls it all back. A database whose file format is older than 3
/// (which `ADD COLUMN` would raise) gets the statements one by one.
package enum ColumnAdditions {
    package struct Column {
        package var name: String
        package var type: String

        package init(name: String, type: String) {
            self.name = name
            self.type = type
        }
    }

    /// Adds `columns` to each table of `main`, inside the caller's transaction.
    package static func apply(_ additions: [(table: String, columns: [Column])], on connection: SQLiteConnection) throws
    {
        let additions = additions.filter { !$0.columns.isEmpty }
        guard !additions.isEmpty else { return }
        guard try fileFormat(connection) >= 3 else {
            for (table, columns) in additions {
                for column in columns { try connection.execute(statement(table, column)) }
            }
            return
        }
        var texts: [(table: String, sql: String)] = []
        let scratch = try SQLiteConnection(path: ":memory:", mode: .create)
        defer { scratch.close() }
        for (table, columns) in additions {
            guard
                let sql = try connection.scalar(
                    "SELECT sql FROM main.sqlite_master WHERE type = 'table' AND name = ?", [.text(table)])?.textValue
            else { throw SQLiteError(code: .error, message: "no such table: \(table)", path: connection.path) }
            try scratch.execute(sql)
            for column in columns { try scratch.execute(statement(table, column)) }
            guard
                let altered = try scratch.scalar(
                    "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(table)])?.textValue
            else { throw SQLiteError(code: .error, message: "no such table: \(table)", path: connection.path) }
            try scratch.execute("DROP TABLE \(SQL.identifier(table))")
            texts.append((table, altered))
        }
        let version = try connection.scalar("PRAGMA main.schema_version")?.integerValue ?? 0
        try connection.withoutDefensiveMode {
            try connection.execute("PRAGMA writable_schema = ON")
            do {
                let update = try connection.prepare(
                    "UPDATE main.sqlite_master SET sql = ? WHERE type = 'table' AND name = ?")
                for (table, sql) in texts {
                    try update.bind([.text(sql), .text(table)])
                    try update.run()
                }
                try connection.execute("PRAGMA main.schema_version = \(version + 1)")
            } catch {
                try? connection.execute("PRAGMA writable_schema = RESET")
                throw error
            }
            // Off, and the schema read again: the connection sees the new columns.
            try connection.execute("PRAGMA writable_schema = RESET")
        }
    }

    package static func statement(_ table: String, _ column: Column) -> String {
        "ALTER TABLE main.\(SQL.identifier(table)) ADD COLUMN \(SQL.identifier(column.name)) \(column.type)"
    }

    /// The schema format number (the header's byte 44): 4 for every database SQLite has made
    /// since 2006.
    private static func fileFormat(_ connection: SQLiteConnection) throws -> Int64 {
        // Read from the file: it only ever grows, so a header that says 3 or more is right.
        try DatabaseFileAccess.read(connection.path, count: 48).dropFirst(44).prefix(4).reduce(0) {
            $0 << 8 | Int64($1)
        }
    }
}
