package import MoltCore
internal import MoltModel
internal import MoltSQLite

/// Deleting objects as a Core Data context deletes them and saves: each relationship's delete
/// rule is applied.
extension ObjectWriter {
    /// Deletes `ids` and, through Cascade relationships, the objects they own; returns every
    /// object deleted, in the order found.
    ///
    /// Delete rules, per relationship of each deleted object:
    /// - **Cascade**: the related objects are deleted too (and their own rules apply).
    /// - **Deny**: while the relationship holds an object that is not being deleted as well,
    ///   nothing is deleted: the error is Core Data's 1600 (NSValidationRelationshipDeniedDeleteError),
    ///   naming the object, the relationship and a related object. Checked before any change.
    /// - **Nullify**: the related objects stay; their side of the relationship no longer holds
    ///   the deleted object (a to-one becomes nil, a to-many loses it, orders close up).
    /// - **No Action**: the related objects are not touched: a key they hold of the deleted
    ///   object stays, as Core Data leaves it (the app's code is expected to fix it). Links kept
    ///   in a join table, which belong to both sides, are removed.
    ///
    /// Links of relationships without an inverse that point at a deleted object from elsewhere
    /// are not seen from the deleted object, and stay (as in Core Data). Files of attributes
    /// with external storage are removed once the new store is complete.
    @discardableResult
    public func delete(_ ids: [ObjectID]) throws -> [ObjectID] {
        var found: [(id: ObjectID, entity: EntityLayout, object: StoredObject)] = []
        var doomed: Set<ObjectID> = []
        var pending = ids
        var next = 0
        while next < pending.count {
            let id = pending[next]
            next += 1
            guard doomed.insert(id).inserted else { continue }
            let entity = try requireObject(id)
            guard let stored = try object(id) else {
                throw MoltError(.validation, "the object \(id) does not exist", entity: id.entity)
            }
            found.append((id, entity, stored))
            for link in entity.relationships where link.relationship.deleteRule == .cascade {
                pending.append(contentsOf: stored.relationships[link.relationship.name]?.objectIDs ?? [])
            }
        }
        for (id, entity, stored) in found {
            for link in entity.relationships where link.relationship.deleteRule == .deny {
                let staying = (stored.relationships[link.relationship.name]?.objectIDs ?? []).filter {
                    !doomed.contains($0)
                }
                guard !staying.isEmpty else { continue }
                throw Self.deniedDelete(
                    "\(id)", entity: id.entity, relationship: link.relationship.name, staying: staying,
                    recovery: "Delete or move the related objects first, or delete them together.")
            }
        }
        for (id, entity, stored) in found {
            for link in entity.relationships
            where !(stored.relationships[link.relationship.name]?.objectIDs ?? []).isEmpty {
                try unlink(id, link, rule: link.relationship.deleteRule)
            }
        }
        for (id, entity, _) in found {
            let external = entity.attributes.filter(\.attribute.usesExternalStorage).map(\.attribute.name)
            let files = try storedFileNames(of: id, in: entity, attributes: external)
            try run("DELETE FROM \(SQL.identifier(entity.table)) WHERE \"Z_PK\" = ?", [.integer(id.primaryKey)])
            for name in files { externalData.retire(name) }
        }
        deletedCount += found.count
        return found.map(\.id)
    }

    /// Removes the links of `link` that the deleted object's row does not hold itself (those
    /// go with the row): the related rows' keys of it (Nullify), a one-to-one partner's key,
    /// and join rows. With No Action, only join rows, which belong to both sides.
    private func unlink(_ id: ObjectID, _ link: RelationshipLayout, rule: DeleteRule) throws {
        let key = SQLiteValue.integer(id.primaryKey)
        switch link.storage {
        case .foreignKey:
            // The link is in this row; a one-to-one partner may keep a key of its own.
            guard rule != .noAction, let inverse = layout.model.inverse(of: link.relationship), !inverse.isToMany,
                let inverseLayout = layout.entity(named: link.relationship.destinationEntityName)?.relationship(
                    named: inverse.name),
                case .foreignKey(let inverseColumn, let inverseEntityColumn, _) = inverseLayout.storage
            else { return }
            try run(
                "UPDATE \(SQL.identifier(link.destinationTable)) SET \(clearing([inverseColumn, inverseEntityColumn])) WHERE \(SQL.identifier(inverseColumn)) = ?",
                [key])
        case .inverseForeignKey(let column, let entityColumn, let orderColumn):
            guard rule != .noAction else { return }
            try run(
                "UPDATE \(SQL.identifier(link.destinationTable)) SET \(clearing([column, entityColumn, orderColumn])) WHERE \(SQL.identifier(column)) = ?",
                [key])
        case .joinTable(let table, let own, let other, _, _, let mirrored):
            try run("DELETE FROM \(SQL.identifier(table)) WHERE \(SQL.identifier(own)) = ?", [key])
            if mirrored {
                try run("DELETE FROM \(SQL.identifier(table)) WHERE \(SQL.identifier(other)) = ?", [key])
            }
        }
    }

    /// Core Data's 1600 for `object` (as named in the message, of `entity`), whose Deny
    /// relationship still holds `staying` (not empty).
    package static func deniedDelete(
        _ object: String, entity: String, relationship: String, staying: [ObjectID], recovery: String
    ) -> MoltError {
        MoltError(
            .validationRelationshipDeniedDelete,
            "\(object) cannot be deleted: its relationship \"\(relationship)\" has the delete rule Deny and still holds \(staying.count == 1 ? "an object" : "\(staying.count) objects") (\(staying[0]))",
            entity: entity, property: relationship, recovery: recovery)
    }
}
