import Foundation
import MoltMapping
import MoltTestSupport
import Testing

@Suite("Fuzzing the expression language")
struct ExpressionFuzzTests {
    static let fragments = [
        "(", ")", "{", "}", "[", "]", ",", ".", ":", "@count", "$source", "$x", "a", "b.c", "#size", "'s'", "\"t\\\"\"",
        "1", "-2", "3.5e2", "+", "-", "*", "/", "**", "==", "!=", "<", "<=", ">", ">=", "=", "<>", "AND", "OR", "NOT",
        "!",
        "&&", "||", "ANY", "ALL", "NONE", "IN", "BETWEEN", "BEGINSWITH", "CONTAINS[cd]", "LIKE", "MATCHES",
        "TRUEPREDICATE",
        "nil", "YES", "FUNCTION(", "TERNARY(", "CAST(", "uppercase(", "now()", "[FIRST]", "[SIZE]", "SUBQUERY(", " ",
        "\u{0}", "é",
    ]

    /// How many random cases each test runs: 20,000 by default, more with
    /// `MOLT_FUZZ_ITERATIONS` (for example 1000000 for a long local run).
    static let iterations = ProcessInfo.processInfo.environment["MOLT_FUZZ_ITERATIONS"].flatMap(Int.init) ?? 20_000

    @Test("random text never crashes the parser, and what parses prints back to itself")
    func randomText() {
        var generator = SplitMix(seed: 20_261_121)
        var parsed = 0
        for _ in 0..<Self.iterations {
            let count = Int.random(in: 1...12, using: &generator)
            let text = (0..<count).map { _ in Self.fragments.randomElement(using: &generator)! }.joined(separator: " ")
            guard let expression = try? ExpressionParser().parse(text) else { continue }
            parsed += 1
            let printed = expression.description
            #expect((try? ExpressionParser().parse(printed)) == expression, "\(text) → \(printed)")
        }
        #expect(parsed > 500, "the generator should produce some valid expressions")
    }

    @Test("random bytes are refused at an offset inside the text, or parse to what prints back to itself")
    func randomBytes() {
        var generator = SplitMix(seed: 7)
        var parsed = 0
        for _ in 0..<(Self.iterations / 4) {
            let bytes = (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            let text = String(decoding: bytes, as: UTF8.self)
            do {
                let expression = try ExpressionParser().parse(text)
                parsed += 1
                #expect((try? ExpressionParser().parse(expression.description)) == expression, "\(text)")
            } catch {
                #expect((0...text.count).contains(error.offset), "\(error) in \(text.count) characters")
                #expect(!error.message.isEmpty)
            }
        }
        #expect(parsed > 0, "some random texts are expressions (a lone name or number)")
    }

    /// A random expression tree of at most `depth` levels.
    static func tree(_ depth: Int, _ generator: inout SplitMix) -> MappingExpression {
        let leaf = depth <= 0 || Int.random(in: 0..<4, using: &generator) == 0
        if leaf {
            switch Int.random(in: 0..<7, using: &generator) {
            case 0: return MappingExpression(.constant(.integer(Int64.random(in: -1000...1000, using: &generator))))
            case 1:
                return MappingExpression(.constant(.double(Double(Int.random(in: -99...99, using: &generator)) / 4)))
            case 2:
                return MappingExpression(
                    .constant(.string(["", "a\"b", "line\nbreak", "é ✓", "\\"].randomElement(using: &generator)!)))
            case 3:
                return MappingExpression(
                    .constant([.null, .bool(true), .bool(false)].randomElement(using: &generator)!))
            case 4: return MappingExpression(.variable(["source", "x", "cutoff"].randomElement(using: &generator)!))
            case 5:
                return MappingExpression(
                    .keyPath(
                        base: nil,
                        components: ["a", "size", "@count", "in"].shuffled(using: &generator).prefix(
                            Int.random(in: 1...2, using: &generator)
                        ).filter { $0 != "@count" } + ["b"]))
            default: return MappingExpression([.truePredicate, .falsePredicate].randomElement(using: &generator)!)
            }
        }
        let child = { (generator: inout SplitMix) in tree(depth - 1, &generator) }
        switch Int.random(in: 0..<11, using: &generator) {
        case 0:
            return MappingExpression(
                .arithmetic(
                    ArithmeticOperator.allCases.randomElement(using: &generator)!, child(&generator), child(&generator))
            )
        case 1: return MappingExpression(.negate(child(&generator)))
        case 2:
            let op = Comparison.Operator.allCases.randomElement(using: &generator)!
            let rhs =
                op == .between
                ? MappingExpression(.aggregate([child(&generator), child(&generator)])) : child(&generator)
            return MappingExpression(
                .comparison(
                    Comparison(
                        op, child(&generator), rhs,
                        caseInsensitive: op.takesStringOptions && Bool.random(using: &generator),
                        diacriticInsensitive: op.takesStringOptions && Bool.random(using: &generator),
                        quantifier: [nil, .any, .all, .notAny].randomElement(using: &generator)!)))
        case 3: return MappingExpression(.and(child(&generator), child(&generator)))
        case 4: return MappingExpression(.or(child(&generator), child(&generator)))
        case 5: return MappingExpression(.not(child(&generator)))
        case 6:
            return MappingExpression(
                .function(name: ["uppercase", "concat", "now"].randomElement(using: &generator)!, arguments: [])
            )
            .withArguments(&generator, depth)
        case 7:
            return MappingExpression(
                .ternary(condition: child(&generator), then: child(&generator), otherwise: child(&generator)))
        case 8:
            return MappingExpression(
                .aggregate((0..<Int.random(in: 0...3, using: &generator)).map { _ in child(&generator) }))
        case 9:
            return MappingExpression(.keyPath(base: MappingExpression(.variable("source")), components: ["a", "b"]))
        default:
            return MappingExpression(
                .index(
                    child(&generator),
                    [.first, .last, .size, .position(child(&generator))].randomElement(using: &generator)!))
        }
    }

    @Test("random trees print as text that parses back to the same tree")
    func randomTrees() throws {
        var generator = SplitMix(seed: 42)
        for _ in 0..<(Self.iterations / 4) {
            let expression = Self.tree(5, &generator)
            let printed = expression.description
            let reparsed = try ExpressionParser().parse(printed)
            #expect(reparsed == expression, "\(printed)")
            #expect(reparsed.description == printed)
        }
    }
}

extension MappingExpression {
    /// Gives a random function call a fitting number of arguments.
    func withArguments(_ generator: inout SplitMix, _ depth: Int) -> MappingExpression {
        guard case .function(let name, _) = kind else { return self }
        let count = name == "now" ? 0 : (name == "uppercase" ? 1 : Int.random(in: 1...3, using: &generator))
        return MappingExpression(
            .function(name: name, arguments: (0..<count).map { _ in ExpressionFuzzTests.tree(depth - 1, &generator) }))
    }
}
