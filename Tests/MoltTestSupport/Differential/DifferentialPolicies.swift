public import Molt

/// The test policies generated mappings name. Most do the default work through the policy
/// API, so a mapping gives the same store with or without them; what differs is the route the
/// engine may take (a policy that does not override `createRelationships` may be related in
/// SQL or in batches). ``DifferentialOwnObjectsPolicy`` makes its objects itself, and looks at
/// the new store as it goes; ``DifferentialDeletingPolicy`` deletes source objects from the
/// source context, before and after its mapping copies them.
public enum DifferentialPolicies {
    /// Every test policy type.
    public static let types: [EntityMigrationPolicy.Type] = [
        DifferentialNoHooksPolicy.self, DifferentialCreatePolicy.self, DifferentialRelatePolicy.self,
        DifferentialAllHooksPolicy.self, DifferentialOwnObjectsPolicy.self, DifferentialDeletingPolicy.self,
    ]

    /// Their names, as mapping files spell them.
    public static let names: [String] = types.map { $0.policyName }

    /// Registers them with ``PolicyRegistry``, each with the hooks its code overrides, except
    /// ``DifferentialAllHooksPolicy``, registered without them (so taken to override every hook).
    public static func register() {
        CompiledPolicies.register(types.filter { $0 != DifferentialAllHooksPolicy.self })
        PolicyRegistry.register([DifferentialAllHooksPolicy.self])
    }
}

/// A policy that overrides no hook: every hook is the default.
public final class DifferentialNoHooksPolicy: EntityMigrationPolicy {
    /// Made by the engine, once per run of an entity mapping.
    public required init() {}
}

/// A policy with its own `createDestinationInstances`, which makes the default destination
/// object; it says it may run on the copy pass's workers (where the default object of a value
/// that is an expression is made in order).
public final class DifferentialCreatePolicy: EntityMigrationPolicy {
    /// The hook depends on its source object alone.
    public override class var createsInstancesConcurrently: Bool { true }

    /// Made by the engine, once per run of an entity mapping.
    public required init() {}

    /// Makes the default destination object of `source`.
    public override func createDestinationInstances(
        forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        _ = try manager.createDefaultDestinationInstance(for: source)
    }
}

/// A policy with its own `createRelationships`, which sets the default relationships: the
/// relate pass must call it for every object (no SQL, no batches).
public final class DifferentialRelatePolicy: EntityMigrationPolicy {
    /// Made by the engine, once per run of an entity mapping.
    public required init() {}

    /// Sets the default relationships of `destination`.
    public override func createRelationships(
        forDestination destination: DestinationObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        try manager.createDefaultRelationships(for: destination)
    }
}

/// A policy registered without its hooks, so taken to override every hook (it overrides none).
public final class DifferentialAllHooksPolicy: EntityMigrationPolicy {
    /// Made by the engine, once per run of an entity mapping.
    public required init() {}
}

/// A policy that makes each destination object itself, as a ported policy does: the object
/// with the source's values of the attributes both entities have with the same type, then
/// its association. In a one-pass step, at every fifth source object it looks at the objects
/// of its entity made so far and fails if one has a relationship: Core Data's copy pass makes
/// objects without relationships, and no route may show one earlier (keys written with new
/// rows, ``/MoltMigration/RelatePlan/keysAtInsert``, must not be seen). It says it may run on
/// the copy pass's workers: the objects that look run in order.
public final class DifferentialOwnObjectsPolicy: EntityMigrationPolicy {
    /// What it makes depends on its source object alone; looking needs the order.
    public override class var createsInstancesConcurrently: Bool { true }

    /// Made by the engine, once per run of an entity mapping.
    public required init() {}

    /// Makes and associates the object; looks at the new store at every fifth source.
    public override func createDestinationInstances(
        forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        guard let name = mapping.destinationEntityName,
            let destinationEntity = manager.destinationEntity(for: mapping),
            let sourceEntity = manager.sourceEntity(for: mapping)
        else { return }
        let sourceAttributes = manager.sourceModel.allAttributes(of: sourceEntity).filter { !$0.isTransient }
        var values: [String: ExpressionValue] = [:]
        for attribute in manager.destinationModel.allAttributes(of: destinationEntity)
        where !attribute.isTransient && !attribute.isDerived {
            guard sourceAttributes.contains(where: { $0.name == attribute.name && $0.type == attribute.type })
            else { continue }
            values[attribute.name] = try source.value(attribute.name)
        }
        let made = try manager.destinationContext.insertNewObject(forEntityName: name, attributes: values)
        try manager.associate(source: source, destination: made)
        if manager.passCount == 1, source.id.primaryKey % 5 == 0 {
            try Self.look(at: name, manager)
        }
    }

    /// Fails when an object of `entity` made so far has a relationship set.
    static func look(at entity: String, _ manager: MigrationManager) throws {
        guard let described = manager.destinationModel.entity(named: entity) else { return }
        let relationships = manager.destinationModel.allRelationships(of: described).filter { !$0.isTransient }
        let context = manager.destinationContext
        for object in try context.fetch(FetchRequest(entityName: entity)) {
            for relationship in relationships
            where !(try context.objects(forKey: relationship.name, of: object)).isEmpty {
                throw MoltError(
                    .migration, "\(object.id) has \(relationship.name) set before the relate pass", entity: entity)
            }
        }
    }
}

/// A policy that deletes source objects of its mapping's source entity from the source
/// context, as a port that drops duplicates does: in `begin`, those whose key is 6 more than
/// a multiple of 13 (never copied by this mapping; gone from every later one and from every
/// relationship); in `endInstanceCreation`, those whose key is 3 more than a multiple of 7
/// (copied: the objects made from them stay, and the relate pass visits them). Delete rules
/// apply: a Deny relationship still holding an object fails the run (1600) on every route.
public final class DifferentialDeletingPolicy: EntityMigrationPolicy {
    /// Made by the engine, once per run of an entity mapping.
    public required init() {}

    public override func begin(_ mapping: EntityMapping, with manager: MigrationManager) throws {
        try Self.delete(mapping, manager) { $0 % 13 == 6 }
    }

    public override func endInstanceCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {
        try Self.delete(mapping, manager) { $0 % 7 == 3 }
    }

    /// Deletes the source objects of the mapping's source entity whose key `chosen` picks.
    static func delete(_ mapping: EntityMapping, _ manager: MigrationManager, _ chosen: (Int64) -> Bool) throws {
        guard let entity = mapping.sourceEntityName else { return }
        let doomed = try manager.sourceContext.fetch(FetchRequest(entityName: entity)).filter {
            chosen($0.id.primaryKey)
        }
        try manager.sourceContext.delete(doomed)
    }
}
