internal import Foundation
public import Molt

/// One `<attribute>` or `<relationship>` of a generated entity mapping: the destination
/// property and its value (an expression, `nil` or `default`), as the file spells it.
public struct GeneratedPropertyValue: Sendable, Hashable {
    public var name: String
    public var value: String

    /// The value `value` for the destination property `name`.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// One `<entity-mapping>` of a generated mapping file.
public struct GeneratedEntityMapping: Sendable, Hashable {
    public var name: String
    public var kind: EntityMapping.Kind
    public var source: String?
    public var destination: String?
    public var policy: String?
    /// The `<filter>` predicate.
    public var filter: String?
    public var attributes: [GeneratedPropertyValue]
    public var relationships: [GeneratedPropertyValue]
    /// `<user-info>` entries, as key and value.
    public var userInfo: [GeneratedPropertyValue]

    /// A mapping called `name` of `kind`.
    public init(
        name: String, kind: EntityMapping.Kind, source: String? = nil, destination: String? = nil,
        policy: String? = nil, filter: String? = nil, attributes: [GeneratedPropertyValue] = [],
        relationships: [GeneratedPropertyValue] = [], userInfo: [GeneratedPropertyValue] = []
    ) {
        self.name = name
        self.kind = kind
        self.source = source
        self.destination = destination
        self.policy = policy
        self.filter = filter
        self.attributes = attributes
        self.relationships = relationships
        self.userInfo = userInfo
    }

    /// The `<entity-mapping>` element, indented for a file.
    public var xml: String {
        var head = "    <entity-mapping name=\"\(name)\" type=\"\(kind.rawValue)\""
        if let source { head += " source=\"\(source)\"" }
        if let destination { head += " destination=\"\(destination)\"" }
        if let policy { head += " policy=\"\(policy)\"" }
        var children: [String] = []
        if let filter { children.append("<filter>\(ModelXMLText.escaped(filter))</filter>") }
        for (element, values) in [("attribute", attributes), ("relationship", relationships)] {
            for property in values {
                children.append(
                    "<\(element) name=\"\(property.name)\" value=\"\(ModelXMLText.escaped(property.value))\"/>")
            }
        }
        for entry in userInfo {
            children.append("<user-info key=\"\(entry.name)\" value=\"\(ModelXMLText.escaped(entry.value))\"/>")
        }
        guard !children.isEmpty else { return head + "/>" }
        return ([head + ">"] + children.map { "        " + $0 } + ["    </entity-mapping>"]).joined(separator: "\n")
    }
}

/// A generated mapping file: one pass of a step.
public struct GeneratedMappingFile: Sendable, Hashable {
    public var entityMappings: [GeneratedEntityMapping]
    /// `property-defaults="same-name"` when true (Xcode's editor's rule), else inferred.
    public var sameNameDefaults: Bool

    /// A file of `entityMappings`.
    public init(entityMappings: [GeneratedEntityMapping], sameNameDefaults: Bool = false) {
        self.entityMappings = entityMappings
        self.sameNameDefaults = sameNameDefaults
    }

    /// The file's text, between the versions `source` and `destination`.
    public func text(source: String, destination: String) -> String {
        var head = "<mapping-model format=\"1\" source-model=\"\(source)\" destination-model=\"\(destination)\""
        if sameNameDefaults { head += " property-defaults=\"same-name\"" }
        let body = entityMappings.map(\.xml).joined(separator: "\n")
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\(head)>\n\(body)\n</mapping-model>\n"
    }

    /// The file read as Molt reads it; an error lists the reader's problems.
    public func mappingModel(source: String, destination: String, file: String) throws -> MappingModel {
        let (model, problems) = MappingReader().read(
            Data(text(source: source, destination: destination).utf8), file: file)
        guard let model, !problems.hasErrors else {
            throw MoltError(.fileReadCorruptFile, problems.errors.map(\.description).joined(separator: "\n"))
        }
        return model
    }
}
