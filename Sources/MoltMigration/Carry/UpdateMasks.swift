internal import MoltModel
internal import MoltSQLite
internal import MoltStore

/// The masks of changed properties that history keeps for each update (`ACHANGE.ZCOLUMNS`).
///
/// A mask is a bit vector over the entity's columns in Core Data's own order (to-one keys,
/// their entity columns, order columns, attributes, then to-many and many-to-many
/// relationships), so it means something else once the entity's properties change. Core
/// Data's in-place migrator rewrites it, property by property, through an SQL function it
/// registers (`NSPersistentHistoryMigrateUpdates`). The order of columns within each group is
/// not established, so Molt does not rewrite masks: it counts the updates whose masks may now
/// name other properties, and the report names them.
enum UpdateMasks {
    /// The destination numbers of entities whose properties changed: their version hash
    /// differs from their source entity's. `pairs` are (source entity, destination entity).
    static func changedEntities(
        _ pairs: [(source: String, destination: String)], source: ObjectModel, destination: ObjectModel,
        layout: StoreLayout
    ) throws -> [Int] {
        let before = try source.entityVersionHashes()
        let after = try destination.entityVersionHashes()
        return pairs.compactMap { pair in
            guard before[pair.source] != after[pair.destination] || pair.source != pair.destination else { return nil }
            return layout.entity(named: pair.destination)?.number
        }
    }

    /// How many update changes name one of `entities` (destination numbers, once the history
    /// was renumbered).
    static func count(in connection: SQLiteConnection, entities: [Int]) throws -> Int {
        guard !entities.isEmpty else { return 0 }
        let list = Set(entities).sorted().map(String.init).joined(separator: ", ")
        return Int(
            try connection.scalar(
                "SELECT count(*) FROM \(SQL.identifier(PersistentHistory.changeTable)) WHERE \"ZCHANGETYPE\" = 1 AND \"ZENTITY\" IN (\(list))"
            )?.integerValue ?? 0)
    }
}
