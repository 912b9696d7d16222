package import Foundation

/// The name of an XML document's root element, read from its first bytes without parsing the
/// document: enough to tell a mapping file from other XML, and Molt's format (`<mapping-model>`)
/// from Xcode's (`<database>`). Nil when it cannot be told (the reader then reports what is
/// wrong).
package enum XMLRootName {
    package static func of(_ data: Data) -> String? {
        var text = Substring(String(decoding: data.prefix(64 * 1024), as: UTF8.self))
        if text.hasPrefix("\u{FEFF}") { text = text.dropFirst() }
        while true {
            text = text.drop { $0.isWhitespace }
            if text.hasPrefix("<?") {
                guard let end = text.range(of: "?>") else { return nil }
                text = text[end.upperBound...]
            } else if text.hasPrefix("<!--") {
                guard let end = text.range(of: "-->") else { return nil }
                text = text[end.upperBound...]
            } else if text.hasPrefix("<!") {
                guard let end = text.firstIndex(of: ">") else { return nil }
                text = text[text.index(after: end)...]
            } else if text.hasPrefix("<") {
                let name = text.dropFirst().prefix { !$0.isWhitespace && $0 != ">" && $0 != "/" }
                return name.isEmpty ? nil : String(name)
            } else {
                return nil
            }
        }
    }

    /// The attributes of the root element's start tag (`name="value"` or `'value'`, the five
    /// predefined entities and character references decoded), read as ``of(_:)`` reads the
    /// name: enough to learn what a file that does not parse says it is. Empty when the start
    /// tag cannot be read.
    package static func rootAttributes(_ data: Data) -> [String: String] {
        guard let name = of(data) else { return [:] }
        let text = String(decoding: data.prefix(64 * 1024), as: UTF8.self)
        guard let start = text.range(of: "<" + name) else { return [:] }
        var rest = text[start.upperBound...]
        var attributes: [String: String] = [:]
        while true {
            rest = rest.drop { $0.isWhitespace }
            guard let first = rest.first, first != ">", first != "/" else { return attributes }
            let key = rest.prefix { !$0.isWhitespace && $0 != "=" && $0 != ">" }
            rest = rest.dropFirst(key.count).drop { $0.isWhitespace }
            guard rest.first == "=" else { return attributes }
            rest = rest.dropFirst().drop { $0.isWhitespace }
            guard let quote = rest.first, quote == "\"" || quote == "'" else { return attributes }
            rest = rest.dropFirst()
            guard let end = rest.firstIndex(of: quote) else { return attributes }
            attributes[String(key)] = decoded(rest[..<end])
            rest = rest[rest.index(after: end)...]
        }
    }

    private static func decoded(_ raw: Substring) -> String {
        var result = ""
        var rest = raw
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            guard let semicolon = rest[amp...].firstIndex(of: ";") else { break }
            let entity = rest[rest.index(after: amp)..<semicolon]
            switch entity {
            case "lt": result += "<"
            case "gt": result += ">"
            case "amp": result += "&"
            case "quot": result += "\""
            case "apos": result += "'"
            default:
                let number =
                    entity.hasPrefix("#x")
                    ? UInt32(entity.dropFirst(2), radix: 16)
                    : entity.hasPrefix("#") ? UInt32(entity.dropFirst()) : nil
                if let number, let scalar = Unicode.Scalar(number) {
                    result.unicodeScalars.append(scalar)
                } else {
                    result += rest[amp...semicolon]
                }
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return result + rest
    }
}
