public import Foundation
public import MoltCore

/// Writes a model in the compiled form ``CompiledModelDecoder`` reads: a keyed archive of
/// `NSManagedObjectModel`, shaped like the one in a real store's `Z_MODELCACHE` (entities in an
/// `NSKnownKeysDictionary1`, properties with their `_P` flags, typed default values).
///
/// A real store's cache, decoded and archived again, is the same tree of objects as Core
/// Data's (the test `ModelCacheFidelityTests`), so a migration writes the new version's model
/// into the store's `Z_MODELCACHE` with it, unless the model has something ``omissions(of:)``
/// names: validation rules (minimum, maximum, regular expressions) and fetched properties are
/// not written as Core Data writes them, code-generation settings not at all, and derivations
/// only when they are a plain key path or a call without arguments (`now()`).
///
/// ```swift
/// let data = CompiledModelArchiver().data(for: model)
/// let again = try CompiledModelDecoder().decode(data, location: SourceLocation(file: "test")).model
/// ```
public struct CompiledModelArchiver: Sendable {
    public init() {}

    /// What a known-keys dictionary holds in its empty slots, as Core Data archives it (read
    /// from a real store's cache).
    static let emptySlotToken = "__empty_slot_token_4c24_98dc_ac1e_b773__"

    /// What of `model` the archive would leave out or write in a form Core Data's own archive
    /// has not been compared with, one phrase each ("Person.age: its minimum and maximum");
    /// empty when the archive holds the whole model as Core Data archives it. Molt writes a
    /// store's model cache only for a model with none.
    public func omissions(of model: ObjectModel) -> [String] {
        var omissions: [String] = []
        for entity in model.entities {
            for attribute in model.storedAttributes(declaredBy: entity) {
                let name = "\(entity.name).\(attribute.name)"
                if attribute.minimumValue != nil || attribute.maximumValue != nil {
                    omissions.append("\(name): its minimum and maximum (validation predicates)")
                }
                if attribute.regularExpression != nil {
                    omissions.append("\(name): its regular expression")
                }
                if attribute.isDerived,
                    attribute.derivationExpression.map(Self.isWrittenDerivation) != true
                {
                    omissions.append("\(name): its derivation")
                }
            }
            for fetched in entity.fetchedProperties {
                omissions.append("\(entity.name).\(fetched.name): a fetched property")
            }
        }
        return omissions
    }

    /// Whether ``archive(_:)`` writes the derivation `text`: a plain key path or a call
    /// without arguments.
    static func isWrittenDerivation(_ text: String) -> Bool {
        let keyPathCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.@")
        if !text.isEmpty, text.allSatisfy(keyPathCharacters.contains) { return true }
        return text.hasSuffix("()") && text.count > 2 && text.dropLast(2).allSatisfy(keyPathCharacters.contains)
    }

    /// The archive as a binary property list.
    public func data(for model: ObjectModel) -> Data {
        BinaryPropertyListWriter().write(archive(model))
    }

    /// The archive as a property list.
    public func archive(_ model: ObjectModel) -> PropertyList {
        let builder = KeyedArchiveBuilder(classChains: Self.classChains)
        let root = builder.reserve()
        var entityReferences: [String: PropertyList] = [:]
        for entity in model.entities where entityReferences[entity.name] == nil {
            entityReferences[entity.name] = builder.reserve()
        }
        // Relationships are reserved first so that inverses can refer to each other.
        var relationshipReferences: [String: PropertyList] = [:]
        for entity in model.entities {
            for relationship in entity.relationships {
                relationshipReferences["\(entity.name).\(relationship.name)"] = builder.reserve()
            }
        }
        let writer = EntityArchiving(
            builder: builder, model: model, root: root, entities: entityReferences,
            relationships: relationshipReferences)
        for entity in model.entities { writer.write(entity) }
        let names = model.entities.map(\.name)
        let mapping = builder.object(
            "NSKnownKeysMappingStrategy1",
            [
                "keys": builder.array(names.map { builder.string($0) }), "length": .integer(Int64(names.count)),
                "version": .integer(1),
            ])
        let entities = builder.object(
            "NSKnownKeysDictionary1",
            [
                "searchMapping": mapping, "values": builder.array(names.map { entityReferences[$0] ?? builder.null }),
                "emptyToken": builder.string(Self.emptySlotToken), "version": .integer(1),
            ])
        var fields: [String: PropertyList] = [
            "NSEntities": entities, "NSFetchRequestTemplates": builder.null,
            "NSVersionIdentifiers": builder.array(
                model.versionIdentifiers.map { builder.string($0) }, className: "NSMutableSet"),
        ]
        if !model.configurations.isEmpty {
            fields["NSConfigurations"] = builder.dictionary(
                model.configurations.map { configuration in
                    (
                        configuration.name,
                        builder.array(
                            configuration.entityNames.compactMap { entityReferences[$0] }, className: "NSMutableSet")
                    )
                }, className: "NSDictionary")
        }
        builder.fill(root, "NSManagedObjectModel", fields)
        return builder.archive(root: root)
    }
}

/// Writes entities and their properties into a ``KeyedArchiveBuilder``.
private struct EntityArchiving {
    let builder: KeyedArchiveBuilder
    let model: ObjectModel
    let root: PropertyList
    let entities: [String: PropertyList]
    let relationships: [String: PropertyList]

    func write(_ entity: Entity) {
        guard let reference = entities[entity.name] else { return }
        let children = model.entities.filter { $0.parentName == entity.name }
        var properties: [(String, PropertyList)] = []
        for attribute in entity.attributes { properties.append((attribute.name, write(attribute, of: reference))) }
        for relationship in entity.relationships {
            properties.append((relationship.name, write(relationship, of: entity, reference)))
        }
        for fetched in entity.fetchedProperties {
            let request = builder.object(
                "NSFetchRequest", ["NSEntityName": builder.string(fetched.destinationEntityName)])
            properties.append(
                (
                    fetched.name,
                    builder.object(
                        "NSFetchedPropertyDescription",
                        propertyFields(
                            name: fetched.name, entity: reference, isOptional: true, isTransient: false,
                            isOrdered: false, renaming: nil, modifier: nil, userInfo: [:]
                        ).merging(["NSFetchRequest": request]) { a, _ in a })
                ))
        }
        var fields: [String: PropertyList] = [
            "NSEntityName": builder.string(entity.name),
            "NSClassNameForEntity": builder.string(entity.className ?? "NSManagedObject"),
            "NSManagedObjectModel": root,
            "NSSuperentity": entity.parentName.flatMap { entities[$0] } ?? builder.null,
            "NSSubentities": children.isEmpty
                ? builder.null : builder.dictionary(children.map { ($0.name, entities[$0.name] ?? builder.null) }),
            "NSProperties": builder.dictionary(properties),
            "NSUserInfo": userInfo(entity.userInfo),
            "NSVersionHashModifier": builder.string(entity.versionHashModifier),
            "NSRenamingIdentifier": builder.object(
                "NSMutableString", ["NS.string": .string(entity.renamingIdentifier ?? entity.name)]),
        ]
        if entity.isAbstract { fields["NSIsAbstract"] = .bool(true) }
        if !entity.uniquenessConstraints.isEmpty {
            fields["NSUniqueTuples"] = builder.array(
                entity.uniquenessConstraints.map { builder.array($0.map { builder.string($0) }) })
        }
        if !entity.fetchIndexes.isEmpty {
            fields["NSFetchIndexDescriptions"] = builder.array(entity.fetchIndexes.map { write($0, of: reference) })
        }
        builder.fill(reference, "NSEntityDescription", fields)
    }

    func userInfo(_ entries: [String: String]) -> PropertyList {
        builder.dictionary(
            entries.keys.sorted().map { ($0, builder.string(entries[$0] ?? "")) }, className: "NSDictionary")
    }

    func propertyFields(
        name: String, entity: PropertyList, isOptional: Bool, isTransient: Bool, isOrdered: Bool, renaming: String?,
        modifier: String?, userInfo entries: [String: String]
    ) -> [String: PropertyList] {
        var bits = PropertyFlags.present | PropertyFlags.noValidationPredicates | PropertyFlags.noValidationWarnings
        var fields: [String: PropertyList] = [
            "NSPropertyName": builder.string(name), "NSEntity": entity,
            "NSRenamingIdentifier": builder.string(renaming ?? name),
        ]
        if isOptional {
            bits |= PropertyFlags.optional
            fields["NSIsOptional"] = .bool(true)
        }
        if isTransient {
            bits |= PropertyFlags.transient
            fields["NSIsTransient"] = .bool(true)
        }
        if isOrdered {
            bits |= PropertyFlags.ordered
            fields["NSIsOrdered"] = .bool(true)
        }
        if entries.isEmpty { bits |= PropertyFlags.noUserInfo } else { fields["NSUserInfo"] = userInfo(entries) }
        if let modifier, !modifier.isEmpty {
            fields["NSVersionHashModifier"] = builder.string(modifier)
        } else {
            bits |= PropertyFlags.noVersionHashModifier
        }
        fields["_P"] = .integer(Int64(bits))
        return fields
    }

    func write(_ attribute: Attribute, of entity: PropertyList) -> PropertyList {
        write(attribute, of: entity, visiting: [])
    }

    /// An attribute; a composite attribute as `NSCompositeAttributeDescription` with its
    /// elements (`NSCompositeElements`, each archived as an attribute of the same entity, a
    /// nested composite as a composite), as Core Data archives it.
    func write(_ attribute: Attribute, of entity: PropertyList, visiting: Set<String>) -> PropertyList {
        var fields = propertyFields(
            name: attribute.name, entity: entity, isOptional: attribute.isOptional, isTransient: attribute.isTransient,
            isOrdered: false, renaming: attribute.renamingIdentifier, modifier: attribute.versionHashModifier,
            userInfo: attribute.userInfo)
        fields["NSAttributeType"] = .integer(Int64(attribute.type.versionHashCode))
        fields["NSAttributeValueClassName"] = builder.string(
            attribute.type == .transformable ? attribute.customClassName : Self.valueClassNames[attribute.type])
        fields["NSValueTransformerName"] = builder.string(attribute.valueTransformerName)
        fields["NSDefaultValue"] = attribute.defaultValue.map { defaultValue($0, type: attribute.type) } ?? builder.null
        var flags = 0
        if attribute.allowsExternalBinaryDataStorage { flags |= AttributeFlags.externalStorage }
        if attribute.preservesValueInHistoryOnDeletion { flags |= AttributeFlags.preserveOnDeletion }
        if let minimum = attribute.minimumValue.flatMap({ bound($0, type: attribute.type) }) {
            flags |= AttributeFlags.hasMinimum
            fields["NSMinValueName"] = minimum
        }
        if let maximum = attribute.maximumValue.flatMap({ bound($0, type: attribute.type) }) {
            flags |= AttributeFlags.hasMaximum
            fields["NSMaxValueName"] = maximum
        }
        fields["NSFlagsKey"] = .integer(Int64(flags))
        if attribute.isIndexed { fields["NSIsIndexed"] = .bool(true) }
        if attribute.type == .composite {
            var elements: [PropertyList] = []
            if let name = attribute.compositeName, !visiting.contains(name),
                let composite = model.composite(named: name)
            {
                elements = composite.attributes.map { write($0, of: entity, visiting: visiting.union([name])) }
            }
            fields["NSCompositeElements"] = builder.array(elements)
            return builder.object("NSCompositeAttributeDescription", fields)
        }
        guard attribute.isDerived else { return builder.object("NSAttributeDescription", fields) }
        if let expression = attribute.derivationExpression.flatMap(derivation) {
            fields["NSDerivationExpression"] = expression
        }
        return builder.object("NSDerivedAttributeDescription", fields)
    }

    static let valueClassNames: [AttributeType: String] = [
        .integer16: "NSNumber", .integer32: "NSNumber", .integer64: "NSNumber", .decimal: "NSDecimalNumber",
        .double: "NSNumber", .float: "NSNumber", .string: "NSString", .boolean: "NSNumber", .date: "NSDate",
        .binary: "NSData", .uuid: "NSUUID", .uri: "NSURL",
    ]

    func bound(_ text: String, type: AttributeType) -> PropertyList? {
        guard let number = Double(text.trimmingCharacters(in: .whitespaces)), number.isFinite else { return nil }
        if type.isInteger || type == .string {
            guard number.rounded() == number, abs(number) < 9.2e18 else { return nil }
            return .integer(Int64(number))
        }
        return .real(number)
    }

    func defaultValue(_ text: String, type: AttributeType) -> PropertyList {
        switch DefaultValueReading.value(text, for: type) {
        case .integer(let number)?: return .integer(number)
        case .double(let number)?: return .real(number)
        case .bool(let flag)?: return .bool(flag)
        case .string(let value)?: return builder.string(value)
        case .date(let seconds)?: return builder.object("NSDate", ["NS.time": .real(seconds)])
        case .uuid(let uuid)?:
            return builder.object("NSUUID", ["NS.uuidbytes": .data(withUnsafeBytes(of: uuid.uuid) { Data($0) })])
        case .uri(let value)?:
            return builder.object("NSURL", ["NS.base": builder.null, "NS.relative": builder.string(value)])
        case .decimal?:
            return DecimalArchiving.object(text, builder: builder) ?? builder.string(text)
        case nil:
            return builder.string(text)
        }
    }

    /// A plain key path or a call without arguments, as Core Data archives expressions.
    func derivation(_ text: String) -> PropertyList? {
        let keyPathCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.@")
        if !text.isEmpty, text.allSatisfy(keyPathCharacters.contains) {
            let specifier = builder.object(
                "NSKeyPathSpecifierExpression", ["NSExpressionType": .integer(10), "NSKeyPath": builder.string(text)])
            return builder.object(
                "NSKeyPathExpression",
                [
                    "NSExpressionType": .integer(3), "NSSelectorName": builder.string("valueForKeyPath:"),
                    "NSOperand": builder.object("NSSelfExpression", ["NSExpressionType": .integer(1)]),
                    "NSArguments": builder.array([specifier], className: "NSMutableArray"),
                ])
        }
        if text.hasSuffix("()"), text.dropLast(2).allSatisfy(keyPathCharacters.contains), text.count > 2 {
            return builder.object(
                "NSFunctionExpression",
                [
                    "NSExpressionType": .integer(4), "NSSelectorName": builder.string(String(text.dropLast(2))),
                    "NSArguments": builder.array([], className: "NSMutableArray"),
                ])
        }
        return nil
    }

    func write(_ relationship: Relationship, of entity: Entity, _ entityReference: PropertyList) -> PropertyList {
        let reference = relationships["\(entity.name).\(relationship.name)"] ?? builder.reserve()
        var fields = propertyFields(
            name: relationship.name, entity: entityReference, isOptional: relationship.isOptional,
            isTransient: relationship.isTransient, isOrdered: relationship.isOrdered,
            renaming: relationship.renamingIdentifier, modifier: relationship.versionHashModifier,
            userInfo: relationship.userInfo)
        fields["NSMinCount"] = .integer(Int64(relationship.minCount))
        fields["NSMaxCount"] = .integer(Int64(relationship.maxCount))
        let rules: [DeleteRule: Int64] = [.noAction: 0, .nullify: 1, .cascade: 2, .deny: 3]
        fields["NSDeleteRule"] = .integer(rules[relationship.deleteRule] ?? 1)
        fields["NSDestinationEntity"] = entities[relationship.destinationEntityName] ?? builder.null
        fields["_NSDestinationEntityName"] = builder.string(relationship.destinationEntityName)
        fields["_NSInverseRelationshipName"] = builder.string(relationship.inverseName)
        var inverse = builder.null
        if let name = relationship.inverseName {
            let owner = relationship.inverseEntityName ?? relationship.destinationEntityName
            inverse = relationships["\(owner).\(name)"] ?? builder.null
        }
        fields["NSInverseRelationship"] = inverse
        builder.fill(reference, "NSRelationshipDescription", fields)
        return reference
    }

    func write(_ index: FetchIndex, of entity: PropertyList) -> PropertyList {
        let description = builder.reserve()
        let elements = index.elements.map { element in
            builder.object(
                "NSFetchIndexElementDescription",
                [
                    "NSPropertyName": builder.string(element.property),
                    "NSFetchIndexElementType": .integer(element.kind == "RTree" ? 1 : 0),
                    "NSAscending": .bool(element.isAscending), "NSFetchIndexDescription": description,
                ])
        }
        builder.fill(
            description, "NSFetchIndexDescription",
            [
                "NSIndexName": builder.string(index.name), "NSIndexElements": builder.array(elements),
                "NSEntity": entity, "NSPartialIndexPredicate": builder.null,
            ])
        return description
    }
}

/// Writing a decimal default as `NSDecimalNumber` does: the digits as a mantissa of 16-bit
/// words, least significant first, and a power of ten.
enum DecimalArchiving {
    static func object(_ text: String, builder: KeyedArchiveBuilder) -> PropertyList? {
        var characters = Substring(text.trimmingCharacters(in: .whitespaces))
        var negative = false
        if let sign = characters.first, sign == "-" || sign == "+" {
            negative = sign == "-"
            characters = characters.dropFirst()
        }
        var exponent = 0
        if let marker = characters.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            guard let power = Int(characters[characters.index(after: marker)...]) else { return nil }
            exponent = power
            characters = characters[..<marker]
        }
        let parts = characters.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else { return nil }
        let fraction = parts.count == 2 ? parts[1] : ""
        let digits = parts[0] + fraction
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        exponent -= fraction.count
        let words = DecimalMantissa.words(digits: digits)
        guard words.count <= 8, (-128...127).contains(exponent) else { return nil }
        return builder.object(
            "NSDecimalNumber",
            [
                "NS.exponent": .integer(Int64(exponent)), "NS.length": .integer(Int64(words.count)),
                "NS.negative": .bool(negative && !words.isEmpty), "NS.compact": .bool(true),
                "NS.mantissa": .data(DecimalMantissa.bytes(words)), "NS.mantissa.bo": .integer(1),
            ])
    }
}
