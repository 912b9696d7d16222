/// The hooks of ``EntityMigrationPolicy`` a policy type overrides.
///
/// The run is planned from it before any object is read: no policy is called to find out what
/// it does. It is learned from the policy's code when the target is built (the PolicyList
/// plugin reads every `override func` of each policy), never written by hand. A type
/// registered without it (``PolicyRegistry/register(_:)-5t18m``) is taken to override every hook,
/// which is always correct; knowing that a policy keeps the default `createRelationships` lets
/// the plan set that mapping's relationships in SQL or in batches.
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

    /// Every hook: what a type registered without its hooks is taken to override.
    public static let all: PolicyHooks = [
        .begin, .createDestinationInstances, .endInstanceCreation, .createRelationships, .endRelationshipCreation,
        .performCustomValidation, .end, .call,
    ]

    /// Each hook with its method's name, as Core Data spells it.
    static let names: [(hook: PolicyHooks, name: String)] = [
        (.begin, "begin"), (.createDestinationInstances, "createDestinationInstances"),
        (.endInstanceCreation, "endInstanceCreation"), (.createRelationships, "createRelationships"),
        (.endRelationshipCreation, "endRelationshipCreation"), (.performCustomValidation, "performCustomValidation"),
        (.end, "end"), (.call, "call"),
    ]

    /// The hooks' names, comma-separated ("none" when empty).
    public var description: String {
        let named = Self.names.filter { contains($0.hook) }.map(\.name)
        return named.isEmpty ? "none" : named.joined(separator: ", ")
    }
}
