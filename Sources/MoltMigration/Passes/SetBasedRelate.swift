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
        /// The hierarchy number of the source relationship's destination.
        let relatedRoot: Int
        /// The entity mapping that made the related objects' destinations; nil for any.
        let targetMapping: Int?
        /// The entity numbers the relationship accepts.
        let targetKinds: [Int]
    }

    /// The schema name the source store is attached under.
    static let schema = "molt_source"

    let mapping: EntityMapping
    let number: Int
    let sourceRoot: Int
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
            links.append(
                Link(
                    relationship: relationship, storage: destinationLink.storage,
                    targetTable: destinationLink.destinationTable, sourceLinks: sourceLinks, relatedRoot: relatedRoot,
                    targetMapping: targetMapping, targetKinds: targets.kindNumbers))
        }
        return SetBasedRelate(
            mapping: mapping, number: try manager.number(of: mapping.name),
            sourceRoot: manager.source.layout.entity(named: source.rootName)?.number ?? source.number,
            destination: destination, links: links)
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

    /// Sets every relationship of the mapping's destination objects; false (nothing written)
    /// when the associations rule the set-based pass out.
    func run(manager: MigrationManager) throws -> Bool {
        let connection = manager.destination.store.connection
        let associations = "temp.molt_associations"
        let madeOtherwise = try connection.scalar(
            """
            SELECT EXISTS (SELECT 1 FROM \(associations) WHERE mapping = ? AND destination_entity <> ?)
                OR EXISTS (SELECT 1 FROM \(associations) WHERE mapping = ?
                           GROUP BY destination_root, destination_pk HAVING count(*) > 1)
            """, [.integer(Int64(number)), .integer(Int64(destination.number)), .integer(Int64(number))])
        guard madeOtherwise?.integerValue == 0 else { return false }
        defer {
            for index in links.indices { try? connection.execute("DROP TABLE IF EXISTS temp.\(Self.pairs(index))") }
        }
        // The to-ones' pairs are made and checked before anything is written, so that a
        // fallback leaves the mapping's objects as the copy pass made them.
        for (index, link) in links.enumerated() where !link.relationship.isToMany {
            try fillPairs(link, into: Self.pairs(index), connection)
            if try connection.scalar(
                "SELECT EXISTS (SELECT 1 FROM temp.\(Self.pairs(index)) GROUP BY d HAVING count(*) > 1)")?
                .integerValue != 0
            {
                return false
            }
        }
        for (index, link) in links.enumerated() {
            try manager.checkCancelled()
            if link.relationship.isToMany { try fillPairs(link, into: Self.pairs(index), connection) }
            try write(link, from: Self.pairs(index), connection)
            try connection.execute("DROP TABLE temp.\(Self.pairs(index))")
        }
        return true
    }

    /// The name of the temporary table holding the pairs of `links[index]`.
    private static func pairs(_ index: Int) -> String { "molt_relate_pairs_\(index)" }

    /// Makes the temporary table `table` with the relationship's links: (destination object,
    /// target, target's entity), each once.
    private func fillPairs(_ link: Link, into table: String, _ connection: SQLiteConnection) throws {
        let kinds = link.targetKinds.map(String.init).joined(separator: ", ")
        var bindings: [SQLiteValue] = [
            .integer(Int64(sourceRoot)), .integer(Int64(number)), .integer(Int64(link.relatedRoot)),
        ]
        var targetMapping = ""
        if let mapping = link.targetMapping {
            targetMapping = " AND at.mapping = ?"
            bindings.append(.integer(Int64(mapping)))
        }
        try connection.execute(
            """
            DROP TABLE IF EXISTS temp.\(table);
            CREATE TEMP TABLE \(table) (d INTEGER NOT NULL, t INTEGER NOT NULL, te INTEGER NOT NULL, PRIMARY KEY (d, t));
            """)
        try connection.run(
            """
            INSERT OR IGNORE INTO temp.\(table) (d, t, te)
            SELECT am.destination_pk, at.destination_pk, at.destination_entity
            FROM (\(link.sourceLinks)) AS sl
            JOIN temp.molt_associations AS am ON am.source_root = ? AND am.source_pk = sl.s AND am.mapping = ?
            JOIN temp.molt_associations AS at ON at.source_root = ? AND at.source_pk = sl.o\(targetMapping)
            WHERE at.destination_entity IN (\(kinds))
            """, bindings)
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
