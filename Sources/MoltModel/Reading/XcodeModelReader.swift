public import Foundation
internal import MoltCore
internal import MoltXML

/// Reads one model version as Xcode writes it: the `contents` file of an `.xcdatamodel` folder.
///
/// Unknown XML attributes are ignored (Xcode adds new editor settings over time); unknown
/// elements inside `<model>` and `<entity>` are errors, because they may carry meaning Molt
/// would silently lose. Every error names the file, the line and the element.
public struct XcodeModelReader {
    public init() {}

    /// Reads the `contents` file at `url`. `name` becomes the model's ``ObjectModel/name``.
    public func read(contentsOf url: URL, name: String? = nil, displayPath: String? = nil) throws -> ObjectModel {
        let document = try SafeXMLParser().parse(contentsOf: url, displayName: displayPath ?? url.path)
        return try read(document, name: name)
    }

    /// Reads a `contents` document held in memory; `file` names it in errors.
    public func read(_ data: Data, file: String, name: String? = nil) throws -> ObjectModel {
        try read(try SafeXMLParser().parse(data, file: file), name: name)
    }

    func read(_ document: ParsedDocument, name: String?) throws -> ObjectModel {
        let root = document.root
        guard root.name == "model" else {
            throw MoltError(
                .fileReadCorruptFile,
                "expected a Core Data model (<model> root element), found <\(root.name)>",
                location: document.location(of: root))
        }
        let context = Context(document: document)
        var entities: [Entity] = []
        var configurations: [Configuration] = []
        var composites: [Composite] = []
        for child in root.children {
            switch child.name {
            case "entity":
                entities.append(try context.entity(child))
            case "configuration":
                configurations.append(try context.configuration(child))
            case "fetchRequest", "elements":
                break  // model-level fetch request templates; diagram layout
            case "composite":
                composites.append(try context.composite(child))
            default:
                throw context.error(child, "unknown element <\(child.name)> in <model>")
            }
        }
        let identifiers = root[attribute: "userDefinedModelVersionIdentifier"].map { [$0] } ?? []
        return ObjectModel(
            entities: entities, configurations: configurations, composites: composites, versionIdentifiers: identifiers,
            usedWithCloudKit: try context.flag(root, "usedWithCloudKit"), name: name, sourceFile: document.file)
    }
}

/// The per-document state of a read: where errors point.
private struct Context {
    let document: ParsedDocument

    func error(_ element: ParsedElement, _ message: String, entity: String? = nil, property: String? = nil) -> MoltError
    {
        MoltError(
            .fileReadCorruptFile, message, location: document.location(of: element), entity: entity,
            property: property)
    }

    func location(_ element: ParsedElement) -> SourceLocation {
        document.location(of: element)
    }

    func required(_ element: ParsedElement, _ name: String, entity: String? = nil) throws -> String {
        guard let value = element[attribute: name], !value.isEmpty else {
            throw error(element, "the \(name) attribute is missing", entity: entity)
        }
        return value
    }

    /// Xcode writes booleans as `YES`/`NO`; absent means NO.
    func flag(_ element: ParsedElement, _ name: String, entity: String? = nil) throws -> Bool {
        switch element[attribute: name] {
        case nil, "NO": return false
        case "YES": return true
        case let other?:
            throw error(element, "\(name)=\"\(other)\" is not YES or NO", entity: entity)
        }
    }

    func integer(_ element: ParsedElement, _ name: String, entity: String?) throws -> Int? {
        guard let text = element[attribute: name] else { return nil }
        guard let value = Int(text), value >= 0, value <= Int(Int32.max) else {
            throw error(element, "\(name)=\"\(text)\" is not a count", entity: entity)
        }
        return value
    }

    /// An optional string attribute; empty strings count as absent.
    func text(_ element: ParsedElement, _ name: String) -> String? {
        guard let value = element[attribute: name], !value.isEmpty else { return nil }
        return value
    }

    // MARK: Elements

    func entity(_ element: ParsedElement) throws -> Entity {
        let name = try required(element, "name")
        var entity = Entity(
            name: name,
            className: text(element, "representedClassName"),
            parentName: text(element, "parentEntity"),
            isAbstract: try flag(element, "isAbstract", entity: name),
            renamingIdentifier: text(element, "elementID"),
            versionHashModifier: text(element, "versionHashModifier"),
            location: location(element))
        for child in element.children {
            switch child.name {
            case "attribute":
                entity.attributes.append(try attribute(child, entity: name))
            case "relationship":
                entity.relationships.append(try relationship(child, entity: name))
            case "fetchedProperty":
                entity.fetchedProperties.append(try fetchedProperty(child, entity: name))
            case "uniquenessConstraints":
                entity.uniquenessConstraints += try uniquenessConstraints(child, entity: name)
            case "fetchIndex":
                entity.fetchIndexes.append(try fetchIndex(child, entity: name))
            case "compoundIndexes":
                entity.fetchIndexes += try compoundIndexes(child, entity: name)
            case "userInfo":
                entity.userInfo = try userInfo(child, entity: name)
            default:
                throw error(child, "unknown element <\(child.name)> in <entity>", entity: name)
            }
        }
        return entity
    }

    func attribute(_ element: ParsedElement, entity: String) throws -> Attribute {
        let name = try required(element, "name", entity: entity)
        guard let typeName = element[attribute: "attributeType"] else {
            throw error(element, "the attributeType attribute is missing", entity: entity, property: name)
        }
        guard let type = AttributeType(rawValue: typeName) else {
            let known = AttributeType.allCases.map(\.rawValue).joined(separator: ", ")
            throw MoltError(
                .fileReadCorruptFile, "unknown attribute type \"\(typeName)\"", location: location(element),
                entity: entity, property: name, recovery: "Use one of: \(known).")
        }
        var attribute = Attribute(
            name: name,
            type: type,
            isOptional: try flag(element, "optional", entity: entity),
            isTransient: try flag(element, "transient", entity: entity),
            defaultValue: element[attribute: "defaultValueString"],
            minimumValue: text(element, "minValueString"),
            maximumValue: text(element, "maxValueString"),
            regularExpression: text(element, "regularExpressionString"),
            allowsExternalBinaryDataStorage: try flag(element, "allowsExternalBinaryDataStorage", entity: entity),
            preservesValueInHistoryOnDeletion: try flag(element, "preserveAfterDeletion", entity: entity),
            valueTransformerName: text(element, "valueTransformerName"),
            customClassName: text(element, "customClassName"),
            isDerived: try flag(element, "derived", entity: entity),
            derivationExpression: text(element, "derivationExpression"),
            isIndexed: try flag(element, "indexed", entity: entity),
            usesScalarValueType: try flag(element, "usesScalarValueType", entity: entity),
            renamingIdentifier: text(element, "elementID"),
            versionHashModifier: text(element, "versionHashModifier"),
            location: location(element))
        attribute.compositeName = text(element, "composite")
        if type == .composite, attribute.compositeName == nil {
            throw error(
                element, "the composite attribute names no composite (its composite attribute is missing)",
                entity: entity, property: name)
        }
        attribute.userInfo = try propertyUserInfo(element, entity: entity, property: name)
        return attribute
    }

    /// A model-level `<composite name="…">` (Xcode 15 and later) and its `<attribute>` elements.
    /// Errors name the composite where they would name an entity.
    func composite(_ element: ParsedElement) throws -> Composite {
        let name = try required(element, "name")
        var composite = Composite(name: name, attributes: [], location: location(element))
        for child in element.children {
            switch child.name {
            case "attribute":
                composite.attributes.append(try attribute(child, entity: name))
            case "userInfo":
                break  // the composite's own user info: not part of any schema
            default:
                throw error(child, "unknown element <\(child.name)> in <composite>", entity: name)
            }
        }
        return composite
    }

    func relationship(_ element: ParsedElement, entity: String) throws -> Relationship {
        let name = try required(element, "name", entity: entity)
        guard let destination = text(element, "destinationEntity") else {
            throw error(element, "the relationship has no destination entity", entity: entity, property: name)
        }
        let rule: DeleteRule
        if let ruleName = element[attribute: "deletionRule"] {
            guard let known = DeleteRule(rawValue: ruleName) else {
                throw error(
                    element, "unknown deletion rule \"\(ruleName)\" (expected Nullify, Cascade, Deny or No Action)",
                    entity: entity, property: name)
            }
            rule = known
        } else {
            rule = .nullify
        }
        let toMany = try flag(element, "toMany", entity: entity)
        var relationship = Relationship(
            name: name,
            destinationEntityName: destination,
            inverseName: text(element, "inverseName"),
            inverseEntityName: text(element, "inverseEntity"),
            isToMany: toMany,
            isOrdered: try flag(element, "ordered", entity: entity),
            isOptional: try flag(element, "optional", entity: entity),
            isTransient: try flag(element, "transient", entity: entity),
            minCount: try integer(element, "minCount", entity: entity) ?? 0,
            maxCount: try integer(element, "maxCount", entity: entity),
            deleteRule: rule,
            renamingIdentifier: text(element, "elementID"),
            versionHashModifier: text(element, "versionHashModifier"),
            location: location(element))
        relationship.userInfo = try propertyUserInfo(element, entity: entity, property: name)
        return relationship
    }

    func fetchedProperty(_ element: ParsedElement, entity: String) throws -> FetchedProperty {
        let name = try required(element, "name", entity: entity)
        let request = element.child(named: "fetchRequest")
        return FetchedProperty(
            name: name, destinationEntityName: request.flatMap { text($0, "entity") },
            predicate: request.flatMap { text($0, "predicateString") }, location: location(element))
    }

    func uniquenessConstraints(_ element: ParsedElement, entity: String) throws -> [[String]] {
        try element.children.map { constraint in
            guard constraint.name == "uniquenessConstraint" else {
                throw error(
                    constraint, "unknown element <\(constraint.name)> in <uniquenessConstraints>", entity: entity)
            }
            return try constraint.children.map { part in
                guard part.name == "constraint" else {
                    throw error(part, "unknown element <\(part.name)> in <uniquenessConstraint>", entity: entity)
                }
                return try required(part, "value", entity: entity)
            }
        }
    }

    func fetchIndex(_ element: ParsedElement, entity: String) throws -> FetchIndex {
        let name = try required(element, "name", entity: entity)
        let elements = try element.children.map { part -> FetchIndex.Element in
            guard part.name == "fetchIndexElement" else {
                throw error(part, "unknown element <\(part.name)> in <fetchIndex>", entity: entity)
            }
            let order = part[attribute: "order"] ?? "ascending"
            guard order == "ascending" || order == "descending" else {
                throw error(part, "order=\"\(order)\" is not ascending or descending", entity: entity)
            }
            return FetchIndex.Element(
                property: try required(part, "property", entity: entity), kind: part[attribute: "type"] ?? "Binary",
                isAscending: order == "ascending")
        }
        return FetchIndex(name: name, elements: elements, location: location(element))
    }

    /// Older Xcode versions wrote multi-property indexes as `<compoundIndexes>`.
    func compoundIndexes(_ element: ParsedElement, entity: String) throws -> [FetchIndex] {
        try element.children.enumerated().map { offset, compound in
            guard compound.name == "compoundIndex" else {
                throw error(compound, "unknown element <\(compound.name)> in <compoundIndexes>", entity: entity)
            }
            let properties = try compound.children(named: "index").map { try required($0, "value", entity: entity) }
            return FetchIndex(
                name: "compoundIndex\(offset + 1)", elements: properties.map { FetchIndex.Element(property: $0) },
                location: location(compound))
        }
    }

    /// The user info of an `<attribute>` or `<relationship>`, its only allowed child.
    func propertyUserInfo(_ element: ParsedElement, entity: String, property: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for child in element.children {
            guard child.name == "userInfo" else {
                throw error(
                    child, "unknown element <\(child.name)> in <\(element.name)>", entity: entity, property: property)
            }
            result = try userInfo(child, entity: entity)
        }
        return result
    }

    func userInfo(_ element: ParsedElement, entity: String?) throws -> [String: String] {
        var result: [String: String] = [:]
        for entry in element.children {
            guard entry.name == "entry" else {
                throw error(entry, "unknown element <\(entry.name)> in <userInfo>", entity: entity)
            }
            let key = try required(entry, "key", entity: entity)
            result[key] = entry[attribute: "value"] ?? ""
        }
        return result
    }

    func configuration(_ element: ParsedElement) throws -> Configuration {
        let name = try required(element, "name")
        let members = try element.children.map { member -> String in
            guard member.name == "memberEntity" else {
                throw error(member, "unknown element <\(member.name)> in <configuration>")
            }
            return try required(member, "name")
        }
        return Configuration(
            name: name, entityNames: members, usedWithCloudKit: try flag(element, "usedWithCloudKit"),
            location: location(element))
    }
}
