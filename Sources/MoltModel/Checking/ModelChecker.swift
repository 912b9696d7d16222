public import MoltCore

/// Checks that a loaded model hangs together, and reports every problem at once.
///
/// Errors (the model cannot be used): duplicate entity or property names, a missing parent
/// entity or a cycle of parents, a relationship to an unknown entity, an inverse that does not
/// exist or does not point back, bad counts, a stored attribute of a type that cannot be stored,
/// uniqueness constraints, fetch indexes or configurations naming unknown things, a property
/// called `self` (in any letter case), and every rule of ``CompositeRules``.
/// Warnings (Core Data accepts them): a relationship without an inverse, a default value that
/// does not read as its attribute's type, a property named like a method of NSObject or
/// NSManagedObject (`description`, `entity`, … which Core Data's documentation forbids).
///
/// With ``cloudKitRules``, CloudKit's rules too (``CloudKitRules``); for the entities they
/// cover, their error about a relationship without an inverse replaces the warning.
///
/// ```swift
/// let diagnostics = ModelChecker().check(model)
/// if diagnostics.hasErrors { … }
/// let forCloudKit = ModelChecker(cloudKitRules: CloudKitRules()).check(model)
/// ```
public struct ModelChecker {
    /// CloudKit's rules, checked as well when set.
    public var cloudKitRules: CloudKitRules?

    public init(cloudKitRules: CloudKitRules? = nil) {
        self.cloudKitRules = cloudKitRules
    }

    /// Every problem of `model`, in the order found (CloudKit's after the others).
    public func check(_ model: ObjectModel) -> [Diagnostic] {
        var run = Run(model: model)
        run.cloudKitEntities = cloudKitRules?.entityNames(of: model) ?? []
        run.checkEntityNames()
        run.checkInheritance()
        for entity in model.entities {
            run.checkProperties(of: entity)
            run.checkRelationships(of: entity)
            run.checkConstraintsAndIndexes(of: entity)
        }
        run.checkConfigurations()
        return run.diagnostics + CompositeRules().check(model) + (cloudKitRules?.check(model) ?? [])
    }

    /// Checks `model` and throws one error listing every error found; warnings are ignored.
    public func validate(_ model: ObjectModel) throws {
        let problems = check(model).errors
        guard let first = problems.first else { return }
        var error = MoltError(
            .invalidModel,
            problems.count == 1 ? first.message : "the model has \(problems.count) errors; the first: \(first.message)",
            location: first.location, entity: first.entity, property: first.property,
            recovery: "Fix the model in Xcode (or run `molt check-model` to list every problem).")
        error.details = problems.map(\.description)
        throw error
    }
}

private struct Run {
    let model: ObjectModel
    var diagnostics: [Diagnostic] = []
    /// Entities whose parent chain is broken; inheritance-dependent checks skip them.
    var brokenLineage: Set<String> = []
    /// Entities CloudKit's rules check: a missing inverse is their error, not a warning here.
    var cloudKitEntities: Set<String> = []

    init(model: ObjectModel) {
        self.model = model
    }

    mutating func report(
        _ severity: Diagnostic.Severity, _ message: String, at location: SourceLocation?, entity: String?,
        property: String? = nil
    ) {
        diagnostics.append(
            Diagnostic(
                severity, message, location: location ?? model.sourceFile.map { SourceLocation(file: $0) },
                entity: entity, property: property))
    }

    mutating func checkEntityNames() {
        var seen: Set<String> = []
        for entity in model.entities {
            if entity.name.isEmpty {
                report(.error, "an entity has an empty name", at: entity.location, entity: nil)
            }
            if !seen.insert(entity.name).inserted {
                report(.error, "another entity has the same name", at: entity.location, entity: entity.name)
            }
        }
    }

    mutating func checkInheritance() {
        for entity in model.entities {
            guard let parentName = entity.parentName else { continue }
            guard model.entity(named: parentName) != nil else {
                report(
                    .error, "the parent entity \"\(parentName)\" does not exist", at: entity.location,
                    entity: entity.name)
                brokenLineage.insert(entity.name)
                continue
            }
            // Walk up; meeting the entity again means a cycle.
            var current = parentName
            var steps = 0
            while let parent = model.entity(named: current), steps <= model.entities.count {
                if parent.name == entity.name {
                    report(
                        .error, "the entity inherits from itself (a cycle of parent entities)", at: entity.location,
                        entity: entity.name)
                    brokenLineage.insert(entity.name)
                    break
                }
                guard let next = parent.parentName else { break }
                current = next
                steps += 1
            }
        }
    }

    /// Core Data's rule: "a property name cannot be the same as any no-parameter method name of
    /// NSObject or NSManagedObject" (NSPropertyDescription's documentation). `self` in any
    /// letter case is an error: Key-Value Coding answers `self` with the object itself, and
    /// predicates and mapping expressions read `SELF` in any case as the object. The methods an
    /// app's objects answer most often are warned about.
    mutating func checkReserved(_ name: String, in entity: Entity) {
        let location = entity.attribute(named: name)?.location ?? entity.relationship(named: name)?.location
        if name.lowercased() == "self" {
            report(
                .error,
                "a property cannot be called \"\(name)\": Core Data and predicates read it as the object itself (NSObject's -self)",
                at: location, entity: entity.name, property: name)
        } else if Self.objectMethods.contains(name) {
            report(
                .warning,
                "a property called \"\(name)\" is the name of a method of NSObject or NSManagedObject, which Core Data does not allow; rename it",
                at: location, entity: entity.name, property: name)
        }
    }

    /// No-parameter methods of NSObject and NSManagedObject that property names collide with.
    static let objectMethods: Set<String> = [
        "description", "debugDescription", "hash", "class", "superclass", "isProxy", "retainCount", "zone", "copy",
        "mutableCopy", "entity", "objectID", "managedObjectContext", "isInserted", "isUpdated", "isDeleted",
        "isFault", "hasChanges", "hasPersistentChangedValues", "changedValues", "changedValuesForCurrentEvent",
        "faultingState", "awakeFromFetch", "awakeFromInsert", "willSave", "didSave", "willTurnIntoFault",
        "didTurnIntoFault", "prepareForDeletion",
    ]

    mutating func checkProperties(of entity: Entity) {
        var names: [String: String] = [:]  // property name → entity that declares it
        let lineage = brokenLineage.contains(entity.name) ? [entity] : model.ancestors(of: entity).reversed() + [entity]
        for owner in lineage {
            let ownNames =
                owner.attributes.map(\.name) + owner.relationships.map(\.name)
                + owner.fetchedProperties.map(\.name)
            for name in ownNames {
                if let earlier = names[name], owner.name == entity.name {
                    let message =
                        earlier == entity.name
                        ? "two properties are called \"\(name)\""
                        : "the property \"\(name)\" is already inherited from \(earlier)"
                    let location =
                        entity.attribute(named: name)?.location ?? entity.relationship(named: name)?.location
                        ?? entity.location
                    report(.error, message, at: location, entity: entity.name, property: name)
                }
                names[name] = names[name] ?? owner.name
            }
        }
        for name in entity.attributes.map(\.name) + entity.relationships.map(\.name) {
            checkReserved(name, in: entity)
        }
        for attribute in entity.attributes {
            if attribute.name.isEmpty {
                report(.error, "an attribute has an empty name", at: attribute.location, entity: entity.name)
            }
            if !attribute.type.isPersistable && !attribute.isTransient {
                report(
                    .error,
                    "an attribute of type \(attribute.type.rawValue) cannot be stored; make it transient or give it a type",
                    at: attribute.location, entity: entity.name, property: attribute.name)
            }
            if let defaultValue = attribute.defaultValue, !defaultValue.isEmpty || attribute.type != .string {
                if DefaultValueReading.value(defaultValue, for: attribute.type) == nil, attribute.type.isPersistable {
                    report(
                        .warning,
                        "the default value \"\(defaultValue)\" does not read as \(attribute.type.rawValue); it will be ignored",
                        at: attribute.location, entity: entity.name, property: attribute.name)
                }
            }
        }
    }

    mutating func checkRelationships(of entity: Entity) {
        for relationship in entity.relationships {
            let here = relationship.location ?? entity.location
            guard let destination = model.entity(named: relationship.destinationEntityName) else {
                report(
                    .error, "the destination entity \"\(relationship.destinationEntityName)\" does not exist", at: here,
                    entity: entity.name, property: relationship.name)
                continue
            }
            if relationship.minCount < 0 || relationship.maxCount < 0
                || (relationship.maxCount > 0 && relationship.minCount > relationship.maxCount)
            {
                report(
                    .error, "minCount \(relationship.minCount) is larger than maxCount \(relationship.maxCount)",
                    at: here,
                    entity: entity.name, property: relationship.name)
            }
            if !relationship.isToMany && relationship.maxCount != 1 {
                report(
                    .error, "a to-one relationship must have maxCount 1, not \(relationship.maxCount)", at: here,
                    entity: entity.name, property: relationship.name)
            }
            if relationship.isOrdered && !relationship.isToMany {
                report(
                    .error, "only a to-many relationship can be ordered", at: here, entity: entity.name,
                    property: relationship.name)
            }
            guard let inverseName = relationship.inverseName else {
                if !relationship.isTransient && !cloudKitEntities.contains(entity.name) {
                    report(
                        .warning, "the relationship has no inverse; Core Data recommends one for consistency",
                        at: here, entity: entity.name, property: relationship.name)
                }
                continue
            }
            if let inverseEntity = relationship.inverseEntityName, inverseEntity != relationship.destinationEntityName {
                report(
                    .error,
                    "the inverse entity \"\(inverseEntity)\" is not the destination entity \"\(relationship.destinationEntityName)\"",
                    at: here, entity: entity.name, property: relationship.name)
            }
            guard let inverse = model.relationship(named: inverseName, in: destination) else {
                report(
                    .error,
                    "the inverse relationship \"\(inverseName)\" does not exist on \(relationship.destinationEntityName)",
                    at: here, entity: entity.name, property: relationship.name)
                continue
            }
            let pointsBack =
                model.entity(named: inverse.destinationEntityName).map {
                    model.entity(entity, isKindOf: $0.name)
                } ?? false
            if !pointsBack || inverse.inverseName != relationship.name {
                let other = "\(relationship.destinationEntityName).\(inverseName)"
                let back = inverse.inverseName.map { "its inverse is \"\($0)\"" } ?? "it has no inverse"
                report(
                    .error,
                    "the inverse \(other) does not point back: it leads to \(inverse.destinationEntityName) and \(back)",
                    at: here, entity: entity.name, property: relationship.name)
            }
        }
    }

    mutating func checkConstraintsAndIndexes(of entity: Entity) {
        let lineageBroken = brokenLineage.contains(entity.name)
        func known(_ name: String) -> Bool {
            if lineageBroken {
                return entity.attribute(named: name) != nil || entity.relationship(named: name) != nil
            }
            return model.attribute(named: name, in: entity) != nil || model.relationship(named: name, in: entity) != nil
        }
        for constraint in entity.uniquenessConstraints {
            for name in constraint {
                if !known(name) {
                    report(
                        .error, "the uniqueness constraint names \"\(name)\", which the entity does not have",
                        at: entity.location, entity: entity.name)
                } else if let relationship = model.relationship(named: name, in: entity), relationship.isToMany {
                    report(
                        .error, "the uniqueness constraint names the to-many relationship \"\(name)\"",
                        at: entity.location, entity: entity.name)
                }
            }
        }
        for index in entity.fetchIndexes {
            for element in index.elements where !known(element.property) {
                report(
                    .error,
                    "the fetch index \"\(index.name)\" names \"\(element.property)\", which the entity does not have",
                    at: index.location ?? entity.location, entity: entity.name)
            }
        }
    }

    mutating func checkConfigurations() {
        for configuration in model.configurations {
            for name in configuration.entityNames where model.entity(named: name) == nil {
                report(
                    .error, "the configuration \"\(configuration.name)\" names the unknown entity \"\(name)\"",
                    at: configuration.location, entity: nil)
            }
        }
    }
}
