internal import MoltCore
internal import MoltModel
internal import MoltSQLite

/// Setting relationships: both sides stay consistent, ordered relationships keep their order.
extension ObjectWriter {
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
        try setToOne(id, relationship, to: target, existing: .none)
    }

    /// ``setToOne(_:_:to:)``; the caller vouches that the objects in `existing` exist with the
    /// entities their IDs name (a migration's objects, from its association table), so their
    /// rows are not looked up; the model's rules are checked for every object.
    package func setToOne(_ id: ObjectID, _ relationship: String, to target: ObjectID?, existing: KnownObjects) throws {
        let owner = try existing.contains(id) ? layout.requireEntity(id.entity) : requireObject(id)
        let link = try requireRelationship(relationship, of: owner)
        guard case .foreignKey(let column, let entityColumn, let orderColumn) = link.storage else {
            throw MoltError(
                .validation, "the relationship is to-many; give a list of objects", entity: id.entity,
                property: relationship)
        }
        if let target { try checkTarget(target, of: link, from: id, rowExists: existing.contains(target)) }
        let table = SQL.identifier(owner.table)
        let current = try scalar(
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
                try scalar(
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
        try setToMany(id, relationship, to: targets, existing: .none)
    }

    /// ``setToMany(_:_:to:)``; the caller vouches that the objects in `existing` exist with the
    /// entities their IDs name, so their rows are not looked up; the model's rules are checked
    /// for every object.
    package func setToMany(
        _ id: ObjectID, _ relationship: String, to targets: [ObjectID], existing: KnownObjects
    ) throws {
        let owner = try existing.contains(id) ? layout.requireEntity(id.entity) : requireObject(id)
        let link = try requireRelationship(relationship, of: owner)
        var seen: Set<ObjectID> = []
        for target in targets {
            guard seen.insert(target).inserted else {
                throw MoltError(
                    .validation, "\(target) is listed twice", entity: id.entity, property: relationship)
            }
            try checkTarget(target, of: link, from: id, rowExists: existing.contains(target))
        }
        switch link.storage {
        case .foreignKey:
            throw MoltError(
                .validation, "the relationship is to-one; give one object or none", entity: id.entity,
                property: relationship)
        case .inverseForeignKey(let column, let entityColumn, let orderColumn):
            let destination = SQL.identifier(link.destinationTable)
            let wanted = Set(targets.map(\.primaryKey))
            let existing = try rows(
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
                try rows(
                    "SELECT \(otherColumn) FROM \(join) WHERE \(ownColumn) = ?", [.integer(id.primaryKey)]
                )
                .compactMap { $0[0].integerValue })
            for key in existing.sorted() where !wanted.contains(key) {  // in key order: the same bytes each run
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
                try scalar(
                    "SELECT COALESCE(MAX(\(SQL.identifier(orderColumn))), 0) FROM \(join) WHERE \(SQL.identifier(groupColumn)) = ?",
                    [.integer(groupKey)])?.integerValue ?? 0
            columns.append(orderColumn)
            values.append(.integer(last + 1))
        }
        try run(
            "INSERT OR IGNORE INTO \(join) (\(SQL.identifiers(columns))) VALUES (\(SQL.placeholders(columns.count)))",
            values)
    }
}
