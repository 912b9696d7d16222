/// Reading another database file from the same connection, so one statement can join the two.
extension SQLiteConnection {
    /// Attaches the database at `path`, read-only, under the schema name `schema`
    /// (`"schema"."table"` in SQL). Not allowed inside a transaction.
    public func attachReadOnly(_ path: String, as schema: String) throws {
        try run("ATTACH DATABASE ? AS \(SQL.identifier(schema))", [.text("file:" + Self.uriPath(path) + "?mode=ro")])
    }

    /// Detaches a database attached with ``attachReadOnly(_:as:)``. Not allowed inside a
    /// transaction.
    public func detach(_ schema: String) throws {
        try execute("DETACH DATABASE \(SQL.identifier(schema))")
    }
}
