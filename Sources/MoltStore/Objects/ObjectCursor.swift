internal import MoltCore
internal import MoltModel
internal import MoltSQLite

/// Reads the objects of an entity in primary-key order, one batch at a time.
///
/// Each batch is one query on the entity's table (`Z_PK` greater than the last one read), plus
/// one query per to-many relationship for the whole batch; only the current batch is held in
/// memory, so reading a million objects takes no more memory than reading a thousand.
///
/// ```swift
/// let cursor = try store.objects(of: "Book")
/// while let batch = try cursor.nextBatch() {
///     for book in batch { print(book.id, book.attributes["title"] ?? "nil") }
/// }
/// ```
public final class ObjectCursor {
    public let entity: String
    public let batchSize: Int
    private let layout: StoreLayout
    private let connection: SQLiteConnection
    private let path: String
    private let externalData: ExternalDataFolder
    private let kinds: [Int]
    private let table: String
    private let tableColumns: [String: Int32]
    private let rowStatement: SQLiteStatement
    private let conditionBindings: [SQLiteValue]
    private var relationshipStatements: [String: SQLiteStatement] = [:]
    /// Whether attribute values are read (without them, objects carry relationships only).
    private let readsAttributes: Bool
    /// Whether to-many relationships are read (without them, an object's `relationships`
    /// holds its to-ones alone: those are in its row, a to-many is a query of its own).
    private let readsToMany: Bool
    /// The relationships read, by name; nil for all.
    private let relationshipNames: Set<String>?
    /// Whether a join table's link counts only when its target's row exists (read with the
    /// target's entity number); without, a link to a destination with no sub-entities is read
    /// from the join table alone (``toManySQL(_:checkingTargets:)``).
    private let checksLinkTargets: Bool
    /// How each entity's rows are read (by entity number), made on first use; the last one
    /// used, which the next row is almost always of.
    private var rowPlans: [Int: RowPlan] = [:]
    private var lastPlan: (number: Int, plan: RowPlan)?
    /// Where statements are kept between cursors (single-object reads, which never overlap).
    private let statements: StatementCache?
    private var lastKey: Int64
    private let upperKey: Int64
    private var finished = false

    /// How many rows the cursor has read from the entity's table so far.
    public private(set) var rowsRead = 0

    init(
        layout: StoreLayout, connection: SQLiteConnection, path: String, externalData: ExternalDataFolder,
        entity: EntityLayout, includingSubentities: Bool, batchSize: Int, keys: ClosedRange<Int64> = 1...Int64.max,
        condition: SQLCondition? = nil, statements: StatementCache? = nil, readsAttributes: Bool = true,
        readsToMany: Bool = true, relationshipNames: Set<String>? = nil, checksLinkTargets: Bool = true
    ) throws {
        self.checksLinkTargets = checksLinkTargets
        self.readsAttributes = readsAttributes
        self.relationshipNames = relationshipNames
        self.readsToMany = readsToMany
        self.statements = statements
        self.entity = entity.name
        self.batchSize = max(1, batchSize)
        self.layout = layout
        self.connection = connection
        self.path = path
        self.externalData = externalData
        self.kinds = includingSubentities ? entity.kindNumbers : [entity.number]
        self.table = entity.table
        self.lastKey = keys.lowerBound - 1
        self.upperKey = keys.upperBound
        let tableLayout = layout.tables.first { $0.name == entity.table }!
        // Without attributes, only the columns of the relationships read: SQLite makes a value
        // of every column a query names, a string's copied, for each row.
        var selected = tableLayout.columns.map(\.name)
        if !readsAttributes {
            selected = Array(selected.prefix(3))
            for number in kinds {
                for link in layout.entity(number: number)?.relationships ?? []
                where relationshipNames?.contains(link.relationship.name) ?? true {
                    guard case .foreignKey(let column, let entityColumn, _) = link.storage else { continue }
                    for name in [column] + (entityColumn.map { [$0] } ?? []) where !selected.contains(name) {
                        selected.append(name)
                    }
                }
            }
        }
        var columns: [String: Int32] = [:]
        for (offset, column) in selected.enumerated() { columns[column] = Int32(offset) }
        self.tableColumns = columns
        self.conditionBindings = condition?.bindings ?? []
        let extra = condition.map { " AND (\($0.sql))" } ?? ""
        let sql = """
            SELECT \(SQL.identifiers(selected)) FROM \(SQL.identifier(entity.table)) \
            WHERE "Z_ENT" IN (\(kinds.map(String.init).joined(separator: ", "))) AND "Z_PK" > ? AND "Z_PK" <= ?\(extra) \
            ORDER BY "Z_PK" LIMIT ?
            """
        let connection = self.connection
        rowStatement = try StoreErrors.sqlite(path, "reading \(entity.name) objects") {
            try statements?.statement(sql, on: connection) ?? connection.prepare(sql)
        }
    }

    /// The next batch of objects, or nil when every object has been read.
    public func nextBatch() throws -> [StoredObject]? {
        guard !finished else { return nil }
        do {
            let batch = try readBatch()
            if batch.count < batchSize { finished = true }
            return batch.isEmpty ? nil : batch
        } catch let error as MoltError {
            throw error.located(SourceLocation(file: path))
        } catch {
            throw StoreErrors.wrap(error, path: path, doing: "reading \(entity) objects")
        }
    }

    /// Reads every remaining object into memory. For small stores and tests; large stores
    /// should use ``nextBatch()``.
    public func all() throws -> [StoredObject] {
        var result: [StoredObject] = []
        while let batch = try nextBatch() { result += batch }
        return result
    }

    private func readBatch() throws -> [StoredObject] {
        try rowStatement.bind(
            [.integer(lastKey), .integer(upperKey)] + conditionBindings + [.integer(Int64(batchSize))])
        var objects: [StoredObject] = []
        objects.reserveCapacity(batchSize)
        var plans: [RowPlan] = []
        plans.reserveCapacity(batchSize)
        while try rowStatement.step() {
            rowsRead += 1
            let key = rowStatement.int64(at: 0)
            let number = Int(rowStatement.int64(at: 1))
            let plan = try rowPlan(number, key: key)
            var object = StoredObject(
                id: ObjectID(entity: plan.layout.name, primaryKey: key), version: rowStatement.int64(at: 2))
            // Each dictionary is a copy of the plan's, its values written in place by index.
            object.attributes = plan.attributeTemplate
            var absent: [String] = []
            for (slot, column) in plan.attributes.enumerated() {
                let value = rowStatement.value(at: column.index)
                do {
                    let typed =
                        column.external
                        ? try externalData.value(from: value)
                        : try AttributeValue.read(value, as: column.type)
                    if let typed {
                        object.attributes.values[plan.attributeSlots[slot]] = typed
                    } else {
                        absent.append(column.name)
                    }
                } catch var error as MoltError {
                    error.message = "\(object.id): \(error.message)"
                    throw error.about(entity: plan.layout.name, property: column.name)
                }
            }
            // NULL: no value (after the writes by index, which a removal would invalidate).
            for name in absent { object.attributes.removeValue(forKey: name) }
            object.relationships = plan.relationshipTemplate
            for index in plan.relationships.indices {
                // A to-many not read stays out; read, it is filled below (empty in the template).
                guard let column = plan.relationships[index].keyIndex, let slot = plan.relationshipSlots[index]
                else { continue }
                object.relationships.values[slot] = .toOne(
                    try relatedID(
                        key: rowStatement.value(at: column),
                        entityNumber: plan.relationships[index].entityIndex.map { rowStatement.value(at: $0) },
                        destination: plan.relationships[index].destination))
            }
            objects.append(object)
            plans.append(plan)
        }
        guard let last = objects.last else { return [] }
        lastKey = last.id.primaryKey
        if readsToMany { try fillToMany(&objects, plans: plans) }
        return objects
    }

    /// How rows of the entity numbered `number` are read, worked out on its first row.
    private func rowPlan(_ number: Int, key: Int64) throws -> RowPlan {
        if let lastPlan, lastPlan.number == number { return lastPlan.plan }
        if let known = rowPlans[number] {
            lastPlan = (number, known)
            return known
        }
        guard let objectLayout = layout.entity(number: number) else {
            throw MoltError(
                .persistentStoreInvalidType, "row \(key) of \(table) has the unknown entity number \(number)")
        }
        let plan = RowPlan(
            layout: objectLayout,
            attributes: !readsAttributes
                ? []
                : objectLayout.attributes.map {
                    RowPlan.Attribute(
                        name: $0.attribute.name, index: tableColumns[$0.column]!, type: $0.attribute.type,
                        external: $0.attribute.usesExternalStorage)
                },
            relationships: objectLayout.relationships.filter {
                relationshipNames?.contains($0.relationship.name) ?? true
            }.map { link in
                guard case .foreignKey(let column, let entityColumn, _) = link.storage else {
                    return RowPlan.Relationship(
                        layout: link, name: link.relationship.name, keyIndex: nil, entityIndex: nil)
                }
                return RowPlan.Relationship(
                    layout: link, name: link.relationship.name, keyIndex: tableColumns[column]!,
                    entityIndex: entityColumn.map { tableColumns[$0]! })
            }, readsToMany: readsToMany)
        rowPlans[number] = plan
        lastPlan = (number, plan)
        return plan
    }

    /// The ID of a related object from its key and, when recorded, its entity number.
    private func relatedID(
        key: SQLiteValue, entityNumber: SQLiteValue?, destination: RowPlan.Relationship.Destination
    ) throws -> ObjectID? {
        guard case .integer(let relatedKey) = key else { return nil }
        var name = destination.entity
        if let number = entityNumber?.integerValue, let related = layout.entityName(number: Int(number)) {
            name = related
        } else if destination.hasSubentities {
            // No entity column value: look the row up.
            let number = try connection.scalar(
                "SELECT \"Z_ENT\" FROM \(SQL.identifier(destination.table)) WHERE \"Z_PK\" = ?",
                [.integer(relatedKey)]
            )?.integerValue
            if let number, let related = layout.entity(number: Int(number)) { name = related.name }
        }
        return ObjectID(entity: name, primaryKey: relatedKey)
    }

    /// Fills every to-many relationship of the batch, with one query per relationship. The
    /// query gives its rows in owner order and the batch is in key order, so the two are
    /// walked side by side.
    private func fillToMany(_ objects: inout [StoredObject], plans: [RowPlan]) throws {
        guard let first = objects.first, let last = objects.last else { return }
        var planned: Set<ObjectIdentifier> = []
        var done: Set<String> = []
        for plan in plans where planned.insert(ObjectIdentifier(plan)).inserted {
            for link in plan.layout.relationships
            where link.relationship.isToMany && relationshipNames?.contains(link.relationship.name) ?? true {
                let token = "\(link.declaringEntity).\(link.relationship.name)"
                guard done.insert(token).inserted else { continue }
                let statement = try relationshipStatement(for: link, token: token)
                try statement.bind([.integer(first.id.primaryKey), .integer(last.id.primaryKey)])
                let name = link.relationship.name
                let ordered = link.relationship.isOrdered
                let positioned = statement.columnCount > 3
                let numbered = statement.columnCount > 2
                var index = 0
                var owner: Int64?
                var links: [(id: ObjectID, position: Int64)] = []
                // Gives the owner read last its links, when it is in the batch and has the
                // relationship (sub-entities may not).
                func flush() {
                    guard let owner, !links.isEmpty else { return }
                    while index < objects.count, objects[index].id.primaryKey < owner { index += 1 }
                    guard index < objects.count, objects[index].id.primaryKey == owner,
                        let slot = objects[index].relationships.index(forKey: name)
                    else { return }
                    if ordered {
                        objects[index].relationships.values[slot] = .toMany(
                            links.sorted { ($0.position, $0.id) < ($1.position, $1.id) }.map(\.id))
                        return
                    }
                    // The query gives an owner's links by key: in ID order unless their
                    // entities differ.
                    var ids = links.map(\.id)
                    if zip(ids, ids.dropFirst()).contains(where: { !($0 < $1) }) { ids.sort() }
                    objects[index].relationships.values[slot] = .toMany(ids)
                }
                var lastNumber = -1
                var lastName = link.relationship.destinationEntityName
                while try statement.step() {
                    let key = statement.int64(at: 0)
                    if key != owner {
                        flush()
                        owner = key
                        links.removeAll(keepingCapacity: true)
                    }
                    let number = numbered ? Int(statement.int64(at: 2)) : lastNumber
                    if number != lastNumber {
                        lastNumber = number
                        lastName = layout.entityName(number: number) ?? link.relationship.destinationEntityName
                    }
                    links.append(
                        (
                            ObjectID(entity: lastName, primaryKey: statement.int64(at: 1)),
                            positioned ? statement.int64(at: 3) : 0
                        ))
                }
                flush()
            }
        }
    }

    private func relationshipStatement(for link: RelationshipLayout, token: String) throws -> SQLiteStatement {
        if let cached = relationshipStatements[token] { return cached }
        let sql = Self.toManySQL(link, checkingTargets: checksLinkTargets || link.destinationHasSubentities)
        let statement = try statements?.statement(sql, on: connection) ?? connection.prepare(sql)
        relationshipStatements[token] = statement
        return statement
    }

    /// The query of a to-many relationship's links for owners with keys between two bounds, in
    /// owner order, then the related object's key: each row gives the owner's key, the related
    /// object's key and entity number, and (when ordered) its position.
    ///
    /// Without `checkingTargets` (only for a destination without sub-entities), a join table
    /// is read alone: its rows give no entity number (the destination's), and a row naming a
    /// target that has no row is given too. SQLite then looks nothing up per link, which
    /// halves the query's work.
    static func toManySQL(_ link: RelationshipLayout, checkingTargets: Bool = true) -> String {
        let destination = SQL.identifier(link.destinationTable)
        switch link.storage {
        case .foreignKey:
            preconditionFailure("to-one relationships are read with their row")
        case .inverseForeignKey(let column, _, let orderColumn):
            let order = orderColumn.map { ", \(SQL.identifier($0))" } ?? ""
            return """
                SELECT \(SQL.identifier(column)), "Z_PK", "Z_ENT"\(order) FROM \(destination) \
                WHERE \(SQL.identifier(column)) BETWEEN ? AND ? ORDER BY 1, 2
                """
        case .joinTable(let table, let own, let other, let orderColumn, _, _):
            let order = orderColumn.map { ", j.\(SQL.identifier($0))" } ?? ""
            if !checkingTargets, orderColumn == nil {
                return """
                    SELECT j.\(SQL.identifier(own)), j.\(SQL.identifier(other)) FROM \(SQL.identifier(table)) AS j \
                    WHERE j.\(SQL.identifier(own)) BETWEEN ? AND ? ORDER BY 1, 2
                    """
            }
            return """
                SELECT j.\(SQL.identifier(own)), j.\(SQL.identifier(other)), d."Z_ENT"\(order) \
                FROM \(SQL.identifier(table)) AS j JOIN \(destination) AS d ON d."Z_PK" = j.\(SQL.identifier(other)) \
                WHERE j.\(SQL.identifier(own)) BETWEEN ? AND ? ORDER BY 1, 2
                """
        }
    }
}

/// Where an entity's values sit in its table's rows, for reading them without looking names up.
private final class RowPlan {
    struct Attribute {
        let name: String
        let index: Int32
        let type: AttributeType
        let external: Bool
    }

    struct Relationship {
        /// What a to-one's key is read as: the destination entity (unless the row says which
        /// sub-entity), whether it has sub-entities, and its table.
        struct Destination {
            let entity: String
            let hasSubentities: Bool
            let table: String
        }

        let layout: RelationshipLayout
        let name: String
        /// The key and entity columns of a to-one (nil for a to-many).
        let keyIndex: Int32?
        let entityIndex: Int32?
        let destination: Destination

        init(layout: RelationshipLayout, name: String, keyIndex: Int32?, entityIndex: Int32?) {
            self.layout = layout
            self.name = name
            self.keyIndex = keyIndex
            self.entityIndex = entityIndex
            destination = Destination(
                entity: layout.relationship.destinationEntityName, hasSubentities: layout.destinationHasSubentities,
                table: layout.destinationTable)
        }
    }

    let layout: EntityLayout
    let attributes: [Attribute]
    let relationships: [Relationship]
    /// Every attribute's name with a stand-in value, and where each attribute's value goes in
    /// it: a row's dictionary is a copy whose values are written by index, so no name is
    /// hashed per row.
    let attributeTemplate: [String: AttributeValue]
    let attributeSlots: [Dictionary<String, AttributeValue>.Index]
    /// The same for relationships: every to-one (stand-in: none), and every to-many as an empty
    /// list when to-many relationships are read; nil slot for a to-many.
    let relationshipTemplate: [String: RelationshipValue]
    let relationshipSlots: [Dictionary<String, RelationshipValue>.Index?]

    init(layout: EntityLayout, attributes: [Attribute], relationships: [Relationship], readsToMany: Bool) {
        self.layout = layout
        self.attributes = attributes
        self.relationships = relationships
        var attributeTemplate: [String: AttributeValue] = [:]
        for attribute in attributes { attributeTemplate[attribute.name] = .integer(0) }
        self.attributeTemplate = attributeTemplate
        attributeSlots = attributes.map { attributeTemplate.index(forKey: $0.name)! }
        var relationshipTemplate: [String: RelationshipValue] = [:]
        for relationship in relationships {
            if relationship.keyIndex != nil {
                relationshipTemplate[relationship.name] = .toOne(nil)
            } else if readsToMany {
                relationshipTemplate[relationship.name] = .toMany([])
            }
        }
        self.relationshipTemplate = relationshipTemplate
        relationshipSlots = relationships.map {
            $0.keyIndex == nil ? nil : relationshipTemplate.index(forKey: $0.name)
        }
    }
}
