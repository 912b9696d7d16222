internal import Foundation
internal import MoltCore
public import MoltModel
internal import MoltSQLite

/// Inserts and updates objects and sets relationships, in Core Data's layout.
///
/// A writer works inside one transaction (``ObjectStore/write(_:)`` or store creation). It
/// hands out primary keys through `Z_PRIMARYKEY`, keeps both sides of every relationship
/// consistent (setting `book.publisher` is seen from `publisher.books`; a one-to-one moves its
/// partner), keeps ordered relationships' order columns, and checks every object and value it
/// is given against the model. Each failure names the entity, object and property.
///
/// ```swift
/// try store.write { writer in
///     let author = try writer.insert("Author", attributes: ["name": .string("Ann")])
///     let book = try writer.insert("Book", attributes: ["title": .string("Molt")])
///     try writer.setToMany(author, "books", to: [book])
/// }
/// ```
public final class ObjectWriter {
    public let layout: StoreLayout
    let connection: SQLiteConnection
    let path: String
    /// The last key handed out per hierarchy root, loaded on first use.
    private var lastKeys: [String: Int64] = [:]
    private var statements: [String: SQLiteStatement] = [:]

    init(connection: SQLiteConnection, layout: StoreLayout, path: String) throws {
        self.connection = connection
        self.layout = layout
        self.path = path
    }

    // MARK: Inserting and updating

    /// Inserts an object of `entity` and returns its ID.
    ///
    /// - Parameters:
    ///   - attributes: values by attribute name; attributes not given are NULL, or take the
    ///     model's default value when `applyingDefaults` is true.
    ///   - primaryKey: the key to use; by default the next free one of the hierarchy.
    @discardableResult
    public func insert(
        _ entity: String, attributes: [String: AttributeValue] = [:], primaryKey: Int64? = nil,
        applyingDefaults: Bool = true
    ) throws -> ObjectID {
        let entityLayout = try layout.requireEntity(entity)
        guard !entityLayout.isAbstract else {
            throw MoltError(
                .validation, "the entity is abstract; insert objects of one of its sub-entities", entity: entity)
        }
        var values: [String: AttributeValue] = [:]
        for (name, value) in attributes {
            guard let column = entityLayout.attribute(named: name) else {
                throw unknownProperty(name, in: entityLayout)
            }
            try check(value, fits: column.attribute, entity: entity)
            values[name] = value
        }
        if applyingDefaults {
            for column in entityLayout.attributes where values[column.attribute.name] == nil {
                if let value = AttributeValue(defaultOf: column.attribute) { values[column.attribute.name] = value }
            }
        }
        let key = try claimKey(primaryKey, for: entityLayout)
        let columns = entityLayout.attributes.map(\.column)
        let sql =
            "INSERT INTO \(SQL.identifier(entityLayout.table)) (\(SQL.identifiers(["Z_PK", "Z_ENT", "Z_OPT"] + columns))) VALUES (\(SQL.placeholders(3 + columns.count)))"
        var bindings: [SQLiteValue] = [.integer(key), .integer(Int64(entityLayout.number)), .integer(1)]
        bindings += entityLayout.attributes.map { values[$0.attribute.name]?.sqliteValue ?? .null }
        do {
            try run(sql, bindings)
        } catch let error as SQLiteError where error.code.primary == .constraint {
            throw MoltError(
                .validation, "the primary key \(key) is already used in \(entityLayout.table)", entity: entity,
                underlying: error)
        }
        return ObjectID(entity: entity, primaryKey: key)
    }

    /// Sets attribute values of an existing object (nil values make the attribute NULL) and
    /// increments its optimistic-lock version (`Z_OPT`).
    public func update(_ id: ObjectID, attributes: [String: AttributeValue?]) throws {
        let entityLayout = try requireObject(id)
        var assignments: [String] = []
        var bindings: [SQLiteValue] = []
        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) {
            guard let column = entityLayout.attribute(named: name) else {
                throw unknownProperty(name, in: entityLayout)
            }
            if let value { try check(value, fits: column.attribute, entity: id.entity) }
            assignments.append("\(SQL.identifier(column.column)) = ?")
            bindings.append(value?.sqliteValue ?? .null)
        }
        assignments.append("\"Z_OPT\" = \"Z_OPT\" + 1")
        try run(
            "UPDATE \(SQL.identifier(entityLayout.table)) SET \(assignments.joined(separator: ", ")) WHERE \"Z_PK\" = ?",
            bindings + [.integer(id.primaryKey)])
    }

    // MARK: Relationships

    /// Sets a relationship to `value`: a to-one to one object or none, a to-many to a list.
    public func set(_ id: ObjectID, _ relationship: String, to value: RelationshipValue) throws {
        switch value {
        case .toOne(let target): try setToOne(id, relationship, to: target)
        case .toMany(let targets): try setToMany(id, relationship, to: targets)
        }
    }

    /// Points the to-one `relationship` of `id` at `target` (or at nothing). The inverse side
    /// follows: a to-many inverse gains the object (at the end, if ordered); a one-to-one
    /// inverse moves, leaving the old partners with nothing.
    public func setToOne(_ id: ObjectID, _ relationship: String, to target: ObjectID?) throws {
        let owner = try requireObject(id)
        let link = try requireRelationship(relationship, of: owner)
        guard case .foreignKey(let column, let entityColumn, let orderColumn) = link.storage else {
            throw MoltError(
                .validation, "the relationship is to-many; give a list of objects", entity: id.entity,
                property: relationship)
        }
        if let target { try checkTarget(target, of: link, from: id) }
        let table = SQL.identifier(owner.table)
        let current = try connection.scalar(
            "SELECT \(SQL.identifier(column)) FROM \(table) WHERE \"Z_PK\" = ?", [.integer(id.primaryKey)])?
            .integerValue
        if current == target?.primaryKey { return }

        if let inverse = layout.model.inverse(of: link.relationship), !inverse.isToMany,
            let inverseLayout = layout.entity(named: link.relationship.destinationEntityName)?.relationship(
                named: inverse.name),
            case .foreignKey(let inverseColumn, let inverseEntityColumn, _) = inverseLayout.storage
        {
            let destination = SQL.identifier(link.destinationTable)
            let clearInverse = clearing([inverseColumn, inverseEntityColumn])
            if let current {
                try run("UPDATE \(destination) SET \(clearInverse) WHERE \"Z_PK\" = ?", [.integer(current)])
            }
            if let target {
                try run(
                    "UPDATE \(table) SET \(clearing([column, entityColumn, orderColumn])) WHERE \(SQL.identifier(column)) = ? AND \"Z_PK\" <> ?",
                    [.integer(target.primaryKey), .integer(id.primaryKey)])
                try assign(
                    in: link.destinationTable, row: target.primaryKey,
                    [
                        (inverseColumn, .integer(id.primaryKey)),
                        (inverseEntityColumn, .integer(Int64(owner.number))),
                    ])
            }
        }
        var position: SQLiteValue = .null
        if let orderColumn, let target {
            let last =
                try connection.scalar(
                    "SELECT COALESCE(MAX(\(SQL.identifier(orderColumn))), 0) FROM \(table) WHERE \(SQL.identifier(column)) = ?",
                    [.integer(target.primaryKey)])?.integerValue ?? 0
            position = .integer(last + 1)
        }
        let targetNumber = try target.map { try layout.requireEntity($0.entity).number }
        try assign(
            in: owner.table, row: id.primaryKey,
            [
                (column, target.map { .integer($0.primaryKey) } ?? .null),
                (entityColumn, targetNumber.map { .integer(Int64($0)) } ?? .null),
                (orderColumn, position),
            ])
    }

    /// Makes the to-many `relationship` of `id` hold exactly `targets` (in that order, if
    /// ordered). Links that stay keep their place in the inverse's order; a target whose
    /// to-one inverse pointed elsewhere moves here.
    public func setToMany(_ id: ObjectID, _ relationship: String, to targets: [ObjectID]) throws {
        let owner = try requireObject(id)
        let link = try requireRelationship(relationship, of: owner)
        var seen: Set<ObjectID> = []
        for target in targets {
            guard seen.insert(target).inserted else {
                throw MoltError(
                    .validation, "\(target) is listed twice", entity: id.entity, property: relationship)
            }
            try checkTarget(target, of: link, from: id)
        }
        switch link.storage {
        case .foreignKey:
            throw MoltError(
                .validation, "the relationship is to-one; give one object or none", entity: id.entity,
                property: relationship)
        case .inverseForeignKey(let column, let entityColumn, let orderColumn):
            let destination = SQL.identifier(link.destinationTable)
            let wanted = Set(targets.map(\.primaryKey))
            let existing = try connection.rows(
                "SELECT \"Z_PK\" FROM \(destination) WHERE \(SQL.identifier(column)) = ?", [.integer(id.primaryKey)]
            ).compactMap { $0[0].integerValue }
            for key in existing where !wanted.contains(key) {
                try run(
                    "UPDATE \(destination) SET \(clearing([column, entityColumn, orderColumn])) WHERE \"Z_PK\" = ?",
                    [.integer(key)])
            }
            for (offset, target) in targets.enumerated() {
                try assign(
                    in: link.destinationTable, row: target.primaryKey,
                    [
                        (column, .integer(id.primaryKey)), (entityColumn, .integer(Int64(owner.number))),
                        (orderColumn, .integer(Int64(offset + 1))),
                    ])
            }
        case .joinTable(let table, let own, let other, let orderColumn, let inverseOrderColumn, let mirrored):
            let join = SQL.identifier(table)
            let ownColumn = SQL.identifier(own)
            let otherColumn = SQL.identifier(other)
            let wanted = Set(targets.map(\.primaryKey))
            let existing = Set(
                try connection.rows(
                    "SELECT \(otherColumn) FROM \(join) WHERE \(ownColumn) = ?", [.integer(id.primaryKey)]
                )
                .compactMap { $0[0].integerValue })
            for key in existing where !wanted.contains(key) {
                try run(
                    "DELETE FROM \(join) WHERE \(ownColumn) = ? AND \(otherColumn) = ?",
                    [.integer(id.primaryKey), .integer(key)])
                if mirrored {
                    try run(
                        "DELETE FROM \(join) WHERE \(ownColumn) = ? AND \(otherColumn) = ?",
                        [.integer(key), .integer(id.primaryKey)])
                }
            }
            for target in targets where !existing.contains(target.primaryKey) {
                try insertLink(
                    into: table, own: own, ownKey: id.primaryKey, other: other, otherKey: target.primaryKey,
                    appendingTo: mirrored ? nil : inverseOrderColumn, orderedBy: other)
                if mirrored {
                    try insertLink(
                        into: table, own: own, ownKey: target.primaryKey, other: other, otherKey: id.primaryKey,
                        appendingTo: orderColumn, orderedBy: own)
                }
            }
            if let orderColumn {
                for (offset, target) in targets.enumerated() {
                    try run(
                        "UPDATE \(join) SET \(SQL.identifier(orderColumn)) = ? WHERE \(ownColumn) = ? AND \(otherColumn) = ?",
                        [.integer(Int64(offset + 1)), .integer(id.primaryKey), .integer(target.primaryKey)])
                }
            }
        }
    }

    /// Inserts one join row; when `appendingTo` names an order column, the new link goes at
    /// the end of the list it orders (the list of rows sharing `orderedBy`'s key).
    private func insertLink(
        into table: String, own: String, ownKey: Int64, other: String, otherKey: Int64,
        appendingTo orderColumn: String?,
        orderedBy groupColumn: String
    ) throws {
        let join = SQL.identifier(table)
        var columns = [own, other]
        var values: [SQLiteValue] = [.integer(ownKey), .integer(otherKey)]
        if let orderColumn {
            let groupKey = groupColumn == own ? ownKey : otherKey
            let last =
                try connection.scalar(
                    "SELECT COALESCE(MAX(\(SQL.identifier(orderColumn))), 0) FROM \(join) WHERE \(SQL.identifier(groupColumn)) = ?",
                    [.integer(groupKey)])?.integerValue ?? 0
            columns.append(orderColumn)
            values.append(.integer(last + 1))
        }
        try run(
            "INSERT OR IGNORE INTO \(join) (\(SQL.identifiers(columns))) VALUES (\(SQL.placeholders(columns.count)))",
            values)
    }

    // MARK: Reading back

    /// The object with `id` as this writer's transaction sees it, or nil.
    public func object(_ id: ObjectID) throws -> StoredObject? {
        let entity = try layout.requireEntity(id.entity)
        let cursor = try ObjectCursor(
            layout: layout, connection: connection, path: path, entity: entity, includingSubentities: false,
            batchSize: 1, keys: id.primaryKey...id.primaryKey)
        return try cursor.nextBatch()?.first
    }

    // MARK: Finishing

    /// Records the last primary key of each hierarchy in `Z_PRIMARYKEY.Z_MAX`.
    func finish() throws {
        for (root, last) in lastKeys {
            guard let number = layout.entity(named: root)?.number else { continue }
            try run("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", [.integer(last), .integer(Int64(number))])
        }
    }

    // MARK: Helpers

    private func claimKey(_ requested: Int64?, for entity: EntityLayout) throws -> Int64 {
        let root = entity.rootName
        if lastKeys[root] == nil {
            let rootNumber = layout.entity(named: root)?.number ?? entity.number
            let recorded =
                try connection.scalar(
                    "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(Int64(rootNumber))])?.integerValue ?? 0
            let used =
                try connection.scalar("SELECT MAX(\"Z_PK\") FROM \(SQL.identifier(entity.table))")?.integerValue ?? 0
            lastKeys[root] = max(recorded, used)
        }
        if let requested {
            guard requested >= 1 else {
                throw MoltError(.validation, "primary keys start at 1, not \(requested)", entity: entity.name)
            }
            lastKeys[root] = max(lastKeys[root]!, requested)
            return requested
        }
        lastKeys[root]! += 1
        return lastKeys[root]!
    }

    /// The layout of `id`'s entity, after checking that the object exists and is of that entity.
    private func requireObject(_ id: ObjectID) throws -> EntityLayout {
        let entityLayout = try layout.requireEntity(id.entity)
        let stored = try connection.scalar(
            "SELECT \"Z_ENT\" FROM \(SQL.identifier(entityLayout.table)) WHERE \"Z_PK\" = ?", [.integer(id.primaryKey)])
        guard let number = stored?.integerValue else {
            throw MoltError(.validation, "the object \(id) does not exist", entity: id.entity)
        }
        guard Int(number) == entityLayout.number else {
            let actual = layout.entity(number: Int(number))?.name ?? "entity \(number)"
            throw MoltError(
                .validation, "the object with key \(id.primaryKey) is a \(actual), not a \(id.entity)",
                entity: id.entity)
        }
        return entityLayout
    }

    private func requireRelationship(_ name: String, of entity: EntityLayout) throws -> RelationshipLayout {
        guard let link = entity.relationship(named: name) else { throw unknownProperty(name, in: entity) }
        return link
    }

    private func checkTarget(_ target: ObjectID, of link: RelationshipLayout, from id: ObjectID) throws {
        let targetLayout = try requireObject(target)
        guard targetLayout.table == link.destinationTable,
            layout.model.entity(named: target.entity).map({
                layout.model.entity($0, isKindOf: link.relationship.destinationEntityName)
            }) == true
        else {
            throw MoltError(
                .validation,
                "\(target) is a \(target.entity), but the relationship leads to \(link.relationship.destinationEntityName)",
                entity: id.entity, property: link.relationship.name)
        }
    }

    private func check(_ value: AttributeValue, fits attribute: Attribute, entity: String) throws {
        if case .double(let number) = value, number.isNaN {
            throw MoltError(
                .validation, "NaN cannot be stored: SQLite turns it into NULL", entity: entity, property: attribute.name
            )
        }
        guard value.fits(attribute.type) else {
            throw MoltError(
                .validation, "the value \(value) does not fit the attribute's type \(attribute.type.rawValue)",
                entity: entity, property: attribute.name)
        }
    }

    private func unknownProperty(_ name: String, in entity: EntityLayout) -> MoltError {
        let known = (entity.attributes.map(\.attribute.name) + entity.relationships.map(\.relationship.name)).sorted()
        return MoltError(
            .validation, "the entity has no stored property \"\(name)\"", entity: entity.name,
            recovery: "Its properties: \(known.joined(separator: ", ")).")
    }

    /// `"A" = NULL, "B" = NULL` for the columns that exist.
    private func clearing(_ columns: [String?]) -> String {
        columns.compactMap { $0 }.map { "\(SQL.identifier($0)) = NULL" }.joined(separator: ", ")
    }

    /// Updates the given columns (those that exist) of one row.
    private func assign(in table: String, row key: Int64, _ assignments: [(String?, SQLiteValue)]) throws {
        let present = assignments.compactMap { column, value in column.map { ($0, value) } }
        guard !present.isEmpty else { return }
        try run(
            "UPDATE \(SQL.identifier(table)) SET \(present.map { "\(SQL.identifier($0.0)) = ?" }.joined(separator: ", ")) WHERE \"Z_PK\" = ?",
            present.map(\.1) + [.integer(key)])
    }

    /// Runs a statement, reusing its compiled form.
    private func run(_ sql: String, _ bindings: [SQLiteValue]) throws {
        let statement: SQLiteStatement
        if let cached = statements[sql] {
            statement = cached
        } else {
            statement = try connection.prepare(sql)
            statements[sql] = statement
        }
        try statement.bind(bindings)
        try statement.run()
    }
}

extension AttributeValue {
    /// The model's default value for `attribute`, when it has one that reads as its type.
    public init?(defaultOf attribute: Attribute) {
        guard let text = attribute.defaultValue,
            let scalar = DefaultValueReading.value(text, for: attribute.type)
        else { return nil }
        switch scalar {
        case .integer(let number): self = .integer(number)
        case .double(let number): self = .double(number)
        case .decimal(let number): self = .decimal(number)
        case .bool(let flag): self = .bool(flag)
        case .string(let string): self = .string(string)
        case .date(let seconds): self = .date(ReferenceDate.date(fromStoredSeconds: seconds))
        case .uuid(let uuid): self = .uuid(uuid)
        case .uri(let uri): self = .uri(uri)
        }
    }
}
