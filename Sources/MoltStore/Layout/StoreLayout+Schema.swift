import MoltSQLite

extension StoreLayout {
    /// The statements that create the store's tables and indexes, in order: entity tables, join
    /// tables, indexes, then Core Data's bookkeeping tables. Every name is quoted.
    public var schemaStatements: [String] {
        var statements: [String] = []
        for table in tables {
            let columns = table.columns.map { column in
                column.name == "Z_PK"
                    ? "\(SQL.identifier(column.name)) INTEGER PRIMARY KEY"
                    : "\(SQL.identifier(column.name)) \(column.type)"
            }
            statements.append("CREATE TABLE \(SQL.identifier(table.name)) ( \(columns.joined(separator: ", ")) )")
        }
        for join in joinTables {
            let columns = join.columns.map { "\(SQL.identifier($0.name)) \($0.type)" }
            let key = SQL.identifiers([join.firstColumn, join.secondColumn])
            statements.append(
                "CREATE TABLE \(SQL.identifier(join.name)) ( \(columns.joined(separator: ", ")), PRIMARY KEY (\(key)) )"
            )
        }
        for index in tables.flatMap(\.indexes) + joinTables.map(\.index) {
            let columns = zip(index.columns, index.isDescending).map { name, descending in
                SQL.identifier(name) + (descending ? " DESC" : "")
            }
            statements.append(
                "CREATE INDEX \(SQL.identifier(index.name)) ON \(SQL.identifier(index.table)) (\(columns.joined(separator: ", ")))"
            )
        }
        statements.append(StoreLayout.primaryKeyTableSQL)
        statements.append(StoreLayout.metadataTableSQL)
        statements.append(StoreLayout.modelCacheTableSQL)
        return statements
    }

    static let primaryKeyTableSQL =
        "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)"
    static let metadataTableSQL =
        "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)"
    static let modelCacheTableSQL = "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)"
}
