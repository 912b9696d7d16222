import MoltMapping
import MoltModel

/// An entity mapping's destination values, resolved (explicit, inferred or default) and
/// compiled once, before the first object.
struct CompiledMapping {
    enum Value {
        case expression(CompiledExpression, PropertyMapping?)
        case modelDefault
        case noValue
    }

    let resolved: ResolvedEntityMapping
    let attributes: [(name: String, value: Value)]
    let relationships: [(relationship: Relationship, expression: CompiledExpression, mapping: PropertyMapping?)]

    init(resolved: ResolvedEntityMapping) {
        self.resolved = resolved
        attributes = resolved.attributes.map { property in
            switch property.value {
            case .expression(let expression):
                (property.name, .expression(ExpressionCompiler.compile(expression), property.mapping))
            case .modelDefault: (property.name, .modelDefault)
            case .noValue: (property.name, .noValue)
            }
        }
        var relationships: [(Relationship, CompiledExpression, PropertyMapping?)] = []
        if let entity = resolved.destinationEntity {
            for property in resolved.relationships {
                guard case .expression(let expression) = property.value,
                    let relationship = entity.relationships.first(where: { $0.name == property.name })
                        ?? resolved.destinationRelationship(named: property.name)
                else { continue }
                relationships.append((relationship, ExpressionCompiler.compile(expression), property.mapping))
            }
        }
        self.relationships = relationships
    }
}

extension ResolvedEntityMapping {
    /// A relationship of the destination entity, inherited ones included.
    func destinationRelationship(named name: String) -> Relationship? {
        inheritedRelationships.first { $0.name == name }
    }
}
