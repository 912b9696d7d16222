public import MoltSQLite

/// An extra condition on the rows of an entity's table, as SQL with `?` parameters, for
/// reading only some objects (a mapping's filter, translated). Column names in `sql` must be
/// quoted with `SQL.identifier(_:)` (MoltSQLite).
public struct SQLCondition: Sendable, Hashable {
    public var sql: String
    public var bindings: [SQLiteValue]

    public init(sql: String, bindings: [SQLiteValue] = []) {
        self.sql = sql
        self.bindings = bindings
    }
}
