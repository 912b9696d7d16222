internal import MoltCore

/// Comparing an entity's stored attributes and relationships with the production schema's.
///
/// Each production entity's own stored properties are looked up among the version's entity's
/// properties, inherited ones included: a property moved to a parent entity is still on every
/// record, and a change to an inherited property is reported once, on the entity declaring it
/// in production. Transient properties are not synced, so they are no fields. A composite is
/// compared leaf by leaf (each leaf is a field of its own).
extension ProductionRun {
    mutating func compareAttributes(of old: Entity, with new: Entity) {
        let stored = version.allAttributes(of: new).filter { !$0.isTransient }
        for attribute in production.storedAttributes(declaredBy: old) where !attribute.isTransient {
            let name = attribute.name
            guard let now = stored.last(where: { $0.name == name }) else {
                attributeMissing(attribute, of: old, in: new)
                continue
            }
            let here = now.location ?? new.location
            if now.type != attribute.type {
                report(
                    .attributeTypeChanged,
                    "the type is \(attribute.type.rawValue) in \(schema) and \(now.type.rawValue) in \(self.new): CloudKit keeps the field CD_\(name) as deployed for \(attribute.type.rawValue) values, so \(now.type.rawValue) values may not fit it, and older app versions expect \(attribute.type.rawValue) values",
                    hint:
                        "Keep \(name) as \(attribute.type.rawValue), and add a new attribute of the new type (filled from the old one as the app reads it).",
                    at: here, entity: new.name, property: name)
            }
            if now.isOptional != attribute.isOptional {
                report(
                    .attributeOptionalityChanged,
                    optionality(was: attribute.isOptional, what: "a value"),
                    hint: "Keep \(name) \(attribute.isOptional ? "optional" : "required") as in \(self.old)"
                        + (attribute.isOptional ? ", and check in code that it is set." : " (with its default value)."),
                    at: here, entity: new.name, property: name)
            }
        }
    }

    /// A production attribute the version's entity has no stored attribute of that name for.
    mutating func attributeMissing(_ attribute: Attribute, of old: Entity, in new: Entity) {
        let name = attribute.name
        let keep = "Keep \(old.name).\(name) in \(self.new), stored, even if the app no longer uses it."
        if let relationship = version.relationship(named: name, in: new) {
            report(
                .attributeTypeChanged,
                "an attribute (\(attribute.type.rawValue)) in \(schema), a relationship in \(self.new): CloudKit keeps the field CD_\(name) for \(attribute.type.rawValue) values, which older app versions keep reading and writing",
                hint: keep + " Give the relationship another name.", at: relationship.location ?? new.location,
                entity: new.name, property: name)
        } else if let transient = version.attribute(named: name, in: new) {
            report(
                .attributeRemoved,
                "stored in \(schema), transient in \(self.new), so no longer synced: older app versions keep reading and writing the field CD_\(name), and find it empty on every record \(self.new) makes",
                hint: keep, at: transient.location ?? new.location, entity: new.name, property: name)
        } else if let renamed = version.allAttributes(of: new).first(where: {
            $0.renamingIdentifier == name && !$0.isTransient
        }) {
            report(
                .attributeRenamed,
                "renamed from \(name) (renaming identifier) since \(schema): CloudKit cannot rename a field, so \(self.new) writes CD_\(renamed.name), which older app versions never read, and leaves CD_\(name), which they read, empty",
                hint: "Keep the attribute's name \(name).", at: renamed.location ?? new.location, entity: new.name,
                property: renamed.name)
        } else {
            report(
                .attributeRemoved,
                "the attribute is in \(schema) but not in \(self.new): older app versions keep reading and writing the field CD_\(name), and find it empty on every record \(self.new) makes",
                hint: keep, at: new.location, entity: new.name, property: name)
        }
    }

    mutating func compareRelationships(of old: Entity, with new: Entity) {
        let stored = version.allRelationships(of: new).filter { !$0.isTransient }
        for relationship in old.relationships where !relationship.isTransient {
            let name = relationship.name
            guard let now = stored.last(where: { $0.name == name }) else {
                relationshipMissing(relationship, of: old, in: new)
                continue
            }
            let here = now.location ?? new.location
            let keep = "Keep \(old.name).\(name) as it is in \(self.old), and add a new relationship for the new shape."
            func changed(_ change: ProductionSchemaCheck.Change, _ message: String) {
                report(change, message, hint: keep, at: here, entity: new.name, property: name)
            }
            let unread = "so older app versions and \(self.new) do not read each other's links"
            if now.destinationEntityName != relationship.destinationEntityName {
                changed(
                    .relationshipDestinationChanged,
                    "leads to \(relationship.destinationEntityName) in \(schema) and to \(now.destinationEntityName) in \(self.new): older app versions read its links as \(relationship.destinationEntityName) objects"
                )
            }
            if now.isToMany != relationship.isToMany {
                changed(
                    .relationshipCardinalityChanged,
                    "\(kind(relationship)) in \(schema), \(kind(now)) in \(self.new): Core Data stores to-one and to-many links differently in CloudKit (a field of the record, or separate join records), \(unread)"
                )
            }
            if now.inverseName != relationship.inverseName {
                changed(
                    .relationshipInverseChanged,
                    "the inverse is \(relationship.inverseName ?? "none") in \(schema) and \(now.inverseName ?? "none") in \(self.new): Core Data stores a link in CloudKit under the names of its two ends, \(unread)"
                )
            }
            if now.isOrdered != relationship.isOrdered {
                changed(
                    .relationshipOrderChanged,
                    "\(relationship.isOrdered ? "ordered" : "unordered") in \(schema), \(now.isOrdered ? "ordered" : "unordered") in \(self.new): older app versions and \(self.new) disagree on whether its links have an order"
                )
            }
            if now.isToMany && relationship.isToMany
                && (now.minCount != relationship.minCount || now.maxCount != relationship.maxCount)
            {
                changed(
                    .relationshipCountChanged,
                    "holds \(counts(relationship)) in \(schema) and \(counts(now)) in \(self.new): older app versions sync numbers of objects that \(self.new) may reject, or the other way round"
                )
            }
            if now.isOptional != relationship.isOptional {
                changed(.relationshipOptionalityChanged, optionality(was: relationship.isOptional, what: "a link"))
            }
        }
    }

    /// A production relationship the version's entity has no stored relationship of that name for.
    mutating func relationshipMissing(_ relationship: Relationship, of old: Entity, in new: Entity) {
        let name = relationship.name
        let keep = "Keep \(old.name).\(name) in \(self.new), stored, even if the app no longer uses it."
        if let attribute = version.attribute(named: name, in: new), !attribute.isTransient {
            report(
                .relationshipRemoved,
                "a relationship in \(schema), an attribute in \(self.new): older app versions keep linking objects through it, and \(self.new) drops those links",
                hint: keep + " Give the attribute another name.", at: attribute.location ?? new.location,
                entity: new.name, property: name)
        } else if let renamed = version.allRelationships(of: new).first(where: {
            $0.renamingIdentifier == name && !$0.isTransient
        }) {
            report(
                .relationshipRenamed,
                "renamed from \(name) (renaming identifier) since \(schema): CloudKit cannot rename a field, so older app versions and \(self.new) do not read each other's links",
                hint: "Keep the relationship's name \(name).", at: renamed.location ?? new.location, entity: new.name,
                property: renamed.name)
        } else {
            let transient = version.relationship(named: name, in: new)
            report(
                .relationshipRemoved,
                (transient == nil
                    ? "the relationship is in \(schema) but not in \(self.new)"
                    : "stored in \(schema), transient in \(self.new), so no longer synced")
                    + ": older app versions keep linking objects through it, and \(self.new) drops those links",
                hint: keep, at: transient?.location ?? new.location, entity: new.name, property: name)
        }
    }

    /// The message for a property that was optional (`was`) and no longer is, or the reverse.
    func optionality(was optional: Bool, what value: String) -> String {
        optional
            ? "optional in \(schema), required in \(new): older app versions sync records without \(value), which \(new) cannot save"
            : "required in \(schema), optional in \(new): records \(new) makes without \(value) fail validation in older app versions"
    }

    func kind(_ relationship: Relationship) -> String {
        relationship.isToMany ? "to-many" : "to-one"
    }

    /// "0 to 5 objects", "at least 1 object", "any number of objects".
    func counts(_ relationship: Relationship) -> String {
        switch (relationship.minCount, relationship.maxCount) {
        case (0, 0): "any number of objects"
        case (let minimum, 0): "at least \(minimum) object\(minimum == 1 ? "" : "s")"
        case (let minimum, let maximum): "\(minimum) to \(maximum) objects"
        }
    }
}
