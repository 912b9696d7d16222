import Foundation
public import MoltCore
public import MoltModel

/// Checks a mapping model against its source and destination models and reports every problem
/// at once, each with file, line and (inside expressions) column.
///
/// Errors: unknown entities and properties (with a suggestion), a version hash that does not
/// match the model, a policy no compiled-in policy has (when the list is known), a value that
/// can never fit its attribute, a relationship mapped through an entity mapping that makes the
/// wrong entity or through source objects, a non-optional attribute left with no value and no
/// default (unless the mapping's policy may set it), a relationship that may not be empty left
/// without a value that nobody may set (see ``PropertySetters``), an unknown variable or
/// `$manager` function, a filter that is not a condition.
/// Warnings: values whose fit depends on the data (text read as a number), relationships
/// inference cannot fill, non-optional properties left to a policy, source entities no mapping
/// reads, model names that differ from the file's. Notes: required relationships left to an
/// inverse that another mapping sets.
///
/// ```swift
/// let diagnostics = MappingChecker().check(mapping, source: v1, destination: v2)
/// for diagnostic in diagnostics { print(diagnostic) }
/// ```
public struct MappingChecker {
    /// The names of the compiled-in policies; nil when policies are not checked.
    public var knownPolicies: Set<String>?

    public init(knownPolicies: Set<String>? = nil) {
        self.knownPolicies = knownPolicies
    }

    /// Checks `mappingModel` between the two models; a `resolver` for the same three (a
    /// migration run's) is used instead of working the mapping out again.
    public func check(
        _ mappingModel: MappingModel, source: ObjectModel, destination: ObjectModel, resolver: MappingResolver? = nil
    ) -> [Diagnostic] {
        var run = CheckRun(
            mappingModel: mappingModel, source: source, destination: destination, knownPolicies: knownPolicies,
            resolver: resolver)
        run.checkModelNames()
        for mapping in mappingModel.entityMappings {
            run.check(mapping)
        }
        run.checkCoverage()
        return run.diagnostics
    }
}

private struct CheckRun {
    let mappingModel: MappingModel
    let source: ObjectModel
    let destination: ObjectModel
    let knownPolicies: Set<String>?
    let resolver: MappingResolver
    let setters: PropertySetters
    var diagnostics: [Diagnostic] = []
    let fileLocation: SourceLocation?

    init(
        mappingModel: MappingModel, source: ObjectModel, destination: ObjectModel, knownPolicies: Set<String>?,
        resolver: MappingResolver?
    ) {
        self.mappingModel = mappingModel
        self.source = source
        self.destination = destination
        self.knownPolicies = knownPolicies
        self.resolver =
            resolver ?? MappingResolver(source: source, destination: destination, mappingModel: mappingModel)
        setters = PropertySetters(resolver: self.resolver)
        fileLocation = mappingModel.sourceFile.map { SourceLocation(file: $0) }
    }

    mutating func report(
        _ severity: Diagnostic.Severity, _ message: String, at location: SourceLocation?, entity: String?,
        property: String? = nil
    ) {
        diagnostics.append(
            Diagnostic(severity, message, location: location ?? fileLocation, entity: entity, property: property))
    }

    mutating func checkModelNames() {
        for (given, model, side) in [
            (mappingModel.sourceModelName, source, "source"),
            (mappingModel.destinationModelName, destination, "destination"),
        ] {
            if let given, let actual = model.name, given != actual {
                report(
                    .warning,
                    "the file names \"\(given)\" as its \(side) model, but it is checked against \"\(actual)\"",
                    at: fileLocation, entity: nil)
            }
        }
    }

    mutating func check(_ mapping: EntityMapping) {
        let name = mapping.name
        let location = mapping.location
        var sourceEntity: Entity?
        var destinationEntity: Entity?
        if let entityName = mapping.sourceEntityName {
            sourceEntity = source.entity(named: entityName)
            if sourceEntity == nil {
                report(
                    .error,
                    "the source model has no entity \"\(entityName)\"\(Suggestions.didYouMean(entityName, in: source.entities.map(\.name)))",
                    at: location, entity: name)
            }
        }
        if let entityName = mapping.destinationEntityName {
            destinationEntity = destination.entity(named: entityName)
            if destinationEntity == nil {
                report(
                    .error,
                    "the destination model has no entity \"\(entityName)\"\(Suggestions.didYouMean(entityName, in: destination.entities.map(\.name)))",
                    at: location, entity: name)
            }
        }
        checkHash(mapping.sourceVersionHash, of: sourceEntity, in: source, side: "source", mapping: mapping)
        checkHash(
            mapping.destinationVersionHash, of: destinationEntity, in: destination, side: "destination",
            mapping: mapping)
        if let policy = mapping.policyName, let knownPolicies, !knownPolicies.contains(Self.policyName(policy)) {
            let known =
                knownPolicies.isEmpty
                ? "none are compiled in" : "compiled in: \(knownPolicies.sorted().joined(separator: ", "))"
            let hint = Suggestions.didYouMean(Self.policyName(policy), in: knownPolicies.sorted())
            report(
                .error, "no compiled-in policy is called \"\(policy)\" (\(known))\(hint)", at: location, entity: name)
        }
        if let destinationEntity, destinationEntity.isAbstract, [.copy, .transform].contains(mapping.kind) {
            report(
                .error, "\(destinationEntity.name) is abstract: map to one of its sub-entities instead", at: location,
                entity: name)
        }
        if mapping.kind == .copy, let sourceEntity, let destinationEntity,
            source.allAttributes(of: sourceEntity).count != destination.allAttributes(of: destinationEntity).count
                || source.allRelationships(of: sourceEntity).count
                    != destination.allRelationships(of: destinationEntity).count
        {
            report(
                .warning,
                "a copy mapping between entities with different properties infers each one; a transform mapping says what happens",
                at: location, entity: name)
        }
        var typer = ExpressionTyper(
            source: source, destination: destination, mappingModel: mappingModel, mapping: mapping)
        if let filter = mapping.filter {
            typer.requireCondition(filter)
            flush(
                &typer, origin: mapping.filterOrigin, fallback: location, element: "filter", mapping: name,
                property: nil)
        }
        guard let destinationEntity, sourceEntity != nil || mapping.sourceEntityName == nil else { return }
        checkExplicitNames(mapping, destinationEntity: destinationEntity)
        guard mapping.kind != .add && mapping.kind != .remove else { return }
        let resolved = resolver.resolve(mapping)
        for property in resolved.attributes where !mapping.unreadableProperties.contains(property.name) {
            guard let attribute = destination.attribute(named: property.name, in: destinationEntity) else { continue }
            checkAttribute(property, attribute, mapping: mapping, typer: &typer)
        }
        for property in resolved.relationships where !mapping.unreadableProperties.contains(property.name) {
            guard let relationship = destination.relationship(named: property.name, in: destinationEntity) else {
                continue
            }
            checkRelationship(property, relationship, resolved: resolved, mapping: mapping, typer: &typer)
        }
        var keys: Set<String> = []
        for entry in mapping.userInfo where !keys.insert(entry.key).inserted {
            report(
                .warning, "the user-info key \"\(entry.key)\" is given twice; the last value counts", at: location,
                entity: name)
        }
    }

    /// A policy named with a Swift module prefix (`App.SplitPolicy`) is looked up without it.
    static func policyName(_ name: String) -> String {
        name.split(separator: ".").last.map(String.init) ?? name
    }

    mutating func checkHash(
        _ hash: Data?, of entity: Entity?, in model: ObjectModel, side: String, mapping: EntityMapping
    ) {
        guard let hash, let entity, let actual = try? model.entityVersionHashes()[entity.name] else { return }
        if hash != actual {
            report(
                .error,
                "the \(side)-hash does not match \(entity.name) in the \(side) model (\(actual.hexString)): the model changed since the mapping was written",
                at: mapping.location, entity: mapping.name)
        }
    }

    /// Every explicitly mapped name must be a stored attribute (or relationship) of the destination.
    mutating func checkExplicitNames(_ mapping: EntityMapping, destinationEntity: Entity) {
        let attributes = destination.allAttributes(of: destinationEntity)
        let relationships = destination.allRelationships(of: destinationEntity)
        for property in mapping.attributeMappings {
            let prefix = property.name + "."
            if attributes.contains(where: { $0.name.hasPrefix(prefix) }) {
                continue  // a composite (or nested composite) mapped whole: each leaf is checked
            }
            if let attribute = attributes.last(where: { $0.name == property.name }) {
                if attribute.isTransient {
                    report(
                        .warning, "the attribute is transient, so its value is never stored", at: property.location,
                        entity: mapping.name, property: property.name)
                }
            } else if relationships.contains(where: { $0.name == property.name }) {
                report(
                    .error, "\"\(property.name)\" is a relationship; map it with <relationship>", at: property.location,
                    entity: mapping.name, property: property.name)
            } else {
                report(
                    .error,
                    "\(destinationEntity.name) has no attribute \"\(property.name)\"\(Suggestions.didYouMean(property.name, in: attributes.map(\.name)))",
                    at: property.location, entity: mapping.name, property: property.name)
            }
        }
        for property in mapping.relationshipMappings where !relationships.contains(where: { $0.name == property.name })
        {
            if attributes.contains(where: { $0.name == property.name }) {
                report(
                    .error, "\"\(property.name)\" is an attribute; map it with <attribute>", at: property.location,
                    entity: mapping.name, property: property.name)
            } else {
                report(
                    .error,
                    "\(destinationEntity.name) has no relationship \"\(property.name)\"\(Suggestions.didYouMean(property.name, in: relationships.map(\.name)))",
                    at: property.location, entity: mapping.name, property: property.name)
            }
        }
    }

    mutating func checkAttribute(
        _ property: ResolvedProperty, _ attribute: Attribute, mapping: EntityMapping, typer: inout ExpressionTyper
    ) {
        let location = property.mapping?.location ?? mapping.location
        switch property.value {
        case .expression(let expression):
            let type = typer.type(of: expression)
            if let (severity, message) = AttributeAssignment.check(type, into: attribute) {
                let detail =
                    property.origin == .explicit
                    ? message : "\(message) (inferred from the source attribute of the same name; write a value for it)"
                let at =
                    property.origin == .explicit
                    ? property.mapping?.origin?.location(ofOffset: expression.offset, element: "attribute") ?? location
                    : location
                report(severity, detail, at: at, entity: mapping.name, property: attribute.name)
            }
            flush(
                &typer, origin: property.mapping?.origin, fallback: location, element: "attribute",
                mapping: mapping.name, property: attribute.name)
        case .noValue:
            guard !attribute.isOptional else { break }
            let setters = setters.of(attribute: attribute, in: mapping)
            let who = setters.map(\.description).joined(separator: " or ")
            if property.origin == .explicit {
                report(
                    .warning,
                    "nil for a non-optional attribute fails validation\(who.isEmpty ? "" : " unless \(who) sets it")",
                    at: location, entity: mapping.name, property: attribute.name)
            } else if !setters.isEmpty {
                // Core Data runs such a mapping: the policy may set the value in any hook, and
                // the validate pass judges what it did (1570).
                report(
                    .warning,
                    "no source attribute matches it and it has no default value, so \(who) must set it; otherwise the validate pass fails (1570)",
                    at: location, entity: mapping.name, property: attribute.name)
            } else {
                report(
                    .error,
                    "the attribute is not optional, but no source attribute matches it and it has no default value; give it a value (or name a policy that sets it)",
                    at: location, entity: mapping.name, property: attribute.name)
            }
        case .modelDefault:
            break
        }
    }

    mutating func checkRelationship(
        _ property: ResolvedProperty, _ relationship: Relationship, resolved: ResolvedEntityMapping,
        mapping: EntityMapping,
        typer: inout ExpressionTyper
    ) {
        let location = property.mapping?.location ?? mapping.location
        switch property.value {
        case .expression(let expression):
            let type = typer.type(of: expression)
            let at =
                property.mapping?.origin?.location(ofOffset: expression.offset, element: "relationship") ?? location
            switch type.element {
            case .object(let entityName, let side):
                if side == .source {
                    report(
                        .error,
                        "a relationship needs destination objects, but this gives source objects; map them with FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", …)",
                        at: at, entity: mapping.name, property: relationship.name)
                } else if let entityName, let made = destination.entity(named: entityName),
                    !destination.entity(made, isKindOf: relationship.destinationEntityName)
                {
                    var via = ""
                    if case .call(_, _, let arguments) = expression.kind,
                        case .constant(.string(let mappingName))? = arguments.first?.kind
                    {
                        via = "the entity mapping \"\(mappingName)\" makes \(entityName) objects, but "
                    }
                    report(
                        .error,
                        "\(via)the relationship leads to \(relationship.destinationEntityName)\(via.isEmpty ? ", not \(entityName)" : "")",
                        at: at, entity: mapping.name, property: relationship.name)
                }
            case .unknown, .null:
                break
            default:
                report(
                    .error, "a relationship needs objects, not \(type)", at: at, entity: mapping.name,
                    property: relationship.name)
            }
            flush(
                &typer, origin: property.mapping?.origin, fallback: location, element: "relationship",
                mapping: mapping.name, property: relationship.name)
        case .noValue where property.origin == .nothing:
            let reason = resolved.unresolvedRelationships[relationship.name] ?? "nothing matches it"
            guard relationship.requiresObjects else {
                // A relationship the source does not have starts empty, as inference would
                // leave it, and it may be empty (a non-optional to-many without a minCount too).
                if resolved.newRelationships.contains(relationship.name) { return }
                report(
                    .warning, "the relationship is left empty: \(reason); map it with <relationship>", at: location,
                    entity: mapping.name, property: relationship.name)
                return
            }
            let setters = setters.of(relationship: relationship, in: mapping)
            let minimum = relationship.minCount
            let rule =
                relationship.isToMany
                ? "it needs at least \(minimum) object\(minimum == 1 ? "" : "s")" : "it is not optional"
            if setters.isEmpty {
                report(
                    .error,
                    "the relationship is left empty: \(reason), and \(rule); map it with <relationship> (or name a policy that sets it)",
                    at: location, entity: mapping.name, property: relationship.name)
            } else {
                // Core Data runs such a mapping; the validate pass judges the result (1570, 1580).
                let who = setters.map(\.description).joined(separator: " or ")
                report(
                    setters.contains(where: \.isMapped) ? .note : .warning,
                    "the mapping gives the relationship no value (\(reason)), and \(rule): \(who) may set it; the validate pass checks that it is set",
                    at: location, entity: mapping.name, property: relationship.name)
            }
        default:
            break
        }
    }

    /// Moves the typer's problems into diagnostics at their file positions.
    mutating func flush(
        _ typer: inout ExpressionTyper, origin: TextOrigin?, fallback: SourceLocation?, element: String,
        mapping: String,
        property: String?
    ) {
        for problem in typer.problems {
            report(
                problem.severity, problem.message,
                at: origin?.location(ofOffset: problem.offset, element: element) ?? fallback,
                entity: mapping, property: property)
        }
        typer = ExpressionTyper(
            source: source, destination: destination, mappingModel: mappingModel, mapping: typer.mapping)
    }

    /// Source entities that no entity mapping reads lose their objects: say so.
    mutating func checkCoverage() {
        let read = Set(mappingModel.entityMappings.compactMap(\.sourceEntityName))
        for entity in source.entities where !entity.isAbstract && !read.contains(entity.name) {
            report(
                .warning,
                "no entity mapping reads \(entity.name), so its objects are not migrated (a remove mapping says that is intended)",
                at: fileLocation, entity: entity.name)
        }
    }
}
