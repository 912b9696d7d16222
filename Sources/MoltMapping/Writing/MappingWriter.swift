public import Foundation
internal import MoltCore
internal import MoltXML

/// Writes mapping models in Molt's XML format: what ``MappingReader`` reads back to an equal
/// model. Expressions are written in their canonical form; attributes always in the same order.
///
/// ```swift
/// let xml = MappingWriter().text(of: mapping)
/// ```
public struct MappingWriter {
    public init() {}

    /// The mapping file's text.
    public func text(of model: MappingModel) -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<mapping-model format=\"1\""
        if let source = model.sourceModelName { out += " source-model=" + Self.attribute(source) }
        if let destination = model.destinationModelName { out += " destination-model=" + Self.attribute(destination) }
        if model.propertyDefaults != .inferred { out += " property-defaults=\"\(model.propertyDefaults.rawValue)\"" }
        guard !model.entityMappings.isEmpty else { return out + "/>\n" }
        out += ">\n"
        for mapping in model.entityMappings {
            out += entityMapping(mapping)
        }
        return out + "</mapping-model>\n"
    }

    /// Writes the file atomically (to a temporary file beside it, then renamed).
    public func write(_ model: MappingModel, to url: URL) throws {
        do {
            try Data(text(of: model).utf8).write(to: url, options: .atomic)
        } catch {
            throw MoltError(
                .fileWriteUnknown, "cannot write the mapping file: \(error.localizedDescription)",
                location: SourceLocation(file: url.path))
        }
    }

    func entityMapping(_ mapping: EntityMapping) -> String {
        var out = "    <entity-mapping name=\(Self.attribute(mapping.name)) type=\"\(mapping.kind.rawValue)\""
        if let source = mapping.sourceEntityName { out += " source=" + Self.attribute(source) }
        if let destination = mapping.destinationEntityName { out += " destination=" + Self.attribute(destination) }
        if let policy = mapping.policyName { out += " policy=" + Self.attribute(policy) }
        if let hash = mapping.sourceVersionHash { out += " source-hash=\"\(hash.hexString)\"" }
        if let hash = mapping.destinationVersionHash { out += " destination-hash=\"\(hash.hexString)\"" }
        var children: [String] = []
        if let filter = mapping.filter {
            children.append("<filter>\(Self.escapeText(filter.description))</filter>")
        }
        for (element, mappings) in [
            ("attribute", mapping.attributeMappings), ("relationship", mapping.relationshipMappings),
        ] {
            for property in mappings {
                let value: String =
                    switch property.value {
                    case .expression(let expression): expression.description
                    case .noValue: "nil"
                    case .inferred: "default"
                    }
                children.append("<\(element) name=\(Self.attribute(property.name)) value=\(Self.attribute(value))/>")
            }
        }
        for entry in mapping.userInfo {
            children.append("<user-info key=\(Self.attribute(entry.key)) value=\(Self.attribute(entry.value))/>")
        }
        guard !children.isEmpty else { return out + "/>\n" }
        return out + ">\n" + children.map { "        \($0)\n" }.joined() + "    </entity-mapping>\n"
    }

    /// A quoted attribute value: in single quotes when the text has double quotes and no single
    /// ones (so expressions stay readable), otherwise in double quotes, escaped.
    static func attribute(_ value: String) -> String {
        let quote: Character = value.contains("\"") && !value.contains("'") ? "'" : "\""
        return "\(quote)\(XMLEscaping.escaped(value, quote: quote))\(quote)"
    }

    static func escapeText(_ text: String) -> String {
        XMLEscaping.escaped(text)
    }
}
