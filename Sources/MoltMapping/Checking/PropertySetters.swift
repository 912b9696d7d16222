public import MoltModel

/// Who else may give a value to a destination property that its entity mapping leaves empty,
/// as Core Data allows: the mapping's policy (in any hook), or, for a relationship, whatever
/// sets its inverse on the other side (Core Data keeps both sides of a relationship in step,
/// and so does the store's layout: a link set from either side is one link).
///
/// Real mapping models rely on both: a policy's `createDestinationInstances` makes a related
/// object and links it; a non-optional to-one is filled because the other side's mapping sets
/// the to-many. Only the validate pass can tell whether they did, so a mapping that leaves
/// such a property empty is not an error before the run when someone may set it.
///
/// ```swift
/// let setters = PropertySetters(resolver: resolver)
/// for setter in setters.of(relationship: posts, in: mapping) { print(setter) }   // "the policy SplitPolicy"
/// ```
public struct PropertySetters {
    /// One way a property may get its value.
    public enum Setter: Sendable, Hashable, CustomStringConvertible {
        /// The entity mapping's own policy, which may set any property in any hook.
        case policy(String)
        /// The inverse relationship, which another entity mapping sets with a value.
        case inverseMapped(inverse: String, mapping: String)
        /// The inverse relationship, which another entity mapping's policy may set.
        case inverseByPolicy(inverse: String, mapping: String, policy: String)

        /// Whether the value is certain to be written (an inverse with a value), as opposed to
        /// left to a policy's code.
        public var isMapped: Bool {
            if case .inverseMapped = self { return true }
            return false
        }

        public var description: String {
            switch self {
            case .policy(let policy): "the policy \(policy)"
            case .inverseMapped(let inverse, let mapping): "the inverse \(inverse) (mapped by \(mapping))"
            case .inverseByPolicy(let inverse, let mapping, let policy):
                "the inverse \(inverse) (through the policy \(policy) of \(mapping))"
            }
        }
    }

    let resolver: MappingResolver

    public init(resolver: MappingResolver) {
        self.resolver = resolver
    }

    /// Who may set the attribute or relationship the entity mapping `mapping` leaves empty.
    public func of(attribute: Attribute, in mapping: EntityMapping) -> [Setter] {
        mapping.policyName.map { [.policy($0)] } ?? []
    }

    /// Who may set `relationship` of the objects `mapping` makes, when the mapping itself
    /// leaves it empty: its policy, then every other mapping that sets the inverse on objects
    /// the relationship may hold (with a value, or through its policy).
    public func of(relationship: Relationship, in mapping: EntityMapping) -> [Setter] {
        var setters: [Setter] = mapping.policyName.map { [.policy($0)] } ?? []
        let destination = resolver.destination
        guard let inverse = destination.inverse(of: relationship) else { return setters }
        let inverseName = "\(relationship.inverseEntityName ?? relationship.destinationEntityName).\(inverse.name)"
        for other in resolver.mappingModel.entityMappings {
            guard [.copy, .transform, .custom].contains(other.kind),
                let entityName = other.destinationEntityName, let entity = destination.entity(named: entityName),
                destination.entity(entity, isKindOf: relationship.destinationEntityName),
                destination.relationship(named: inverse.name, in: entity) != nil
            else { continue }
            let resolved = resolver.resolve(other)
            if case .expression? = resolved.relationships.first(where: { $0.name == inverse.name })?.value {
                setters.append(.inverseMapped(inverse: inverseName, mapping: other.name))
            } else if let policy = other.policyName {
                setters.append(.inverseByPolicy(inverse: inverseName, mapping: other.name, policy: policy))
            }
        }
        return setters
    }
}
