/// The recursive-descent parser behind ``ExpressionParser``: one instance per parse.
struct Parser {
    let tokens: [Token]
    let maximumDepth: Int
    let maximumLinks: Int
    var position = 0
    var depth = 0
    /// Operators of chains read so far (see ``link()``).
    var links = 0

    init(tokens: [Token], maximumDepth: Int, maximumLinks: Int) {
        self.tokens = tokens
        self.maximumDepth = maximumDepth
        self.maximumLinks = maximumLinks
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

    /// Counts one operator of a chain (`a + b + c`, `a OR b OR c`, `a.b[0].c`). A chain builds
    /// its tree one level deeper per operator, so chains are limited as nesting is: with both
    /// limits, a parsed tree stays shallow enough for the walks that print, check or evaluate
    /// it never to run out of stack.
    mutating func link() throws {
        links += 1
        guard links <= maximumLinks else {
            throw SyntaxError(
                "the expression chains more than \(maximumLinks) operators; split it (or use IN for a list of values)",
                offset: current.offset)
        }
    }

    // MARK: Logic

    mutating func expression() throws -> MappingExpression {
        try nested { try $0.or() }
    }

    mutating func or() throws -> MappingExpression {
        var lhs = try and()
        while isKeyword("OR") || isSymbol("||") {
            try link()
            _ = advance()
            let rhs = try and()
            lhs = MappingExpression(.or(lhs, rhs), offset: lhs.offset)
        }
        return lhs
    }

    mutating func and() throws -> MappingExpression {
        var lhs = try not()
        while isKeyword("AND") || isSymbol("&&") {
            try link()
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
        var quantifierWord = ""
        for (word, value) in [("ANY", Comparison.Quantifier.any), ("SOME", .any), ("ALL", .all), ("NONE", .notAny)]
        where isKeyword(word) {
            _ = advance()
            quantifier = value
            quantifierWord = word
            break
        }
        let lhs = try additive()
        guard let op = comparisonOperator() else {
            if quantifier != nil {
                throw SyntaxError(
                    "\(quantifierWord) must be followed by a comparison, as in \(quantifierWord) tags.name == \"swift\"",
                    offset: current.offset)
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
            try link()
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
            try link()
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
}
