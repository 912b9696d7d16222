internal import Foundation
internal import MoltCore
internal import MoltSQLite
internal import MoltStore

/// Persistent history and CloudKit mirroring in a store migrated in place (or a copy migrated
/// by SQL), where objects keep their primary keys and entities may change number: Core Data's
/// own in-place migrator rewrites `ACHANGE.ZENTITY` (and CloudKit's `ZENTITYID`) from each
/// entity's old number to its new one in one statement, and sets
/// `PFCloudKitMetadataNeedsZoneFetchAfterClientMigrationKey` when CloudKit rows moved.
///
/// The changes of entities the step removes are deleted (Core Data's "partial history
/// migration"; without that store option Core Data truncates the history up to the last
/// transaction that touched them, which keeps less) and counted. CloudKit rows that name a
/// removed entity refuse the run: left, they would name whatever entity takes the number.
struct HistoryRenumbering {
    /// Source entity number → destination entity number, for every entity carried.
    let entityNumbers: [Int: Int]
    /// Source entity numbers of concrete entities the step does not carry.
    let removed: [Int]
    let storePath: String

    func run(on connection: SQLiteConnection, contents: StoreContents) throws -> HistoryOutcome {
        var outcome = HistoryOutcome()
        let moved = entityNumbers.filter { $0.key != $0.value }.sorted { $0.key < $1.key }
        for (table, entityColumn, _) in CloudKitMirroring.objectColumns where contents.table(table) != nil {
            if !removed.isEmpty {
                let orphans =
                    try connection.scalar(
                        "SELECT count(*) FROM \(SQL.identifier(table)) WHERE \(SQL.identifier(entityColumn)) IN (\(list(removed)))"
                    )?.integerValue ?? 0
                if orphans > 0 {
                    throw MoltError(
                        .migration,
                        "\(orphans) CloudKit mirroring row\(orphans == 1 ? "" : "s") of \(table) name\(orphans == 1 ? "s" : "") an entity this step removes",
                        location: SourceLocation(file: storePath),
                        recovery:
                            "Let the app sync and delete those objects first, or keep the entity in the new version; the store was not changed."
                    )
                }
            }
            outcome.renumberedCloudKitRows += try renumber(table, entityColumn, moved, on: connection)
        }
        guard contents.hasHistory else { return outcome }
        if !removed.isEmpty {
            try connection.execute(
                "DELETE FROM \(SQL.identifier(PersistentHistory.changeTable)) WHERE \"ZENTITY\" IN (\(list(removed)))")
            outcome.removedChanges = connection.changes
        }
        outcome.renumberedChanges = try renumber(PersistentHistory.changeTable, "ZENTITY", moved, on: connection)
        return outcome
    }

    /// One UPDATE moving `column` from each old number to its new one; the rows changed.
    private func renumber(
        _ table: String, _ column: String, _ moved: [(key: Int, value: Int)], on connection: SQLiteConnection
    ) throws -> Int {
        guard !moved.isEmpty else { return 0 }
        let cases = moved.map { "WHEN \($0.key) THEN \($0.value)" }.joined(separator: " ")
        try connection.execute(
            """
            UPDATE \(SQL.identifier(table)) SET \(SQL.identifier(column)) = CASE \(SQL.identifier(column)) \(cases) END
            WHERE \(SQL.identifier(column)) IN (\(list(moved.map(\.key))))
            """)
        return connection.changes
    }

    private func list(_ numbers: [Int]) -> String {
        numbers.map(String.init).joined(separator: ", ")
    }
}
