import Molt

/// Library 2 → Library 3: a member's `fullName` becomes `firstName` (all but the last word)
/// and `lastName` (the last word); a one-word name is a last name.
public final class MemberNamePolicy: EntityMigrationPolicy {
    public required init() {}

    public override func createDestinationInstances(
        forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        let member = try manager.createDefaultDestinationInstance(for: source)
        let words = (try source.text("fullName") ?? "").split(separator: " ").map(String.init)
        let last = words.last ?? ""
        let first = words.dropLast().joined(separator: " ")
        try manager.setAttributes(
            ["firstName": first.isEmpty ? .null : .string(first), "lastName": .string(last)], of: member)
    }
}
