public import Molt

/// The test policies generated mappings name. Each does the default work through the policy
/// API, so a mapping gives the same store with or without it; what differs is the route the
/// engine may take (a policy that does not override `createRelationships` may be related in
/// SQL or in batches).
public enum DifferentialPolicies {
    /// Every test policy type.
    nonisolated(unsafe) public static let types: [any EntityMigrationPolicy.Type] = [
        DifferentialNoHooksPolicy.self, DifferentialCreatePolicy.self, DifferentialRelatePolicy.self,
        DifferentialAllHooksPolicy.self,
    ]

    /// Their names, as mapping files spell them.
    public static let names: [String] = types.map { $0.policyName }

    /// Registers them with ``PolicyRegistry``.
    public static func register() {
        PolicyRegistry.register(types)
    }
}

/// A policy that states it overrides no hook: every hook is the default.
public final class DifferentialNoHooksPolicy: EntityMigrationPolicy {
    public static var overriddenHooks: PolicyHooks { [] }

    /// Made by the engine, once per run of an entity mapping.
    public init() {}
}

/// A policy with its own `createDestinationInstances`, which makes the default destination object.
public final class DifferentialCreatePolicy: EntityMigrationPolicy {
    public static var overriddenHooks: PolicyHooks { [.createDestinationInstances] }

    /// Made by the engine, once per run of an entity mapping.
    public init() {}

    /// Makes the default destination object of `source`.
    public func createDestinationInstances(
        forSource source: SourceObject, mapping: EntityMapping, manager: MigrationManager
    ) throws {
        _ = try manager.createDefaultDestinationInstance(for: source)
    }
}

/// A policy with its own `createRelationships`, which sets the default relationships: the
/// relate pass must call it for every object (no SQL, no batches).
public final class DifferentialRelatePolicy: EntityMigrationPolicy {
    public static var overriddenHooks: PolicyHooks { [.createRelationships] }

    /// Made by the engine, once per run of an entity mapping.
    public init() {}

    /// Sets the default relationships of `destination`.
    public func createRelationships(
        forDestination destination: DestinationObject, mapping: EntityMapping, manager: MigrationManager
    ) throws {
        try manager.createDefaultRelationships(for: destination)
    }
}

/// A policy that states nothing, so it is taken to override every hook (it implements none).
public final class DifferentialAllHooksPolicy: EntityMigrationPolicy {
    /// Made by the engine, once per run of an entity mapping.
    public init() {}
}
