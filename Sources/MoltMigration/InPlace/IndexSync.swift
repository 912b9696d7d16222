import MoltSQLite
import MoltStore

/// Brings a migrated store's indexes to the destination layout's: an index that exists with
/// the same table, columns and directions stays; a different one of the same name is
/// replaced; missing ones are created; indexes of the source layout that the destination does
/// not have are dropped. Indexes Molt does not know (an app's own) are left alone.
struct IndexSync {
    let source: StoreLayout
    let destination: StoreLayout

    func run(on connection: SQLiteConnection) throws {
        var existing: [String: String] = [:]
        for row in try connection.rows(
            "SELECT name, tbl_name FROM main.sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
        {
            if let name = row[0].textValue, let table = row[1].textValue { existing[name.uppercased()] = table }
        }
        let wanted = Set(destination.indexes.map { $0.name.uppercased() })
        for index in source.indexes
        where !wanted.contains(index.name.uppercased()) && existing[index.name.uppercased()] != nil {
            try connection.execute("DROP INDEX main.\(SQL.identifier(index.name))")
        }
        for index in destination.indexes {
            if let table = existing[index.name.uppercased()] {
                if try table == index.table && matches(index, connection) { continue }
                try connection.execute("DROP INDEX main.\(SQL.identifier(index.name))")
            }
            try connection.execute(StoreLayout.createStatement(for: index))
        }
    }

    /// Whether the stored index covers the same columns in the same directions.
    private func matches(_ index: IndexLayout, _ connection: SQLiteConnection) throws -> Bool {
        let rows = try connection.rows("SELECT name, \"desc\", key FROM pragma_index_xinfo(?)", [.text(index.name)])
        let keys = rows.filter { $0[2].integerValue == 1 }
        return keys.map { $0[0].textValue ?? "" } == index.columns
            && keys.map { $0[1].integerValue == 1 } == index.isDescending
    }
}
