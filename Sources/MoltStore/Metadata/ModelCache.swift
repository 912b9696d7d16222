public import Foundation
internal import MoltCore
public import MoltModel
internal import MoltSQLite

/// Writes a store's own model into its `Z_MODELCACHE`, as Core Data keeps it: the compiled
/// model (`CompiledModelArchiver`), deflated (`Deflate`). A migration writes the new
/// version's model there when the store had a cache, so Core Data can still infer the store's
/// next migration from the store alone.
///
/// ```swift
/// if ModelCache.omissions(of: model).isEmpty { try ModelCache.write(model, into: store) }
/// ```
public enum ModelCache {
    /// What the compiled form would not hold as Core Data writes it; a cache is written only
    /// when this is empty.
    public static func omissions(of model: ObjectModel) -> [String] {
        CompiledModelArchiver().omissions(of: model)
    }

    /// The cache's one row: `model`, compiled and deflated.
    public static func blob(for model: ObjectModel) throws -> Data {
        try Deflate().compress(CompiledModelArchiver().data(for: model))
    }

    /// Replaces the cache of `store` with `model`'s, creating the table if the store has
    /// none, in the store's transaction if one is open.
    public static func write(_ model: ObjectModel, into store: SQLiteStore) throws {
        let blob = try blob(for: model)
        let connection = store.connection
        try connection.execute("CREATE TABLE IF NOT EXISTS main.Z_MODELCACHE (Z_CONTENT BLOB)")
        try connection.execute("DELETE FROM main.Z_MODELCACHE")
        try connection.run("INSERT INTO main.Z_MODELCACHE (Z_CONTENT) VALUES (?)", [.blob(blob)])
    }
}
