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
}
