import Molt

/// Splits one source Person (Contacts) into a Person, an Address and a Phone (Contacts 2):
/// one source object, destination objects of three entities.
///
/// Used by `MappingModels/Contacts/Contacts-to-Contacts2.xml`.
final class ContactSplitPolicy: EntityMigrationPolicy {
    required init() {}

    override func createDestinationInstances(
        forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        // The Person itself, with the mapping's (inferred) values.
        _ = try manager.createDefaultDestinationInstance(for: source)

        let street = try source.text("street")
        let city = try source.text("city")
        let postcode = try source.text("postcode")
        if [street, city, postcode].contains(where: { $0 != nil }) {
            let values: [String: ExpressionValue] = [
                "street": .text(street), "city": .text(city), "postcode": .text(postcode),
            ]
            let address = try manager.destinationContext.insertNewObject(forEntityName: "Address", attributes: values)
            try manager.associate(source: source, destination: address)
        }
        if let number = try source.text("phone")?.trimmingCharacters(in: .whitespaces), !number.isEmpty {
            let phone = try manager.destinationContext.insertNewObject(
                forEntityName: "Phone", attributes: ["number": number])
            try manager.associate(source: source, destination: phone)
        }
    }

    override func createRelationships(
        forDestination destination: DestinationObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        guard destination.entity == "Address" || destination.entity == "Phone" else {
            // The Person: its groups, as the mapping infers them.
            try manager.createDefaultRelationships(for: destination)
            return
        }
        // An Address or Phone belongs to the Person made from the same source object.
        let sources = try manager.sourceObjects(for: destination).map(\.id)
        let person = try manager.destinationInstances(forEntityMappingName: mapping.name, sourceIDs: sources)
            .filter { $0.entity == "Person" }
        try manager.setRelationship("person", of: destination, to: person)
    }
}

extension ExpressionValue {
    /// Text, or nil.
    static func text(_ value: String?) -> ExpressionValue {
        value.map(ExpressionValue.string) ?? .null
    }
}
