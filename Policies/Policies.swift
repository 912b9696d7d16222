// User entity-migration policies live in this folder and are compiled into `molt`.
//
// Every type here that conforms to EntityMigrationPolicy is found when the package builds (the
// PolicyList plugin writes the list) and registered by `molt`; a mapping file names it with
// policy="TypeName". See README.md in this folder.
import Molt

/// The entity-migration policies compiled into this build.
public enum CompiledPolicies {
    /// Every policy type in `Policies/`.
    public static var all: [any EntityMigrationPolicy.Type] { generatedPolicyTypes }

    /// Their names, as mapping files use them.
    public static var names: [String] { all.map { $0.policyName }.sorted() }
}
