/// Parses Molt's expression and predicate language (a subset of NSExpression and NSPredicate).
///
/// Grammar, lowest precedence first:
///
/// ```
/// expression  := or
/// or          := and (("OR" | "||") and)*
/// and         := not (("AND" | "&&") not)*
/// not         := ("NOT" | "!") not | comparison
/// comparison  := [ANY | SOME | ALL | NONE] additive [operator ["[" c|d|cd "]"] additive]
/// operator    := == = != <> < <= =< > >= => BEGINSWITH ENDSWITH CONTAINS LIKE MATCHES IN BETWEEN
/// additive    := multiplicative (("+" | "-") multiplicative)*
/// multiplicative := power (("*" | "/") power)*
/// power       := unary ["**" power]
/// unary       := "-" unary | postfix
/// postfix     := primary ("." key | "[" index "]")*
/// primary     := number | string | TRUE | YES | FALSE | NO | NIL | NULL | TRUEPREDICATE | FALSEPREDICATE
///              | $variable | key ("." key)* | "(" expression ")" | "{" [expression ("," expression)*] "}"
///              | name[":"] "(" arguments ")" | FUNCTION(target, "selector", …) | TERNARY(c, a, b)
///              | CAST(x, "NSDate" | "NSNumber" | "NSString" | "NSDecimalNumber")
/// key         := name | #name | @count | @sum | @avg | @min | @max
/// ```
///
/// Keywords are case-insensitive; a key that is a keyword is written `#key`. Text longer than
/// ``maximumLength`` characters or nested deeper than ``maximumDepth`` is refused.
public struct ExpressionParser {
    /// The longest text accepted, in characters.
    public var maximumLength = 100_000
    /// The deepest nesting accepted.
    public var maximumDepth = 200

    public init() {}

    /// Parses `text` as one expression (or predicate).
    public func parse(_ text: String) throws(SyntaxError) -> MappingExpression {
        guard text.count <= maximumLength else {
            throw SyntaxError(
                "the expression is \(text.count) characters long; at most \(maximumLength) are accepted", offset: 0)
        }
        do {
            var lexer = Lexer(text)
            var parser = Parser(tokens: try lexer.tokens(), maximumDepth: maximumDepth)
            let expression = try parser.expression()
            guard case .end = parser.current.kind else {
                throw SyntaxError(
                    "unexpected \(parser.describe(parser.current)) after the expression", offset: parser.current.offset)
            }
            return expression
        } catch let error as SyntaxError {
            throw error
        } catch {
            throw SyntaxError("\(error)", offset: 0)
        }
    }
}

/// Words with a meaning of their own; a key spelled like one must be written `#word`.
enum Keywords {
    static let all: Set<String> = [
        "AND", "OR", "NOT", "TRUE", "FALSE", "YES", "NO", "NIL", "NULL", "TRUEPREDICATE", "FALSEPREDICATE",
        "ANY", "ALL", "NONE", "SOME", "IN", "BETWEEN", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES",
        "FUNCTION", "TERNARY", "CAST", "SUBQUERY", "FIRST", "LAST", "SIZE",
    ]

    static func isKeyword(_ word: String) -> Bool { all.contains(word.uppercased()) }
}

private struct Parser {
    let tokens: [Token]
    let maximumDepth: Int
    var position = 0
    var depth = 0

    init(tokens: [Token], maximumDepth: Int) {
        self.tokens = tokens
        self.maximumDepth = maximumDepth
    }

    var current: Token { tokens[position] }

    func peek(_ distance: Int = 1) -> Token {
        tokens[min(position + distance, tokens.count - 1)]
    }

    mutating func advance() -> Token {
        let token = tokens[position]
        if position < tokens.count - 1 { position += 1 }
        return token
    }

    func describe(_ token: Token) -> String {
        switch token.kind {
        case .identifier(let name): "\"\(name)\""
        case .escapedIdentifier(let name): "\"#\(name)\""
        case .variable(let name): "\"$\(name)\""
        case .string: "a string"
        case .number(let text): "the number \(text)"
        case .symbol(let symbol): "\"\(symbol)\""
        case .end: "the end of the expression"
        }
    }

    func isKeyword(_ word: String, _ token: Token? = nil) -> Bool {
        if case .identifier(let name) = (token ?? current).kind { return name.uppercased() == word }
        return false
    }

    func isSymbol(_ symbol: String, _ token: Token? = nil) -> Bool {
        if case .symbol(let found) = (token ?? current).kind { return found == symbol }
        return false
    }

    mutating func expect(_ symbol: String, _ context: String) throws -> Token {
        guard isSymbol(symbol) else {
            throw SyntaxError("expected \"\(symbol)\" \(context), found \(describe(current))", offset: current.offset)
        }
        return advance()
    }

    mutating func nested<T>(_ body: (inout Parser) throws -> T) throws -> T {
        depth += 1
        defer { depth -= 1 }
        guard depth <= maximumDepth else {
            throw SyntaxError("the expression is nested more than \(maximumDepth) levels deep", offset: current.offset)
        }
        return try body(&self)
    }

    // MARK: Logic

    mutating func expression() throws -> MappingExpression {
        try nested { try $0.or() }
    }

    mutating func or() throws -> MappingExpression {
        var lhs = try and()
        while isKeyword("OR") || isSymbol("||") {
            _ = advance()
            let rhs = try and()
            lhs = MappingExpression(.or(lhs, rhs), offset: lhs.offset)
        }
        return lhs
    }

    mutating func and() throws -> MappingExpression {
        var lhs = try not()
        while isKeyword("AND") || isSymbol("&&") {
            _ = advance()
            let rhs = try not()
            lhs = MappingExpression(.and(lhs, rhs), offset: lhs.offset)
        }
        return lhs
    }

    mutating func not() throws -> MappingExpression {
        if isKeyword("NOT") || isSymbol("!") {
            let start = advance().offset
            let operand = try nested { try $0.not() }
            return MappingExpression(.not(operand), offset: start)
        }
        return try comparison()
    }

    // MARK: Comparisons

    mutating func comparison() throws -> MappingExpression {
        let start = current.offset
        var quantifier: Comparison.Quantifier?
        for (word, value) in [("ANY", Comparison.Quantifier.any), ("SOME", .any), ("ALL", .all), ("NONE", .none)]
        where isKeyword(word) {
            _ = advance()
            quantifier = value
            break
        }
        let lhs = try additive()
        guard let op = comparisonOperator() else {
            if quantifier != nil {
                throw SyntaxError(
                    "\(describe(tokens[max(position - 1, 0)])) must be followed by a comparison", offset: current.offset
                )
            }
            return lhs
        }
        var caseInsensitive = false
        var diacriticInsensitive = false
        if isSymbol("["), case .identifier(let flags) = peek().kind, isSymbol("]", peek(2)),
            !flags.isEmpty, flags.lowercased().allSatisfy({ "cdn".contains($0) })
        {
            guard op.takesStringOptions else {
                throw SyntaxError("[\(flags)] options apply only to string comparisons", offset: current.offset)
            }
            _ = advance()
            _ = advance()
            _ = advance()
            caseInsensitive = flags.lowercased().contains("c")
            diacriticInsensitive = flags.lowercased().contains("d")
        }
        let rhs = try additive()
        if op == .between, case .aggregate(let bounds) = rhs.kind, bounds.count != 2 {
            throw SyntaxError("BETWEEN needs two bounds, as in x BETWEEN {1, 10}", offset: rhs.offset)
        }
        if isComparisonOperatorAhead() {
            throw SyntaxError("comparisons cannot be chained; use AND", offset: current.offset)
        }
        return MappingExpression(
            .comparison(
                Comparison(
                    op, lhs, rhs, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive,
                    quantifier: quantifier)), offset: start)
    }

    func isComparisonOperatorAhead() -> Bool {
        var copy = self
        return copy.comparisonOperator() != nil
    }

    /// Reads a comparison operator if one is next.
    mutating func comparisonOperator() -> Comparison.Operator? {
        if case .symbol(let symbol) = current.kind {
            let op: Comparison.Operator? =
                switch symbol {
                case "==", "=": .equal
                case "!=", "<>": .notEqual
                case "<": .less
                case "<=", "=<": .lessOrEqual
                case ">": .greater
                case ">=", "=>": .greaterOrEqual
                default: nil
                }
            if op != nil { _ = advance() }
            return op
        }
        if case .identifier(let word) = current.kind {
            let op: Comparison.Operator? =
                switch word.uppercased() {
                case "BEGINSWITH": .beginsWith
                case "ENDSWITH": .endsWith
                case "CONTAINS": .contains
                case "LIKE": .like
                case "MATCHES": .matches
                case "IN": .in
                case "BETWEEN": .between
                default: nil
                }
            if op != nil { _ = advance() }
            return op
        }
        return nil
    }

    // MARK: Arithmetic

    mutating func additive() throws -> MappingExpression {
        var lhs = try multiplicative()
        while isSymbol("+") || isSymbol("-") {
            let op: ArithmeticOperator = isSymbol("+") ? .add : .subtract
            _ = advance()
            let rhs = try multiplicative()
            lhs = MappingExpression(.arithmetic(op, lhs, rhs), offset: lhs.offset)
        }
        return lhs
    }

    mutating func multiplicative() throws -> MappingExpression {
        var lhs = try power()
        while isSymbol("*") || isSymbol("/") {
            let op: ArithmeticOperator = isSymbol("*") ? .multiply : .divide
            _ = advance()
            let rhs = try power()
            lhs = MappingExpression(.arithmetic(op, lhs, rhs), offset: lhs.offset)
        }
        return lhs
    }

    mutating func power() throws -> MappingExpression {
        let base = try unary()
        guard isSymbol("**") else { return base }
        _ = advance()
        let exponent = try nested { try $0.power() }
        return MappingExpression(.arithmetic(.power, base, exponent), offset: base.offset)
    }

    mutating func unary() throws -> MappingExpression {
        guard isSymbol("-") else { return try postfix() }
        let start = advance().offset
        // A minus right before a number is part of the number (so Int64.min can be written).
        if case .number(let text) = current.kind {
            _ = advance()
            let literal = try number("-" + text, offset: start)
            return try postfixes(after: literal)
        }
        let operand = try nested { try $0.unary() }
        return MappingExpression(.negate(operand), offset: start)
    }

    // MARK: Postfix and primary

    mutating func postfix() throws -> MappingExpression {
        try postfixes(after: try primary())
    }

    mutating func postfixes(after base: MappingExpression) throws -> MappingExpression {
        var result = base
        while true {
            if isSymbol(".") {
                _ = advance()
                let key = try keyComponent()
                if case .keyPath(let inner, let components) = result.kind {
                    result = MappingExpression(
                        .keyPath(base: inner, components: components + [key]), offset: result.offset)
                } else {
                    result = MappingExpression(.keyPath(base: result, components: [key]), offset: result.offset)
                }
            } else if isSymbol("[") {
                _ = advance()
                let index: IndexKind
                if isKeyword("FIRST") {
                    _ = advance()
                    index = .first
                } else if isKeyword("LAST") {
                    _ = advance()
                    index = .last
                } else if isKeyword("SIZE") {
                    _ = advance()
                    index = .size
                } else {
                    index = .position(try expression())
                }
                _ = try expect("]", "to close the index")
                result = MappingExpression(.index(result, index), offset: result.offset)
            } else {
                return result
            }
        }
    }

    /// One key of a key path: a name, `#name`, or a collection operator such as `@count`.
    mutating func keyComponent() throws -> String {
        switch current.kind {
        case .identifier(let name):
            guard !Keywords.isKeyword(name) else {
                throw SyntaxError(
                    "\"\(name)\" is a keyword; write #\(name) for a key of that name", offset: current.offset)
            }
            _ = advance()
            return name
        case .escapedIdentifier(let name):
            _ = advance()
            return name
        case .symbol("@"):
            let start = advance().offset
            guard case .identifier(let name) = current.kind, CollectionOperator(rawValue: "@" + name) != nil else {
                throw SyntaxError("expected @count, @sum, @avg, @min or @max", offset: start)
            }
            _ = advance()
            return "@" + name
        default:
            throw SyntaxError("expected a key after \".\", found \(describe(current))", offset: current.offset)
        }
    }

    mutating func primary() throws -> MappingExpression {
        let token = current
        switch token.kind {
        case .number(let text):
            _ = advance()
            return try number(text, offset: token.offset)
        case .string(let text):
            _ = advance()
            return MappingExpression(.constant(.string(text)), offset: token.offset)
        case .variable(let name):
            _ = advance()
            return MappingExpression(.variable(name), offset: token.offset)
        case .escapedIdentifier(let name):
            _ = advance()
            return MappingExpression(.keyPath(base: nil, components: [name]), offset: token.offset)
        case .symbol("("):
            _ = advance()
            let inner = try expression()
            _ = try expect(")", "to close the parenthesis")
            return inner
        case .symbol("{"):
            _ = advance()
            var items: [MappingExpression] = []
            if !isSymbol("}") {
                repeat {
                    if !items.isEmpty { _ = advance() }
                    items.append(try expression())
                } while isSymbol(",")
            }
            _ = try expect("}", "to close the aggregate")
            return MappingExpression(.aggregate(items), offset: token.offset)
        case .symbol("@"):
            let key = try keyComponent()
            return MappingExpression(.keyPath(base: nil, components: [key]), offset: token.offset)
        case .identifier(let name):
            return try word(name, at: token)
        case .symbol(let symbol):
            throw SyntaxError("unexpected \"\(symbol)\"", offset: token.offset)
        case .end:
            throw SyntaxError("the expression ends too early", offset: token.offset)
        }
    }

    /// A name: a keyword constant, a function call, or a key path.
    mutating func word(_ name: String, at token: Token) throws -> MappingExpression {
        let upper = name.uppercased()
        switch upper {
        case "TRUE", "YES":
            _ = advance()
            return MappingExpression(.constant(.bool(true)), offset: token.offset)
        case "FALSE", "NO":
            _ = advance()
            return MappingExpression(.constant(.bool(false)), offset: token.offset)
        case "NIL", "NULL":
            _ = advance()
            return MappingExpression(.constant(.null), offset: token.offset)
        case "TRUEPREDICATE":
            _ = advance()
            return MappingExpression(.truePredicate, offset: token.offset)
        case "FALSEPREDICATE":
            _ = advance()
            return MappingExpression(.falsePredicate, offset: token.offset)
        case "FUNCTION":
            return try functionCall(at: token)
        case "TERNARY":
            _ = advance()
            let arguments = try argumentList(after: "TERNARY")
            guard arguments.count == 3 else {
                throw SyntaxError("TERNARY takes a condition and two values", offset: token.offset)
            }
            return MappingExpression(
                .ternary(condition: arguments[0], then: arguments[1], otherwise: arguments[2]), offset: token.offset)
        case "CAST":
            _ = advance()
            let arguments = try argumentList(after: "CAST")
            guard arguments.count == 2, case .constant(.string(let type)) = arguments[1].kind,
                let function = BuiltinFunction.castTarget(type)
            else {
                throw SyntaxError(
                    "CAST takes a value and one of \"NSDate\", \"NSNumber\", \"NSDecimalNumber\", \"NSString\"",
                    offset: token.offset)
            }
            return MappingExpression(
                .function(name: function.rawValue, arguments: [arguments[0]]), offset: token.offset)
        case "SUBQUERY":
            throw SyntaxError("SUBQUERY is not supported; use ANY, ALL or NONE on the key path", offset: token.offset)
        default:
            break
        }
        // name( or name:( is a built-in function call.
        if isSymbol("(", peek()) || (isSymbol(":", peek()) && isSymbol("(", peek(2))) {
            _ = advance()
            if isSymbol(":") { _ = advance() }
            guard let function = BuiltinFunction(named: name) else {
                let known = BuiltinFunction.allCases.map(\.rawValue).joined(separator: ", ")
                throw SyntaxError("unknown function \"\(name)\" (built-in functions: \(known))", offset: token.offset)
            }
            let arguments = try argumentList(after: name)
            guard function.arity.contains(arguments.count) else {
                throw SyntaxError("\(function.rawValue)() \(function.arityDescription)", offset: token.offset)
            }
            return MappingExpression(.function(name: function.rawValue, arguments: arguments), offset: token.offset)
        }
        guard !Keywords.isKeyword(name) else {
            throw SyntaxError("unexpected keyword \"\(name)\"", offset: token.offset)
        }
        _ = advance()
        return MappingExpression(.keyPath(base: nil, components: [name]), offset: token.offset)
    }

    mutating func functionCall(at token: Token) throws -> MappingExpression {
        _ = advance()
        let arguments = try argumentList(after: "FUNCTION")
        guard arguments.count >= 2, case .constant(.string(let selector)) = arguments[1].kind else {
            throw SyntaxError(
                "FUNCTION takes a target, a selector in quotes and the selector's arguments, as in FUNCTION($manager, \"selector:\", x)",
                offset: token.offset)
        }
        let colons = selector.filter { $0 == ":" }.count
        guard colons == arguments.count - 2 else {
            throw SyntaxError(
                "the selector \"\(selector)\" takes \(colons) argument\(colons == 1 ? "" : "s"), but \(arguments.count - 2) \(arguments.count - 2 == 1 ? "is" : "are") given",
                offset: arguments[1].offset)
        }
        return MappingExpression(
            .call(target: arguments[0], selector: selector, arguments: Array(arguments.dropFirst(2))),
            offset: token.offset)
    }

    mutating func argumentList(after name: String) throws -> [MappingExpression] {
        _ = try expect("(", "after \(name)")
        var arguments: [MappingExpression] = []
        if !isSymbol(")") {
            repeat {
                if !arguments.isEmpty { _ = advance() }
                arguments.append(try expression())
            } while isSymbol(",")
        }
        _ = try expect(")", "to close the arguments of \(name)")
        return arguments
    }

    func number(_ text: String, offset: Int) throws -> MappingExpression {
        if !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) {
            guard let value = Int64(text) else {
                throw SyntaxError("the integer \(text) does not fit in 64 bits", offset: offset)
            }
            return MappingExpression(.constant(.integer(value)), offset: offset)
        }
        guard let value = Double(text), value.isFinite else {
            throw SyntaxError("\(text) is not a finite number", offset: offset)
        }
        return MappingExpression(.constant(.double(value)), offset: offset)
    }
}

/// Key-path collection operators.
public enum CollectionOperator: String, Sendable, CaseIterable {
    case count = "@count"
    case sum = "@sum"
    case average = "@avg"
    case minimum = "@min"
    case maximum = "@max"
}
