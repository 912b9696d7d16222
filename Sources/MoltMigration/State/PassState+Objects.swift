internal import Foundation
internal import MoltCore
internal import MoltMapping
internal import MoltModel
internal import MoltSQLite
internal import MoltStore

/// Making destination objects, associating them with their sources, setting their values and
/// relationships, and the keys the association table holds.
extension PassState {
    /// The work of the manager's `createDestinationObject` (its documentation is there).
    func createDestinationObject(
        entity: String, attributes: [String: ExpressionValue] = [:]
    ) throws
        -> DestinationObject
    {
        let plan: InsertPlan
        if let memo = copying.insertPlan, memo.entity == entity {
            plan = memo.plan
        } else {
            plan = try writer.insertPlan(for: entity)
            copying.insertPlan = (entity, plan)
        }
        let row = try Self.row(of: attributes, plan: plan, entity: entity, memo: &copying.attributeColumns)
        // The current source's to-one keys, when the plan writes them with the row and the
        // object is of the mapping's destination entity (``KeyAtInsert``).
        return DestinationObject(
            id: try insertNewObject(
                entity, row: row, plan: plan, mapping: currentEntityMapping?.name, source: copying.sourceObject,
                byPolicy: true))
    }

    /// The row of `attributes` for `plan`'s entity. A policy passes the same names object after
    /// object, and a dictionary built the same way walks them in the same order: each name is
    /// compared with the one at its place last time (`memo`, no hashing) before it is looked
    /// up. A name or value that does not fit: the failure reported is the one in column order.
    static func row(
        of attributes: [String: ExpressionValue], plan: InsertPlan, entity: String, memo: inout AttributeColumns
    ) throws -> [AttributeValue?] {
        var row = plan.defaults
        let planIdentity = ObjectIdentifier(plan)
        if memo.plan != planIdentity { memo = (planIdentity, []) }
        var failed = false
        for (position, (name, value)) in attributes.enumerated() {
            let column: Int
            if position < memo.columns.count, memo.columns[position].name == name {
                column = memo.columns[position].column
            } else if let found = plan.columnIndex[name] {
                column = found
                if position < memo.columns.count {
                    memo.columns[position] = (name, column)
                } else if position == memo.columns.count {
                    memo.columns.append((name, column))
                }
            } else {
                failed = true
                break
            }
            do {
                row[column] =
                    try AttributeAssignment.unchanged(value, into: plan.types[column])
                    ?? AttributeAssignment.convert(value, to: plan.attributes[column])
            } catch {
                failed = true
                break
            }
        }
        if failed { row = try Self.row(of: attributes, plan: plan, entity: entity) }
        return row
    }

    /// The row of `attributes` for `plan`'s entity, converted in column order (so the first
    /// failure is the same whatever the dictionary's order), an unknown name after that.
    static func row(
        of attributes: [String: ExpressionValue], plan: InsertPlan, entity: String
    ) throws -> [AttributeValue?] {
        var row = plan.defaults
        var given: [(column: Int, value: ExpressionValue)] = []
        var unknown: [String] = []
        for (name, value) in attributes {
            if let column = plan.columnIndex[name] { given.append((column, value)) } else { unknown.append(name) }
        }
        given.sort { $0.column < $1.column }
        for (column, value) in given {
            row[column] =
                try AttributeAssignment.unchanged(value, into: plan.types[column])
                ?? AttributeAssignment.convert(value, to: plan.attributes[column])
        }
        if let name = unknown.sorted().first {
            throw MoltError(.migration, "the destination entity has no stored attribute \"\(name)\"", entity: entity)
        }
        return row
    }

    /// The work of the manager's `setAttributes` (its documentation is there).
    func setAttributes(_ attributes: [String: ExpressionValue], of object: DestinationObject) throws {
        let layout = try destination.layout.requireEntity(object.entity)
        var values: [String: AttributeValue?] = [:]
        for (name, value) in attributes {
            guard let column = layout.attribute(named: name) else {
                throw MoltError(
                    .migration, "the destination entity has no stored attribute \"\(name)\"", entity: object.entity)
            }
            values[name] = try AttributeAssignment.convert(value, to: column.attribute)
        }
        try writer.update(object.id, attributes: values)
    }

    /// The work of the manager's `associate` (its documentation is there).
    func associate(source: SourceObject, destination: DestinationObject) throws {
        try associate(source: source.id, destination: destination.id)
    }

    /// Associates `source` with `destination` for the current mapping.
    func associate(source: ObjectID, destination: ObjectID) throws {
        // The running mapping's number, known since ``begin(_:)``: not looked up by name.
        let number = try currentMappingNumber ?? self.number(of: try requireCurrentMapping().name)
        try associate(source: source, destination: destination, mappingNumber: number)
    }

    func associate(source: ObjectID, destination: ObjectID, mapping: String) throws {
        try associate(source: source, destination: destination, mappingNumber: try number(of: mapping))
    }

    private func associate(source: ObjectID, destination: ObjectID, mappingNumber: Int) throws {
        relating.batch = nil  // what was read ahead no longer tells every source
        try associations.associate(
            mapping: mappingNumber, source: try key(source, in: self.source),
            destination: try key(destination, in: self.destination))
    }

    /// The work of the manager's `setRelationship` (its documentation is there).
    func setRelationship(_ name: String, of object: DestinationObject, to objects: [DestinationObject]) throws {
        try setRelationship(name, of: object, to: objects, existing: .none)
    }

    /// ``setRelationship(_:of:to:)``; the objects in `existing` are known to exist (the relate
    /// pass's own, from the association table), so their rows are not looked up.
    func setRelationship(
        _ name: String, of object: DestinationObject, to objects: [DestinationObject], existing: KnownObjects
    ) throws {
        let layout = try destination.layout.requireEntity(object.entity)
        guard let link = layout.relationship(named: name) else {
            throw MoltError(.migration, "the destination entity has no relationship \"\(name)\"", entity: object.entity)
        }
        var seen: Set<ObjectID> = []
        let unique = objects.map(\.id).filter { seen.insert($0).inserted }
        if link.relationship.isToMany {
            try writer.setToMany(object.id, name, to: unique, existing: existing)
        } else {
            guard unique.count <= 1 else {
                throw MoltError(
                    .migration, "the to-one relationship was given \(unique.count) objects", entity: object.entity,
                    property: name)
            }
            try writer.setToOne(object.id, name, to: unique.first, existing: existing)
        }
    }

    /// Objects made in the destination store so far.
    func destinationObjectCount() -> Int {
        writer.insertedCount
    }

    // MARK: Keys

    func key(_ id: ObjectID, in store: ObjectStore) throws -> AssociationTable.Key {
        // The entity asked last of each of the run's stores (objects come entity by entity).
        let side: Int? = store === destination ? 1 : store === source ? 0 : nil
        if let side, let memo = memos.entityNumbers[side], memo.entity == id.entity {
            return AssociationTable.Key(root: memo.root, primaryKey: id.primaryKey, entity: memo.number)
        }
        guard let numbers = store.layout.numbers(ofEntity: id.entity) else {
            _ = try store.layout.requireEntity(id.entity)  // the error naming the entity
            throw MoltError(.migration, "unknown entity \(id.entity)")
        }
        if let side { memos.entityNumbers[side] = (id.entity, numbers.number, numbers.root) }
        return AssociationTable.Key(root: numbers.root, primaryKey: id.primaryKey, entity: numbers.number)
    }

    func objectID(_ key: AssociationTable.Key, in store: ObjectStore) throws -> ObjectID {
        guard let entity = store.layout.entityName(number: key.entity) else {
            throw MoltError(.migration, "unknown entity number \(key.entity)")
        }
        return ObjectID(entity: entity, primaryKey: key.primaryKey)
    }
}
