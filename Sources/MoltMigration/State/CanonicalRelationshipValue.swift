import MoltMapping

/// A relationship value in Core Data's default form:
/// `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "M", $source.rel)`
/// or `FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:", "rel", $source.rel)`.
struct CanonicalRelationshipValue {
    /// The entity mapping named, or nil for the source-relationship form (any mapping).
    let entityMapping: String?
    /// The source object's relationship whose objects are mapped.
    let sourceRelationship: String

    init?(_ expression: MappingExpression) {
        guard case .call(let target, let selector, let arguments) = expression.kind,
            case .variable("manager") = target.kind, arguments.count == 2,
            case .constant(.string(let name)) = arguments[0].kind,
            case .keyPath(let base?, let components) = arguments[1].kind, components.count == 1,
            case .variable("source") = base.kind
        else { return nil }
        switch selector {
        case "destinationInstancesForEntityMappingNamed:sourceInstances:": entityMapping = name
        case "destinationInstancesForSourceRelationshipNamed:sourceInstances:": entityMapping = nil
        default: return nil
        }
        sourceRelationship = components[0]
    }
}
