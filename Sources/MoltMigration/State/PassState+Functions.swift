internal import MoltCore
internal import MoltMapping
internal import MoltStore

/// The manager's functions, for policies (in Swift) and for value expressions
/// (`FUNCTION($manager, "…", …)`).
extension PassState: FunctionDispatcher {
    /// The work of the manager's `destinationInstances` (its documentation is there).
    func destinationInstances(
        forEntityMappingNamed name: String, sourceInstances sources: [ObjectID]
    ) throws
        -> [DestinationObject]
    {
        let found = try associatedObjects(of: sources, mapping: try number(of: name))
        if relating.relationship != nil { relating.associatedDestinations.formUnion(found.map(\.id)) }
        return found
    }

    /// The work of the manager's `destinationInstances` (its documentation is there).
    func destinationInstances(
        forSourceRelationshipNamed name: String, sourceInstances sources: [ObjectID]
    ) throws
        -> [DestinationObject]
    {
        let found = try associatedObjects(of: sources, mapping: nil)
        if relating.relationship != nil { relating.associatedDestinations.formUnion(found.map(\.id)) }
        return found
    }

    /// The destination objects the entity mapping numbered `mapping` (nil: any) made from
    /// `sources`, in order; while a relationship's value is computed, only those of its entity.
    func associatedObjects(of sources: [ObjectID], mapping: Int?) throws -> [DestinationObject] {
        ofCurrentRelationshipEntity(
            try sources.flatMap { source in
                try associations.destinations(of: try key(source, in: self.source), mapping: mapping)
                    .map { DestinationObject(id: try objectID($0, in: destination)) }
            })
    }

    /// The destination entities that are kinds of `entity` (it and its sub-entities), known
    /// after the first question.
    func destinationKinds(of entity: String) -> Set<String> {
        if let known = memos.destinationKinds[entity] { return known }
        let kinds = Set(
            destinationModel.entities.filter { destinationModel.entity($0, isKindOf: entity) }.map(\.name))
        memos.destinationKinds[entity] = kinds
        return kinds
    }

    /// `objects`, or while a relationship's value is computed, those of its entity.
    private func ofCurrentRelationshipEntity(_ objects: [DestinationObject]) -> [DestinationObject] {
        guard let relationship = relating.relationship else { return objects }
        let kinds = destinationKinds(of: relationship.destinationEntityName)
        return objects.filter { kinds.contains($0.entity) }
    }

    /// The work of the manager's `sourceInstances` (its documentation is there).
    func sourceInstances(
        forEntityMappingNamed name: String, destinationInstances destinations: [DestinationObject]
    )
        throws -> [ObjectID]
    {
        let mapping = try number(of: name)
        return try destinations.flatMap { object in
            try associations.sources(of: try key(object.id, in: destination), mapping: mapping).map {
                try objectID($0, in: source)
            }
        }
    }

    func call(_ target: FunctionTarget, selector: String, arguments: [ExpressionValue]) throws -> ExpressionValue {
        switch target {
        case .manager:
            return try callManager(selector, arguments)
        case .entityPolicy:
            let mapping = try requireCurrentMapping()
            guard let callEntityPolicy else {
                throw MoltError(.entityMigrationPolicy, "the entity mapping has no policy", entity: mapping.name)
            }
            return try callEntityPolicy(mapping, selector, arguments)
        case .entityMapping, .propertyMapping:
            throw MoltError(.migration, "FUNCTION($\(target.rawValue), …) is not supported")
        }
    }

    private func callManager(_ selector: String, _ arguments: [ExpressionValue]) throws -> ExpressionValue {
        guard arguments.count == 2, case .string(let name) = arguments[0] else {
            throw MoltError(.migration, "\(selector) takes a name in quotes and objects")
        }
        let objects = Self.references(arguments[1])
        switch selector {
        case "destinationInstancesForEntityMappingNamed:sourceInstances:":
            let made = try destinationInstances(forEntityMappingNamed: name, sourceInstances: objects.map(\.id))
            return .collection(made.map { .object(ObjectReference(.destination, $0.id)) })
        case "destinationInstancesForSourceRelationshipNamed:sourceInstances:":
            let made = try destinationInstances(forSourceRelationshipNamed: name, sourceInstances: objects.map(\.id))
            return .collection(made.map { .object(ObjectReference(.destination, $0.id)) })
        case "sourceInstancesForEntityMappingNamed:destinationInstances:":
            let found = try sourceInstances(
                forEntityMappingNamed: name, destinationInstances: objects.map { DestinationObject(id: $0.id) })
            return .collection(found.map { .object(ObjectReference(.source, $0)) })
        default:
            throw MoltError(.migration, "$manager has no function \"\(selector)\"")
        }
    }

    /// The object references in a value: one object, a collection of them, or none.
    static func references(_ value: ExpressionValue) -> [ObjectReference] {
        switch value {
        case .object(let reference): [reference]
        case .collection(let items): items.flatMap(references)
        default: []
        }
    }
}
