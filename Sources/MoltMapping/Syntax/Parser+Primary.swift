/// Postfix operators (keys, indexes) and primary expressions: literals, variables, key paths,
/// parentheses, aggregates and function calls.
extension Parser {
    mutating func postfix() throws -> MappingExpression {
        try postfixes(after: try primary())
    }

    mutating func postfixes(after base: MappingExpression) throws -> MappingExpression {
        var result = base
        while true {
            if isSymbol(".") || isSymbol("[") { try link() }
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
                // The forms the parser reads itself are functions to a writer too.
                let forms = ["TERNARY", "FUNCTION", "CAST"]
                let known = (BuiltinFunction.allCases.map(\.rawValue) + forms).joined(separator: ", ")
                let hint = Suggestions.didYouMean(name, in: BuiltinFunction.allCases.map(\.rawValue) + forms)
                throw SyntaxError(
                    "unknown function \"\(name)\"\(hint) (built-in functions: \(known))", offset: token.offset)
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
