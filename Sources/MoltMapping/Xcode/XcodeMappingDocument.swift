internal import Foundation
internal import MoltCore
internal import MoltXML

/// An `xcmapping.xml` read as what it is: a document in Core Data's XML store format, holding
/// Xcode's own editing objects.
///
/// ```xml
/// <database>
///     <databaseInfo>…</databaseInfo>
///     <object type="XDDEVENTITYMAPPING" id="z102">
///         <attribute name="sourcename" type="string">Creature</attribute>
///         <attribute name="mappingnumber" type="int16">1</attribute>
///         <relationship name="attributemappings" type="0/0" destination="XDDEVATTRIBUTEMAPPING" idrefs="z103 z104"></relationship>
///     </object>
///     …
/// </database>
/// ```
///
/// Objects are kept by id with their typed attributes and relationships, each with the line it
/// is on, so that every later error can point at the file and line. The document is parsed by
/// ``SafeXMLParser``: the `<!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">`
/// line Xcode writes is accepted and never loaded. `<databaseInfo>` (the store's own metadata)
/// is skipped, and so is anything else that is not an `<object>`.
struct XcodeMappingDocument {
    /// The file, as named in messages.
    let file: String
    /// Every object, by id.
    let objects: [String: XcodeStoreObject]

    /// Parses `data`; `file` names it in errors.
    init(_ data: Data, file: String) throws {
        let document = try SafeXMLParser().parse(data, file: file)
        self.file = file
        let root = document.root
        guard root.name == "database" else {
            let hint =
                root.name == "mapping-model"
                ? "this is a Molt mapping file, not an Xcode mapping model"
                : "this is not an Xcode mapping model (xcmapping.xml)"
            throw MoltError(
                .fileReadCorruptFile, "the root element is <\(root.name)>, not <database>: \(hint)",
                location: SourceLocation(file: file, line: root.line, element: root.name))
        }
        var objects: [String: XcodeStoreObject] = [:]
        for element in root.children(named: "object") {
            let object = try XcodeStoreObject(element, file: file)
            if let other = objects[object.id] {
                throw MoltError(
                    .fileReadCorruptFile,
                    "two objects have the id \"\(object.id)\" (the other is on line \(other.line))",
                    location: SourceLocation(file: file, line: object.line, element: "object"))
            }
            objects[object.id] = object
        }
        self.objects = objects
    }

    /// The objects of one type (`XDDEVMAPPINGMODEL`…), in line order.
    func objects(ofType type: String) -> [XcodeStoreObject] {
        objects.values.filter { $0.type == type }.sorted { $0.line < $1.line }
    }

    /// The objects `relationship` of `owner` refers to, in the order it lists them. Every id
    /// must name an object of the file, of type `type`. An absent relationship refers to none.
    func targets(of relationship: String, in owner: XcodeStoreObject, type: String) throws -> [XcodeStoreObject] {
        guard let link = owner.relationships[relationship] else { return [] }
        return try link.idrefs.map { id in
            guard let target = objects[id] else {
                throw MoltError(
                    .fileReadCorruptFile,
                    "\"\(relationship)\" of object \(owner.id) names \(id), which is not in the file",
                    location: location(of: link))
            }
            guard target.type == type else {
                throw MoltError(
                    .fileReadCorruptFile,
                    "\"\(relationship)\" of object \(owner.id) names \(id), which is of type \(target.type), not \(type)",
                    location: location(of: link))
            }
            return target
        }
    }

    /// Where an object starts.
    func location(of object: XcodeStoreObject) -> SourceLocation {
        SourceLocation(file: file, line: object.line, element: "object")
    }

    /// Where an attribute is.
    func location(of attribute: XcodeStoreAttribute) -> SourceLocation {
        SourceLocation(file: file, line: attribute.line, element: "attribute")
    }

    /// Where a relationship is.
    func location(of relationship: XcodeStoreRelationship) -> SourceLocation {
        SourceLocation(file: file, line: relationship.line, element: "relationship")
    }

    // MARK: Typed values

    /// The text of the attribute `name`, nil when absent or empty.
    func string(_ name: String, of object: XcodeStoreObject) -> String? {
        guard let text = object.attributes[name]?.text, !text.isEmpty else { return nil }
        return text
    }

    /// The attribute `name` read as an integer (`int16`, `int32`, `int64`), nil when absent.
    func integer(_ name: String, of object: XcodeStoreObject) throws -> Int? {
        guard let attribute = object.attributes[name] else { return nil }
        let text = attribute.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let value = Int(text) else {
            throw MoltError(
                .fileReadCorruptFile, "\(name) is \"\(text)\", not an integer", location: location(of: attribute))
        }
        return value
    }

    /// The attribute `name` read as a boolean (`1`/`0`, as Core Data writes `bool` attributes),
    /// nil when absent.
    func bool(_ name: String, of object: XcodeStoreObject) throws -> Bool? {
        guard let attribute = object.attributes[name] else { return nil }
        switch attribute.text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() {
        case "1", "yes", "true": return true
        case "0", "no", "false": return false
        default:
            throw MoltError(
                .fileReadCorruptFile, "\(name) is \"\(attribute.text)\", not a boolean (1 or 0)",
                location: location(of: attribute))
        }
    }

    /// The attribute `name` read as binary data (base64, across several lines), nil when
    /// absent or empty.
    func binary(_ name: String, of object: XcodeStoreObject) throws -> (data: Data, attribute: XcodeStoreAttribute)? {
        guard let attribute = object.attributes[name] else { return nil }
        let text = attribute.text.filter { !$0.isWhitespace }
        guard !text.isEmpty else { return nil }
        guard let data = Data(base64Encoded: text) else {
            throw MoltError(
                .fileReadCorruptFile, "\(name) is not valid base64", location: location(of: attribute))
        }
        return (data, attribute)
    }
}

/// One `<object type id>` of the store: an Xcode mapping model, entity mapping, attribute
/// mapping or relationship mapping.
struct XcodeStoreObject {
    /// The object's id in the file (`z102`).
    let id: String
    /// Its entity in Xcode's own model (`XDDEVENTITYMAPPING`…).
    let type: String
    /// The line its start tag is on.
    let line: Int
    /// Its attributes, by name.
    let attributes: [String: XcodeStoreAttribute]
    /// Its relationships, by name.
    let relationships: [String: XcodeStoreRelationship]

    init(_ element: ParsedElement, file: String) throws {
        let location = SourceLocation(file: file, line: element.line, element: "object")
        guard let type = element[attribute: "type"], !type.isEmpty else {
            throw MoltError(.fileReadCorruptFile, "an <object> has no type", location: location)
        }
        guard let id = element[attribute: "id"], !id.isEmpty else {
            throw MoltError(.fileReadCorruptFile, "an <object> of type \(type) has no id", location: location)
        }
        self.id = id
        self.type = type
        line = element.line
        var attributes: [String: XcodeStoreAttribute] = [:]
        var relationships: [String: XcodeStoreRelationship] = [:]
        for child in element.children {
            let childLocation = SourceLocation(file: file, line: child.line, element: child.name)
            guard child.name == "attribute" || child.name == "relationship" else { continue }
            guard let name = child[attribute: "name"], !name.isEmpty else {
                throw MoltError(
                    .fileReadCorruptFile, "an <\(child.name)> of object \(id) has no name", location: childLocation)
            }
            guard attributes[name] == nil, relationships[name] == nil else {
                throw MoltError(
                    .fileReadCorruptFile, "object \(id) has \"\(name)\" twice", location: childLocation)
            }
            if child.name == "attribute" {
                attributes[name] = XcodeStoreAttribute(
                    name: name, type: child[attribute: "type"] ?? "", text: child.text, line: child.line)
            } else {
                relationships[name] = XcodeStoreRelationship(
                    name: name, destination: child[attribute: "destination"] ?? "",
                    idrefs: (child[attribute: "idrefs"] ?? "").split(whereSeparator: \.isWhitespace).map(String.init),
                    line: child.line)
            }
        }
        self.attributes = attributes
        self.relationships = relationships
    }
}

/// `<attribute name type>value</attribute>`: a typed value, as text.
struct XcodeStoreAttribute {
    let name: String
    /// `string`, `int16`, `bool`, `binary`…
    let type: String
    /// The element's text (base64 for binary values).
    let text: String
    let line: Int
}

/// `<relationship name type destination idrefs>`: references to other objects, in order.
struct XcodeStoreRelationship {
    let name: String
    /// The type of the objects it refers to (`XDDEVENTITYMAPPING`…).
    let destination: String
    let idrefs: [String]
    let line: Int
}
