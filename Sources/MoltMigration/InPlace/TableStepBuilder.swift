import MoltCore
import MoltModel
import MoltSQLite
import MoltStore

/// Decides, table by table, whether a destination table can stay (perhaps with new columns)
/// or must be rebuilt, and writes the SQL for either.
///
/// A table stays when it has the same name and rows (no object moves to another table, entity
/// numbers unchanged; objects of removed entities are deleted) and every column it had keeps
/// its meaning: attributes copied as they are, relationship columns of links that do not
/// change. New columns are added as `ALTER TABLE … ADD COLUMN` adds them (all tables in one
/// schema change, ``ColumnAdditions``) and filled with an
/// `UPDATE`. Anything else is rebuilt with SQLite's table-rebuild steps.
struct TableStepBuilder {
    /// What a destination column holds.
    enum Role: Equatable {
        /// An attribute: its value per source entity number of the rows.
        case attribute([Int: ColumnValue])
        /// Part of a to-one relationship stored with the link set's forward side (owner's
        /// column) or inverse side (target's column).
        case link(set: Int, forwardSide: Bool, part: Part)
    }

    enum Part: Equatable { case key, entity, order }

    let source: StoreLayout
    let destination: StoreLayout
    let correspondences: [EntityCorrespondence]
    let expressions: RowExpressions
    let linkSets: [LinkSet]
    let entityNumbers: [Int: Int]
    private var temporaryNames = 0
    /// Each relationship's link set, by `Entity.relationship`: its number, and whether the
    /// relationship is the set's forward side.
    private let linkSetByKey: [String: (number: Int, forward: Bool)]

    init(
        source: StoreLayout, destination: StoreLayout, correspondences: [EntityCorrespondence],
        expressions: RowExpressions, linkSets: [LinkSet], entityNumbers: [Int: Int]
    ) {
        self.source = source
        self.destination = destination
        self.correspondences = correspondences
        self.expressions = expressions
        self.linkSets = linkSets
        self.entityNumbers = entityNumbers
        var byKey: [String: (number: Int, forward: Bool)] = [:]
        for set in linkSets {
            if byKey[LinkSetBuilder.key(set.forward)] == nil {
                byKey[LinkSetBuilder.key(set.forward)] = (set.number, true)
            }
            if let inverse = set.inverse, byKey[LinkSetBuilder.key(inverse)] == nil {
                byKey[LinkSetBuilder.key(inverse)] = (set.number, false)
            }
        }
        linkSetByKey = byKey
    }

    mutating func build() throws -> [InPlacePlan.TableStep] {
        var steps: [InPlacePlan.TableStep] = []
        for table in destination.tables { steps.append(try entityTableStep(table)) }
        for join in destination.joinTables { steps.append(try joinTableStep(join)) }
        return steps
    }

    mutating func temporaryName() -> String {
        temporaryNames += 1
        return "Z_MOLT_NEW_\(temporaryNames)"
    }

    // MARK: Entity tables

    mutating func entityTableStep(_ table: TableLayout) throws -> InPlacePlan.TableStep {
        let rows = correspondences.filter { $0.destination.table == table.name }
        let sourceTables = Set(rows.map(\.source.table))
        guard sourceTables.count <= 1 else {
            throw InPlaceObstacle(
                "the objects of \(table.name) would come from several tables (\(sourceTables.sorted().joined(separator: ", ")))"
            )
        }
        let roles = destinationRoles(of: table, rows: rows)
        if let sourceTable = sourceTables.first, let kept = keptStep(table, from: sourceTable, rows: rows, roles: roles)
        {
            return kept
        }
        let temporary = temporaryName()
        var statements = [StoreLayout.createStatement(for: table, named: temporary)]
        if let sourceTable = sourceTables.first {
            statements.append(insertStatement(table, into: temporary, from: sourceTable, rows: rows, roles: roles))
        }
        return .rebuild(name: table.name, temporaryName: temporary, statements: statements)
    }

    /// Each column's role in the destination table.
    func destinationRoles(of table: TableLayout, rows: [EntityCorrespondence]) -> [String: Role] {
        var roles: [String: Role] = [:]
        var attributeValues: [String: [Int: ColumnValue]] = [:]
        for row in rows {
            for (column, value) in row.attributes { attributeValues[column, default: [:]][row.source.number] = value }
        }
        for entity in destination.entities where entity.table == table.name {
            for column in entity.attributes where attributeValues[column.column] == nil {
                attributeValues[column.column] = [:]
            }
            for link in entity.relationships where link.declaringEntity == entity.name {
                guard case .foreignKey(let key, let entityColumn, let orderColumn) = link.storage,
                    let (set, forwardSide) = linkSet(of: link)
                else { continue }
                roles[key] = .link(set: set, forwardSide: forwardSide, part: .key)
                if let entityColumn { roles[entityColumn] = .link(set: set, forwardSide: forwardSide, part: .entity) }
                if let orderColumn { roles[orderColumn] = .link(set: set, forwardSide: forwardSide, part: .order) }
            }
        }
        for (column, values) in attributeValues { roles[column] = .attribute(values) }
        return roles
    }

    /// The link set storing `link`, and whether `link` is its forward side.
    func linkSet(of link: RelationshipLayout) -> (Int, Bool)? {
        linkSetByKey[LinkSetBuilder.key(link)].map { ($0.number, $0.forward) }
    }

    func set(_ number: Int) -> LinkSet { linkSets[number - 1] }

    /// The table kept (with added columns) when that gives the rebuilt table's content.
    func keptStep(
        _ table: TableLayout, from sourceTable: String, rows: [EntityCorrespondence], roles: [String: Role]
    )
        -> InPlacePlan.TableStep?
    {
        guard sourceTable == table.name, let old = source.tables.first(where: { $0.name == sourceTable }) else {
            return nil
        }
        // Rows: none moves elsewhere, numbers unchanged; rows of removed entities go.
        let migrated = Set(rows.map(\.source.number))
        var deleted: [Int] = []
        for entity in source.entities where entity.table == sourceTable && !entity.isAbstract {
            if migrated.contains(entity.number) {
                guard entityNumbers[entity.number] == entity.number else { return nil }
            } else if correspondences.contains(where: { $0.source.number == entity.number }) {
                return nil
            } else {
                deleted.append(entity.number)
            }
        }
        // Every old column keeps its meaning.
        let newColumns = Dictionary(table.columns.map { ($0.name, $0.type) }, uniquingKeysWith: { a, _ in a })
        let oldLinkColumns = sourceLinkColumns(of: sourceTable)
        for column in old.columns where !["Z_PK", "Z_ENT", "Z_OPT"].contains(column.name) {
            guard newColumns[column.name] == column.type, let role = roles[column.name] else { return nil }
            switch role {
            case .attribute(let values):
                guard !oldLinkColumns.contains(column.name) else { return nil }
                for row in rows {
                    let had = row.source.attributes.contains { $0.column == column.name }
                    let value = values[row.source.number] ?? .null
                    guard value == (had ? .column(column.name) : .null) else { return nil }
                }
            case .link(let number, _, _):
                guard oldLinkColumns.contains(column.name), set(number).isUnchanged else { return nil }
            }
        }
        let oldNames = Set(old.columns.map(\.name))
        var additions: [(ColumnLayout, String?)] = []
        let row = SQL.identifier(table.name)
        for column in table.columns where !oldNames.contains(column.name) {
            switch roles[column.name] {
            case .attribute(let values)?:
                let fill = attributeSQL(values, kinds: rows.map(\.source.number), row: row)
                additions.append((column, fill == "NULL" ? nil : fill))
            case .link(let number, let forwardSide, let part)?:
                let links = SQL.identifier(set(number).table)
                let (match, value) = linkColumns(forwardSide: forwardSide, part: part, alias: "l")
                additions.append((column, "(SELECT \(value) FROM \(links) AS l WHERE l.\(match) = \(row).\"Z_PK\")"))
            case nil:
                additions.append((column, nil))
            }
        }
        return .keep(name: table.name, additions: additions, deletedKinds: deleted)
    }

    /// Columns of a source table that hold relationships (keys, entity numbers, orders).
    func sourceLinkColumns(of table: String) -> Set<String> {
        var columns: Set<String> = []
        for entity in source.entities where entity.table == table {
            for link in entity.relationships {
                if case .foreignKey(let key, let entityColumn, let orderColumn) = link.storage {
                    columns.insert(key)
                    if let entityColumn { columns.insert(entityColumn) }
                    if let orderColumn { columns.insert(orderColumn) }
                }
            }
        }
        return columns
    }

    /// `INSERT … SELECT` filling a rebuilt entity table from its source table.
    func insertStatement(
        _ table: TableLayout, into temporary: String, from sourceTable: String, rows: [EntityCorrespondence],
        roles: [String: Role]
    ) -> String {
        let kinds = rows.map(\.source.number)
        var joins: [String: String] = [:]
        var values: [String] = []
        for column in table.columns {
            switch column.name {
            case "Z_PK": values.append("s.\"Z_PK\"")
            case "Z_ENT": values.append(LinkSet.caseOf("s.\"Z_ENT\"", entityNumbers.filter { kinds.contains($0.key) }))
            case "Z_OPT": values.append("s.\"Z_OPT\"")
            default:
                switch roles[column.name] {
                case .attribute(let byKind)?:
                    values.append(attributeSQL(byKind, kinds: kinds, row: "s"))
                case .link(let number, let forwardSide, let part)?:
                    let alias = "l\(number)\(forwardSide ? "f" : "i")"
                    let (match, value) = linkColumns(forwardSide: forwardSide, part: part, alias: alias)
                    joins[alias] =
                        "LEFT JOIN \(SQL.identifier(set(number).table)) AS \(alias) ON \(alias).\(match) = s.\"Z_PK\""
                    values.append(value)
                case nil:
                    values.append("NULL")
                }
            }
        }
        let joinText = joins.sorted { $0.key < $1.key }.map(\.value).joined(separator: " ")
        return """
            INSERT INTO \(SQL.identifier(temporary)) (\(SQL.identifiers(table.columns.map(\.name)))) \
            SELECT \(values.joined(separator: ", ")) FROM main.\(SQL.identifier(sourceTable)) AS s \(joinText) \
            WHERE s."Z_ENT" IN (\(LinkSet.list(kinds)))
            """
    }

    /// The link-table column matched to the row's key, and the SQL of the value.
    func linkColumns(forwardSide: Bool, part: Part, alias: String) -> (match: String, value: String) {
        let (match, other, otherEntity, position) =
            forwardSide ? ("owner", "target", "targetEnt", "targetPos") : ("target", "owner", "ownerEnt", "ownerPos")
        switch part {
        case .key: return (match, "\(alias).\(other)")
        case .entity: return (match, LinkSet.caseOf("\(alias).\(otherEntity)", entityNumbers))
        case .order: return (match, "\(alias).\(position)")
        }
    }

    /// An attribute column's value for a row, by the row's source entity.
    func attributeSQL(_ byKind: [Int: ColumnValue], kinds: [Int], row: String) -> String {
        let arms = kinds.sorted().map { ($0, sql(byKind[$0] ?? .null, row: row)) }
        if let first = arms.first, arms.allSatisfy({ $0.1 == first.1 }) { return first.1 }
        let cases = arms.map { "WHEN \($0.0) THEN \($0.1)" }.joined(separator: " ")
        return "CASE \(row).\"Z_ENT\" \(cases) ELSE NULL END"
    }

    func sql(_ value: ColumnValue, row: String) -> String {
        switch value {
        case .null: "NULL"
        case .constant(let constant): Self.literal(constant)
        case .column(let name): "\(row).\(SQL.identifier(name))"
        case .evaluated(let number): expressions.sql(number, row: row)
        }
    }

    static func literal(_ value: SQLiteValue) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let number): return "\(number)"
        case .real(let number):
            // Swift prints the shortest text that reads back as the same Double ("5.0", "1e-05");
            // SQLite reads an out-of-range literal as infinity.
            if number.isNaN { return "NULL" }
            if number.isInfinite { return number > 0 ? "9e999" : "-9e999" }
            return "\(number)"
        case .text(let text): return SQL.literal(text)
        case .blob(let data): return "X'\(data.map { String(format: "%02X", $0) }.joined())'"
        }
    }

}
