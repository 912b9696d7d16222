/// The code of a Swift file without its comments and the text of its string literals, for
/// reading which names a file uses: each literal is left as `""`, followed by the code of its
/// interpolations (`\(…)`), so a name in a message is no use but one called inside `\(…)` is.
/// Raw (`#"…"#`) and multi-line literals and nested block comments are told apart; what the
/// reader does not follow is code (a regular expression literal, a line it cannot close).
struct SwiftCode {
    private let bytes: [UInt8]
    private var index = 0

    /// The code of `text`.
    static func of(_ text: String) -> String {
        var reader = SwiftCode(bytes: Array(text.utf8))
        return String(decoding: reader.code(inInterpolation: false), as: UTF8.self)
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Code up to the end, or in an interpolation up to the `)` that closes it (read past).
    private mutating func code(inInterpolation: Bool) -> [UInt8] {
        var code: [UInt8] = []
        var depth = 0
        while index < bytes.count {
            if starts(with: "//") {
                while index < bytes.count && bytes[index] != UInt8(ascii: "\n") { index += 1 }
            } else if starts(with: "/*") {
                skipBlockComment()
            } else if let literal = literalStart() {
                index += literal.opening
                code += Array(#" "" "#.utf8)
                code += stringLiteral(hashes: literal.hashes, multiline: literal.multiline)
            } else {
                let byte = bytes[index]
                index += 1
                if inInterpolation && byte == UInt8(ascii: "(") { depth += 1 }
                if inInterpolation && byte == UInt8(ascii: ")") {
                    if depth == 0 { break }
                    depth -= 1
                }
                code.append(byte)
            }
        }
        return code
    }

    /// At the opening of a string literal: how many `#` it has, whether it is multi-line, and
    /// the length of its opening.
    private func literalStart() -> (hashes: Int, multiline: Bool, opening: Int)? {
        var end = index
        while end < bytes.count && bytes[end] == UInt8(ascii: "#") { end += 1 }
        guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else { return nil }
        let hashes = end - index
        let multiline = starts(with: "\"\"\"", at: end)
        return (hashes, multiline, hashes + (multiline ? 3 : 1))
    }

    /// Reads a literal whose opening was read, to its end: the code of its interpolations.
    private mutating func stringLiteral(hashes: Int, multiline: Bool) -> [UInt8] {
        let closing = (multiline ? "\"\"\"" : "\"") + String(repeating: "#", count: hashes)
        let escape = "\\" + String(repeating: "#", count: hashes)
        var code: [UInt8] = []
        while index < bytes.count {
            if starts(with: closing) {
                index += closing.utf8.count
                break
            }
            if starts(with: escape) {
                index += escape.utf8.count
                if index < bytes.count && bytes[index] == UInt8(ascii: "(") {
                    index += 1
                    code += [UInt8(ascii: " ")] + self.code(inInterpolation: true) + [UInt8(ascii: " ")]
                } else {
                    index += 1
                }
                continue
            }
            if !multiline && bytes[index] == UInt8(ascii: "\n") { break }
            index += 1
        }
        return code
    }

    /// Reads a block comment, nested ones included.
    private mutating func skipBlockComment() {
        var depth = 0
        while index < bytes.count {
            if starts(with: "/*") {
                depth += 1
                index += 2
            } else if starts(with: "*/") {
                depth -= 1
                index += 2
                if depth == 0 { return }
            } else {
                index += 1
            }
        }
    }

    private func starts(with text: String, at position: Int? = nil) -> Bool {
        let start = position ?? index
        let pattern = Array(text.utf8)
        guard start + pattern.count <= bytes.count else { return false }
        return bytes[start..<(start + pattern.count)].elementsEqual(pattern)
    }
}
