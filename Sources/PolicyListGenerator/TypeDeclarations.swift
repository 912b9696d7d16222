import Foundation

/// The class and extension declarations of a Swift file, with their inheritance lists and the
/// methods declared directly in their bodies.
struct TypeDeclaration {
    enum Kind { case classType, structType, extensionType }

    let kind: Kind
    let name: String
    /// The inheritance list: superclass (for a class) first, then protocols.
    let inherits: [String]
    let isPrivate: Bool
    /// Whether the type has generic parameters (it cannot be listed as a metatype).
    let isGeneric: Bool
    let methods: [Method]
    /// The body as written (comments and literals included), for a check that does not rely
    /// on the scan: see ``PolicyCatalog``.
    let rawBody: String
    let file: String
    let line: Int

    /// A `func` declared directly in the type's body.
    struct Method {
        let name: String
        /// Argument labels, `_` for none: `createRelationships(forDestination:in:manager:)` has
        /// `["forDestination", "in", "manager"]`.
        let labels: [String]
        let modifiers: Set<String>
        let line: Int
        let column: Int

        var signature: String { "\(name)(\(labels.map { "\($0):" }.joined()))" }
        var overrides: Bool { modifiers.contains("override") }
        var isStatic: Bool { modifiers.contains("static") || modifiers.contains("class") }
    }

    /// Every class, struct and extension declared in `source` (at any depth).
    static func all(in source: SwiftSource) -> [TypeDeclaration] {
        var scanner = Scanner(source: source)
        return scanner.declarations()
    }
}

/// Reads declarations from blanked code (``SwiftSource``) token by token.
private struct Scanner {
    let source: SwiftSource
    var code: [UInt8] { source.code }

    static let modifiers: Set<String> = [
        "public", "open", "internal", "package", "fileprivate", "private", "final", "override", "static", "class",
        "required", "convenience", "dynamic", "nonisolated", "mutating", "nonmutating", "lazy", "weak", "unowned",
        "indirect", "optional", "distributed",
    ]

    mutating func declarations() -> [TypeDeclaration] {
        var found: [TypeDeclaration] = []
        var index = 0
        while let (word, start, end) = nextWord(from: index) {
            index = end
            let kind: TypeDeclaration.Kind
            switch word {
            case "class": kind = .classType
            case "struct": kind = .structType
            case "extension": kind = .extensionType
            default: continue
            }
            guard let (name, nameEnd) = typeName(after: end) else { continue }
            // `class var`, `class func`: a member, not a type.
            if kind == .classType, ["var", "func", "let", "subscript", "init"].contains(name) { continue }
            var position = skipSpace(nameEnd)
            var isGeneric = false
            if position < code.count, code[position] == UInt8(ascii: "<") {
                isGeneric = true
                position = skipSpace(matching(from: position, open: "<", close: ">"))
            }
            var inherits: [String] = []
            guard let brace = firstByte("{", from: position) else { continue }
            if position < code.count, code[position] == UInt8(ascii: ":") {
                var list = source.text(position + 1..<brace)
                if let whereClause = list.range(of: " where ") { list = String(list[..<whereClause.lowerBound]) }
                inherits = list.split(separator: ",").map { $0.filter { !$0.isWhitespace } }
            }
            let bodyEnd = matching(from: brace, open: "{", close: "}")
            let prefix = modifiersBefore(start)
            found.append(
                TypeDeclaration(
                    kind: kind, name: name, inherits: inherits,
                    isPrivate: prefix.contains("private") || prefix.contains("fileprivate"), isGeneric: isGeneric,
                    methods: methods(in: brace + 1..<max(brace + 1, bodyEnd - 1)),
                    rawBody: String(decoding: source.raw[brace..<bodyEnd], as: UTF8.self), file: source.path,
                    line: source.line(of: start)))
            // Nested types are found by going on inside the body.
            index = brace + 1
        }
        return found
    }

    /// The `func`s directly in `body` (not in nested types or inside other functions).
    private func methods(in body: Range<Int>) -> [TypeDeclaration.Method] {
        var methods: [TypeDeclaration.Method] = []
        var depth = 0
        var index = body.lowerBound
        while index < body.upperBound {
            let byte = code[index]
            if byte == UInt8(ascii: "{") { depth += 1 }
            if byte == UInt8(ascii: "}") { depth -= 1 }
            guard Self.isWordByte(byte), index == 0 || !Self.isWordByte(code[index - 1]) else {
                index += 1
                continue
            }
            guard let (word, start, end) = nextWord(from: index) else { break }
            index = end
            guard depth == 0, word == "func", let (name, nameEnd) = typeName(after: end) else { continue }
            var position = skipSpace(nameEnd)
            if position < code.count, code[position] == UInt8(ascii: "<") {
                position = skipSpace(matching(from: position, open: "<", close: ">"))
            }
            guard position < code.count, code[position] == UInt8(ascii: "(") else { continue }
            let close = matching(from: position, open: "(", close: ")")
            let (line, column) = location(of: start)
            methods.append(
                TypeDeclaration.Method(
                    name: name, labels: labels(source.text(position + 1..<max(position + 1, close - 1))),
                    modifiers: modifiersBefore(start), line: line, column: column))
            index = close
        }
        return methods
    }

    /// The argument labels of a parameter list's text.
    private func labels(_ list: String) -> [String] {
        var parameters: [String] = []
        var depth = 0
        var current = ""
        for character in list.replacingOccurrences(of: "->", with: "→") {
            switch character {
            case "(", "[", "<": depth += 1
            case ")", "]", ">": depth -= 1
            case "," where depth == 0:
                parameters.append(current)
                current = ""
                continue
            default: break
            }
            current.append(character)
        }
        if !current.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { parameters.append(current) }
        return parameters.compactMap { parameter in
            let names =
                parameter.split(separator: ":", maxSplits: 1).first?
                .split(whereSeparator: { $0.isWhitespace }) ?? []
            return names.first.map(String.init)
        }
    }

    /// The modifiers and attributes written just before the keyword at `start`.
    private func modifiersBefore(_ start: Int) -> Set<String> {
        var found: Set<String> = []
        var index = start
        while true {
            var end = index
            while end > 0,
                code[end - 1] == UInt8(ascii: " ") || code[end - 1] == UInt8(ascii: "\n")
                    || code[end - 1] == UInt8(ascii: "\t") || code[end - 1] == UInt8(ascii: "\r")
            {
                end -= 1
            }
            // An attribute's arguments: `@available(*, deprecated)`.
            var wordEnd = end
            if wordEnd > 0, code[wordEnd - 1] == UInt8(ascii: ")") {
                var depth = 0
                var at = wordEnd - 1
                while at >= 0 {
                    if code[at] == UInt8(ascii: ")") { depth += 1 }
                    if code[at] == UInt8(ascii: "(") {
                        depth -= 1
                        if depth == 0 { break }
                    }
                    at -= 1
                }
                wordEnd = max(at, 0)
            }
            var wordStart = wordEnd
            while wordStart > 0, Self.isWordByte(code[wordStart - 1]) { wordStart -= 1 }
            guard wordStart < wordEnd else { return found }
            let word = source.text(wordStart..<wordEnd)
            if wordStart > 0, code[wordStart - 1] == UInt8(ascii: "@") {
                index = wordStart - 1
                continue
            }
            guard Self.modifiers.contains(word) else { return found }
            found.insert(word)
            index = wordStart
        }
    }

    private func location(of offset: Int) -> (line: Int, column: Int) {
        let line = source.line(of: offset)
        var start = offset
        while start > 0, code[start - 1] != UInt8(ascii: "\n") { start -= 1 }
        return (line, offset - start + 1)
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_") || byte >= 0x80
    }

    /// The next identifier-like word at or after `index`, with its range.
    private func nextWord(from index: Int) -> (String, Int, Int)? {
        var start = index
        while start < code.count {
            if Self.isWordByte(code[start]) && (start == 0 || !Self.isWordByte(code[start - 1])) { break }
            start += 1
        }
        guard start < code.count else { return nil }
        var end = start
        while end < code.count, Self.isWordByte(code[end]) { end += 1 }
        return (source.text(start..<end), start, end)
    }

    /// The (possibly dotted) name after a keyword ending at `index`.
    private func typeName(after index: Int) -> (String, Int)? {
        let start = skipSpace(index)
        var end = start
        while end < code.count, Self.isWordByte(code[end]) || code[end] == UInt8(ascii: ".") { end += 1 }
        guard end > start else { return nil }
        // Backquoted names are rare in policies; leave them out.
        return (source.text(start..<end), end)
    }

    private func skipSpace(_ index: Int) -> Int {
        var at = index
        while at < code.count,
            [UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r")].contains(code[at])
        {
            at += 1
        }
        return at
    }

    private func firstByte(_ character: Unicode.Scalar, from index: Int) -> Int? {
        code[index...].firstIndex(of: UInt8(ascii: character))
    }

    /// The offset just past the bracket that closes the one at `start`.
    private func matching(from start: Int, open: Unicode.Scalar, close: Unicode.Scalar) -> Int {
        var depth = 0
        var index = start
        while index < code.count {
            if code[index] == UInt8(ascii: open) { depth += 1 }
            if code[index] == UInt8(ascii: close) {
                depth -= 1
                if depth == 0 { return index + 1 }
            }
            index += 1
        }
        return code.count
    }
}
