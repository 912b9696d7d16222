import MoltCore
import MoltModel
import MoltSQLite
import MoltStore

/// The links of one destination relationship and its inverse, read once from the source
/// store into a temporary table before any table changes:
/// `owner, ownerEnt, target, targetEnt, ownerPos, targetPos`.
///
/// Owners are the objects of the relationship ``forward`` (targets those of its inverse);
/// keys are kept by the migration, and entity numbers are the source's. Positions are the
/// ones the heavyweight engine would give (1, 2, …) in the order it would build each list:
/// - a list inferred from a source relationship keeps that relationship's order (ordered:
///   its positions; unordered: the objects sorted by entity name and key, as they are read);
/// - a list that is new (only its inverse existed) grows in the order the relate pass sets
///   the inverse: entity mapping by entity mapping, each in key order.
///
/// Links to objects that are not migrated, or that are not of the relationship's entity in
/// the destination, are left out, as the engine leaves them out.
struct LinkSet {
    enum Origin {
        /// Both relationships are new: no links.
        case none
        /// Read from the source relationship of ``forward``.
        case forward(RelationshipLayout)
        /// Read from the source relationship of ``inverse``, owners and targets swapped.
        case backward(RelationshipLayout)
    }

    let number: Int
    /// The destination relationship whose owners are the links' owners.
    let forward: RelationshipLayout
    /// Its inverse in the destination, unless it has none or is its own inverse.
    let inverse: RelationshipLayout?
    /// Whether ``forward`` is its own inverse (each link is stored both ways).
    let isSelfInverse: Bool
    let origin: Origin
    /// The source relationships each side is inferred from.
    let forwardSource: RelationshipLayout?
    let inverseSource: RelationshipLayout?
    /// Source entity numbers of the owners and targets kept.
    let ownerKinds: [Int]
    let targetKinds: [Int]
    /// Tables holding the owners and targets in the source store.
    let ownerTable: String
    let targetTable: String
    /// Whether the source storage is exactly the destination storage, with the same objects
    /// on both sides: the stored links can stay where they are.
    let isUnchanged: Bool

    var table: String { "molt_links_\(number)" }

    var forwardIsOrdered: Bool { forward.relationship.isToMany && forward.relationship.isOrdered }
    var inverseIsOrdered: Bool { inverse.map { $0.relationship.isToMany && $0.relationship.isOrdered } ?? false }

    // MARK: SQL

    /// Creates and indexes the temporary table. `ranks` orders source entity numbers by
    /// entity name; `mappingOrder` gives each source entity number its mapping's position.
    func createStatements(ranks: [Int: Int], mappingOrder: [Int: Int]) -> [String] {
        let name = SQL.identifier(table)
        var statements: [String]
        if let raw = rawLinks() {
            let ownerPosition =
                forwardIsOrdered
                ? "ROW_NUMBER() OVER (PARTITION BY owner ORDER BY \(order(side: .forward, ranks: ranks, mappingOrder: mappingOrder)))"
                : "NULL"
            let targetPosition =
                inverseIsOrdered
                ? "ROW_NUMBER() OVER (PARTITION BY target ORDER BY \(order(side: .inverse, ranks: ranks, mappingOrder: mappingOrder)))"
                : "NULL"
            statements = [
                """
                CREATE TEMP TABLE \(name) AS SELECT owner, ownerEnt, target, targetEnt, \(ownerPosition) AS ownerPos, \
                \(targetPosition) AS targetPos FROM (SELECT DISTINCT r.owner AS owner, o."Z_ENT" AS ownerEnt, \
                r.target AS target, t."Z_ENT" AS targetEnt, r.opos AS opos, r.tpos AS tpos FROM (\(raw)) AS r \
                JOIN main.\(SQL.identifier(ownerTable)) AS o ON o."Z_PK" = r.owner \
                JOIN main.\(SQL.identifier(targetTable)) AS t ON t."Z_PK" = r.target \
                WHERE o."Z_ENT" IN (\(Self.list(ownerKinds))) AND t."Z_ENT" IN (\(Self.list(targetKinds)))) AS links
                """
            ]
        } else {
            statements = [
                "CREATE TEMP TABLE \(name) (owner INTEGER, ownerEnt INTEGER, target INTEGER, targetEnt INTEGER, ownerPos INTEGER, targetPos INTEGER)"
            ]
        }
        statements.append("CREATE INDEX temp.\(SQL.identifier(table + "_owner")) ON \(name) (owner)")
        statements.append("CREATE INDEX temp.\(SQL.identifier(table + "_target")) ON \(name) (target)")
        return statements
    }

    /// Queries that find an object holding several objects in a to-one relationship: each
    /// returns the object's key, source entity number and count, or no row.
    var toOneChecks: [(relationship: RelationshipLayout, sql: String)] {
        var checks: [(RelationshipLayout, String)] = []
        let name = SQL.identifier(table)
        if !forward.relationship.isToMany {
            checks.append(
                (forward, "SELECT owner, ownerEnt, COUNT(*) FROM \(name) GROUP BY owner HAVING COUNT(*) > 1 LIMIT 1"))
        }
        if let inverse, !inverse.relationship.isToMany {
            checks.append(
                (inverse, "SELECT target, targetEnt, COUNT(*) FROM \(name) GROUP BY target HAVING COUNT(*) > 1 LIMIT 1")
            )
        }
        return checks
    }

    private enum Side { case forward, inverse }

    /// The ORDER BY of one side's positions.
    private func order(side: Side, ranks: [Int: Int], mappingOrder: [Int: Int]) -> String {
        let (source, key, entity, position) =
            side == .forward
            ? (forwardSource, "target", "targetEnt", "opos") : (inverseSource, "owner", "ownerEnt", "tpos")
        guard let source else {
            return "\(Self.caseOf(entity, mappingOrder)), \(key)"
        }
        let rank = Self.caseOf(entity, ranks)
        if source.relationship.isToMany && source.relationship.isOrdered {
            return "COALESCE(\(position), 0), \(rank), \(key)"
        }
        return "\(rank), \(key)"
    }

    /// `owner, target, opos, tpos` from the source storage, or nil when there is none.
    private func rawLinks() -> String? {
        let (link, backward): (RelationshipLayout, Bool)
        switch origin {
        case .none: return nil
        case .forward(let found): (link, backward) = (found, false)
        case .backward(let found): (link, backward) = (found, true)
        }
        // Columns a (the link's owner), b (its target), apos (b's place in a's list), bpos.
        let select: String
        switch link.storage {
        case .foreignKey(let column, _, let orderColumn):
            let key = SQL.identifier(column)
            select =
                "SELECT \"Z_PK\" AS a, \(key) AS b, NULL AS apos, \(orderColumn.map(SQL.identifier) ?? "NULL") AS bpos FROM main.\(SQL.identifier(backward ? targetTable : ownerTable)) WHERE \(key) IS NOT NULL"
        case .inverseForeignKey(let column, _, let orderColumn):
            let key = SQL.identifier(column)
            select =
                "SELECT \(key) AS a, \"Z_PK\" AS b, \(orderColumn.map(SQL.identifier) ?? "NULL") AS apos, NULL AS bpos FROM main.\(SQL.identifier(link.destinationTable)) WHERE \(key) IS NOT NULL"
        case .joinTable(let table, let own, let other, let orderColumn, let inverseOrderColumn, _):
            select =
                "SELECT \(SQL.identifier(own)) AS a, \(SQL.identifier(other)) AS b, \(orderColumn.map(SQL.identifier) ?? "NULL") AS apos, \(inverseOrderColumn.map(SQL.identifier) ?? "NULL") AS bpos FROM main.\(SQL.identifier(table))"
        }
        return backward
            ? "SELECT b AS owner, a AS target, bpos AS opos, apos AS tpos FROM (\(select))"
            : "SELECT a AS owner, b AS target, apos AS opos, bpos AS tpos FROM (\(select))"
    }

    static func list(_ numbers: [Int]) -> String {
        numbers.isEmpty ? "NULL" : numbers.sorted().map(String.init).joined(separator: ", ")
    }

    /// `CASE column WHEN k THEN v … END` over a dictionary (NULL for other values).
    static func caseOf(_ column: String, _ values: [Int: Int]) -> String {
        guard !values.isEmpty else { return "NULL" }
        let arms = values.sorted { $0.key < $1.key }.map { "WHEN \($0.key) THEN \($0.value)" }
        return "CASE \(column) \(arms.joined(separator: " ")) END"
    }
}
