internal import MoltCore

/// What each entity-mapping type needs and allows, shared by the readers of both formats
/// (Molt's XML and Xcode's mapping models), so that a mapping read from either is one the
/// other can write and read back.
enum EntityMappingRules {
    /// The problems of a mapping's shape: errors (a missing entity, properties where none
    /// run…) and warnings (a policy that never runs).
    static func problems(of mapping: EntityMapping) -> [(severity: Diagnostic.Severity, message: String)] {
        var problems: [(Diagnostic.Severity, String)] = []
        func error(_ message: String) { problems.append((.error, message)) }
        let hasProperties = !mapping.attributeMappings.isEmpty || !mapping.relationshipMappings.isEmpty
        switch mapping.kind {
        case .add:
            if mapping.destinationEntityName == nil { error("an add mapping needs a destination entity") }
            if mapping.sourceEntityName != nil { error("an add mapping has no source entity") }
            if mapping.filter != nil || hasProperties {
                error("an add mapping creates no objects, so it takes no filter or property mappings")
            }
        case .remove:
            if mapping.sourceEntityName == nil { error("a remove mapping needs a source entity") }
            if mapping.destinationEntityName != nil { error("a remove mapping has no destination entity") }
            if mapping.filter != nil || hasProperties { error("a remove mapping takes no filter or property mappings") }
        case .copy:
            if mapping.sourceEntityName == nil || mapping.destinationEntityName == nil {
                error("a copy mapping needs a source and a destination entity")
            }
            if hasProperties {
                error("a copy mapping copies every property; to change some, make it a transform mapping")
            }
        case .transform:
            if mapping.sourceEntityName == nil || mapping.destinationEntityName == nil {
                error("a transform mapping needs a source and a destination entity")
            }
        case .custom:
            if mapping.policyName == nil { error("a custom mapping needs a policy (policy=\"…\")") }
            if mapping.sourceEntityName == nil && mapping.destinationEntityName == nil {
                error("a custom mapping needs a source or a destination entity")
            }
        }
        if mapping.policyName != nil, mapping.kind == .add || mapping.kind == .remove {
            problems.append((.warning, "a policy on an \(mapping.kind.rawValue) mapping never runs"))
        }
        return problems
    }

    /// Whether an expression can stand as a filter: not a literal, aggregate or arithmetic.
    static func canBeCondition(_ expression: MappingExpression) -> Bool {
        switch expression.kind {
        case .constant(.bool), .comparison, .and, .or, .not, .truePredicate, .falsePredicate, .keyPath, .variable,
            .function, .call, .ternary, .index:
            true
        default:
            false
        }
    }
}
