import MoltCore
import MoltMapping
import MoltModel
import MoltSQLite
import MoltStore

/// The statements a ``RelateInSQL`` writes links with.
extension RelateInSQL {
    /// The name of the temporary table holding the pairs of `links[index]`.
    static func pairs(_ index: Int) -> String { "molt_relate_pairs_\(index)" }

    /// The temporary table ``writeDirectly(_:_:_:_:)`` stages a foreign key's links in.
    static let directLinks = "molt_relate_direct"

    /// `SELECT d, t, te` (the relationship's links in the destination: object, target, target's
    /// entity, possibly repeated) with its bindings.
    struct LinkQuery {
        let sql: String
        let bindings: [SQLiteValue]
        /// The destination links are the source links as stored (``linkQuery(_:state:)``).
        var asStored = false
    }

    /// The relationship's links in the destination.
    ///
    /// When both mappings kept every object's key (each made one object with the source's key
    /// from every object of a table holding only their entity, as a default migration does),
    /// the destination links are the source links themselves. Otherwise each source link is
    /// joined with its two associations. CROSS JOIN fixes that order (left to itself, the
    /// planner, with no statistics on the fresh association table, may scan one mapping's
    /// associations for each of the other's: quadratic).
    func linkQuery(_ link: Link, state: PassState) throws -> LinkQuery {
        if let target = link.targetMapping, let targetEntity = destinationEntity(of: target, state),
            link.targetKinds.contains(targetEntity),
            try keepsKeys(number, from: source, state), try keepsKeys(target, from: link.related, state),
            try Self.isOneToOne(target, entity: targetEntity, state)
        {
            return LinkQuery(
                sql: "SELECT sl.s AS d, sl.o AS t, \(targetEntity) AS te FROM (\(link.sourceLinks)) AS sl",
                bindings: [],
                asStored: true)
        }
        let kinds = link.targetKinds.map(String.init).joined(separator: ", ")
        var bindings: [SQLiteValue] = [
            .integer(Int64(sourceRoot)), .integer(Int64(number)), .integer(Int64(link.relatedRoot)),
        ]
        var targetMapping = ""
        if let mapping = link.targetMapping {
            targetMapping = " AND at.mapping = ?"
            bindings.append(.integer(Int64(mapping)))
        }
        let table = try state.associations.sqlTable()
        let sql = """
            SELECT am.destination_pk AS d, at.destination_pk AS t, at.destination_entity AS te
            FROM (\(link.sourceLinks)) AS sl
            CROSS JOIN \(table) AS am CROSS JOIN \(table) AS at
            WHERE am.source_root = ? AND am.source_pk = sl.s AND am.mapping = ?
            AND at.source_root = ? AND at.source_pk = sl.o\(targetMapping)
            AND at.destination_entity IN (\(kinds))
            """
        return LinkQuery(sql: sql, bindings: bindings)
    }

    /// The number of the destination entity of the entity mapping numbered `mapping`.
    func destinationEntity(of mapping: Int, _ state: PassState) -> Int? {
        let mappings = state.mappingModel.entityMappings
        guard mappings.indices.contains(mapping - 1),
            let name = mappings[mapping - 1].destinationEntityName
        else { return nil }
        return state.destination.layout.entity(named: name)?.number
    }

    /// Whether `mapping` made from every object of `entity`, whose table holds no other
    /// entity, a destination object with the same key, and from nothing else.
    func keepsKeys(_ mapping: Int, from entity: EntityLayout, _ state: PassState) throws -> Bool {
        guard entity.superNumber == 0, entity.kindNumbers == [entity.number] else { return false }
        let sourceCount = "SELECT count(*) FROM \(SQL.identifier(Self.schema)).\(SQL.identifier(entity.table))"
        if let kept = state.associations.keptIndex(of: mapping) {
            // Each association kept its key; all from `entity`, and as many as its objects.
            guard kept.sourceEntity == entity.number else { return false }
            return try state.destination.store.connection.scalar(sourceCount)?.integerValue == Int64(kept.count)
        }
        return try state.relating.fact("keeps keys \(mapping) \(entity.number)") {
            let table = try state.associations.sqlTable()
            return try state.destination.store.connection.scalar(
                """
                SELECT NOT EXISTS (SELECT 1 FROM \(table)
                                   WHERE mapping = ?1 AND (destination_pk <> source_pk OR source_entity <> ?2))
                    AND (SELECT count(*) FROM \(table) WHERE mapping = ?1) = (\(sourceCount))
                """, [.integer(Int64(mapping)), .integer(Int64(entity.number))])?.integerValue == 1
        }
    }

    /// Makes the temporary table `table` with the relationship's links, each once.
    func fillPairs(_ links: LinkQuery, into table: String, _ connection: SQLiteConnection) throws {
        try connection.execute(
            """
            DROP TABLE IF EXISTS temp.\(table);
            CREATE TEMP TABLE \(table) (d INTEGER NOT NULL, t INTEGER NOT NULL, te INTEGER NOT NULL, PRIMARY KEY (d, t));
            """)
        try connection.run("INSERT OR IGNORE INTO temp.\(table) (d, t, te) \(links.sql)", links.bindings)
    }

    /// Writes the links into storage that holds none (see ``strategy(for:state:)``). A foreign
    /// key's links are first put in a temporary table keyed by the row they go in (joined row
    /// by row with the table being updated, the planner would read the source links again for
    /// every row; the strategy allows one link per row), then written with the indexes on the
    /// key set aside when they are many (``IndexesSetAside``); join rows go in with the join
    /// table's index on the other side's key set aside when the table was empty, or copied
    /// row for row from the source's join table when the links are its own
    /// (``storedJoinCopy(_:into:_:)``).
    func writeDirectly(_ link: Link, _ links: LinkQuery, _ layout: StoreLayout, _ connection: SQLiteConnection) throws {
        let (query, bindings) = (links.sql, links.bindings)
        let staged = "temp.\(Self.directLinks)"
        defer { try? connection.execute("DROP TABLE IF EXISTS \(staged)") }
        /// Stages the links keyed by `key` (`d` or `t`), and returns how many there are.
        func stage(keyedBy key: String) throws -> Int {
            let other = key == "d" ? "t" : "d"
            try connection.execute(
                """
                DROP TABLE IF EXISTS \(staged);
                CREATE TEMP TABLE \(Self.directLinks) (\(key) INTEGER PRIMARY KEY, \(other) INTEGER NOT NULL, te INTEGER NOT NULL)
                """)
            try connection.run("INSERT OR IGNORE INTO \(staged) (d, t, te) SELECT d, t, te FROM (\(query))", bindings)
            return Int(try connection.scalar("SELECT count(*) FROM \(staged)")?.integerValue ?? 0)
        }
        /// Sets `column` (and `entityColumn` to `entity`) of the rows of `table` whose key is the
        /// staged `row` column, to the staged `value` column.
        func writeKeys(
            _ table: String, _ column: String, _ entityColumn: String?, entity: String, row: String, value: String
        ) throws {
            let rows = try stage(keyedBy: row)
            let target = "main." + SQL.identifier(table)
            let entitySet = entityColumn.map { ", \(SQL.identifier($0)) = \(entity)" } ?? ""
            try IndexesSetAside.around(
                table, columns: [column] + [entityColumn].compactMap { $0 }, rows: rows, layout: layout, connection
            ) {
                try connection.execute(
                    """
                    UPDATE \(target) SET \(SQL.identifier(column)) = x.\(value)\(entitySet)
                    FROM \(staged) AS x WHERE \(target)."Z_PK" = x.\(row)
                    """)
            }
        }
        switch link.storage {
        case .foreignKey(let column, let entityColumn, _):
            try writeKeys(destination.table, column, entityColumn, entity: "x.te", row: "d", value: "t")
        case .inverseForeignKey(let column, let entityColumn, _):
            try writeKeys(
                link.targetTable, column, entityColumn, entity: "\(destination.number)", row: "t", value: "d")
        case .joinTable(let joinTable, let own, let other, _, _, _):
            if links.asStored, let sourceJoin = link.sourceJoin,
                let copy = try Self.storedJoinCopy(
                    sourceJoin, into: JoinColumns(table: joinTable, own: own, other: other), connection)
            {
                try copy.run(layout, connection)
                return
            }
            // A join table filled from empty is filled without its index on the other side.
            try IndexesSetAside.whileFilling([(joinTable, [other])], layout: layout, connection) {
                try connection.run(
                    """
                    INSERT OR IGNORE INTO main.\(SQL.identifier(joinTable)) (\(SQL.identifier(own)), \(SQL.identifier(other)))
                    SELECT d, t FROM (\(query))
                    """, bindings)
            }
        }
    }

    /// Makes the destination links of the mapping's objects exactly the pairs; `associations`
    /// names the association table (``AssociationTable/sqlTable()``).
    func write(_ link: Link, from pairs: String, associations: String, _ connection: SQLiteConnection) throws {
        let pairs = "temp." + pairs
        let mine = "SELECT destination_pk FROM \(associations) WHERE mapping = \(number)"
        switch link.storage {
        case .foreignKey(let column, let entityColumn, _):
            let table = "main." + SQL.identifier(destination.table)
            let key = SQL.identifier(column)
            let clear = ([key] + [entityColumn.map(SQL.identifier)].compactMap { $0 }).map { "\($0) = NULL" }
            try connection.execute(
                """
                UPDATE \(table) SET \(clear.joined(separator: ", "))
                WHERE \(key) IS NOT NULL AND "Z_PK" IN (\(mine)) AND "Z_PK" NOT IN (SELECT d FROM \(pairs));
                UPDATE \(table) SET \(key) = p.t\(entityColumn.map { ", \(SQL.identifier($0)) = p.te" } ?? "")
                FROM \(pairs) AS p WHERE \(table)."Z_PK" = p.d;
                """)
        case .inverseForeignKey(let column, let entityColumn, _):
            let table = "main." + SQL.identifier(link.targetTable)
            let key = SQL.identifier(column)
            let clear = ([key] + [entityColumn.map(SQL.identifier)].compactMap { $0 }).map { "\($0) = NULL" }
            // A target claimed by several objects ends with the last in key order, as when the
            // objects are visited one by one.
            try connection.execute(
                """
                UPDATE \(table) SET \(clear.joined(separator: ", "))
                WHERE \(key) IN (\(mine)) AND "Z_PK" NOT IN (SELECT t FROM \(pairs));
                UPDATE \(table) SET \(key) = x.d\(entityColumn.map { ", \(SQL.identifier($0)) = \(destination.number)" } ?? "")
                FROM (SELECT t, MAX(d) AS d FROM \(pairs) GROUP BY t) AS x WHERE \(table)."Z_PK" = x.t;
                """)
        case .joinTable(let joinTable, let own, let other, _, _, _):
            let table = "main." + SQL.identifier(joinTable)
            let (ownKey, otherKey) = (SQL.identifier(own), SQL.identifier(other))
            try connection.execute(
                """
                DELETE FROM \(table) WHERE \(ownKey) IN (\(mine)) AND NOT EXISTS (
                    SELECT 1 FROM \(pairs) AS p WHERE p.d = \(table).\(ownKey) AND p.t = \(table).\(otherKey));
                INSERT OR IGNORE INTO \(table) (\(ownKey), \(otherKey)) SELECT d, t FROM \(pairs);
                """)
        }
    }
}
