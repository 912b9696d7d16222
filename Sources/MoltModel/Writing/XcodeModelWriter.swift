public import Foundation
internal import MoltCore
internal import MoltXML

/// Writes a model as Xcode's `contents` file, the XML ``XcodeModelReader`` reads: reading what
/// it writes gives the same model (and the same version hashes).
///
/// Every element and attribute the reader reads is written: entities (class, parent, abstract,
/// renaming identifier as `elementID`, version hash modifier, user info, uniqueness
/// constraints, fetch indexes), attributes (type, optional, transient, default, bounds,
/// regular expression, external storage, preserve after deletion, value transformer, custom
/// class, derivation, indexed, scalar type, renaming identifier, modifier, user info),
/// relationships (destination, inverse, to-many, ordered, optional, transient, counts, delete
/// rule, renaming identifier, modifier, user info), composites (`<composite>` beside the
/// entities, and each composite attribute's `composite`), fetched properties, configurations, the
/// "Used with CloudKit" marks (of the model and of configurations) and the version identifier. Xcode keeps one version identifier: a model with several gets
/// the first. Text that XML cannot hold (control characters other than tab, line feed and
/// carriage return) is an error naming the entity and property.
///
/// ```swift
/// try XcodeModelWriter().write(model, toVersionFolder: URL(fileURLWithPath: "Extracted.xcdatamodel"))
/// let again = try ModelLoader().load(at: URL(fileURLWithPath: "Extracted.xcdatamodel"))
/// ```
public struct XcodeModelWriter: Sendable {
    public init() {}

    /// The `contents` document for `model`.
    public func data(for model: ObjectModel) throws -> Data {
        Data(try text(for: model).utf8)
    }

    /// The `contents` document for `model`, as text.
    public func text(for model: ObjectModel) throws -> String {
        var xml = XMLText()
        xml.line(#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#)
        var modelAttributes: [(String, String?)] = [
            ("type", "com.apple.IDECoreDataModeler.DataModel"), ("documentVersion", "1.0"),
            ("lastSavedToolsVersion", "1"), ("systemVersion", "molt"), ("minimumToolsVersion", "Automatic"),
            ("sourceLanguage", "Swift"),
        ]
        if model.usedWithCloudKit {
            modelAttributes.append(("usedWithCloudKit", "YES"))
        }
        if let identifier = model.versionIdentifiers.first {
            modelAttributes.append(("userDefinedModelVersionIdentifier", identifier))
        }
        try xml.open("model", modelAttributes, depth: 0)
        for entity in model.entities {
            try write(entity, into: &xml)
        }
        for composite in model.composites {
            try write(composite, into: &xml)
        }
        for configuration in model.configurations {
            try xml.open(
                "configuration",
                [("name", configuration.name), ("usedWithCloudKit", flag(configuration.usedWithCloudKit))], depth: 1)
            for member in configuration.entityNames {
                try xml.empty("memberEntity", [("name", member)], depth: 2)
            }
            xml.close("configuration", depth: 1)
        }
        xml.close("model", depth: 0)
        return xml.text
    }

    /// Writes `model` as `folder/contents`, creating `folder` (an `.xcdatamodel` version
    /// folder). The file is written beside its final name and moved into place when complete;
    /// an existing folder is never overwritten (516).
    public func write(_ model: ObjectModel, toVersionFolder folder: URL) throws {
        let manager = FileManager.default
        guard !manager.fileExists(atPath: folder.path) else {
            throw MoltError(
                .fileWriteFileExists, "the output already exists", location: SourceLocation(file: folder.path),
                recovery: "Choose another name or remove it first.")
        }
        let data = try data(for: model)
        let partial = folder.deletingLastPathComponent().appendingPathComponent(
            ".\(folder.lastPathComponent).molt-partial-\(UUID().uuidString)")
        do {
            try manager.createDirectory(at: partial, withIntermediateDirectories: true)
            try data.write(to: partial.appendingPathComponent("contents"))
            try manager.moveItem(at: partial, to: folder)
        } catch {
            try? manager.removeItem(at: partial)
            throw MoltError(
                .fileWriteUnknown, "the model could not be written: \(error.localizedDescription)",
                location: SourceLocation(file: folder.path), underlying: DescribedError(error))
        }
    }

    // MARK: Elements

    private func write(_ entity: Entity, into xml: inout XMLText) throws {
        xml.entity = entity.name
        xml.property = nil
        try xml.open(
            "entity",
            [
                ("name", entity.name), ("representedClassName", entity.className), ("parentEntity", entity.parentName),
                ("isAbstract", flag(entity.isAbstract)), ("versionHashModifier", entity.versionHashModifier),
                ("elementID", entity.renamingIdentifier),
            ], depth: 1)
        for attribute in entity.attributes { try write(attribute, into: &xml) }
        for relationship in entity.relationships { try write(relationship, into: &xml) }
        for fetched in entity.fetchedProperties {
            xml.property = fetched.name
            try xml.open("fetchedProperty", [("name", fetched.name), ("optional", "YES")], depth: 2)
            try xml.empty(
                "fetchRequest",
                [
                    ("name", "fetchedPropertyFetchRequest"), ("entity", fetched.destinationEntityName),
                    ("predicateString", fetched.predicate),
                ], depth: 3)
            xml.close("fetchedProperty", depth: 2)
        }
        xml.property = nil
        if !entity.uniquenessConstraints.isEmpty {
            try xml.open("uniquenessConstraints", [], depth: 2)
            for constraint in entity.uniquenessConstraints {
                try xml.open("uniquenessConstraint", [], depth: 3)
                for part in constraint { try xml.empty("constraint", [("value", part)], depth: 4) }
                xml.close("uniquenessConstraint", depth: 3)
            }
            xml.close("uniquenessConstraints", depth: 2)
        }
        for index in entity.fetchIndexes {
            try xml.open("fetchIndex", [("name", index.name)], depth: 2)
            for element in index.elements {
                try xml.empty(
                    "fetchIndexElement",
                    [
                        ("property", element.property), ("type", element.kind),
                        ("order", element.isAscending ? "ascending" : "descending"),
                    ], depth: 3)
            }
            xml.close("fetchIndex", depth: 2)
        }
        try writeUserInfo(entity.userInfo, into: &xml, depth: 2)
        xml.close("entity", depth: 1)
    }

    /// A model-level composite, beside the entities, as Xcode 15 writes it.
    private func write(_ composite: Composite, into xml: inout XMLText) throws {
        xml.entity = composite.name
        xml.property = nil
        try xml.open("composite", [("name", composite.name)], depth: 1)
        for attribute in composite.attributes { try write(attribute, into: &xml) }
        xml.close("composite", depth: 1)
    }

    private func write(_ attribute: Attribute, into xml: inout XMLText) throws {
        xml.property = attribute.name
        let attributes: [(String, String?)] = [
            ("name", attribute.name), ("optional", flag(attribute.isOptional)),
            ("transient", flag(attribute.isTransient)), ("attributeType", attribute.type.rawValue),
            ("composite", attribute.compositeName), ("defaultValueString", attribute.defaultValue),
            ("minValueString", attribute.minimumValue),
            ("maxValueString", attribute.maximumValue), ("regularExpressionString", attribute.regularExpression),
            ("allowsExternalBinaryDataStorage", flag(attribute.allowsExternalBinaryDataStorage)),
            ("preserveAfterDeletion", flag(attribute.preservesValueInHistoryOnDeletion)),
            ("valueTransformerName", attribute.valueTransformerName), ("customClassName", attribute.customClassName),
            ("derived", flag(attribute.isDerived)), ("derivationExpression", attribute.derivationExpression),
            ("indexed", flag(attribute.isIndexed)), ("usesScalarValueType", flag(attribute.usesScalarValueType)),
            ("versionHashModifier", attribute.versionHashModifier), ("elementID", attribute.renamingIdentifier),
        ]
        try writeProperty("attribute", attributes, userInfo: attribute.userInfo, into: &xml)
    }

    private func write(_ relationship: Relationship, into xml: inout XMLText) throws {
        xml.property = relationship.name
        let maxCount =
            relationship.isToMany && relationship.maxCount == 0 ? nil : String(relationship.maxCount)
        let attributes: [(String, String?)] = [
            ("name", relationship.name), ("optional", flag(relationship.isOptional)),
            ("transient", flag(relationship.isTransient)), ("toMany", flag(relationship.isToMany)),
            ("ordered", flag(relationship.isOrdered)),
            ("minCount", relationship.minCount == 0 ? nil : String(relationship.minCount)), ("maxCount", maxCount),
            ("deletionRule", relationship.deleteRule.rawValue),
            ("destinationEntity", relationship.destinationEntityName), ("inverseName", relationship.inverseName),
            ("inverseEntity", relationship.inverseName == nil ? nil : relationship.inverseEntityName),
            ("versionHashModifier", relationship.versionHashModifier), ("elementID", relationship.renamingIdentifier),
        ]
        try writeProperty("relationship", attributes, userInfo: relationship.userInfo, into: &xml)
    }

    private func writeProperty(
        _ name: String, _ attributes: [(String, String?)], userInfo: [String: String], into xml: inout XMLText
    ) throws {
        if userInfo.isEmpty {
            try xml.empty(name, attributes, depth: 2)
        } else {
            try xml.open(name, attributes, depth: 2)
            try writeUserInfo(userInfo, into: &xml, depth: 3)
            xml.close(name, depth: 2)
        }
    }

    private func writeUserInfo(_ userInfo: [String: String], into xml: inout XMLText, depth: Int) throws {
        guard !userInfo.isEmpty else { return }
        try xml.open("userInfo", [], depth: depth)
        for key in userInfo.keys.sorted(by: NameOrder.precedes) {
            try xml.empty("entry", [("key", key), ("value", userInfo[key])], depth: depth + 1)
        }
        xml.close("userInfo", depth: depth)
    }

    private func flag(_ value: Bool) -> String? { value ? "YES" : nil }
}

/// The document being written, with the entity and property it is at (for errors).
private struct XMLText {
    var text = ""
    var entity: String?
    var property: String?

    mutating func line(_ content: String, depth: Int = 0) {
        text += String(repeating: "    ", count: depth) + content + "\n"
    }

    mutating func open(_ name: String, _ attributes: [(String, String?)], depth: Int) throws {
        line("<\(name)\(try attributeText(attributes))>", depth: depth)
    }

    mutating func empty(_ name: String, _ attributes: [(String, String?)], depth: Int) throws {
        line("<\(name)\(try attributeText(attributes))/>", depth: depth)
    }

    mutating func close(_ name: String, depth: Int) {
        line("</\(name)>", depth: depth)
    }

    /// ` name="value"` for each attribute with a value, values escaped so that they read back
    /// exactly (line breaks and tabs as character references, which attribute normalization
    /// keeps).
    func attributeText(_ attributes: [(String, String?)]) throws -> String {
        var result = ""
        for (name, value) in attributes {
            guard let value else { continue }
            result += " \(name)=\"\(try escape(value, attribute: name))\""
        }
        return result
    }

    func escape(_ value: String, attribute: String) throws -> String {
        if let scalar = XMLEscaping.firstUnwritable(in: value) {
            throw MoltError(
                .fileWriteUnknown,
                "the \(attribute) value holds the character U+\(String(scalar.value, radix: 16, uppercase: true)), which XML cannot hold",
                entity: entity, property: property)
        }
        return XMLEscaping.escaped(value, quote: "\"")
    }
}
