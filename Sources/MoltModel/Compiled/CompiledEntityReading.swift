internal import MoltCore

/// Reading one `NSEntityDescription` of a compiled model.
extension CompiledModelContext {
    /// The entity archived as `object` under the model's key `key`. Its class name is nil when
    /// Core Data archived `NSManagedObject`, the class of entities whose Xcode file names none.
    func entity(_ object: ArchivedObject, key: String) throws -> Entity {
        try spend()
        try checkKeys(object, CompiledModelKeys.entity, what: "entity", entity: key)
        guard let name = try object.string("NSEntityName"), !name.isEmpty else {
            throw corrupt("the entity has no name (NSEntityName)", entity: key)
        }
        guard name == key else {
            throw corrupt("the model lists the entity \"\(name)\" under the name \"\(key)\"", entity: key)
        }
        if let owner = try object.object("NSManagedObjectModel"), owner.index != modelIndex {
            throw corrupt("the entity belongs to another model object", entity: name)
        }
        var entity = Entity(
            name: name,
            className: try nonEmpty(object.string("NSClassNameForEntity")).flatMap {
                $0 == "NSManagedObject" ? nil : $0
            },
            parentName: try object.value("NSSuperentity").map {
                try entityName($0, what: "its parent entity (NSSuperentity)", entity: name)
            },
            isAbstract: (try object.integer("NSIsAbstract") ?? 0) != 0,
            renamingIdentifier: try renamingIdentifier(object, name: name),
            versionHashModifier: try nonEmpty(object.string("NSVersionHashModifier")),
            userInfo: try userInfo(object, "NSUserInfo", owner: "the entity \(name)"))
        if let properties = try object.object("NSProperties") {
            for entry in try dictionaryEntries(properties, what: "the properties of \(name)") {
                try property(entry.key, entry.value, into: &entity)
            }
        }
        entity.attributes.sort { NameOrder.precedes($0.name, $1.name) }
        entity.relationships.sort { NameOrder.precedes($0.name, $1.name) }
        entity.fetchedProperties.sort { NameOrder.precedes($0.name, $1.name) }
        entity.uniquenessConstraints = try uniquenessConstraints(object, entity: name)
        entity.fetchIndexes = try fetchIndexes(object, entity: name)
        return entity
    }

    /// A renaming identifier: Core Data archives the name when none was set, which Molt's
    /// models (like Xcode's files) express as no identifier.
    func renamingIdentifier(_ object: ArchivedObject, name: String) throws -> String? {
        guard let identifier = try nonEmpty(object.string("NSRenamingIdentifier")), identifier != name else {
            return nil
        }
        return identifier
    }

    func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }

    /// `NSUniqueTuples`: an array of arrays, each naming the properties (as text, or as
    /// archived property descriptions) that are unique together.
    func uniquenessConstraints(_ object: ArchivedObject, entity: String) throws -> [[String]] {
        var result: [[String]] = []
        for (offset, tuple) in try elements(object, "NSUniqueTuples", what: "the uniqueness constraints of \(entity)")
            .enumerated()
        {
            guard case .object(let list)? = tuple else {
                throw corrupt("its uniqueness constraint \(offset + 1) is not an array", entity: entity)
            }
            var names: [String] = []
            for part in try collectionElements(list, what: "uniqueness constraint \(offset + 1) of \(entity)") {
                if let name = try text(part) {
                    names.append(name)
                } else if case .object(let property)? = part, property.isKind(of: "NSPropertyDescription"),
                    let name = try property.string("NSPropertyName")
                {
                    names.append(name)
                } else {
                    throw corrupt(
                        "a part of its uniqueness constraint \(offset + 1) is not a property name", entity: entity)
                }
            }
            result.append(names)
        }
        return result
    }

    /// `NSFetchIndexDescriptions` (name, elements: property, kind, order); archives that only
    /// have the older `NSCompoundIndexes` (arrays of properties) give indexes named like
    /// Xcode's reader names them.
    func fetchIndexes(_ object: ArchivedObject, entity: String) throws -> [FetchIndex] {
        let descriptions = try elements(object, "NSFetchIndexDescriptions", what: "the fetch indexes of \(entity)")
        if descriptions.isEmpty {
            return try elements(object, "NSCompoundIndexes", what: "the compound indexes of \(entity)").enumerated()
                .map { offset, compound in
                    guard case .object(let list)? = compound else {
                        throw corrupt("its compound index \(offset + 1) is not an array", entity: entity)
                    }
                    let names = try collectionElements(list, what: "compound index \(offset + 1) of \(entity)").map {
                        part -> String in
                        if let name = try text(part) { return name }
                        if case .object(let property)? = part, let name = try property.string("NSPropertyName") {
                            return name
                        }
                        throw corrupt("a part of its compound index \(offset + 1) is not a property", entity: entity)
                    }
                    return FetchIndex(
                        name: "compoundIndex\(offset + 1)", elements: names.map { FetchIndex.Element(property: $0) })
                }
        }
        var result: [FetchIndex] = []
        for description in descriptions {
            guard case .object(let index)? = description, index.isKind(of: "NSFetchIndexDescription"),
                let name = try index.string("NSIndexName")
            else {
                throw corrupt("one of its fetch indexes is not a named NSFetchIndexDescription", entity: entity)
            }
            if try index.object("NSPartialIndexPredicate") != nil {
                note("the predicate of the fetch index \(name) of \(entity) is not kept (the index is kept whole)")
            }
            var parts: [FetchIndex.Element] = []
            for element in try elements(index, "NSIndexElements", what: "the fetch index \(name) of \(entity)") {
                guard case .object(let part)? = element, part.isKind(of: "NSFetchIndexElementDescription") else {
                    throw corrupt(
                        "an element of the fetch index \(name) is not an NSFetchIndexElementDescription", entity: entity
                    )
                }
                guard let property = try part.string("NSPropertyName") else {
                    note("an element of the fetch index \(name) of \(entity) indexes an expression and is not kept")
                    continue
                }
                let kind: String
                switch try part.integer("NSFetchIndexElementType") ?? 0 {
                case 0: kind = "Binary"
                case 1: kind = "RTree"
                case let other:
                    throw corrupt("the fetch index \(name) has an element of unknown type \(other)", entity: entity)
                }
                parts.append(
                    FetchIndex.Element(
                        property: property, kind: kind, isAscending: (try part.integer("NSAscending") ?? 1) != 0))
            }
            result.append(FetchIndex(name: name, elements: parts))
        }
        return result
    }
}
