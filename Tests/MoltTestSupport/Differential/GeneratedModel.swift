internal import Foundation
public import Molt

/// An attribute of a generated model, as plain values (written out as Xcode writes it).
public struct GeneratedAttribute: Sendable, Hashable {
    public var name: String
    public var type: AttributeType
    public var isOptional: Bool
    /// The model's default value (`defaultValueString`).
    public var defaultValue: String?
    /// The renaming identifier (`elementID`): the attribute's name in the version before.
    public var renamingIdentifier: String?
    /// `allowsExternalBinaryDataStorage` (Binary attributes only).
    public var allowsExternalStorage: Bool
    /// `valueTransformerName` (Transformable attributes only).
    public var transformerName: String?
    /// The composite a Composite attribute holds (`composite`).
    public var composite: String?

    /// An attribute called `name` of `type`.
    public init(
        name: String, type: AttributeType, isOptional: Bool, defaultValue: String? = nil,
        renamingIdentifier: String? = nil, allowsExternalStorage: Bool = false, transformerName: String? = nil,
        composite: String? = nil
    ) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.defaultValue = defaultValue
        self.renamingIdentifier = renamingIdentifier
        self.allowsExternalStorage = allowsExternalStorage
        self.transformerName = transformerName
        self.composite = composite
    }

    /// The name this attribute had in the version before (its renaming identifier, else its name).
    public var formerName: String { renamingIdentifier ?? name }

    /// The `<attribute>` element.
    public var xml: String {
        var xml =
            "<attribute name=\"\(name)\"\(isOptional ? " optional=\"YES\"" : "") attributeType=\"\(type.rawValue)\""
        if let composite { xml += " composite=\"\(composite)\"" }
        if let defaultValue { xml += " defaultValueString=\"\(ModelXMLText.escaped(defaultValue))\"" }
        if allowsExternalStorage { xml += " allowsExternalBinaryDataStorage=\"YES\"" }
        if let transformerName { xml += " valueTransformerName=\"\(transformerName)\"" }
        if [.integer16, .integer32, .integer64, .double, .float, .boolean].contains(type) {
            xml += " usesScalarValueType=\"YES\""
        }
        if let renamingIdentifier { xml += " elementID=\"\(renamingIdentifier)\"" }
        return xml + "/>"
    }
}

/// A relationship of a generated model; its inverse is a relationship of the destination entity.
public struct GeneratedRelationship: Sendable, Hashable {
    public var name: String
    public var destination: String
    public var inverse: String
    public var isToMany: Bool
    public var isOrdered: Bool
    public var isOptional: Bool
    /// `minCount` (0: not written).
    public var minCount: Int
    /// `maxCount` for a to-many (0: not written; a to-one always writes 1).
    public var maxCount: Int
    /// `Nullify` or `Cascade`.
    public var deletionRule: String
    /// The renaming identifier (`elementID`).
    public var renamingIdentifier: String?

    /// A relationship called `name` to `destination`, whose inverse is `inverse`.
    public init(
        name: String, destination: String, inverse: String, isToMany: Bool, isOrdered: Bool = false,
        isOptional: Bool = true, minCount: Int = 0, maxCount: Int = 0, deletionRule: String = "Nullify",
        renamingIdentifier: String? = nil
    ) {
        self.name = name
        self.destination = destination
        self.inverse = inverse
        self.isToMany = isToMany
        self.isOrdered = isOrdered
        self.isOptional = isOptional
        self.minCount = minCount
        self.maxCount = maxCount
        self.deletionRule = deletionRule
        self.renamingIdentifier = renamingIdentifier
    }

    /// The name this relationship had in the version before.
    public var formerName: String { renamingIdentifier ?? name }

    /// The `<relationship>` element.
    public var xml: String {
        var xml = "<relationship name=\"\(name)\""
        if isOptional { xml += " optional=\"YES\"" }
        if isToMany {
            xml += " toMany=\"YES\""
            if isOrdered { xml += " ordered=\"YES\"" }
            if minCount > 0 { xml += " minCount=\"\(minCount)\"" }
            if maxCount > 0 { xml += " maxCount=\"\(maxCount)\"" }
        } else {
            if !isOptional { xml += " minCount=\"1\"" }
            xml += " maxCount=\"1\""
        }
        xml += " deletionRule=\"\(deletionRule)\" destinationEntity=\"\(destination)\""
        xml += " inverseName=\"\(inverse)\" inverseEntity=\"\(destination)\""
        if let renamingIdentifier { xml += " elementID=\"\(renamingIdentifier)\"" }
        return xml + "/>"
    }
}

/// An entity of a generated model.
public struct GeneratedEntity: Sendable, Hashable {
    public var name: String
    public var parent: String?
    public var isAbstract: Bool
    /// The renaming identifier (`elementID`): the entity's name in the version before.
    public var renamingIdentifier: String?
    /// The entity's own attributes (not its parent's).
    public var attributes: [GeneratedAttribute]
    /// The entity's own relationships.
    public var relationships: [GeneratedRelationship]
    /// Uniqueness constraints, each a list of the entity's attribute names.
    public var uniquenessConstraints: [[String]]

    /// An entity called `name`.
    public init(
        name: String, parent: String? = nil, isAbstract: Bool = false, renamingIdentifier: String? = nil,
        attributes: [GeneratedAttribute] = [], relationships: [GeneratedRelationship] = [],
        uniquenessConstraints: [[String]] = []
    ) {
        self.name = name
        self.parent = parent
        self.isAbstract = isAbstract
        self.renamingIdentifier = renamingIdentifier
        self.attributes = attributes
        self.relationships = relationships
        self.uniquenessConstraints = uniquenessConstraints
    }

    /// The name this entity had in the version before.
    public var formerName: String { renamingIdentifier ?? name }

    /// The `<entity>` element.
    public var xml: String {
        var head = "<entity name=\"\(name)\" representedClassName=\"\(name)\""
        if let parent { head += " parentEntity=\"\(parent)\"" }
        if isAbstract { head += " isAbstract=\"YES\"" }
        if let renamingIdentifier { head += " elementID=\"\(renamingIdentifier)\"" }
        var lines = [head + " syncable=\"YES\">"]
        lines += attributes.map { "    " + $0.xml }
        lines += relationships.map { "    " + $0.xml }
        if !uniquenessConstraints.isEmpty {
            lines.append("    <uniquenessConstraints>")
            for constraint in uniquenessConstraints {
                lines.append("        <uniquenessConstraint>")
                lines += constraint.map { "            <constraint value=\"\($0)\"/>" }
                lines.append("        </uniquenessConstraint>")
            }
            lines.append("    </uniquenessConstraints>")
        }
        lines.append("</entity>")
        return lines.joined(separator: "\n")
    }
}

/// A composite of a generated model (Xcode 15's `<composite>`): elements that composite
/// attributes hold.
public struct GeneratedComposite: Sendable, Hashable {
    public var name: String
    /// The elements; a nested composite is an element of type Composite.
    public var elements: [GeneratedAttribute]

    public init(name: String, elements: [GeneratedAttribute]) {
        self.name = name
        self.elements = elements
    }

    /// The `<composite>` element.
    public var xml: String {
        (["<composite name=\"\(name)\">"] + elements.map { "    " + $0.xml } + ["</composite>"]).joined(separator: "\n")
    }
}

/// A generated model version: its name, entities and composites.
public struct GeneratedModel: Sendable, Hashable {
    /// The version's name (`V1`, `V2`).
    public var name: String
    public var entities: [GeneratedEntity]
    public var composites: [GeneratedComposite]

    /// A version called `name` with `entities`.
    public init(name: String, entities: [GeneratedEntity], composites: [GeneratedComposite] = []) {
        self.name = name
        self.entities = entities
        self.composites = composites
    }

    /// The `<entity>` and `<composite>` elements, a body for ``ModelXML/document(_:identifier:)``.
    public var body: String { (entities.map(\.xml) + composites.map(\.xml)).joined(separator: "\n") }

    /// The model read as Molt reads an Xcode model.
    public func model() throws -> ObjectModel {
        try InferenceCase.model(body, name: name)
    }

    /// The entity called `name`.
    public func entity(_ name: String) -> GeneratedEntity? {
        entities.first { $0.name == name }
    }

    /// The index of the entity called `name`.
    public func index(of name: String) -> Int? {
        entities.firstIndex { $0.name == name }
    }

    /// `name` and its ancestors, nearest first.
    public func lineage(of name: String) -> [GeneratedEntity] {
        var chain: [GeneratedEntity] = []
        var next: String? = name
        while let current = next, let entity = entity(current), !chain.contains(where: { $0.name == current }) {
            chain.append(entity)
            next = entity.parent
        }
        return chain
    }

    /// Every attribute of `name` as stored, inherited ones first: a composite attribute stands
    /// as its leaves, named by their paths (`place3.city`) as Molt's models list them.
    public func allAttributes(of name: String) -> [GeneratedAttribute] {
        declaredAttributes(of: name).flatMap { $0.type == .composite ? leaves(of: $0) : [$0] }
    }

    /// Every attribute of `name` as declared (a composite attribute as one), inherited first.
    public func declaredAttributes(of name: String) -> [GeneratedAttribute] {
        lineage(of: name).reversed().flatMap(\.attributes)
    }

    /// The leaves of a composite attribute: optional when any part of the path is, renamed
    /// (by path of former names) when any part is.
    public func leaves(of attribute: GeneratedAttribute, depth: Int = 0) -> [GeneratedAttribute] {
        guard depth < 8, let composite = composites.first(where: { $0.name == attribute.composite }) else {
            return []
        }
        return composite.elements.flatMap { element -> [GeneratedAttribute] in
            let parts = element.type == .composite ? leaves(of: element, depth: depth + 1) : [element]
            return parts.map { part in
                var leaf = part
                leaf.name = attribute.name + "." + part.name
                leaf.isOptional = attribute.isOptional || element.isOptional || part.isOptional
                if attribute.renamingIdentifier != nil || part.renamingIdentifier != nil {
                    leaf.renamingIdentifier = attribute.formerName + "." + part.formerName
                }
                return leaf
            }
        }
    }

    /// The index of the composite called `name`.
    public func compositeIndex(of name: String) -> Int? {
        composites.firstIndex { $0.name == name }
    }

    /// Every relationship of `name`, inherited ones first.
    public func allRelationships(of name: String) -> [GeneratedRelationship] {
        lineage(of: name).reversed().flatMap(\.relationships)
    }

    /// The entities below `name` (children, grandchildren…).
    public func descendants(of name: String) -> [GeneratedEntity] {
        let children = entities.filter { $0.parent == name }
        return children + children.flatMap { descendants(of: $0.name) }
    }

    /// Whether `name` or an entity below it is concrete (so objects of it can exist).
    public func hasConcreteKind(_ name: String) -> Bool {
        ([entity(name)].compactMap { $0 } + descendants(of: name)).contains { !$0.isAbstract }
    }

    /// The root of `name`'s hierarchy.
    public func root(of name: String) -> String {
        lineage(of: name).last?.name ?? name
    }

    /// Every property name used in `name`'s hierarchy (its ancestors and descendants).
    public func propertyNames(inHierarchyOf name: String) -> Set<String> {
        let root = root(of: name)
        let members = [entity(root)].compactMap { $0 } + descendants(of: root)
        return Set(members.flatMap { $0.attributes.map(\.name) + $0.relationships.map(\.name) })
    }

    /// Removes the relationship `name` of `entity` and its inverse.
    public mutating func removeRelationshipPair(_ name: String, of entity: String) {
        guard let owner = self.entity(entity), let relationship = owner.relationships.first(where: { $0.name == name })
        else { return }
        for index in entities.indices {
            let owner = entities[index].name
            entities[index].relationships.removeAll {
                ($0.name == name && owner == entity)
                    || ($0.name == relationship.inverse && owner == relationship.destination)
            }
        }
    }

    /// The entity that declares the relationship `name` among `entity` and its ancestors.
    public func declaringEntity(ofRelationship name: String, from entity: String) -> String? {
        lineage(of: entity).first { $0.relationships.contains { $0.name == name } }?.name
    }
}

/// Escaping for the text of XML attributes and elements.
public enum ModelXMLText {
    /// `text` with `&`, `<`, `>` and `"` escaped.
    public static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
