package import Foundation
package import MoltCore

/// Reads an XML property list (`<plist><dict>…`) such as a model bundle's `.xccurrentversion`,
/// through ``SafeXMLParser``. Apple's standard plist DOCTYPE line is accepted, never fetched.
package struct XMLPropertyListReader {
    package init() {}

    package func read(contentsOf url: URL, displayName: String? = nil) throws -> PropertyList {
        let document = try SafeXMLParser().parse(contentsOf: url, displayName: displayName)
        return try read(document)
    }

    package func read(_ document: ParsedDocument) throws -> PropertyList {
        guard document.root.name == "plist" else {
            throw MoltError(
                .propertyListReadCorrupt, "expected a <plist> root element, found <\(document.root.name)>",
                location: document.location(of: document.root))
        }
        guard document.root.children.count == 1 else {
            throw MoltError(
                .propertyListReadCorrupt, "<plist> must hold exactly one value",
                location: document.location(of: document.root))
        }
        return try value(document.root.children[0], in: document)
    }

    private func value(_ element: ParsedElement, in document: ParsedDocument) throws -> PropertyList {
        func corrupt(_ message: String) -> MoltError {
            MoltError(.propertyListReadCorrupt, message, location: document.location(of: element))
        }
        switch element.name {
        case "string":
            return .string(element.text)
        case "integer":
            guard let number = Int64(element.text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw corrupt("\"\(element.text)\" is not an integer")
            }
            return .integer(number)
        case "real":
            guard let number = Double(element.text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw corrupt("\"\(element.text)\" is not a real number")
            }
            return .real(number)
        case "true":
            return .bool(true)
        case "false":
            return .bool(false)
        case "date":
            guard let date = try? Date(element.text.trimmingCharacters(in: .whitespacesAndNewlines), strategy: .iso8601)
            else {
                throw corrupt("\"\(element.text)\" is not an ISO 8601 date")
            }
            return .date(date)
        case "data":
            let compact = element.text.filter { !$0.isWhitespace }
            guard let data = Data(base64Encoded: compact) else {
                throw corrupt("the data is not valid base64")
            }
            return .data(data)
        case "array":
            return .array(try element.children.map { try value($0, in: document) })
        case "dict":
            var entries: [String: PropertyList] = [:]
            var index = 0
            let children = element.children
            while index < children.count {
                guard children[index].name == "key", index + 1 < children.count else {
                    throw MoltError(
                        .propertyListReadCorrupt, "a <dict> must alternate <key> and value elements",
                        location: document.location(of: children[index]))
                }
                entries[children[index].text] = try value(children[index + 1], in: document)
                index += 2
            }
            return .dictionary(entries)
        default:
            throw corrupt("<\(element.name)> is not a property-list element")
        }
    }
}
