/// Splits expression text into tokens. Errors carry the character offset of the problem.
struct Lexer {
    private let characters: [Character]
    private var index = 0
    /// The arguments of a predicate format (`%@`, `%K`…), when the text is one
    /// (``ExpressionParser/parse(format:arguments:)``); nil for plain expression text, where
    /// `%` is not a character of the language.
    private let formatArguments: [ExpressionValue]?
    /// How many format arguments the placeholders read so far used.
    private(set) var formatArgumentsUsed = 0

    init(_ text: String, formatArguments: [ExpressionValue]? = nil) {
        characters = Array(text)
        self.formatArguments = formatArguments
    }

    /// The name of the variable that stands for the value of format argument `index` (from 0):
    /// no variable written in text can have it, since names never contain "%".
    static func formatVariable(_ index: Int) -> String { "%\(index + 1)" }

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
            if formatArguments != nil, characters[index] == "%" {
                result.append(contentsOf: try placeholder())
            } else {
                result.append(try next())
            }
        }
    }

    /// A format placeholder: `%K` becomes the key path its argument names (checked to be one:
    /// names joined by dots, so it can never add operators or quotes), and a value placeholder
    /// (`%@`, `%d`, `%i`, `%ld`, `%lld`, `%u`, `%lu`, `%f`, `%lf`, `%g`…) a variable bound to
    /// its argument: values are never written into the text.
    private mutating func placeholder() throws -> [Token] {
        let start = index
        index += 1
        var specifier = ""
        while index < characters.count, specifier.count < 4 {
            let c = characters[index]
            specifier.append(c)
            index += 1
            if !(c == "l" || c == "h" || c == "q") { break }
        }
        let valueSpecifiers: Set<String> = [
            "@", "d", "i", "u", "ld", "li", "lu", "lld", "lli", "llu", "hd", "hi", "hu", "qd", "qi", "qu",
            "f", "lf", "g", "e", "c",
        ]
        guard specifier == "K" || valueSpecifiers.contains(specifier) else {
            throw SyntaxError(
                "\"%\(specifier)\" is not a placeholder (use %@ for a value, %K for a key)", offset: start)
        }
        let arguments = formatArguments ?? []
        let position = formatArgumentsUsed
        guard position < arguments.count else {
            throw SyntaxError(
                "the format has more placeholders than the \(arguments.count) argument\(arguments.count == 1 ? "" : "s") given",
                offset: start)
        }
        formatArgumentsUsed += 1
        guard specifier == "K" else {
            return [Token(kind: .variable(Self.formatVariable(position)), offset: start)]
        }
        guard case .string(let keyPath) = arguments[position] else {
            throw SyntaxError(
                "%K takes a key as a string; argument \(position + 1) is \(arguments[position].kindName)", offset: start
            )
        }
        let names = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var tokens: [Token] = []
        for (offset, name) in names.enumerated() {
            guard let first = name.first, isIdentifierStart(first), name.allSatisfy(isIdentifierPart) else {
                throw SyntaxError("argument \(position + 1) for %K, \"\(keyPath)\", is not a key path", offset: start)
            }
            if offset > 0 { tokens.append(Token(kind: .symbol("."), offset: start)) }
            tokens.append(Token(kind: .escapedIdentifier(name), offset: start))
        }
        return tokens
    }

    private mutating func skipWhitespace() {
        while index < characters.count, characters[index].isWhitespace { index += 1 }
    }

    /// A letter or "_"; not a lone combining mark, which would join whatever is printed before
    /// it ("-" or "$") into one Character.
    private func isIdentifierStart(_ c: Character) -> Bool {
        guard c != "_" else { return true }
        guard c.isLetter, let first = c.unicodeScalars.first else { return false }
        switch first.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return false
        default: return true
        }
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
        // `#"any name"`: a key whose name is not a plain name (a bracket, a space, a dot in it),
        // as a string with JSON's escapes.
        if c == "#", index + 1 < characters.count, let quote = characters[index + 1].unicodeScalars.first,
            quote == "\"" || quote == "'"
        {
            index += 1
            let name = try string(quote: quote)
            guard !name.isEmpty else { throw SyntaxError("\"#\" must be followed by a name", offset: start) }
            return Token(kind: .escapedIdentifier(name), offset: start)
        }
        if c == "$" || c == "#" {
            index += 1
            guard index < characters.count, isIdentifierStart(characters[index]) else {
                throw SyntaxError("\"\(c)\" must be followed by a name", offset: start)
            }
            let name = identifier()
            return Token(kind: c == "$" ? .variable(name) : .escapedIdentifier(name), offset: start)
        }
        // A quote followed by combining marks is one Character; it still opens a string.
        if let first = c.unicodeScalars.first, first == "\"" || first == "'" {
            return Token(kind: .string(try string(quote: first)), offset: start)
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

    /// Reads a string literal, scalar by scalar: combining marks and prepended characters can
    /// join a quote or a backslash into one Character with its neighbours, and must not hide
    /// the end of the string or an escape.
    private mutating func string(quote: Unicode.Scalar) throws -> String {
        let start = index
        var text = String.UnicodeScalarView()
        var pending = Array(characters[index].unicodeScalars.dropFirst())  // after the opening quote
        var position = 0
        index += 1
        /// The next scalar; `index` is then just past the Character that holds it.
        func nextScalar() -> Unicode.Scalar? {
            while position >= pending.count {
                guard index < characters.count else { return nil }
                pending = Array(characters[index].unicodeScalars)
                position = 0
                index += 1
            }
            position += 1
            return pending[position - 1]
        }
        while let scalar = nextScalar() {
            if scalar == quote {
                guard position == pending.count else {
                    throw SyntaxError("unexpected character after the string", offset: index - 1)
                }
                return String(text)
            }
            guard scalar == "\\" else {
                text.append(scalar)
                continue
            }
            let escapeOffset = index - 1
            guard let escape = nextScalar() else { break }
            switch escape {
            case "\"", "'", "\\", "/": text.append(escape)
            case "n": text.append("\n")
            case "t": text.append("\t")
            case "r": text.append("\r")
            case "b": text.append("\u{08}")
            case "f": text.append("\u{0C}")
            case "u":
                var digits = String.UnicodeScalarView()
                while digits.count < 4, let digit = nextScalar() { digits.append(digit) }
                guard digits.count == 4, let value = UInt32(String(digits), radix: 16),
                    let scalar = Unicode.Scalar(value)
                else { throw SyntaxError("\\u needs four hexadecimal digits", offset: escapeOffset) }
                text.append(scalar)
            default:
                throw SyntaxError("unknown escape \\\(Character(escape)) in a string", offset: escapeOffset)
            }
        }
        throw SyntaxError("the string is not closed (missing \(Character(quote)))", offset: start)
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
