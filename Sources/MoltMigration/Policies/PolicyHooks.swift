/// The hooks of ``EntityMigrationPolicy`` a policy type implements itself, as the type states
/// them (``EntityMigrationPolicy/overriddenHooks``).
///
/// The run is planned from this statement before any object is read: no policy is called to
/// find out what it does. A policy that does not state its hooks is taken to override all of
/// them, which is always correct; a policy that states only what it overrides lets the plan
/// choose faster routes for the rest (for example, relationships set in SQL when
/// ``createRelationships`` is not overridden).
public struct PolicyHooks: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let begin = PolicyHooks(rawValue: 1 << 0)
    public static let createDestinationInstances = PolicyHooks(rawValue: 1 << 1)
    public static let endInstanceCreation = PolicyHooks(rawValue: 1 << 2)
    public static let createRelationships = PolicyHooks(rawValue: 1 << 3)
    public static let endRelationshipCreation = PolicyHooks(rawValue: 1 << 4)
    public static let performCustomValidation = PolicyHooks(rawValue: 1 << 5)
    public static let end = PolicyHooks(rawValue: 1 << 6)
    /// Answers `FUNCTION($entityPolicy, …)` (``EntityMigrationPolicy/call(_:arguments:manager:)``).
    public static let call = PolicyHooks(rawValue: 1 << 7)

    /// Every hook: what a policy that states nothing is taken to override.
    public static let all: PolicyHooks = [
        .begin, .createDestinationInstances, .endInstanceCreation, .createRelationships, .endRelationshipCreation,
        .performCustomValidation, .end, .call,
    ]

    static let names: [(PolicyHooks, String)] = [
        (.begin, "begin"), (.createDestinationInstances, "createDestinationInstances"),
        (.endInstanceCreation, "endInstanceCreation"), (.createRelationships, "createRelationships"),
        (.endRelationshipCreation, "endRelationshipCreation"), (.performCustomValidation, "performCustomValidation"),
        (.end, "end"), (.call, "call"),
    ]

    /// The hooks' names, comma-separated ("none" when empty).
    public var description: String {
        let named = Self.names.filter { contains($0.0) }.map(\.1)
        return named.isEmpty ? "none" : named.joined(separator: ", ")
    }
}
