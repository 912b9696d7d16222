import Foundation
import MoltMapping
import Testing

/// `MATCHES` runs ICU's regular expressions, which can backtrack for ever; each evaluation has
/// a budget of steps and a stop check a run installs.
@Suite("MATCHES within a budget")
struct PatternBudgetTests {
    /// A pattern that backtracks exponentially on a run of `a` with no `b`.
    static let runaway = "(a+)+b"
    static let subject = String(repeating: "a", count: 40)

    static func matches(_ text: String, _ pattern: String) throws -> Bool {
        let compiled = try ExpressionCompiler.compile("$value MATCHES $pattern")
        let context = EvaluationContext(variables: ["value": .string(text), "pattern": .string(pattern)])
        return try compiled.test(context)
    }

    @Test("a pattern that backtracks without bound gives up with an error naming it")
    func runawayPatternGivesUp() throws {
        let started = Date()
        let error = #expect(throws: EvaluationError.self) { try Self.matches(Self.subject, Self.runaway) }
        #expect(error?.description.contains("MATCHES \"(a+)+b\" gave up after 20,000,000 steps") == true)
        #expect(error?.description.contains("a value of 40 characters") == true)
        // The budget is steps, not time; on this kind of machine it is a few seconds at most.
        #expect(Date().timeIntervalSince(started) < 30)
    }

    @Test("ordinary patterns over long values stay well within the budget")
    func ordinaryPatternsPass() throws {
        let long = String(repeating: "word ", count: 200_000) + "end"  // a megabyte
        #expect(try Self.matches(long, "(word )*end"))
        #expect(try Self.matches(long, ".*end"))
        #expect(try !Self.matches(long, ".*nothing"))
        #expect(try Self.matches("Ünïcödé 42", "\\w+ \\d{2}"))
        #expect(try !Self.matches("abc", "ab"))  // the whole value must match
    }

    @Test("a stop check ends a running match with its own error at its first progress report")
    func stopCheckEndsAMatch() throws {
        struct Stopped: Error {}
        let asked = Counter()
        #expect(throws: Stopped.self) {
            try PatternBudget.withStopCheck({
                asked.add()
                return Stopped()
            }) {
                _ = try Self.matches(Self.subject, Self.runaway)
            }
        }
        #expect(asked.value == 1)
        // Outside the scope, no stop check is left behind: the match runs to its end.
        #expect(try Self.matches("aaaaaaaaaaaaaaaa", Self.runaway) == false)
        #expect(asked.value == 1)
    }
}

final class Counter: @unchecked Sendable {
    private(set) var value = 0
    func add() { value += 1 }
}
