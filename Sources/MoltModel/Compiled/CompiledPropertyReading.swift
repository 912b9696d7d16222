internal import MoltCore

/// Reading the properties of a compiled entity: attributes, relationships, fetched properties.
extension CompiledModelContext {
    /// The property archived under `key` of `entity`'s properties, added to `entity`.
    func property(_ key: String, _ value: ArchivedValue?, into entity: inout Entity) throws {
        try spend()
        let owner = entity.name
        guard case .object(let object)? = value else {
            throw corrupt("its property \"\(key)\" is not an archived property", entity: owner, property: key)
        }
        guard let name = try object.string("NSPropertyName"), !name.isEmpty else {
            throw corrupt("the property has no name (NSPropertyName)", entity: owner, property: key)
        }
        guard name == key else {
            throw corrupt(
                "the entity lists the property \"\(name)\" under the name \"\(key)\"", entity: owner, property: key)
        }
        if let declaring = try object.object("NSEntity"), entityNames[declaring.index] != owner {
            throw corrupt("the property belongs to another entity", entity: owner, property: name)
        }
        if object.isKind(of: "NSAttributeDescription") {
            entity.attributes.append(try attribute(object, name: name, entity: owner))
        } else if object.isKind(of: "NSRelationshipDescription") {
            entity.relationships.append(try relationship(object, name: name, entity: owner))
        } else if object.isKind(of: "NSFetchedPropertyDescription") {
            entity.fetchedProperties.append(try fetchedProperty(object, name: name, entity: owner))
        } else {
            throw unsupported(
                "properties of class \(object.className) are not supported", entity: owner, property: name)
        }
    }

    /// The parts every property has: flags, renaming identifier, modifier, user info; notes
    /// validation rules, which Molt does not keep from a compiled model.
    func commonParts(
        _ object: ArchivedObject, name: String, entity: String
    ) throws -> (
        flags: PropertyFlags, renaming: String?, modifier: String?, userInfo: [String: String]
    ) {
        let flags = try PropertyFlags(object, context: self, entity: entity, property: name)
        guard !flags.isReadOnly else {
            throw unsupported(
                "the property is read-only, which Molt's models cannot express and which changes its version hash",
                entity: entity, property: name)
        }
        if flags.readsValidationPredicates,
            !(try elements(object, "NSValidationPredicates", what: "the validation predicates of \(entity).\(name)"))
                .isEmpty
        {
            note("the validation predicates of \(entity).\(name) are not kept")
        }
        return (
            flags, try renamingIdentifier(object, name: name),
            flags.readsVersionHashModifier ? nonEmpty(try object.string("NSVersionHashModifier")) : nil,
            flags.readsUserInfo ? try userInfo(object, "NSUserInfo", owner: "\(entity).\(name)") : [:]
        )
    }

    func attribute(_ object: ArchivedObject, name: String, entity: String, depth: Int = 0) throws -> Attribute {
        let isDerived = object.isKind(of: "NSDerivedAttributeDescription")
        let isComposite = object.isKind(of: "NSCompositeAttributeDescription")
        try checkKeys(
            object,
            isDerived
                ? CompiledModelKeys.derivedAttribute
                : isComposite ? CompiledModelKeys.compositeAttribute : CompiledModelKeys.attribute,
            what: "attribute", entity: entity, property: name)
        let common = try commonParts(object, name: name, entity: entity)
        let code = try object.integer("NSAttributeType") ?? 0
        guard let type = AttributeType.allCases.first(where: { Int64($0.versionHashCode) == code }) else {
            let kind = [2200: " (a codable attribute)"][code] ?? ""
            throw unsupported("attribute type \(code)\(kind) is not supported", entity: entity, property: name)
        }
        guard isComposite == (type == .composite) else {
            throw corrupt(
                "an attribute of type \(code) archived as \(object.className)", entity: entity, property: name)
        }
        let flags = try AttributeFlags(object, context: self, entity: entity, property: name)
        if flags.isFileBackedFuture {
            note("\(entity).\(name) is a file-backed future; Molt keeps it as a binary attribute with external storage")
        }
        var attribute = Attribute(
            name: name, type: type, isOptional: common.flags.isOptional, isTransient: common.flags.isTransient,
            allowsExternalBinaryDataStorage: flags.allowsExternalStorage,
            preservesValueInHistoryOnDeletion: flags.preservesOnDeletion,
            valueTransformerName: nonEmpty(try object.string("NSValueTransformerName")),
            isDerived: isDerived, isIndexed: (try object.integer("NSIsIndexed") ?? 0) != 0,
            renamingIdentifier: common.renaming, versionHashModifier: common.modifier, userInfo: common.userInfo)
        if type == .transformable {
            attribute.customClassName = nonEmpty(try object.string("NSAttributeValueClassName"))
        }
        if type == .composite {
            attribute.compositeName = try compositeName(object, attribute: name, entity: entity, depth: depth)
            return attribute
        }
        let owner = "\(entity).\(name)"
        attribute.defaultValue = try defaultValueText(object.value("NSDefaultValue"), type: type, owner: owner)
        if flags.hasMinimum { attribute.minimumValue = try bound(object, "NSMinValueName", type: type, entity, name) }
        if flags.hasMaximum { attribute.maximumValue = try bound(object, "NSMaxValueName", type: type, entity, name) }
        if isDerived {
            if let expression = try object.object("NSDerivationExpression") {
                attribute.derivationExpression = try expressionText(expression, depth: 0)
                if attribute.derivationExpression == nil {
                    note("the derivation expression of \(owner) (\(expression.className)) is not kept")
                }
            }
            if try object.object("NSFilteringPredicate") != nil {
                note("the filtering predicate of the derived attribute \(owner) is not kept")
            }
        }
        return attribute
    }

    /// The name of the composite a composite attribute holds, read from its elements
    /// (`NSCompositeElements`) and named as ``CompositeNaming`` names it. Nested composites
    /// go at most ``CompiledModelDecoder/Limits/maximumExpressionDepth`` deep.
    func compositeName(_ object: ArchivedObject, attribute name: String, entity: String, depth: Int) throws -> String {
        guard depth < limits.maximumExpressionDepth else {
            throw corrupt(
                "composites nest more than \(limits.maximumExpressionDepth) deep", entity: entity, property: name)
        }
        var elements: [Attribute] = []
        for (offset, value) in try self.elements(
            object, "NSCompositeElements", what: "the elements of \(entity).\(name)"
        )
        .enumerated() {
            try spend()
            guard case .object(let element)? = value, element.isKind(of: "NSAttributeDescription") else {
                throw corrupt(
                    "element \(offset + 1) of the composite is not an attribute", entity: entity, property: name)
            }
            guard let elementName = try element.string("NSPropertyName"), !elementName.isEmpty else {
                throw corrupt("element \(offset + 1) of the composite has no name", entity: entity, property: name)
            }
            guard !elements.contains(where: { $0.name == elementName }) else {
                throw corrupt(
                    "the composite has two elements called \"\(elementName)\"", entity: entity, property: name)
            }
            elements.append(
                try attribute(element, name: elementName, entity: "\(entity).\(name)", depth: depth + 1))
        }
        return composites.name(forElements: elements, of: name)
    }

    /// A minimum or maximum: an integer for integer and string (length) attributes, a number
    /// (a date's seconds since 2001) otherwise.
    func bound(
        _ object: ArchivedObject, _ key: String, type: AttributeType, _ entity: String, _ name: String
    ) throws
        -> String
    {
        switch object.fields[key] {
        case .integer(let number)?: return String(number)
        case .real(let number)? where !type.isInteger && type != .string: return ArchivedNumbers.text(number)
        case .real(let number)? where number.rounded() == number && abs(number) < 9.2e18: return String(Int64(number))
        default:
            throw corrupt("its flags say \(key) is archived, but it is not a number", entity: entity, property: name)
        }
    }

    func relationship(_ object: ArchivedObject, name: String, entity: String) throws -> Relationship {
        try checkKeys(object, CompiledModelKeys.relationship, what: "relationship", entity: entity, property: name)
        let common = try commonParts(object, name: name, entity: entity)
        var destination = try object.string("_NSDestinationEntityName")
        if let reference = try object.value("NSDestinationEntity") {
            let referenced = try entityName(reference, what: "its destination", entity: entity, property: name)
            if let destination, destination != referenced {
                throw corrupt(
                    "its destination is \(referenced), but _NSDestinationEntityName says \(destination)",
                    entity: entity,
                    property: name)
            }
            destination = referenced
        }
        guard let destination, !destination.isEmpty else {
            throw corrupt("the relationship has no destination entity", entity: entity, property: name)
        }
        guard entityNameSet.contains(destination) else {
            throw corrupt("its destination entity \(destination) is not in the model", entity: entity, property: name)
        }
        var inverseName = nonEmpty(try object.string("_NSInverseRelationshipName"))
        var inverseEntity: String?
        if let inverse = try object.object("NSInverseRelationship") {
            guard inverse.isKind(of: "NSRelationshipDescription"), let referenced = try inverse.string("NSPropertyName")
            else {
                throw corrupt("its inverse is not a relationship", entity: entity, property: name)
            }
            if let inverseName, inverseName != referenced {
                throw corrupt(
                    "its inverse is \(referenced), but _NSInverseRelationshipName says \(inverseName)", entity: entity,
                    property: name)
            }
            inverseName = referenced
            inverseEntity = try inverse.value("NSEntity").map {
                try entityName($0, what: "the entity of its inverse", entity: entity, property: name)
            }
        }
        let counts = try ["NSMinCount", "NSMaxCount"].map { key -> Int in
            let count = try object.integer(key) ?? 0
            guard count >= 0, count <= Int64(Int32.max) else {
                throw corrupt("its \(key) \(count) is not a count", entity: entity, property: name)
            }
            return Int(count)
        }
        let rules: [Int64: DeleteRule] = [0: .noAction, 1: .nullify, 2: .cascade, 3: .deny]
        let ruleCode = try object.integer("NSDeleteRule") ?? 1
        guard let rule = rules[ruleCode] else {
            throw corrupt(
                "its delete rule \(ruleCode) is not one of Core Data's (0 to 3)", entity: entity, property: name)
        }
        return Relationship(
            name: name, destinationEntityName: destination, inverseName: inverseName,
            inverseEntityName: inverseName == nil ? nil : (inverseEntity ?? destination), isToMany: counts[1] != 1,
            isOrdered: common.flags.isOrdered, isOptional: common.flags.isOptional,
            isTransient: common.flags.isTransient, minCount: counts[0], maxCount: counts[1], deleteRule: rule,
            renamingIdentifier: common.renaming, versionHashModifier: common.modifier, userInfo: common.userInfo)
    }

    /// A fetched property: its name and the entity its request fetches. Its predicate is not
    /// kept (fetched properties are never stored and never hashed), so unknown keys pass.
    func fetchedProperty(_ object: ArchivedObject, name: String, entity: String) throws -> FetchedProperty {
        var property = FetchedProperty(name: name)
        guard let request = try object.object("NSFetchRequest") else { return property }
        if let reference = try request.value("NSEntity"), case .object = reference {
            property.destinationEntityName = try entityName(
                reference, what: "the entity its request fetches", entity: entity, property: name)
        } else {
            property.destinationEntityName = nonEmpty(try request.string("NSEntityName"))
        }
        if request.fields["NSPredicate"] != nil {
            note("the predicate of the fetched property \(entity).\(name) is not kept")
        }
        return property
    }
}
