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
/// key         := name | #name | #"any name" | @count | @sum | @avg | @min | @max
/// ```
///
/// Keywords are case-insensitive; a key that is a keyword is written `#key`, and a key that is
/// not a plain name (`x]y`, `first name`) as a string after `#`: `#"x]y"`. Text longer than
/// ``maximumLength`` characters, nested deeper than ``maximumDepth`` or chaining more than
/// ``maximumLinks`` operators is refused.
public struct ExpressionParser {
    /// The longest text accepted, in characters.
    public var maximumLength = 100_000
    /// The deepest nesting accepted.
    public var maximumDepth = 200
    /// The most operators accepted in chains (`a + b + c` has two), all chains together: each
    /// makes the parsed tree one level deeper.
    public var maximumLinks = 2_000

    public init() {}

    /// Parses `text` as one expression (or predicate).
    public func parse(_ text: String) throws(SyntaxError) -> MappingExpression {
        try checkLength(text)
        var lexer = Lexer(text)
        return try parse(text, lexer: &lexer)
    }

    /// Parses a predicate written as `NSPredicate(format:)` takes one: `%@` (and `%d`, `%f`…)
    /// stand for the values of `arguments` in order, `%K` for a key path given as a string.
    /// Values are bound, never written into the text: the result reads each as a variable, and
    /// `variables` holds their values (pass them with the expression's other variables).
    ///
    /// ```swift
    /// let (predicate, variables) = try ExpressionParser().parse(
    ///     format: "%K == %@ AND age > %d", arguments: [.string("name"), .string("Ann"), .integer(30)])
    /// ```
    public func parse(
        format text: String, arguments: [ExpressionValue]
    ) throws(SyntaxError) -> (expression: MappingExpression, variables: [String: ExpressionValue]) {
        try checkLength(text)
        var lexer = Lexer(text, formatArguments: arguments)
        let expression = try parse(text, lexer: &lexer)
        guard lexer.formatArgumentsUsed == arguments.count else {
            throw SyntaxError(
                "the format has \(lexer.formatArgumentsUsed) placeholder\(lexer.formatArgumentsUsed == 1 ? "" : "s") but \(arguments.count) argument\(arguments.count == 1 ? " was" : "s were") given",
                offset: 0)
        }
        return (expression, Self.formatVariables(arguments))
    }

    /// The variables ``parse(format:arguments:)`` binds `arguments` to: for a format parsed
    /// once and used again with other values.
    public static func formatVariables(_ arguments: [ExpressionValue]) -> [String: ExpressionValue] {
        var variables: [String: ExpressionValue] = [:]
        for (index, argument) in arguments.enumerated() { variables[Lexer.formatVariable(index)] = argument }
        return variables
    }

    /// Refuses text longer than ``maximumLength`` characters before any work on it: at most
    /// that many characters are walked, and none when its UTF-8 length is within the limit.
    private func checkLength(_ text: String) throws(SyntaxError) {
        guard text.utf8.count > maximumLength,
            let limit = text.index(text.startIndex, offsetBy: maximumLength, limitedBy: text.endIndex),
            limit < text.endIndex
        else { return }
        throw SyntaxError(
            "the expression is more than \(maximumLength) characters long (\(text.utf8.count) bytes); at most \(maximumLength) are accepted",
            offset: 0)
    }

    private func parse(_ text: String, lexer: inout Lexer) throws(SyntaxError) -> MappingExpression {
        do {
            var parser = Parser(tokens: try lexer.tokens(), maximumDepth: maximumDepth, maximumLinks: maximumLinks)
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

/// Key-path collection operators.
public enum CollectionOperator: String, Sendable, CaseIterable {
    case count = "@count"
    case sum = "@sum"
    case average = "@avg"
    case minimum = "@min"
    case maximum = "@max"
}
