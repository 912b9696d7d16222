import MoltSQLite

extension StoreLayout {
    /// The statements that create the store's tables and indexes, in order: entity tables, join
    /// tables, indexes, then Core Data's bookkeeping tables. Every name is quoted.
    public var schemaStatements: [String] {
        var statements: [String] = []
        statements += tables.map { Self.createStatement(for: $0) }
        statements += joinTables.map { Self.createStatement(for: $0) }
        statements += indexes.map { Self.createStatement(for: $0) }
        statements.append(StoreLayout.primaryKeyTableSQL)
        statements.append(StoreLayout.metadataTableSQL)
        statements.append(StoreLayout.modelCacheTableSQL)
        return statements
    }

    /// Every index of the layout: entity tables' first, then join tables'.
    public var indexes: [IndexLayout] {
        tables.flatMap(\.indexes) + joinTables.map(\.index)
    }

    /// `CREATE TABLE` for an entity table, under its own name or `name`.
    public static func createStatement(for table: TableLayout, named name: String? = nil) -> String {
        let columns = table.columns.map { column in
            column.name == "Z_PK"
                ? "\(SQL.identifier(column.name)) INTEGER PRIMARY KEY"
                : "\(SQL.identifier(column.name)) \(column.type)"
        }
        return "CREATE TABLE \(SQL.identifier(name ?? table.name)) ( \(columns.joined(separator: ", ")) )"
    }

    /// `SELECT count(*)` of the rows of `table` whose entity number is among `kinds`; the
    /// whole table when `rowsAreWellFormed` (every row has a number the layout gives the
    /// table, as in a store Molt wrote) and it holds no other entity
    /// (``ObjectStore/count(of:includingSubentities:where:rowsAreWellFormed:)``).
    public func countStatement(of kinds: [Int], in table: String, rowsAreWellFormed: Bool) -> String {
        let count = "SELECT count(*) FROM \(SQL.identifier(table))"
        if rowsAreWellFormed, holdsOnly(kinds, in: table) { return count }
        return count + " WHERE \"Z_ENT\" IN (\(kinds.map(String.init).joined(separator: ", ")))"
    }

    /// `CREATE TABLE` for a join table, under its own name or `name`.
    public static func createStatement(for join: JoinTableLayout, named name: String? = nil) -> String {
        let columns = join.columns.map { "\(SQL.identifier($0.name)) \($0.type)" }
        let key = SQL.identifiers([join.firstColumn, join.secondColumn])
        return
            "CREATE TABLE \(SQL.identifier(name ?? join.name)) ( \(columns.joined(separator: ", ")), PRIMARY KEY (\(key)) )"
    }

    /// `CREATE INDEX` for an index; in the database attached as `schema` when one is named.
    public static func createStatement(for index: IndexLayout, schema: String? = nil) -> String {
        let columns = zip(index.columns, index.isDescending).map { name, descending in
            SQL.identifier(name) + (descending ? " DESC" : "")
        }
        let name = (schema.map { SQL.identifier($0) + "." } ?? "") + SQL.identifier(index.name)
        return "CREATE INDEX \(name) ON \(SQL.identifier(index.table)) (\(columns.joined(separator: ", ")))"
    }

    static let primaryKeyTableSQL =
        "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)"
    static let metadataTableSQL =
        "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)"
    static let modelCacheTableSQL = "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)"
}
