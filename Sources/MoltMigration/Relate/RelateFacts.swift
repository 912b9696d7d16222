import MoltMapping

/// What the relate strategies plan a mapping from, all of it known before any object is read:
/// the mapping compiled, its pass's layouts and mappings (``PassFacts``), the hooks its policy
/// type overrides (learnt from its code, ``PolicyRegistry/hooks(of:)``) and the run's options.
struct RelateFacts {
    let mapping: EntityMapping
    let pass: PassFacts
    let policy: EntityMigrationPolicy.Type
    let options: MigrationOptions

    var compiled: CompiledMapping { pass.compiled(mapping) }

    /// Why the policy's own `createRelationships` sets the relationships, when it overrides
    /// it: then only the object-by-object strategy may take the mapping.
    var policyRelates: String? {
        let hooks = PolicyRegistry.hooks(of: policy)
        guard hooks.contains(.createRelationships) else { return nil }
        let known =
            hooks == .all ? " (or may have: it was registered without the hooks its code overrides)" : ""
        return "its policy \(policy.policyName) overrides createRelationships\(known)"
    }
}
