internal import Molt

/// The changes a destination version may make to its source version.
public enum ModelChange: String, CaseIterable, Sendable {
    case addAttribute, removeAttribute, renameAttribute, optionalToRequired, requiredToOptional, changeType
    case changeDefault, toggleExternalStorage
    case addEntity, removeEntity, renameEntity, cloneEntity, splitEntity
    case addRelationship, removeRelationship, renameRelationship, toOneToToMany, toManyToToOne, toggleOrdered
    case relationshipToOptional
    case addElement, removeElement, renameElement
}

/// One change applied to a destination model being derived from its source.
struct ChangeRun {
    var model: GeneratedModel
    let source: GeneratedModel
    var random: SplitMix
    var names: PropertyNames
    let inferableOnly: Bool
    let exclusions: Set<DifferentialExclusion>
    /// The entity a ``ModelChange/cloneEntity`` made, and the source entity it is made from.
    var clone: (destination: String, source: String)?

    /// Applies `change` to `model`; its description, or nil when it does not apply.
    mutating func apply(_ change: ModelChange) -> String? {
        if change == .toManyToToOne, exclusions.contains(.toManyIntoToOne) { return nil }
        return switch change {
        case .addAttribute: addAttribute()
        case .removeAttribute: removeAttribute()
        case .renameAttribute: renameAttribute()
        case .optionalToRequired: optionalToRequired()
        case .requiredToOptional:
            editAttribute(where: { !$0.isOptional }) { attribute, _ in
                attribute.isOptional = true
                return "made optional"
            }
        case .changeType: changeType()
        case .changeDefault:
            editAttribute(where: { AttributeTypeRules.hasDefault($0.type) }) { attribute, random in
                attribute.defaultValue = AttributeTypeRules.defaultLiteral(attribute.type, random: &random)
                return "default \(attribute.defaultValue ?? "none")"
            }
        case .toggleExternalStorage:
            editAttribute(where: { $0.type == .binary }) { attribute, _ in
                attribute.allowsExternalStorage.toggle()
                return "external storage \(attribute.allowsExternalStorage ? "allowed" : "not allowed")"
            }
        case .addEntity: addEntity()
        case .removeEntity: removeEntity()
        case .renameEntity: renameEntity()
        case .cloneEntity: cloneEntity()
        case .splitEntity: splitEntity()
        case .addRelationship: addRelationship()
        case .removeRelationship: removeRelationship()
        case .renameRelationship: renameRelationship()
        case .toOneToToMany:
            editRelationship(where: { !$0.isToMany && $0.isOptional }) { relationship, random in
                relationship.isToMany = true
                relationship.isOrdered = random.chance(20)
                return "to-one to to-many\(relationship.isOrdered ? " (ordered)" : "")"
            }
        case .toManyToToOne:
            editRelationship(where: { $0.isToMany && $0.isOptional && $0.minCount == 0 }) { relationship, _ in
                relationship.isToMany = false
                relationship.isOrdered = false
                relationship.maxCount = 0
                return "to-many to to-one"
            }
        case .toggleOrdered:
            editRelationship(where: \.isToMany) { relationship, _ in
                relationship.isOrdered.toggle()
                return relationship.isOrdered ? "became ordered" : "became unordered"
            }
        case .relationshipToOptional:
            editRelationship(where: { !$0.isOptional }) { relationship, _ in
                relationship.isOptional = true
                relationship.minCount = 0
                return "made optional"
            }
        case .addElement: addElement()
        case .removeElement: removeElement()
        case .renameElement: renameElement()
        }
    }

    // MARK: Composites

    /// Adds an element (optional or with a default) to a composite: a new leaf of every
    /// attribute holding it.
    private mutating func addElement() -> String? {
        guard let index = random.pickIfAny(Array(model.composites.indices)) else { return nil }
        var element = ModelPairGenerator.attribute(&random, names: &names, isNew: true, inferableOnly: true)
        element.allowsExternalStorage = false
        model.composites[index].elements.append(element)
        return "\(model.composites[index].name).\(element.name): added (\(element.type.rawValue))"
    }

    /// Removes an element (not the last) of a composite.
    private mutating func removeElement() -> String? {
        let places = model.composites.indices.filter { model.composites[$0].elements.count > 1 }
        guard let index = random.pickIfAny(places) else { return nil }
        let position = random.next(below: model.composites[index].elements.count)
        let name = model.composites[index].elements.remove(at: position).name
        return "\(model.composites[index].name).\(name): removed"
    }

    /// Renames an element, keeping its former name as its renaming identifier.
    private mutating func renameElement() -> String? {
        guard let index = random.pickIfAny(Array(model.composites.indices)) else { return nil }
        let position = random.next(below: model.composites[index].elements.count)
        var element = model.composites[index].elements[position]
        let old = element.name
        element.renamingIdentifier = element.formerName
        element.name = names.make(PropertyNames.stem(of: element.type))
        model.composites[index].elements[position] = element
        return "\(model.composites[index].name).\(old): renamed \(element.name)"
    }

    // MARK: Attributes

    /// Every (entity index, attribute index) of the model.
    private var attributePlaces: [(Int, Int)] {
        model.entities.indices.flatMap { entity in model.entities[entity].attributes.indices.map { (entity, $0) } }
    }

    /// Changes an attribute chosen among those `condition` accepts.
    private mutating func editAttribute(
        where condition: (GeneratedAttribute) -> Bool, _ edit: (inout GeneratedAttribute, inout SplitMix) -> String?
    ) -> String? {
        let places = attributePlaces.filter { condition(model.entities[$0.0].attributes[$0.1]) }
        guard let (entity, index) = random.pickIfAny(places) else { return nil }
        var attribute = model.entities[entity].attributes[index]
        guard let what = edit(&attribute, &random) else { return nil }
        model.entities[entity].attributes[index] = attribute
        return "\(model.entities[entity].name).\(attribute.name): \(what)"
    }

    /// Adds an attribute to an entity.
    private mutating func addAttribute() -> String? {
        let entity = random.next(below: model.entities.count)
        let attribute = ModelPairGenerator.attribute(
            &random, names: &names, isNew: true, inferableOnly: inferableOnly)
        model.entities[entity].attributes.append(attribute)
        let shape = attribute.isOptional ? "optional" : "required, default \(attribute.defaultValue ?? "none")"
        return "\(model.entities[entity].name).\(attribute.name): added (\(attribute.type.rawValue), \(shape))"
    }

    /// Removes an attribute (and the uniqueness constraints naming it).
    private mutating func removeAttribute() -> String? {
        guard let (entity, index) = random.pickIfAny(attributePlaces) else { return nil }
        let name = model.entities[entity].attributes.remove(at: index).name
        model.entities[entity].uniquenessConstraints.removeAll { $0.contains(name) }
        return "\(model.entities[entity].name).\(name): removed"
    }

    /// Renames an attribute, keeping its former name as its renaming identifier.
    private mutating func renameAttribute() -> String? {
        guard let (entity, index) = random.pickIfAny(attributePlaces) else { return nil }
        var attribute = model.entities[entity].attributes[index]
        let old = attribute.name
        attribute.renamingIdentifier = attribute.formerName
        attribute.name = names.make(PropertyNames.stem(of: attribute.type))
        model.entities[entity].attributes[index] = attribute
        model.entities[entity].uniquenessConstraints = model.entities[entity].uniquenessConstraints.map {
            $0.map { $0 == old ? attribute.name : $0 }
        }
        return "\(model.entities[entity].name).\(old): renamed \(attribute.name)"
    }

    /// Makes an optional attribute required, with a default unless a mapping file may fill it.
    private mutating func optionalToRequired() -> String? {
        let inferableOnly = inferableOnly
        return editAttribute(where: { $0.isOptional }) { attribute, random in
            attribute.isOptional = false
            if attribute.defaultValue == nil, inferableOnly || random.chance(50) {
                guard AttributeTypeRules.hasDefault(attribute.type) else { return nil }
                attribute.defaultValue = AttributeTypeRules.defaultLiteral(attribute.type, random: &random)
            }
            return "made required (default \(attribute.defaultValue ?? "none"))"
        }
    }

    /// Changes an attribute's type (one inference accepts, or one a mapping file converts).
    private mutating func changeType() -> String? {
        let inferableOnly = inferableOnly
        let targets = { (type: AttributeType) -> [AttributeType] in
            inferableOnly
                ? AttributeTypeRules.inferableTargets(of: type)
                : AttributeTypeRules.inferableTargets(of: type) + AttributeTypeRules.explicitTargets(of: type)
        }
        return editAttribute(where: { attribute in targets(attribute.type).contains { $0 != attribute.type } }) {
            attribute, random in
            let old = attribute.type
            let new = random.pick(targets(old).filter { $0 != old })
            attribute.type = new
            attribute.allowsExternalStorage = new == .binary && attribute.allowsExternalStorage
            attribute.transformerName = new == .transformable ? attribute.transformerName : nil
            if attribute.defaultValue != nil || !attribute.isOptional {
                attribute.defaultValue =
                    AttributeTypeRules.hasDefault(new) ? AttributeTypeRules.defaultLiteral(new, random: &random) : nil
            }
            if attribute.defaultValue == nil, !attribute.isOptional, inferableOnly { attribute.isOptional = true }
            return "\(old.rawValue) to \(new.rawValue)"
        }
    }

    // MARK: Entities

    /// A name for a new or renamed entity that neither version uses.
    private mutating func unusedName(from list: [String]) -> String? {
        let used = Set(model.entities.map(\.name) + source.entities.map(\.name))
        return random.pickIfAny(list.filter { !used.contains($0) })
    }

    /// Adds an entity (a root or a sub-entity), sometimes with a relationship.
    private mutating func addEntity() -> String? {
        guard let name = unusedName(from: ModelPairGenerator.newEntityNames) else { return nil }
        let parent = random.chance(30) ? random.pick(model.entities).name : nil
        var entity = GeneratedEntity(name: name, parent: parent)
        for _ in 0..<(1 + random.next(below: 2)) {
            entity.attributes.append(
                ModelPairGenerator.attribute(&random, names: &names, isNew: true, inferableOnly: inferableOnly))
        }
        model.entities.append(entity)
        if random.chance(50) {
            ModelPairGenerator.addRelationshipPair(
                to: &model, between: name, and: random.pick(model.entities).name, random: &random, names: &names,
                requiredAllowed: false)
        }
        return "\(name): added\(parent.map { " under \($0)" } ?? "")"
    }

    /// Removes an entity no other descends from, with every relationship to or from it.
    private mutating func removeEntity() -> String? {
        let leaves = model.entities.filter { entity in !model.entities.contains { $0.parent == entity.name } }
        guard model.entities.count > 1, let entity = random.pickIfAny(leaves) else { return nil }
        for owner in model.entities {
            for relationship in owner.relationships
            where owner.name == entity.name
                || relationship.destination == entity.name
            {
                model.removeRelationshipPair(relationship.name, of: owner.name)
            }
        }
        model.entities.removeAll { $0.name == entity.name }
        return "\(entity.name): removed"
    }

    /// Renames an entity, keeping its former name as its renaming identifier.
    private mutating func renameEntity() -> String? {
        guard let name = unusedName(from: ModelPairGenerator.renamedEntityNames) else { return nil }
        let index = random.next(below: model.entities.count)
        let old = model.entities[index].name
        model.entities[index].renamingIdentifier = model.entities[index].formerName
        model.entities[index].name = name
        for entity in model.entities.indices {
            if model.entities[entity].parent == old { model.entities[entity].parent = name }
            for relationship in model.entities[entity].relationships.indices
            where model.entities[entity].relationships[relationship].destination == old {
                model.entities[entity].relationships[relationship].destination = name
            }
        }
        return "\(old): renamed \(name)"
    }

    /// A new root entity whose objects a mapping file makes from a source entity's (its
    /// attributes are copies of some of that entity's).
    private mutating func cloneEntity() -> String? {
        let concrete = source.entities.filter { !$0.isAbstract }
        guard let original = random.pickIfAny(concrete),
            let name = unusedName(from: ModelPairGenerator.newEntityNames)
        else { return nil }
        var attributes = source.declaredAttributes(of: original.name).filter { _ in random.chance(70) }
        if attributes.isEmpty { attributes = Array(source.declaredAttributes(of: original.name).prefix(1)) }
        guard !attributes.isEmpty else { return nil }
        model.entities.append(GeneratedEntity(name: name, attributes: attributes))
        clone = (name, original.name)
        return "\(name): added, made from \(original.name) objects"
    }

    /// A new sub-entity of a concrete entity's counterpart, whose objects a mapping file makes
    /// from the objects of that entity (which also make objects of the counterpart).
    private mutating func splitEntity() -> String? {
        let candidates = source.entities.filter { original in
            !original.isAbstract && model.entities.contains { $0.formerName == original.name && !$0.isAbstract }
        }
        guard let original = random.pickIfAny(candidates),
            let counterpart = model.entities.first(where: { $0.formerName == original.name }),
            let name = unusedName(from: ModelPairGenerator.newEntityNames)
        else { return nil }
        var entity = GeneratedEntity(name: name, parent: counterpart.name)
        if random.chance(50) {
            entity.attributes.append(
                ModelPairGenerator.attribute(&random, names: &names, isNew: true, inferableOnly: true))
        }
        model.entities.append(entity)
        clone = (name, original.name)
        return "\(name): added under \(counterpart.name), made from \(original.name) objects too"
    }

    // MARK: Relationships

    /// Every (entity index, relationship index) of the model.
    private var relationshipPlaces: [(Int, Int)] {
        model.entities.indices.flatMap { entity in
            model.entities[entity].relationships.indices.map { (entity, $0) }
        }
    }

    /// Changes a relationship chosen among those `condition` accepts.
    private mutating func editRelationship(
        where condition: (GeneratedRelationship) -> Bool,
        _ edit: (inout GeneratedRelationship, inout SplitMix) -> String?
    ) -> String? {
        let places = relationshipPlaces.filter { condition(model.entities[$0.0].relationships[$0.1]) }
        guard let (entity, index) = random.pickIfAny(places) else { return nil }
        var relationship = model.entities[entity].relationships[index]
        guard let what = edit(&relationship, &random) else { return nil }
        model.entities[entity].relationships[index] = relationship
        return "\(model.entities[entity].name).\(relationship.name): \(what)"
    }

    /// Adds an optional relationship and its inverse.
    private mutating func addRelationship() -> String? {
        let before = model.entities.map(\.relationships.count)
        ModelPairGenerator.addRelationshipPair(
            to: &model, between: random.pick(model.entities).name, and: random.pick(model.entities).name,
            random: &random, names: &names, requiredAllowed: false)
        let added = zip(model.entities, before).flatMap { entity, count in
            entity.relationships.dropFirst(count).map { "\(entity.name).\($0.name)" }
        }
        return added.isEmpty ? nil : "\(added.joined(separator: " and ")): added"
    }

    /// Removes a relationship and its inverse.
    private mutating func removeRelationship() -> String? {
        guard let (entity, index) = random.pickIfAny(relationshipPlaces) else { return nil }
        let owner = model.entities[entity].name
        let relationship = model.entities[entity].relationships[index]
        model.removeRelationshipPair(relationship.name, of: owner)
        return "\(owner).\(relationship.name) and its inverse: removed"
    }

    /// Renames a relationship (its inverse names the new name).
    private mutating func renameRelationship() -> String? {
        guard let (entity, index) = random.pickIfAny(relationshipPlaces) else { return nil }
        let owner = model.entities[entity].name
        var relationship = model.entities[entity].relationships[index]
        let old = relationship.name
        relationship.renamingIdentifier = relationship.formerName
        relationship.name = names.make("to\(relationship.destination)")
        if relationship.inverse == old { relationship.inverse = relationship.name }
        model.entities[entity].relationships[index] = relationship
        if let target = model.index(of: relationship.destination) {
            for other in model.entities[target].relationships.indices
            where model.entities[target].relationships[other].inverse == old
                && model.entities[target].relationships[other].destination == owner
            {
                model.entities[target].relationships[other].inverse = relationship.name
            }
        }
        return "\(owner).\(old): renamed \(relationship.name)"
    }
}
