public import MoltMapping

/// Custom code for an entity mapping: Core Data's entity-migration policy, in Swift.
///
/// A mapping file names the policy (`policy="ContactSplitPolicy"`); the engine makes one
/// instance per run of that entity mapping and calls its hooks in Core Data's order:
///
/// 1. ``begin(_:manager:)``
/// 2. ``createDestinationInstances(forSource:mapping:manager:)`` for each source object the
///    mapping reads (after its filter)
/// 3. ``endInstanceCreation(_:manager:)``
/// 4. ``createRelationships(forDestination:mapping:manager:)`` for each destination object the
///    mapping made
/// 5. ``endRelationshipCreation(_:manager:)``
/// 6. ``performCustomValidation(_:manager:)``
/// 7. ``end(_:manager:)``
///
/// Every hook has a default, so a policy writes only what it changes. The default
/// `createDestinationInstances` makes one destination object from the mapping's attribute
/// values and associates it with the source (``MigrationManager/createDefaultDestinationInstance(for:)``);
/// the default `createRelationships` sets the mapping's relationship values
/// (``MigrationManager/createDefaultRelationships(for:)``); the others do nothing. A policy can
/// call those two from its own versions to keep the default work and add to it.
///
/// Policies see objects of the source model through ``SourceObject`` (by key, never the app's
/// own classes) and make destination objects through the ``MigrationManager``. A policy can
/// also offer functions to the mapping's value expressions, called as
/// `FUNCTION($entityPolicy, "selector:", arguments…)`: list their selectors in
/// ``functionSelectors`` and answer them in ``call(_:arguments:manager:)``.
///
/// ```swift
/// final class UppercaseNamesPolicy: EntityMigrationPolicy {
///     init() {}
///     func createDestinationInstances(forSource source: SourceObject, mapping: EntityMapping, manager: MigrationManager) throws {
///         let person = try manager.createDefaultDestinationInstance(for: source)
///         try manager.setAttributes(["name": .string(try source.text("name")?.uppercased())], of: person)
///     }
/// }
/// ```
///
/// Add the file to `Policies/` and rebuild: `molt` finds every type that conforms. An app that
/// embeds Molt registers its policies with ``PolicyRegistry/register(_:)``.
public protocol EntityMigrationPolicy: AnyObject {
    /// The name mapping files use; the type's name unless the type says otherwise.
    static var policyName: String { get }
    /// The selectors ``call(_:arguments:manager:)`` answers (for checking mapping files).
    static var functionSelectors: [String] { get }
    /// The hooks this type implements itself. The run is planned from it, before any object is
    /// read (no policy is called to learn what it does): a mapping whose policy does not
    /// override ``createRelationships(forDestination:mapping:manager:)`` may have its
    /// relationships set in SQL or a batch at a time. By default every hook, which is always
    /// correct; state fewer only when it is true.
    static var overriddenHooks: PolicyHooks { get }

    init()

    func begin(_ mapping: EntityMapping, manager: MigrationManager) throws
    func createDestinationInstances(
        forSource source: SourceObject, mapping: EntityMapping, manager: MigrationManager)
        throws
    func endInstanceCreation(_ mapping: EntityMapping, manager: MigrationManager) throws
    func createRelationships(
        forDestination destination: DestinationObject, mapping: EntityMapping, manager: MigrationManager) throws
    func endRelationshipCreation(_ mapping: EntityMapping, manager: MigrationManager) throws
    func performCustomValidation(_ mapping: EntityMapping, manager: MigrationManager) throws
    func end(_ mapping: EntityMapping, manager: MigrationManager) throws

    /// Answers `FUNCTION($entityPolicy, selector, arguments…)`.
    func call(_ selector: String, arguments: [ExpressionValue], manager: MigrationManager) throws -> ExpressionValue
}

extension EntityMigrationPolicy {
    public static var policyName: String { String(describing: self) }
    public static var functionSelectors: [String] { [] }
    public static var overriddenHooks: PolicyHooks { .all }

    public func begin(_ mapping: EntityMapping, manager: MigrationManager) throws {}

    public func createDestinationInstances(
        forSource source: SourceObject, mapping: EntityMapping, manager: MigrationManager
    ) throws {
        _ = try manager.createDefaultDestinationInstance(for: source)
    }

    public func endInstanceCreation(_ mapping: EntityMapping, manager: MigrationManager) throws {}

    public func createRelationships(
        forDestination destination: DestinationObject, mapping: EntityMapping, manager: MigrationManager
    ) throws {
        try manager.createDefaultRelationships(for: destination)
    }

    public func endRelationshipCreation(_ mapping: EntityMapping, manager: MigrationManager) throws {}
    public func performCustomValidation(_ mapping: EntityMapping, manager: MigrationManager) throws {}
    public func end(_ mapping: EntityMapping, manager: MigrationManager) throws {}

    public func call(
        _ selector: String, arguments: [ExpressionValue], manager: MigrationManager
    ) throws
        -> ExpressionValue
    {
        throw PolicyFunctionError.unknownSelector(selector, policy: Self.policyName)
    }
}

/// The policy used by entity mappings that name none: Core Data's default behaviour.
public final class DefaultEntityMigrationPolicy: EntityMigrationPolicy {
    public static var policyName: String { "default" }
    public static var overriddenHooks: PolicyHooks { [] }
    public init() {}
}

/// A `FUNCTION($entityPolicy, …)` selector the policy does not answer.
public enum PolicyFunctionError: Error, CustomStringConvertible {
    case unknownSelector(String, policy: String)

    public var description: String {
        switch self {
        case .unknownSelector(let selector, let policy): "the policy \(policy) has no function \"\(selector)\""
        }
    }
}
