import Foundation
import MoltMapping
import MoltTestSupport
import Testing

@Suite("Parsing expressions and predicates")
struct ExpressionParserTests {
    func parse(_ text: String) throws -> MappingExpression {
        try ExpressionParser().parse(text)
    }

    func error(_ text: String) -> SyntaxError? {
        #expect(throws: SyntaxError.self) { try ExpressionParser().parse(text) }
    }

    @Test(
        "every construct parses and prints canonically",
        arguments: [
            ("42", "42"), ("-7", "-7"), ("1.5e3", "1500.0"), ("\"it's\"", "\"it's\""), ("'single'", "\"single\""),
            ("\"tab\\tand \\\"quote\\\" \\u00e9\"", "\"tab\\tand \\\"quote\\\" é\""),
            ("yes", "TRUE"), ("No", "FALSE"), ("NULL", "nil"), ("truepredicate", "TRUEPREDICATE"),
            ("$source.author.name", "$source.author.name"), ("title", "title"), ("#size", "#size"),
            ("tags.@count", "tags.@count"), ("{1, 'a', nil}", "{1, \"a\", nil}"), ("{}", "{}"),
            ("uppercase(title)", "uppercase(title)"), ("uppercase:(title)", "uppercase(title)"),
            ("CAST(700000000, 'NSDate')", "date(700000000)"), ("now()", "now()"),
            (
                "FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', 'M', $source.tags)",
                "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"M\", $source.tags)"
            ),
            ("TERNARY(count > 0, 'some', 'none')", "TERNARY(count > 0, \"some\", \"none\")"),
            ("tags[0]", "tags[0]"), ("tags[FIRST]", "tags[FIRST]"), ("tags[last]", "tags[LAST]"),
            ("tags[SIZE]", "tags[SIZE]"),
            ("1 + 2 * 3", "1 + 2 * 3"), ("(1 + 2) * 3", "(1 + 2) * 3"), ("2 ** 3 ** 2", "2 ** 3 ** 2"),
            ("(2 ** 3) ** 2", "(2 ** 3) ** 2"), ("a - (b - c)", "a - (b - c)"), ("-(a + b)", "-(a + b)"),
            ("- -x", "- -x"), ("-(-x)", "- -x"), ("- -1", "-(-1)"), ("-(-(1))", "- -(1)"),
            ("a = 1", "a == 1"), ("a <> 1", "a != 1"), ("a =< 1", "a <= 1"), ("a => 1", "a >= 1"),
            ("name beginswith[cd] 'x'", "name BEGINSWITH[cd] \"x\""), ("name LIKE[c] 'a*'", "name LIKE[c] \"a*\""),
            ("name MATCHES '[a-z]+'", "name MATCHES \"[a-z]+\""), ("x IN {1, 2}", "x IN {1, 2}"),
            ("x BETWEEN {1, 10}", "x BETWEEN {1, 10}"), ("ANY tags.name == 'swift'", "ANY tags.name == \"swift\""),
            ("SOME tags.name == 'swift'", "ANY tags.name == \"swift\""),
            ("NONE tags.name ENDSWITH 'x'", "NONE tags.name ENDSWITH \"x\""),
            ("ALL tags.name != nil", "ALL tags.name != nil"), ("a == 1 && b == 2 || !c", "a == 1 AND b == 2 OR NOT c"),
            ("a == 1 AND (b == 2 OR c == 3)", "a == 1 AND (b == 2 OR c == 3)"), ("NOT (a AND b)", "NOT (a AND b)"),
            ("status != \"deleted\" AND createdAt > $cutoff", "status != \"deleted\" AND createdAt > $cutoff"),
            ("(a == 1) == TRUE", "(a == 1) == TRUE"), ("uppercase(name).length", "uppercase(name).length"),
        ] as [(String, String)])
    func constructs(text: String, canonical: String) throws {
        let expression = try parse(text)
        #expect(expression.description == canonical)
        #expect(try parse(canonical) == expression, "the canonical text parses back to the same tree")
    }

    @Test("precedence: comparison binds looser than arithmetic, AND tighter than OR, NOT tighter than AND")
    func precedence() throws {
        guard case .or(let left, _) = try parse("a == 1 AND b == 2 OR c == 3").kind, case .and = left.kind else {
            Issue.record("AND should group before OR")
            return
        }
        guard case .comparison(let comparison) = try parse("a + 1 > b * 2").kind,
            case .arithmetic(.add, _, _) = comparison.lhs.kind, case .arithmetic(.multiply, _, _) = comparison.rhs.kind
        else {
            Issue.record("arithmetic should group before comparison")
            return
        }
        guard case .and(let negated, _) = try parse("NOT a AND b").kind, case .not = negated.kind else {
            Issue.record("NOT should apply to a only")
            return
        }
        #expect(try parse("-9223372036854775808") == MappingExpression(.constant(.integer(.min))))
    }

    @Test("offsets point at where each part starts")
    func offsets() throws {
        guard case .comparison(let comparison) = try parse("  title == $x").kind else {
            Issue.record("expected a comparison")
            return
        }
        #expect(comparison.lhs.offset == 2)
        #expect(comparison.rhs.offset == 11)
    }

    @Test(
        "every syntax error says what and where",
        arguments: [
            ("", 0, "ends too early"), ("a ==", 4, "ends too early"), ("(a == 1", 7, "expected \")\""),
            ("a == 1)", 6, "unexpected \")\" after"), ("'open", 0, "not closed"), ("a & b", 2, "unexpected character"),
            ("foo(1)", 0, "unknown function \"foo\""), ("length(a, b)", 0, "takes 1 argument"),
            ("jion(a, ',')", 0, "unknown function \"jion\"; did you mean \"join\"?"),
            ("nope(1)", 0, "TERNARY, FUNCTION, CAST)"),
            ("FUNCTION($manager, 'a:b:', 1)", 19, "takes 2 arguments, but 1 is given"),
            ("FUNCTION($manager)", 0, "FUNCTION takes a target"), ("TERNARY(a, b)", 0, "TERNARY takes"),
            ("CAST(a, 'NSColor')", 0, "CAST takes"), ("SUBQUERY(x, $y, $y == 1)", 0, "SUBQUERY is not supported"),
            ("a < b < c", 6, "cannot be chained"), ("ANY tags", 8, "must be followed by a comparison"),
            ("a.size", 2, "is a keyword"), ("a.@total", 2, "expected @count"), ("x BETWEEN {1}", 10, "two bounds"),
            ("a < [c] b", 4, "options apply only to string comparisons"), ("a BEGINSWITH[c]", 15, "ends too early"),
            ("99999999999999999999", 0, "does not fit"), ("1e999", 0, "not a finite number"),
            ("$", 0, "followed by a name"),
            ("'\\q'", 1, "unknown escape"), ("12abc", 2, "runs into a name"), ("a.", 2, "expected a key"),
        ] as [(String, Int, String)])
    func syntaxErrors(text: String, offset: Int, message: String) {
        let found = error(text)
        #expect(found?.offset == offset, "\(String(describing: found))")
        #expect(found?.message.contains(message) == true, "\(String(describing: found))")
    }

    @Test("a 10 MB expression is refused at once")
    func huge() {
        let text = String(repeating: "a + ", count: 2_500_000) + "a"
        var found: SyntaxError?
        let spent = ThreadCPUTime.measure { found = error(text) }
        #expect(found?.message.contains("at most 100000") == true)
        #expect(spent < .seconds(2), "took \(spent) of processor time")
    }

    @Test("deeply nested parentheses are refused, not a crash")
    func deepParentheses() {
        for text in [
            String(repeating: "(", count: 5000) + "a" + String(repeating: ")", count: 5000),
            String(repeating: "NOT ", count: 5000) + "a", String(repeating: "-", count: 5000) + "1",
            String(repeating: "{", count: 5000), String(repeating: "2 ** ", count: 5000) + "2",
        ] {
            let found = error(text)
            #expect(found?.message.contains("nested more than") == true, "\(String(describing: found))")
        }
    }

    @Test("long flat expressions within the limits parse")
    func longFlat() throws {
        let text = (0..<2000).map { "a\($0) == \($0)" }.joined(separator: " OR ")
        let expression = try parse(text)
        #expect(try parse(expression.description) == expression)
    }
}
