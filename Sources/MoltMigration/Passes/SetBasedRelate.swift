import MoltCore
import MoltMapping
import MoltModel
import MoltSQLite
import MoltStore

/// The relate pass of one entity mapping as a few SQL statements instead of one policy call
/// per destination object, when that gives the very store the object-by-object pass would.
///
/// It applies when the mapping's policy keeps the default `createRelationships` and every
/// relationship value is Core Data's own form, the one Xcode and inference write:
/// `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "M", $source.rel)`
/// (or `…ForSourceRelationshipNamed:…`). Each such value is the image of the source
/// relationship's links through the association table, so for each relationship one
/// `INSERT … SELECT` joins the source store's links (the source file attached read-only) with
/// the associations, and one or two statements write the pairs to the destination's foreign
/// key column or join table, clearing links of the mapping's objects that are not among them.
///
/// Left to the object-by-object pass (``plan(_:manager:)`` gives nil, or ``run(manager:)`` false
/// before writing anything): any other expression; ordered relationships, one-to-ones and
/// relationships that are their own inverse (their writes depend on the order objects are
/// visited); destination objects made from several sources or of several entities; and a
/// to-one whose source objects map to several destination objects (the first found wins,
/// which depends on order). Every relationship stores both of its sides in one place (a column
/// or a join table), so the images of its two sides agree and the order in which the two
/// mappings write them does not matter.
struct SetBasedRelate {
    /// One destination relationship to fill.
    struct Link {
        let relationship: Relationship
        let storage: RelationshipStorage
        /// The table of the relationship's destination objects.
        let targetTable: String
        /// `SELECT s, o FROM …`: each link of the source relationship (source object's key, related
        /// object's key), in the attached source.
        let sourceLinks: String
        /// The hierarchy number of the source relationship's destination, and its layout.
        let relatedRoot: Int
        let related: EntityLayout
        /// The entity mapping that made the related objects' destinations; nil for any.
        let targetMapping: Int?
        /// The entity numbers the relationship accepts.
        let targetKinds: [Int]
        /// Where the destination links are stored, and the source links read.
        let storedIn: LinkStorage
        let readFrom: LinkStorage
        /// How many related objects a source object has at most, and how many source objects
        /// a related object: 1 or nil (many).
        let sourceFanOut: Int?
        let sourceFanIn: Int?
    }

    /// Where a relationship's links are, the same for both of its sides: a foreign key column
    /// (in the to-one side's table) or a join table.
    struct LinkStorage: Hashable {
        let table: String
        let column: String?

        init(_ link: RelationshipLayout, in entity: EntityLayout) {
            switch link.storage {
            case .foreignKey(let column, _, _): (table, self.column) = (entity.table, column)
            case .inverseForeignKey(let column, _, _): (table, self.column) = (link.destinationTable, column)
            case .joinTable(let table, _, _, _, _, _): (self.table, column) = (table, nil)
            }
        }
    }

    /// A relationship written in SQL, remembered so that its inverse, when another mapping
    /// would write the very same links from the other side, is not written twice.
    struct Written: Hashable {
        let storedIn: LinkStorage
        let readFrom: LinkStorage
        let mapping: Int
        let targetMapping: Int
        let entity: Int
        let targetKinds: [Int]
    }

    /// The schema name the source store is attached under.
    static let schema = "molt_source"

    let mapping: EntityMapping
    let number: Int
    let sourceRoot: Int
    /// The mapping's source entity in the source store, and its destination entity.
    let source: EntityLayout
    let destination: EntityLayout
    let links: [Link]

    /// The plan for `mapping`'s relationships, or nil when they need the object-by-object pass.
    static func plan(_ mapping: EntityMapping, manager: MigrationManager) throws -> SetBasedRelate? {
        let compiled = manager.compiledMapping(mapping)
        guard let sourceName = mapping.sourceEntityName,
            let source = manager.source.layout.entity(named: sourceName),
            let mapped = compiled.resolved.destinationEntity,
            let destination = manager.destination.layout.entity(named: mapped.name)
        else { return nil }
        var links: [Link] = []
        for (relationship, expression, _) in compiled.relationships {
            guard let value = CanonicalRelationshipValue(expression.expression),
                let sourceLink = source.relationship(named: value.sourceRelationship),
                let destinationLink = destination.relationship(named: relationship.name),
                let sourceLinks = Self.sourceLinks(of: sourceLink, in: source),
                Self.isWritable(destinationLink, model: manager.destinationModel),
                let related = manager.source.layout.entity(named: sourceLink.relationship.destinationEntityName),
                let relatedRoot = manager.source.layout.entity(named: related.rootName)?.number,
                let targets = manager.destination.layout.entity(named: relationship.destinationEntityName)
            else { return nil }
            var targetMapping: Int?
            if let name = value.entityMapping {
                guard let number = try? manager.number(of: name) else { return nil }
                targetMapping = number
            }
            let (fanOut, fanIn): (Int?, Int?)
            switch sourceLink.storage {
            case .foreignKey: (fanOut, fanIn) = (1, nil)
            case .inverseForeignKey: (fanOut, fanIn) = (nil, 1)
            case .joinTable: (fanOut, fanIn) = (nil, nil)
            }
            links.append(
                Link(
                    relationship: relationship, storage: destinationLink.storage,
                    targetTable: destinationLink.destinationTable, sourceLinks: sourceLinks, relatedRoot: relatedRoot,
                    related: related,
                    targetMapping: targetMapping, targetKinds: targets.kindNumbers,
                    storedIn: LinkStorage(destinationLink, in: destination),
                    readFrom: LinkStorage(sourceLink, in: source), sourceFanOut: fanOut, sourceFanIn: fanIn))
        }
        return SetBasedRelate(
            mapping: mapping, number: try manager.number(of: mapping.name),
            sourceRoot: manager.source.layout.entity(named: source.rootName)?.number ?? source.number,
            source: source, destination: destination, links: links)
    }

    /// The links of a source relationship as `SELECT s, o`, or nil for a mirrored join table.
    private static func sourceLinks(of link: RelationshipLayout, in entity: EntityLayout) -> String? {
        let schema = SQL.identifier(Self.schema)
        switch link.storage {
        case .foreignKey(let column, _, _):
            let key = SQL.identifier(column)
            return
                "SELECT \"Z_PK\" AS s, \(key) AS o FROM \(schema).\(SQL.identifier(entity.table)) WHERE \(key) IS NOT NULL"
        case .inverseForeignKey(let column, _, _):
            let key = SQL.identifier(column)
            return
                "SELECT \(key) AS s, \"Z_PK\" AS o FROM \(schema).\(SQL.identifier(link.destinationTable)) WHERE \(key) IS NOT NULL"
        case .joinTable(let table, let own, let other, _, _, let mirrored):
            guard !mirrored else { return nil }
            return
                "SELECT \(SQL.identifier(own)) AS s, \(SQL.identifier(other)) AS o FROM \(schema).\(SQL.identifier(table))"
        }
    }

    /// Whether the relationship's links can be written as a set (see the type's comment).
    private static func isWritable(_ link: RelationshipLayout, model: ObjectModel) -> Bool {
        switch link.storage {
        case .foreignKey(_, _, let order):
            return order == nil && model.inverse(of: link.relationship).map(\.isToMany) != false
        case .inverseForeignKey(_, _, let order):
            return order == nil
        case .joinTable(_, _, _, let order, let inverseOrder, let mirrored):
            return order == nil && inverseOrder == nil && !mirrored
        }
    }

    // MARK: Running

    /// How one relationship is written.
    private enum Strategy {
        /// Its inverse was written from the other side with these very links.
        case skip
        /// Straight from the join into empty storage (each object gets at most one target where
        /// that matters).
        case direct
        /// Through a table of pairs: clears what is there and settles objects claimed twice.
        case pairs
    }

    /// Sets every relationship of the mapping's destination objects; false (nothing written)
    /// when the associations rule the set-based pass out.
    func run(manager: MigrationManager) throws -> Bool {
        let connection = manager.destination.store.connection
        // Facts about the associations hold for this run only: a policy's own
        // createRelationships may associate more.
        manager.sqlState.associationFacts = [:]
        guard try isOneToOne(number, entity: destination.number, manager) else { return false }
        defer {
            for index in links.indices { try? connection.execute("DROP TABLE IF EXISTS temp.\(Self.pairs(index))") }
        }
        var strategies: [Strategy] = []
        for link in links {
            strategies.append(try strategy(for: link, manager: manager))
        }
        let queries = try links.indices.map { index in
            strategies[index] == .skip ? nil : try linkQuery(links[index], manager: manager)
        }
        // The to-ones written through pairs are checked before anything is written, so that a
        // fallback leaves the mapping's objects as the copy pass made them.
        for (index, link) in links.enumerated() where !link.relationship.isToMany && strategies[index] == .pairs {
            try fillPairs(queries[index]!, into: Self.pairs(index), connection)
            if try connection.scalar(
                "SELECT EXISTS (SELECT 1 FROM temp.\(Self.pairs(index)) GROUP BY d HAVING count(*) > 1)")?
                .integerValue != 0
            {
                return false
            }
        }
        for (index, link) in links.enumerated() {
            try manager.checkCancelled()
            switch strategies[index] {
            case .skip:
                continue
            case .direct:
                try writeDirectly(link, queries[index]!, connection)
            case .pairs:
                if link.relationship.isToMany { try fillPairs(queries[index]!, into: Self.pairs(index), connection) }
                try write(link, from: Self.pairs(index), connection)
                try connection.execute("DROP TABLE temp.\(Self.pairs(index))")
            }
            if let target = link.targetMapping {
                manager.sqlState.written.insert(
                    Written(
                        storedIn: link.storedIn, readFrom: link.readFrom, mapping: number, targetMapping: target,
                        entity: destination.number, targetKinds: link.targetKinds))
            }
        }
        return true
    }

    /// Whether every destination object `mapping` made is of `entity` and made from one source.
    private func isOneToOne(_ mapping: Int, entity: Int, _ manager: MigrationManager) throws -> Bool {
        try manager.sqlState.fact("one-to-one \(mapping) \(entity)") {
            try manager.destination.store.connection.scalar(
                """
                SELECT NOT EXISTS (SELECT 1 FROM temp.molt_associations WHERE mapping = ?1 AND destination_entity <> ?2)
                    AND NOT EXISTS (SELECT 1 FROM temp.molt_associations WHERE mapping = ?1
                                    GROUP BY destination_root, destination_pk HAVING count(*) > 1)
                """, [.integer(Int64(mapping)), .integer(Int64(entity))])?.integerValue == 1
        }
    }

    /// Whether no source object gave `mapping` more than one destination object.
    private func isFunction(_ mapping: Int, _ manager: MigrationManager) throws -> Bool {
        try manager.sqlState.fact("function \(mapping)") {
            try manager.destination.store.connection.scalar(
                """
                SELECT NOT EXISTS (SELECT 1 FROM temp.molt_associations WHERE mapping = ?
                                   GROUP BY source_root, source_pk HAVING count(*) > 1)
                """, [.integer(Int64(mapping))])?.integerValue == 1
        }
    }

    private func strategy(for link: Link, manager: MigrationManager) throws -> Strategy {
        let connection = manager.destination.store.connection
        if let target = link.targetMapping,
            let inverse = manager.sqlState.written.first(where: {
                $0.storedIn == link.storedIn && $0.readFrom == link.readFrom && $0.mapping == target
                    && $0.targetMapping == number
            }),
            inverse.targetKinds.contains(destination.number), link.targetKinds.contains(inverse.entity)
        {
            return .skip
        }
        guard let target = link.targetMapping else { return .pairs }
        let empty: Bool
        switch link.storage {
        case .foreignKey(let column, _, _):
            // One target per object: one related source object, made into one destination object.
            guard link.sourceFanOut == 1, try isFunction(target, manager) else { return .pairs }
            empty = try isEmpty(destination.table, column: column, connection)
        case .inverseForeignKey(let column, _, _):
            // One owner per target: one source object per related one, one source per target.
            guard link.sourceFanIn == 1,
                let targets = manager.destination.layout.entity(named: link.relationship.destinationEntityName),
                try isOneToOne(target, entity: targets.number, manager)
            else { return .pairs }
            empty = try isEmpty(link.targetTable, column: column, connection)
        case .joinTable(let table, _, _, _, _, _):
            empty = try isEmpty(table, column: nil, connection)
        }
        return empty ? .direct : .pairs
    }

    /// Whether `table` holds no link: no row at all, or none with `column` set.
    private func isEmpty(_ table: String, column: String?, _ connection: SQLiteConnection) throws -> Bool {
        let condition = column.map { " WHERE \(SQL.identifier($0)) IS NOT NULL" } ?? ""
        return try connection.scalar("SELECT NOT EXISTS (SELECT 1 FROM main.\(SQL.identifier(table))\(condition))")?
            .integerValue == 1
    }

    /// The name of the temporary table holding the pairs of `links[index]`.
    private static func pairs(_ index: Int) -> String { "molt_relate_pairs_\(index)" }

    /// `SELECT d, t, te`: the relationship's links in the destination (object, target, target's
    /// entity), possibly repeated, with its bindings.
    ///
    /// When both mappings kept every object's key (each made one object with the source's key
    /// from every object of a table holding only their entity, as a default migration does),
    /// the destination links are the source links themselves. Otherwise each source link is
    /// joined with its two associations. CROSS JOIN fixes that order (left to itself, the
    /// planner, with no statistics on the fresh association table, may scan one mapping's
    /// associations for each of the other's: quadratic).
    private func linkQuery(_ link: Link, manager: MigrationManager) throws -> (sql: String, bindings: [SQLiteValue]) {
        if let target = link.targetMapping, let targetEntity = destinationEntity(of: target, manager),
            link.targetKinds.contains(targetEntity),
            try keepsKeys(number, from: source, manager), try keepsKeys(target, from: link.related, manager),
            try isOneToOne(target, entity: targetEntity, manager)
        {
            return ("SELECT sl.s AS d, sl.o AS t, \(targetEntity) AS te FROM (\(link.sourceLinks)) AS sl", [])
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
        let sql = """
            SELECT am.destination_pk AS d, at.destination_pk AS t, at.destination_entity AS te
            FROM (\(link.sourceLinks)) AS sl
            CROSS JOIN temp.molt_associations AS am CROSS JOIN temp.molt_associations AS at
            WHERE am.source_root = ? AND am.source_pk = sl.s AND am.mapping = ?
            AND at.source_root = ? AND at.source_pk = sl.o\(targetMapping)
            AND at.destination_entity IN (\(kinds))
            """
        return (sql, bindings)
    }

    /// The number of the destination entity of the entity mapping numbered `mapping`.
    private func destinationEntity(of mapping: Int, _ manager: MigrationManager) -> Int? {
        let mappings = manager.mappingModel.entityMappings
        guard mappings.indices.contains(mapping - 1),
            let name = mappings[mapping - 1].destinationEntityName
        else { return nil }
        return manager.destination.layout.entity(named: name)?.number
    }

    /// Whether `mapping` made from every object of `entity`, whose table holds no other
    /// entity, a destination object with the same key, and from nothing else.
    private func keepsKeys(_ mapping: Int, from entity: EntityLayout, _ manager: MigrationManager) throws -> Bool {
        guard entity.superNumber == 0, entity.kindNumbers == [entity.number] else { return false }
        return try manager.sqlState.fact("keeps keys \(mapping) \(entity.number)") {
            try manager.destination.store.connection.scalar(
                """
                SELECT NOT EXISTS (SELECT 1 FROM temp.molt_associations
                                   WHERE mapping = ?1 AND (destination_pk <> source_pk OR source_entity <> ?2))
                    AND (SELECT count(*) FROM temp.molt_associations WHERE mapping = ?1)
                        = (SELECT count(*) FROM \(SQL.identifier(Self.schema)).\(SQL.identifier(entity.table)))
                """, [.integer(Int64(mapping)), .integer(Int64(entity.number))])?.integerValue == 1
        }
    }

    /// Makes the temporary table `table` with the relationship's links, each once.
    private func fillPairs(
        _ links: (sql: String, bindings: [SQLiteValue]), into table: String, _ connection: SQLiteConnection
    ) throws {
        try connection.execute(
            """
            DROP TABLE IF EXISTS temp.\(table);
            CREATE TEMP TABLE \(table) (d INTEGER NOT NULL, t INTEGER NOT NULL, te INTEGER NOT NULL, PRIMARY KEY (d, t));
            """)
        try connection.run("INSERT OR IGNORE INTO temp.\(table) (d, t, te) \(links.sql)", links.bindings)
    }

    /// Writes the links into storage that holds none (see ``strategy(for:manager:)``). The
    /// links are materialized first: joined row by row with the table being updated, the
    /// planner would read the source links again for every row.
    private func writeDirectly(
        _ link: Link, _ links: (sql: String, bindings: [SQLiteValue]), _ connection: SQLiteConnection
    ) throws {
        let (query, bindings) = links
        switch link.storage {
        case .foreignKey(let column, let entityColumn, _):
            let table = "main." + SQL.identifier(destination.table)
            try connection.run(
                """
                WITH x AS MATERIALIZED (\(query))
                UPDATE \(table) SET \(SQL.identifier(column)) = x.t\(entityColumn.map { ", \(SQL.identifier($0)) = x.te" } ?? "")
                FROM x WHERE \(table)."Z_PK" = x.d
                """, bindings)
        case .inverseForeignKey(let column, let entityColumn, _):
            let table = "main." + SQL.identifier(link.targetTable)
            try connection.run(
                """
                WITH x AS MATERIALIZED (\(query))
                UPDATE \(table) SET \(SQL.identifier(column)) = x.d\(entityColumn.map { ", \(SQL.identifier($0)) = \(destination.number)" } ?? "")
                FROM x WHERE \(table)."Z_PK" = x.t
                """, bindings)
        case .joinTable(let joinTable, let own, let other, _, _, _):
            try connection.run(
                """
                INSERT OR IGNORE INTO main.\(SQL.identifier(joinTable)) (\(SQL.identifier(own)), \(SQL.identifier(other)))
                SELECT d, t FROM (\(query))
                """, bindings)
        }
    }

    /// Makes the destination links of the mapping's objects exactly the pairs.
    private func write(_ link: Link, from pairs: String, _ connection: SQLiteConnection) throws {
        let pairs = "temp." + pairs
        let mine = "SELECT destination_pk FROM temp.molt_associations WHERE mapping = \(number)"
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

/// A relationship value in Core Data's default form:
/// `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "M", $source.rel)`
/// or `FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:", "rel", $source.rel)`.
struct CanonicalRelationshipValue {
    /// The entity mapping named, or nil for the source-relationship form (any mapping).
    let entityMapping: String?
    /// The source object's relationship whose objects are mapped.
    let sourceRelationship: String

    init?(_ expression: MappingExpression) {
        guard case .call(let target, let selector, let arguments) = expression.kind,
            case .variable("manager") = target.kind, arguments.count == 2,
            case .constant(.string(let name)) = arguments[0].kind,
            case .keyPath(let base?, let components) = arguments[1].kind, components.count == 1,
            case .variable("source") = base.kind
        else { return nil }
        switch selector {
        case "destinationInstancesForEntityMappingNamed:sourceInstances:": entityMapping = name
        case "destinationInstancesForSourceRelationshipNamed:sourceInstances:": entityMapping = nil
        default: return nil
        }
        sourceRelationship = components[0]
    }
}
