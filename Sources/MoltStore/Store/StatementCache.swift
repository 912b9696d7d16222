package import MoltSQLite

/// Prepared statements kept by their SQL text, for queries a migration runs again and again
/// (a policy's fetch for every object): compiling a statement costs more than running a small
/// indexed query. One cache serves one connection; statements are reset after each use, so
/// none keeps a read open.
///
/// ```swift
/// let cache = StatementCache()
/// let ids = try query.objectIDs(in: store, cache: cache)
/// ```
public final class StatementCache {
    private var statements: [String: SQLiteStatement] = [:]
    /// The most statements kept; the cache starts over beyond it.
    public var capacity = 128

    public init() {}

    /// The statement for `sql` on `connection`, compiled on first use.
    package func statement(_ sql: String, on connection: SQLiteConnection) throws -> SQLiteStatement {
        if let cached = statements[sql], cached.connection === connection { return cached }
        if statements.count >= capacity { statements.removeAll() }
        let prepared = try connection.prepare(sql)
        statements[sql] = prepared
        return prepared
    }
}
