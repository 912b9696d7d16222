internal import Foundation
internal import MoltCore
internal import MoltModel
internal import MoltSQLite
internal import MoltStore

/// Carries into a new store, made object by object, what the old one holds besides its
/// objects: persistent history with its key counters, the `Z_PRIMARYKEY` rows of Core Data's
/// own entities and of entities no model names, and (when asked) tables, triggers and views
/// no model explains, each created as the old store's schema says and filled with its rows;
/// and, when the old store had a model cache, the new version's model in the new one's.
///
/// History changes then name the objects of the new store: each change of a migrated object
/// names what its entity mapping made of it (the first mapping that read it); a change of an
/// object deleted before the migration gets a fresh key of the new entity, the same for all
/// of that object's changes, above every key the new store uses, so it never names a live
/// object; a change of an object the migration does not carry, or of no entity of the source
/// model, is deleted and counted.
struct ContentsCopy {
    let contents: StoreContents
    let sourceLayout: StoreLayout
    let destinationLayout: StoreLayout
    let destinationModel: ObjectModel
    /// Source entity name → the destination entity its first entity mapping makes.
    let destinationEntity: [String: String]
    /// For the update masks (``UpdateMasks``): each destination property's source property,
    /// by pair of entities, as the first entity mapping between them says.
    let maskOrigins: [UpdateMasks.Pair: [String: String]]
    let unknown: UnknownContents
    let sourcePath: String

    /// The temporary table of the destination connection where each pass leaves its
    /// associations (``keep(associationsOfPass:from:on:)``).
    static let keysTable = "molt_history_keys"
    static let sourceSchema = "molt_contents_source"

    /// Makes the table ``keep(associationsOfPass:from:on:)`` fills, before the first pass of a run
    /// whose store has history.
    static func prepare(_ connection: SQLiteConnection) throws {
        try connection.execute(
            """
            CREATE TEMP TABLE IF NOT EXISTS \(keysTable) (
                rank INTEGER NOT NULL, source_root INTEGER NOT NULL, source_pk INTEGER NOT NULL,
                destination_entity INTEGER NOT NULL, destination_pk INTEGER NOT NULL);
            CREATE INDEX IF NOT EXISTS temp.\(keysTable)_by_source ON \(keysTable) (source_root, source_pk, rank);
            """)
    }

    /// Keeps what pass `pass` associated (the association table starts empty each pass).
    static func keep(
        associationsOfPass pass: Int, from associations: AssociationTable, on connection: SQLiteConnection
    ) throws {
        try connection.execute(
            """
            INSERT INTO temp.\(keysTable)
            SELECT \(pass) * 1000000 + mapping, source_root, source_pk, destination_entity, destination_pk
            FROM \(try associations.sqlTable())
            """)
    }

    func run(into destination: SQLiteStore) throws -> CarriedContents {
        let connection = destination.connection
        var account = ContentsAccount(contents: contents)
        account.unknownKept = unknown == .keep
        try connection.attachReadOnly(sourcePath, as: Self.sourceSchema)
        defer { try? connection.detach(Self.sourceSchema) }
        let source = SQL.identifier(Self.sourceSchema)
        var tables = contents.tables(.history).map(\.name)
        tables += contents.tables(.bookkeeping).map(\.name).filter {
            !["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"].contains($0)
        }
        if unknown == .keep { tables += contents.tables(.unknown).map(\.name) }
        try connection.transaction {
            if contents.hasModelCache {
                account.modelCache = .forCache(of: destinationModel)
                if account.modelCache == .written { try ModelCache.write(destinationModel, into: destination) }
            }
            for table in tables {
                try copy(table, from: source, on: connection)
            }
            try keepRecords(on: connection, account: &account)
            if contents.hasHistory {
                account.history = try rekeyHistory(on: connection, source: source)
            }
            if unknown == .keep {
                let rows = try connection.rows(
                    "SELECT sql FROM \(source).sqlite_master WHERE type IN ('view', 'trigger') AND sql IS NOT NULL ORDER BY type DESC, name"
                )
                for row in rows { try connection.execute(row[0].textValue ?? "") }
            }
        }
        return account.carried()
    }

    /// Creates `table` as the source's schema says, with its rows and its indexes.
    private func copy(_ table: String, from source: String, on connection: SQLiteConnection) throws {
        let name = SQL.identifier(table)
        guard
            let create = try connection.scalar(
                "SELECT sql FROM \(source).sqlite_master WHERE type = 'table' AND name = ?", [.text(table)])?.textValue
        else { return }
        try connection.execute(create)
        try connection.execute("INSERT INTO main.\(name) SELECT * FROM \(source).\(name)")
        let indexes = try connection.rows(
            "SELECT sql FROM \(source).sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
            [.text(table)])
        for index in indexes { try connection.execute(index[0].textValue ?? "") }
    }

    /// The `Z_PRIMARYKEY` rows of Core Data's own entities and of entities no model names,
    /// unless the new model's entity of that number has the row.
    private func keepRecords(on connection: SQLiteConnection, account: inout ContentsAccount) throws {
        let taken = Set(destinationLayout.entities.map(\.number))
        let insert = try connection.prepare(
            "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)")
        for record in contents.privateEntities + contents.strayEntityRecords {
            if taken.contains(record.number) {
                account.replacedStrayRecords.append(record)
                continue
            }
            try insert.bind([
                .integer(Int64(record.number)), .text(record.name), .integer(Int64(record.superNumber)),
                .integer(record.maximumKey),
            ])
            try insert.run()
            try insert.reset()
        }
    }

    /// Points every history change at the object of the new store it is about.
    private func rekeyHistory(on connection: SQLiteConnection, source: String) throws -> HistoryOutcome {
        var outcome = HistoryOutcome()
        let changes = SQL.identifier(PersistentHistory.changeTable)
        try connection.execute(
            """
            CREATE TEMP TABLE molt_change_fates (
                change INTEGER PRIMARY KEY, entity INTEGER, pk INTEGER, tombstone INTEGER NOT NULL DEFAULT 0);
            """)
        defer { try? connection.execute("DROP TABLE IF EXISTS temp.molt_change_fates") }
        var nextKey: [Int: Int64] = [:]
        for entity in sourceLayout.entities where !entity.isAbstract {
            guard let root = sourceLayout.entity(named: entity.rootName)?.number else { continue }
            // Migrated objects: what their first mapping made.
            try connection.run(
                """
                INSERT INTO temp.molt_change_fates (change, entity, pk)
                SELECT c."Z_PK",
                    (SELECT k.destination_entity FROM temp.\(Self.keysTable) k
                     WHERE k.source_root = ? AND k.source_pk = c."ZENTITYPK" ORDER BY k.rank LIMIT 1),
                    (SELECT k.destination_pk FROM temp.\(Self.keysTable) k
                     WHERE k.source_root = ? AND k.source_pk = c."ZENTITYPK" ORDER BY k.rank LIMIT 1)
                FROM main.\(changes) c
                WHERE c."ZENTITY" = ? AND EXISTS (
                    SELECT 1 FROM temp.\(Self.keysTable) k WHERE k.source_root = ? AND k.source_pk = c."ZENTITYPK")
                """,
                [.integer(Int64(root)), .integer(Int64(root)), .integer(Int64(entity.number)), .integer(Int64(root))])
            // Objects still in the source that the migration did not carry: their changes go.
            try connection.run(
                """
                INSERT INTO temp.molt_change_fates (change, entity, pk)
                SELECT c."Z_PK", NULL, NULL FROM main.\(changes) c
                WHERE c."ZENTITY" = ? AND c."Z_PK" NOT IN (SELECT change FROM temp.molt_change_fates)
                    AND EXISTS (SELECT 1 FROM \(source).\(SQL.identifier(entity.table)) o WHERE o."Z_PK" = c."ZENTITYPK")
                """, [.integer(Int64(entity.number))])
            // Objects deleted before the migration: a fresh key each, of the entity the
            // mapping of their entity makes.
            guard let target = destinationEntity[entity.name].flatMap({ destinationLayout.entity(named: $0) }),
                let targetRoot = destinationLayout.entity(named: target.rootName)
            else { continue }
            if nextKey[targetRoot.number] == nil {
                let used =
                    try connection.scalar("SELECT MAX(\"Z_PK\") FROM main.\(SQL.identifier(targetRoot.table))")?
                    .integerValue ?? 0
                let counter =
                    try connection.scalar(
                        "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(Int64(targetRoot.number))])?
                    .integerValue ?? 0
                nextKey[targetRoot.number] = max(used, counter)
            }
            let base = nextKey[targetRoot.number] ?? 0
            try connection.run(
                """
                INSERT INTO temp.molt_change_fates (change, entity, pk, tombstone)
                SELECT c."Z_PK", ?, ? + dense_rank() OVER (ORDER BY c."ZENTITYPK"), 1 FROM main.\(changes) c
                WHERE c."ZENTITY" = ? AND c."Z_PK" NOT IN (SELECT change FROM temp.molt_change_fates)
                """, [.integer(Int64(target.number)), .integer(base), .integer(Int64(entity.number))])
            let allocated =
                try connection.scalar(
                    "SELECT COALESCE(MAX(pk), ?) FROM temp.molt_change_fates WHERE tombstone = 1 AND entity = ?",
                    [.integer(base), .integer(Int64(target.number))])?.integerValue ?? base
            nextKey[targetRoot.number] = max(base, allocated)
        }
        // In the entities' order: a dictionary's changes from process to process, and the
        // order a page's rows are rewritten in decides where its free space falls.
        for (root, key) in nextKey.sorted(by: { $0.key < $1.key }) {
            try connection.run(
                "UPDATE Z_PRIMARYKEY SET Z_MAX = MAX(Z_MAX, ?) WHERE Z_ENT = ?", [.integer(key), .integer(Int64(root))])
        }
        outcome.tombstoneChanges = Int(
            try connection.scalar("SELECT count(*) FROM temp.molt_change_fates WHERE tombstone = 1")?.integerValue ?? 0)
        outcome.rekeyedChanges = Int(
            try connection.scalar(
                """
                SELECT count(*) FROM temp.molt_change_fates f JOIN main.\(changes) c ON c."Z_PK" = f.change
                WHERE f.tombstone = 0 AND f.entity IS NOT NULL AND (f.entity IS NOT c."ZENTITY" OR f.pk IS NOT c."ZENTITYPK")
                """)?.integerValue ?? 0)
        try connection.execute(
            """
            DELETE FROM main.\(changes) WHERE "Z_PK" NOT IN (SELECT change FROM temp.molt_change_fates WHERE entity IS NOT NULL)
            """)
        outcome.removedChanges = connection.changes
        // Masks are decoded with the entity a change names now, encoded with the one it will.
        let pairs = try connection.rows(
            """
            SELECT DISTINCT c."ZENTITY", f.entity FROM main.\(changes) c JOIN temp.molt_change_fates f ON f.change = c."Z_PK"
            WHERE c."ZCHANGETYPE" = 1 AND f.entity IS NOT NULL
            """
        ).map { UpdateMasks.Pair(source: Int($0[0].integerValue ?? 0), destination: Int($0[1].integerValue ?? 0)) }
        outcome.rewrittenUpdateMasks = try UpdateMasks(
            sourceLayout: sourceLayout, destinationLayout: destinationLayout, origins: maskOrigins
        ).rewrite(pairs, fates: "molt_change_fates", on: connection)
        try connection.execute(
            """
            UPDATE main.\(changes) SET
                "ZENTITY" = (SELECT f.entity FROM temp.molt_change_fates f WHERE f.change = \(changes)."Z_PK"),
                "ZENTITYPK" = (SELECT f.pk FROM temp.molt_change_fates f WHERE f.change = \(changes)."Z_PK")
            WHERE "Z_PK" IN (
                SELECT f.change FROM temp.molt_change_fates f JOIN main.\(changes) c ON c."Z_PK" = f.change
                WHERE f.entity IS NOT c."ZENTITY" OR f.pk IS NOT c."ZENTITYPK")
            """)
        return outcome
    }
}
