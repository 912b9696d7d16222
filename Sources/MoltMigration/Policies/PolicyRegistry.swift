import Foundation
internal import MoltCore
internal import MoltMapping

/// The entity-migration policies a migration can use, by name, with the hooks each overrides.
///
/// `molt` registers every policy compiled from `Policies/`, with the hooks the PolicyList
/// plugin found in its code; an app that embeds Molt applies the plugin to its policies'
/// target and calls the generated `CompiledPolicies.register()`, or registers them in one call:
///
/// ```swift
/// PolicyRegistry.register([ContactSplitPolicy.self, ContactMergePolicy.self])
/// ```
///
/// A type registered that way is taken to override every hook (always correct; its mappings'
/// relationships are then set object by object).
///
/// A mapping file may name a policy with a Swift module prefix (`App.ContactSplitPolicy`, as
/// Xcode mapping models do); the prefix is ignored when looking it up, and kept in messages.
public enum PolicyRegistry {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var types: [String: EntityMigrationPolicy.Type] = [:]
    nonisolated(unsafe) private static var hooks: [ObjectIdentifier: PolicyHooks] = [:]

    /// Registers policy types under their ``EntityMigrationPolicy/policyName``, each taken to
    /// override every hook.
    public static func register(_ policies: [EntityMigrationPolicy.Type]) {
        register(policies.map { PolicyRegistration($0, overriding: .all) })
    }

    /// Registers policy types with the hooks their code overrides: what the PolicyList plugin
    /// generates (`CompiledPolicies.register()`) from each policy's `override func`s.
    public static func register(_ registrations: [PolicyRegistration]) {
        lock.lock()
        defer { lock.unlock() }
        for registration in registrations {
            types[registration.type.policyName] = registration.type
            hooks[ObjectIdentifier(registration.type)] = registration.hooks
        }
    }

    /// The names of every registered policy.
    public static var names: [String] {
        lock.lock()
        defer { lock.unlock() }
        return types.keys.sorted()
    }

    /// The policy type registered under `name` (module prefix ignored).
    public static func policy(named name: String) -> EntityMigrationPolicy.Type? {
        lock.lock()
        defer { lock.unlock() }
        return types[name] ?? types[String(name.split(separator: ".").last ?? Substring(name))]
    }

    /// The hooks `type` overrides: none for ``DefaultEntityMigrationPolicy``, those registered
    /// with it, or every hook for a type registered without them (or not at all).
    public static func hooks(of type: EntityMigrationPolicy.Type) -> PolicyHooks {
        if type == DefaultEntityMigrationPolicy.self { return [] }
        lock.lock()
        defer { lock.unlock() }
        return hooks[ObjectIdentifier(type)] ?? .all
    }

    /// The policy type for `name`, or an error naming it and listing the known ones.
    public static func require(_ name: String, mapping: String) throws -> EntityMigrationPolicy.Type {
        guard let type = policy(named: name) else {
            let known = names.isEmpty ? "none are compiled in" : "known: \(names.joined(separator: ", "))"
            let hint = Suggestions.didYouMean(String(name.split(separator: ".").last ?? Substring(name)), in: names)
            throw MoltError(
                .entityMigrationPolicy, "no policy called \"\(name)\" is compiled in (\(known))\(hint)",
                entity: mapping,
                recovery:
                    "Add a subclass of EntityMigrationPolicy to Policies/ and rebuild, or register it with PolicyRegistry.register."
            )
        }
        return type
    }
}

/// A policy type with the hooks its code overrides, as the PolicyList plugin finds them.
public struct PolicyRegistration: Sendable {
    public let type: EntityMigrationPolicy.Type
    public let hooks: PolicyHooks

    public init(_ type: EntityMigrationPolicy.Type, overriding hooks: PolicyHooks) {
        self.type = type
        self.hooks = hooks
    }
}
