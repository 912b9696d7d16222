// User entity-migration policies and value transformers live in this folder and are compiled
// into `molt`.
//
// Every type here that conforms to EntityMigrationPolicy or AttributeValueTransformer is found
// when the package builds (the PolicyList plugin writes the lists) and registered by `molt`; a
// mapping file names a policy with policy="TypeName", a model names a transformer as a
// Transformable attribute's valueTransformerName. See README.md in this folder.
import Molt

/// The entity-migration policies and value transformers compiled into this build.
public enum CompiledPolicies {
    /// Every policy type in `Policies/`.
    public static var all: [any EntityMigrationPolicy.Type] { generatedPolicyTypes }

    /// Their names, as mapping files use them.
    public static var names: [String] { all.map { $0.policyName }.sorted() }

    /// Every value transformer type in `Policies/`.
    public static var transformers: [any AttributeValueTransformer.Type] { generatedValueTransformerTypes }

    /// Their names, as models use them.
    public static var transformerNames: [String] { transformers.map { $0.transformerName }.sorted() }

    /// Registers every policy with ``PolicyRegistry`` and every transformer with
    /// ``ValueTransformerRegistry``.
    public static func register() {
        PolicyRegistry.register(all)
        ValueTransformerRegistry.register(transformers)
    }
}
