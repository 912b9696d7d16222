public import MoltCore

/// CloudKit's limits on a Core Data model: what a model mirrored by
/// `NSPersistentCloudKitContainer` may not have. Xcode checks them when it compiles a model
/// marked "Used with CloudKit"; this checks them on Linux, each broken rule an error naming
/// the entity, the property, the file and line, with a ``/MoltCore/Diagnostic/hint`` saying
/// what to do instead.
///
/// The rules, from Apple's "Creating a Core Data Model for CloudKit" unless noted:
/// - an entity has no uniqueness constraints (CloudKit cannot keep values unique across
///   devices);
/// - no attribute is of type `Undefined` or `ObjectID`;
/// - every attribute is optional or has a default value (Core Data's own message when it
///   refuses such a model: "CloudKit integration requires that all attributes be optional, or
///   have a default value set");
/// - every relationship is optional, has an inverse, and does not use the Deny delete rule;
/// - no relationship is ordered (Core Data's message: "CloudKit integration does not support
///   ordered relationships");
/// - an entity of a configuration marked for CloudKit has no relationship to an entity
///   outside that configuration.
///
/// Apple states no exception for transient properties, so none is made.
///
/// Which entities: every entity when the model is marked (`usedWithCloudKit="YES"` on
/// `<model>`, Xcode's Default configuration); otherwise the entities of the configurations
/// marked, with their ancestors (whose properties their records carry); and every entity
/// of a model that marks nothing, since the rules are then applied on request
/// (`molt check-model --cloudkit`).
///
/// ```swift
/// let model = try ModelLoader().load(at: URL(fileURLWithPath: "Notes.xcdatamodeld"))
/// if CloudKitRules.isMarked(model) {
///     for problem in CloudKitRules().check(model) { print(problem) }
/// }
/// ```
public struct CloudKitRules: Sendable {
    /// One rule, as ``/MoltCore/Diagnostic/rule`` names it.
    public enum Rule: String, Sendable, CaseIterable {
        case uniquenessConstraint = "cloudkit.uniqueness-constraint"
        case unsupportedAttributeType = "cloudkit.unsupported-attribute-type"
        case requiredAttributeWithoutDefault = "cloudkit.required-attribute-without-default"
        case requiredRelationship = "cloudkit.required-relationship"
        case relationshipWithoutInverse = "cloudkit.relationship-without-inverse"
        case denyDeleteRule = "cloudkit.deny-delete-rule"
        case orderedRelationship = "cloudkit.ordered-relationship"
        case relationshipAcrossConfigurations = "cloudkit.relationship-across-configurations"
    }

    public init() {}

    /// Whether Xcode's model marks the model, or one of its configurations, "Used with
    /// CloudKit".
    public static func isMarked(_ model: ObjectModel) -> Bool {
        model.usedWithCloudKit || model.configurations.contains(where: \.usedWithCloudKit)
    }

    /// The names of the entities whose records CloudKit holds, and which the rules apply to
    /// (see the type's description).
    public func entityNames(of model: ObjectModel) -> Set<String> {
        let marked = model.configurations.filter(\.usedWithCloudKit)
        guard !model.usedWithCloudKit, !marked.isEmpty else { return Set(model.entities.map(\.name)) }
        var names: Set<String> = []
        for name in marked.flatMap(\.entityNames) {
            guard let entity = model.entity(named: name) else { continue }
            names.insert(name)
            names.formUnion(model.ancestors(of: entity).map(\.name))
        }
        return names
    }

    /// Every rule the entities of `model` break (see ``entityNames(of:)``), as errors.
    public func check(_ model: ObjectModel) -> [Diagnostic] {
        let names = entityNames(of: model)
        var run = CloudKitRun(model: model)
        for entity in model.entities where names.contains(entity.name) {
            run.checkConstraints(of: entity)
            for attribute in entity.attributes { run.check(attribute, of: entity) }
            for relationship in entity.relationships { run.check(relationship, of: entity) }
        }
        for configuration in model.configurations where configuration.usedWithCloudKit {
            run.checkLinks(leaving: configuration)
        }
        return run.diagnostics
    }
}

/// One check of a model: the diagnostics found so far.
private struct CloudKitRun {
    let model: ObjectModel
    var diagnostics: [Diagnostic] = []

    mutating func report(
        _ rule: CloudKitRules.Rule, _ message: String, hint: String, at location: SourceLocation?, entity: String,
        property: String? = nil
    ) {
        diagnostics.append(
            Diagnostic(
                .error, message, location: location ?? model.sourceFile.map { SourceLocation(file: $0) },
                entity: entity, property: property, hint: hint, rule: rule.rawValue))
    }

    mutating func checkConstraints(of entity: Entity) {
        for constraint in entity.uniquenessConstraints where !constraint.isEmpty {
            report(
                .uniquenessConstraint,
                "CloudKit does not support uniqueness constraints; this entity has one on \(constraint.joined(separator: ", "))",
                hint:
                    "Remove the constraint: devices sync without seeing each other's new objects, so nothing can keep a value unique. Find and merge duplicates in the app after a sync instead.",
                at: entity.location, entity: entity.name)
        }
    }

    mutating func check(_ attribute: Attribute, of entity: Entity) {
        if !attribute.type.isPersistable {
            report(
                .unsupportedAttributeType, "CloudKit does not support attributes of type \(attribute.type.rawValue)",
                hint:
                    "Give the attribute a type CloudKit stores (Binary Data or Transformable for arbitrary values, String or UUID for an identifier), or remove it from the model used with CloudKit.",
                at: attribute.location, entity: entity.name, property: attribute.name)
        }
        if !attribute.isOptional && attribute.defaultValue == nil {
            report(
                .requiredAttributeWithoutDefault,
                "CloudKit needs every attribute to be optional or to have a default value; this one is required and has no default",
                hint:
                    "Make the attribute optional, or give it a default value: a record can arrive before all of its values.",
                at: attribute.location, entity: entity.name, property: attribute.name)
        }
    }

    mutating func check(_ relationship: Relationship, of entity: Entity) {
        let here = relationship.location ?? entity.location
        if !relationship.isOptional {
            report(
                .requiredRelationship, "CloudKit needs every relationship to be optional; this one is required",
                hint:
                    "Make the relationship optional: CloudKit may save the two ends of a link in separate operations, so an object can arrive before the object it needs. Check in code that it is set.",
                at: here, entity: entity.name, property: relationship.name)
        }
        if relationship.inverseName == nil {
            report(
                .relationshipWithoutInverse, "CloudKit needs every relationship to have an inverse; this one has none",
                hint:
                    "Add a relationship on \(relationship.destinationEntityName) that points back to \(entity.name), and make the two each other's inverse, so that records arriving out of order are still linked.",
                at: here, entity: entity.name, property: relationship.name)
        }
        if relationship.deleteRule == .deny {
            report(
                .denyDeleteRule, "CloudKit does not support the Deny delete rule",
                hint:
                    "Use Nullify (or Cascade), and check in code, before deleting, what Deny would have refused: another device may have deleted or linked objects this one has not seen yet.",
                at: here, entity: entity.name, property: relationship.name)
        }
        if relationship.isOrdered {
            report(
                .orderedRelationship, "CloudKit does not support ordered relationships",
                hint:
                    "Untick Ordered, and keep the order in an attribute of \(relationship.destinationEntityName) (a position number, or a date to sort by).",
                at: here, entity: entity.name, property: relationship.name)
        }
    }

    /// Relationships of `configuration`'s entities that lead to entities outside it.
    mutating func checkLinks(leaving configuration: Configuration) {
        let members = Set(configuration.entityNames)
        for name in configuration.entityNames {
            guard let entity = model.entity(named: name) else { continue }
            for relationship in model.allRelationships(of: entity)
            where !members.contains(relationship.destinationEntityName) {
                report(
                    .relationshipAcrossConfigurations,
                    "the configuration \(configuration.name) is used with CloudKit, and this relationship leads to \(relationship.destinationEntityName), which is not in it",
                    hint:
                        "Add \(relationship.destinationEntityName) to the configuration \(configuration.name), or replace the relationship by an identifier (a UUID attribute) that the app looks up: entities of one configuration must not have relationships to entities of another.",
                    at: relationship.location ?? entity.location, entity: entity.name, property: relationship.name)
            }
        }
    }
}
