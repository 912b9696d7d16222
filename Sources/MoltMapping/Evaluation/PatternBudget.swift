internal import Foundation

/// How much work one `MATCHES` may do, and how a run stops one that is under way.
///
/// A regular expression can backtrack for longer than any store is worth (`(a+)+b` over a
/// string of 30 `a`), and ICU, which runs `MATCHES` here as in Core Data, does not stop on its
/// own. So each match reports progress every 10,000 of ICU's steps (its match callback, as
/// `NSRegularExpression`'s `reportProgress` gives it) and gives up past ``stepLimit`` with
/// ``PatternTooCostly``, an error naming the pattern and the size of the value, which the
/// caller names with the mapping and the object. A run installs a stop check for its thread
/// (``withStopCheck(_:_:)``), so a cancelled run leaves a long match within milliseconds.
public enum PatternBudget {
    /// ICU's steps between two progress reports (its `TIMER_INITIAL_VALUE`).
    public static let stepsPerReport = 10_000
    /// The most steps one evaluation may take: 20 million, a fraction of a second on a small
    /// machine, while an ordinary pattern over a value of a megabyte takes a few million.
    public static let stepLimit = 20_000_000

    /// Runs `body` with `stop` asked at every progress report of every `MATCHES` it runs on
    /// this thread (SQLite calls Molt's `MATCHES` on the thread that steps the statement); a
    /// non-nil answer ends the match with that error.
    public static func withStopCheck<T>(_ stop: @escaping () -> (any Error)?, _ body: () throws -> T) rethrows -> T {
        let key = Self.threadKey
        let dictionary = Thread.current.threadDictionary
        let previous = dictionary[key]
        dictionary[key] = StopCheck(stop)
        defer { dictionary[key] = previous }
        return try body()
    }

    /// Whether `regex` matches all of `subject`, within the budget.
    static func matchesWhole(_ regex: NSRegularExpression, _ subject: String, pattern: String) throws -> Bool {
        let range = NSRange(subject.startIndex..., in: subject)
        let stop = Thread.current.threadDictionary[threadKey] as? StopCheck
        var reports = 0
        var failure: (any Error)?
        var whole = false
        let limit = stepLimit / stepsPerReport
        regex.enumerateMatches(in: subject, options: [.anchored, .reportProgress], range: range) {
            result, flags, halt in
            if let result {
                whole = result.range == range
                halt.pointee = true
                return
            }
            guard flags.contains(.progress) else { return }
            reports += 1
            if let error = stop?.check() {
                failure = error
                halt.pointee = true
            } else if reports > limit {
                failure = PatternTooCostly(pattern: pattern, length: subject.utf16.count)
                halt.pointee = true
            }
        }
        if let failure { throw failure }
        return whole
    }

    private static let threadKey = "molt.pattern-stop-check"

    private final class StopCheck {
        let check: () -> (any Error)?
        init(_ check: @escaping () -> (any Error)?) { self.check = check }
    }
}

/// A `MATCHES` that took more than ``PatternBudget/stepLimit`` steps on one value.
public struct PatternTooCostly: Error, CustomStringConvertible {
    public let pattern: String
    /// The value's length in UTF-16 code units (what ICU walks).
    public let length: Int

    public var description: String {
        "MATCHES \"\(pattern)\" gave up after \(PatternBudget.stepLimit.formatted()) steps on a value of "
            + "\(length.formatted()) characters: the pattern backtracks without bound on it. Rewrite it so each "
            + "character can be matched one way only (for example `a+b` instead of `(a+)+b`), or use a "
            + "possessive quantifier (`(a++)+b`)."
    }
}
