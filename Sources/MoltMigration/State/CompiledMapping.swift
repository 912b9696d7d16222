import MoltMapping
import MoltModel

/// An entity mapping's destination values, resolved (explicit, inferred or default) and
/// compiled once, before the first object.
final class CompiledMapping {
    enum Value {
        case expression(CompiledExpression, PropertyMapping?)
        case modelDefault
        case noValue
    }

    let resolved: ResolvedEntityMapping
    let attributes: [(name: String, value: Value)]
    let relationships: [(relationship: Relationship, expression: CompiledExpression, mapping: PropertyMapping?)]
    /// For each relationship, in order: its value's parts when it is Core Data's default form
    /// (computed without evaluating), else nil.
    let canonicalRelationships: [CanonicalRelationshipValue?]
    /// For each attribute, in order: the source attribute its value is when the expression is
    /// just `$source.<attribute>` of a stored attribute (read from the object without
    /// evaluating), else nil.
    let sourceAttributes: [String?]
    /// Where the attribute values go in a destination row, once worked out
    /// (``PassState/destinationColumns(_:entity:)``).
    var destinationColumns: DestinationColumns?

    init(resolved: ResolvedEntityMapping, sourceModel: ObjectModel) {
        self.resolved = resolved
        let stored = Set(
            resolved.sourceEntity.map { sourceModel.allAttributes(of: $0).filter { !$0.isTransient }.map(\.name) } ?? []
        )
        sourceAttributes = resolved.attributes.map { property in
            guard case .expression(let expression) = property.value,
                case .keyPath(let base?, let components) = expression.kind, components.count == 1,
                case .variable("source") = base.kind, stored.contains(components[0])
            else { return nil }
            return components[0]
        }
        attributes = resolved.attributes.map { property in
            switch property.value {
            case .expression(let expression):
                (property.name, .expression(ExpressionCompiler.compile(expression), property.mapping))
            case .modelDefault: (property.name, .modelDefault)
            case .noValue: (property.name, .noValue)
            }
        }
        var relationships: [(Relationship, CompiledExpression, PropertyMapping?)] = []
        var canonical: [CanonicalRelationshipValue?] = []
        if let entity = resolved.destinationEntity {
            for property in resolved.relationships {
                guard case .expression(let expression) = property.value,
                    let relationship = entity.relationships.first(where: { $0.name == property.name })
                        ?? resolved.destinationRelationship(named: property.name)
                else { continue }
                relationships.append((relationship, ExpressionCompiler.compile(expression), property.mapping))
                canonical.append(CanonicalRelationshipValue(expression))
            }
        }
        self.relationships = relationships
        canonicalRelationships = canonical
    }
}

extension ResolvedEntityMapping {
    /// A relationship of the destination entity, inherited ones included.
    func destinationRelationship(named name: String) -> Relationship? {
        inheritedRelationships.first { $0.name == name }
    }
}
