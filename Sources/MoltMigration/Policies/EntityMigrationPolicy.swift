public import MoltMapping

/// Custom code for an entity mapping: Core Data's `NSEntityMigrationPolicy`, in Swift.
///
/// A mapping file names the policy (`policy="ContactSplitPolicy"`); the engine makes one
/// instance per run of that entity mapping and calls its hooks in Core Data's order:
///
/// 1. ``begin(_:with:)``
/// 2. ``createDestinationInstances(forSource:in:manager:)`` for each source object the
///    mapping reads (after its filter)
/// 3. ``endInstanceCreation(forMapping:manager:)``
/// 4. ``createRelationships(forDestination:in:manager:)`` for each destination object the
///    mapping made
/// 5. ``endRelationshipCreation(forMapping:manager:)``
/// 6. ``performCustomValidation(forMapping:manager:)``
/// 7. ``end(_:manager:)``
///
/// A policy is a subclass that overrides what it changes, with Core Data's spellings, so the
/// compiler checks every hook: one misspelled or with the wrong types after `override` does
/// not compile, and one with a hook's exact name but no `override` does not compile either.
/// The default `createDestinationInstances` makes one destination object from the mapping's
/// attribute values and associates it with the source
/// (``MigrationManager/createDefaultDestinationInstance(for:)``); the default
/// `createRelationships` sets the mapping's relationship values
/// (``MigrationManager/createDefaultRelationships(for:)``); the others do nothing. An override
/// can call `super` to keep the default work and add to it.
///
/// Policies see objects of the source model through ``SourceObject`` (by key, never the app's
/// own classes) and make destination objects through the ``MigrationManager``. A policy can
/// also offer functions to the mapping's value expressions, called as
/// `FUNCTION($entityPolicy, "selector:", arguments…)`: list their selectors in
/// ``functionSelectors`` and answer them in ``call(_:arguments:manager:)``.
///
/// ```swift
/// final class UppercaseNamesPolicy: EntityMigrationPolicy {
///     override func createDestinationInstances(
///         forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
///     ) throws {
///         let person = try manager.createDefaultDestinationInstance(for: source)
///         try manager.setAttributes(["name": .string(try source.text("name")?.uppercased())], of: person)
///     }
/// }
/// ```
///
/// Add the file to `Policies/` and rebuild: `molt` finds every subclass, and learns from its
/// code which hooks it overrides (the PolicyList plugin), which lets the run set the
/// relationships of a policy that keeps the default `createRelationships` in SQL. The plugin
/// also refuses to build a policy with a method that looks like a hook but is not one (a
/// misspelling without `override`, or an old spelling such as `mapping:` for `in:`): such a
/// method would never be called. An app that embeds Molt uses the plugin on its policies'
/// target, or registers them with ``PolicyRegistry/register(_:)-5t18m``.
open class EntityMigrationPolicy {
    /// The name mapping files use: the type's name unless the type says otherwise.
    open class var policyName: String { String(describing: self) }

    /// The selectors ``call(_:arguments:manager:)`` answers (for checking mapping files).
    open class var functionSelectors: [String] { [] }

    /// Whether ``createDestinationInstances(forSource:in:manager:)`` may run for several source
    /// objects at once, on the copy pass's worker threads (``MigrationOptions/jobs``), while the
    /// writing thread writes what earlier objects made. False by default: every hook runs in
    /// order on one thread, as in Core Data.
    ///
    /// Say true only when the hook keeps no state of its own from one object to the next (or
    /// guards it) and what it makes of a source object depends on that object alone. On a
    /// worker, the hook may read its source object (attributes, and related source objects),
    /// make objects (`insertNewObject`, `createDefaultDestinationInstance`), set their
    /// attributes and associate them. The objects it makes have no key yet (their IDs are
    /// provisional until they are written), so it must not keep or store their IDs. A call
    /// that needs the new store or the run as it is at that object's place in the order (a
    /// fetch, a relationship, another object's destination instances, a source fetch or
    /// delete) makes the engine run the hook for that object again on the writing thread, in
    /// order, after the objects before it are written; what the first run made is dropped
    /// unwritten. The store is the one a run on one thread makes.
    ///
    /// ```swift
    /// final class TitlePolicy: EntityMigrationPolicy {
    ///     override class var createsInstancesConcurrently: Bool { true }
    ///
    ///     override func createDestinationInstances(
    ///         forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ///     ) throws {
    ///         let title = try source.text("title")?.capitalized
    ///         let note = try manager.destinationContext.insertNewObject(
    ///             forEntityName: "Note", attributes: ["title": title])
    ///         try manager.associate(source: source, destination: note)
    ///     }
    /// }
    /// ```
    open class var createsInstancesConcurrently: Bool { false }

    /// Made by the engine, once per run of an entity mapping.
    public required init() {}

    /// Called before the first object of the mapping is read (Core Data's `begin(_:with:)`).
    open func begin(_ mapping: EntityMapping, with manager: MigrationManager) throws {}

    /// Makes the destination objects of one source object (Core Data's
    /// `createDestinationInstances(forSource:in:manager:)`). The default makes one from the
    /// mapping's attribute values and associates the two.
    open func createDestinationInstances(
        forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        _ = try manager.createDefaultDestinationInstance(for: source)
    }

    /// Called after the mapping's last source object (Core Data's
    /// `endInstanceCreation(forMapping:manager:)`).
    open func endInstanceCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {}

    /// Sets the relationships of one destination object the mapping made (Core Data's
    /// `createRelationships(forDestination:in:manager:)`). The default sets the mapping's
    /// relationship values.
    open func createRelationships(
        forDestination destination: DestinationObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        try manager.createDefaultRelationships(for: destination)
    }

    /// Called after the mapping's last destination object is related (Core Data's
    /// `endRelationshipCreation(forMapping:manager:)`).
    open func endRelationshipCreation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {}

    /// Checks what the mapping made, in the validate pass (Core Data's
    /// `performCustomValidation(forMapping:manager:)`).
    open func performCustomValidation(forMapping mapping: EntityMapping, manager: MigrationManager) throws {}

    /// Called when the mapping's work is over, after the validate pass (Core Data's `end(_:manager:)`).
    open func end(_ mapping: EntityMapping, manager: MigrationManager) throws {}

    /// Answers `FUNCTION($entityPolicy, selector, arguments…)`.
    open func call(
        _ selector: String, arguments: [ExpressionValue], manager: MigrationManager
    ) throws
        -> ExpressionValue
    {
        throw PolicyFunctionError.unknownSelector(selector, policy: Self.policyName)
    }
}

/// The policy used by entity mappings that name none: Core Data's default behaviour.
public final class DefaultEntityMigrationPolicy: EntityMigrationPolicy {
    public override class var policyName: String { "default" }
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
