/// Splits expression text into tokens. Errors carry the character offset of the problem.
struct Lexer {
    private let characters: [Character]
    private var index = 0

    init(_ text: String) {
        characters = Array(text)
    }

    static let symbols: [String] = [
        "**", "==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||",
        "(", ")", "{", "}", "[", "]", ",", ".", ":", "@", "+", "-", "*", "/", "=", "<", ">", "!",
    ]

    mutating func tokens() throws -> [Token] {
        var result: [Token] = []
        while true {
            skipWhitespace()
            guard index < characters.count else {
                result.append(Token(kind: .end, offset: index))
                return result
            }
            result.append(try next())
        }
    }

    private mutating func skipWhitespace() {
        while index < characters.count, characters[index].isWhitespace { index += 1 }
    }

    private func isIdentifierStart(_ c: Character) -> Bool {
        c == "_" || c.isLetter
    }

    private func isIdentifierPart(_ c: Character) -> Bool {
        c == "_" || c.isLetter || c.isNumber
    }

    private mutating func identifier() -> String {
        let start = index
        while index < characters.count, isIdentifierPart(characters[index]) { index += 1 }
        return String(characters[start..<index])
    }

    private mutating func next() throws -> Token {
        let start = index
        let c = characters[index]
        if isIdentifierStart(c) {
            return Token(kind: .identifier(identifier()), offset: start)
        }
        if c == "$" || c == "#" {
            index += 1
            guard index < characters.count, isIdentifierStart(characters[index]) else {
                throw SyntaxError("\"\(c)\" must be followed by a name", offset: start)
            }
            let name = identifier()
            return Token(kind: c == "$" ? .variable(name) : .escapedIdentifier(name), offset: start)
        }
        if c == "\"" || c == "'" {
            return Token(kind: .string(try string(quote: c)), offset: start)
        }
        if c.isASCII, c.isNumber {
            return Token(kind: .number(try number()), offset: start)
        }
        for symbol in Self.symbols where matches(symbol) {
            index += symbol.count
            return Token(kind: .symbol(symbol), offset: start)
        }
        throw SyntaxError("unexpected character \"\(c)\"", offset: start)
    }

    private func matches(_ symbol: String) -> Bool {
        var position = index
        for expected in symbol {
            guard position < characters.count, characters[position] == expected else { return false }
            position += 1
        }
        return true
    }

    private mutating func string(quote: Character) throws -> String {
        let start = index
        index += 1
        var text = ""
        while index < characters.count {
            let c = characters[index]
            index += 1
            if c == quote { return text }
            guard c == "\\" else {
                text.append(c)
                continue
            }
            guard index < characters.count else { break }
            let escape = characters[index]
            index += 1
            switch escape {
            case "\"", "'", "\\": text.append(escape)
            case "n": text.append("\n")
            case "t": text.append("\t")
            case "r": text.append("\r")
            case "b": text.append("\u{08}")
            case "f": text.append("\u{0C}")
            case "/": text.append("/")
            case "u":
                guard index + 4 <= characters.count,
                    let value = UInt32(String(characters[index..<(index + 4)]), radix: 16),
                    let scalar = Unicode.Scalar(value)
                else { throw SyntaxError("\\u needs four hexadecimal digits", offset: index - 2) }
                index += 4
                text.unicodeScalars.append(scalar)
            default:
                throw SyntaxError("unknown escape \\\(escape) in a string", offset: index - 2)
            }
        }
        throw SyntaxError("the string is not closed (missing \(quote))", offset: start)
    }

    private mutating func number() throws -> String {
        let start = index
        func digits() {
            while index < characters.count, characters[index].isASCII, characters[index].isNumber { index += 1 }
        }
        digits()
        if index + 1 < characters.count, characters[index] == ".", characters[index + 1].isASCII,
            characters[index + 1].isNumber
        {
            index += 1
            digits()
        }
        if index < characters.count, characters[index] == "e" || characters[index] == "E" {
            let mark = index
            index += 1
            if index < characters.count, characters[index] == "+" || characters[index] == "-" { index += 1 }
            let exponentStart = index
            digits()
            if index == exponentStart { index = mark }  // not an exponent after all
        }
        if index < characters.count, isIdentifierStart(characters[index]) {
            throw SyntaxError("a number runs into a name", offset: index)
        }
        return String(characters[start..<index])
    }
}

/// A syntax error in expression text, at a character offset.
public struct SyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    /// 0-based character offset in the expression text.
    public var offset: Int

    public init(_ message: String, offset: Int) {
        self.message = message
        self.offset = offset
    }

    public var description: String { "column \(offset + 1): \(message)" }
}
