// User entity-migration policies live in this folder and are compiled into `molt`.
//
// The policy protocol arrives with the migration engine; until then this target has nothing
// to register. See README.md in this folder.
import Molt

/// The entity-migration policies compiled into this build, by name.
public enum CompiledPolicies {
    /// Names of the compiled-in policies (none yet).
    public static let names: [String] = []
}
