import Foundation
import Molt

/// Merges people who share an e-mail address (Contacts 2 → Contacts 3, where e-mail
/// addresses are unique): the first one read (in key order) is kept, every later one is
/// associated with it instead of being copied, and `mergedRecords` counts them. Addresses,
/// phones and groups of all of them then go to the kept person through the association table.
///
/// Offers `FUNCTION($entityPolicy, "normalizedEmail:", text)` to the mapping's expressions.
/// It keeps one entry per distinct e-mail address in memory.
///
/// Used by `MappingModels/Contacts/Contacts2-to-Contacts3.xml`.
final class ContactMergePolicy: EntityMigrationPolicy {
    override class var functionSelectors: [String] { ["normalizedEmail:"] }

    private var kept: [String: (person: DestinationObject, count: Int)] = [:]

    required init() {}

    /// Lowercased, without surrounding spaces; nil for nil or empty text.
    static func normalized(_ email: String?) -> String? {
        guard let email = email?.trimmingCharacters(in: .whitespaces).lowercased(), !email.isEmpty else { return nil }
        return email
    }

    override func call(
        _ selector: String, arguments: [ExpressionValue], manager: MigrationManager
    ) throws -> ExpressionValue {
        guard selector == "normalizedEmail:" else {
            throw PolicyFunctionError.unknownSelector(selector, policy: Self.policyName)
        }
        guard case .string(let text)? = arguments.first, let email = Self.normalized(text) else { return .null }
        return .string(email)
    }

    override func createDestinationInstances(
        forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        guard let email = Self.normalized(try source.text("email")) else {
            _ = try manager.createDefaultDestinationInstance(for: source)
            return
        }
        if let existing = kept[email] {
            try manager.associate(source: source, destination: existing.person)
            kept[email] = (existing.person, existing.count + 1)
            try manager.setAttributes(["mergedRecords": .integer(Int64(existing.count + 1))], of: existing.person)
        } else {
            kept[email] = (try manager.createDefaultDestinationInstance(for: source), 1)
        }
    }

    override func end(_ mapping: EntityMapping, manager: MigrationManager) throws {
        kept.removeAll()
    }
}
