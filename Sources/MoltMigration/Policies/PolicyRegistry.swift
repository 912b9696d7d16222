import Foundation
internal import MoltCore

/// The entity-migration policies a migration can use, by name.
///
/// `molt` registers every policy compiled from `Policies/`; an app that embeds Molt registers
/// its own in one call:
///
/// ```swift
/// PolicyRegistry.register([ContactSplitPolicy.self, ContactMergePolicy.self])
/// ```
///
/// A mapping file may name a policy with a Swift module prefix (`App.ContactSplitPolicy`, as
/// Xcode mapping models do); the prefix is ignored when looking it up, and kept in messages.
public enum PolicyRegistry {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var types: [String: any EntityMigrationPolicy.Type] = [:]

    /// Registers policy types under their ``EntityMigrationPolicy/policyName``.
    public static func register(_ policies: [any EntityMigrationPolicy.Type]) {
        lock.lock()
        defer { lock.unlock() }
        for policy in policies { types[policy.policyName] = policy }
    }

    /// The names of every registered policy.
    public static var names: [String] {
        lock.lock()
        defer { lock.unlock() }
        return types.keys.sorted()
    }

    /// The policy type registered under `name` (module prefix ignored).
    public static func policy(named name: String) -> (any EntityMigrationPolicy.Type)? {
        lock.lock()
        defer { lock.unlock() }
        return types[name] ?? types[String(name.split(separator: ".").last ?? Substring(name))]
    }

    /// The policy type for `name`, or an error naming it and listing the known ones.
    public static func require(_ name: String, mapping: String) throws -> any EntityMigrationPolicy.Type {
        guard let type = policy(named: name) else {
            let known = names.isEmpty ? "none are compiled in" : "known: \(names.joined(separator: ", "))"
            throw MoltError(
                .entityMigrationPolicy, "no policy called \"\(name)\" is compiled in (\(known))", entity: mapping,
                recovery:
                    "Add a type conforming to EntityMigrationPolicy to Policies/ and rebuild, or register it with PolicyRegistry.register."
            )
        }
        return type
    }
}
