import MoltSQLite
import MoltStore

/// Writing one column of many rows makes SQLite update every index on that column row by row:
/// take the old entry out, put the new one in, each a search of the index's tree. When the rows
/// written are a large share of the table, dropping those indexes first and making them again
/// afterwards (one sorted build) costs less: at 100,000 Records whose to-one is written from
/// the join, 17.9k instructions per row with the index kept, 13.7k with it set aside
/// (callgrind, SQLite 3.40). An index holds nothing but what its table's rows give it, so the
/// store is the same either way; the index is made again under its own name from the same
/// layout that made it, before anything else reads the table.
///
/// Only the new store's own indexes are set aside (the layout's; the migration made them):
/// around one statement of the relate pass in SQL, and around a mapping's batches for the join
/// tables they fill from empty (``whileFilling(_:layout:_:_:)``). Nothing reads the table by
/// those columns meanwhile, and the index is back before the next mapping is related. A crash
/// in between leaves a new store the recovery discards.
enum IndexesSetAside {
    /// Writes (with `write`) `rows` rows of `table`, setting `columns`; when the rows are at
    /// least half the table, the layout's indexes of `table` on any of `columns` are dropped
    /// first and made again after, also when `write` fails.
    static func around(
        _ table: String, columns: [String], rows: Int, layout: StoreLayout, _ connection: SQLiteConnection,
        _ write: () throws -> Void
    ) throws {
        var indexes = layout.indexes.filter { index in
            index.table == table && index.columns.contains { columns.contains($0) }
        }
        guard !indexes.isEmpty, rows > 0 else { return try write() }
        let present = Set(
            try connection.rows(
                "SELECT name FROM main.sqlite_master WHERE type = 'index' AND tbl_name = ?", [.text(table)]
            ).compactMap { $0.first?.textValue })
        indexes.removeAll { !present.contains($0.name) }
        guard !indexes.isEmpty else { return try write() }
        let tableRows =
            try connection.scalar("SELECT count(*) FROM main.\(SQL.identifier(table))")?.integerValue ?? 0
        guard Int64(rows) * 2 >= tableRows else { return try write() }
        for index in indexes {
            try connection.execute("DROP INDEX main.\(SQL.identifier(index.name))")
        }
        do {
            try write()
        } catch {
            // The store is being abandoned; leave its schema whole all the same.
            for index in indexes { try? connection.execute(StoreLayout.createStatement(for: index, schema: "main")) }
            throw error
        }
        for index in indexes {
            try connection.execute(StoreLayout.createStatement(for: index, schema: "main"))
        }
    }

    /// Runs `write`, which fills `tables` (each a table and the columns whose indexes may be
    /// set aside) over many statements and transactions; each table that is empty when it
    /// starts has those indexes dropped first and made again after, also when `write` fails.
    /// Filling an empty table row by row keeps an index in the order of another column at the
    /// cost of a search of its tree per row, and once the tree outgrows the page cache, a read
    /// and a write of a page: at 2,000,000 join rows (the bench's Records' tags, with an 8 MB
    /// cache) 7.0–7.8 s with the index kept, 2.1–3.2 s set aside and made again.
    static func whileFilling(
        _ tables: [(table: String, columns: [String])], layout: StoreLayout, _ connection: SQLiteConnection,
        _ write: () throws -> Void
    ) throws {
        var empty: [(table: String, columns: [String])] = []
        for entry in tables where !empty.contains(where: { $0.table == entry.table }) {
            let rows = try connection.scalar(
                "SELECT EXISTS (SELECT 1 FROM main.\(SQL.identifier(entry.table)))")?.integerValue
            if rows == 0 { empty.append(entry) }
        }
        func fill(_ remaining: ArraySlice<(table: String, columns: [String])>) throws {
            guard let first = remaining.first else { return try write() }
            try around(first.table, columns: first.columns, rows: 1, layout: layout, connection) {
                try fill(remaining.dropFirst())
            }
        }
        try fill(empty[...])
    }
}
