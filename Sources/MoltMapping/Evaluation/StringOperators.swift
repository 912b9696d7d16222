import Foundation

/// NSPredicate's string operators, with `[c]` and `[d]`: used by in-memory evaluation and, as
/// an SQL function, by filters translated to SQL, so both give the same answers.
enum StringOperators {
    /// Whether `text` relates to `pattern` by `op` (BEGINSWITH, ENDSWITH, CONTAINS, LIKE, MATCHES
    /// or ==). Throws for an invalid regular expression.
    static func test(
        _ op: Comparison.Operator, _ text: String, _ pattern: String, options: StringOptions
    ) throws -> Bool {
        let subject = options.fold(text)
        switch op {
        case .beginsWith: return subject.utf8.starts(with: options.fold(pattern).utf8)
        case .endsWith: return subject.utf8.reversed().starts(with: options.fold(pattern).utf8.reversed())
        case .contains: return options.fold(pattern).isEmpty || subject.contains(options.fold(pattern))
        case .like: return like(Array(subject.unicodeScalars), Array(options.fold(pattern).unicodeScalars))
        case .matches: return try matches(text, pattern, options: options)
        case .equal: return subject.utf8.elementsEqual(options.fold(pattern).utf8)
        case .notEqual: return !subject.utf8.elementsEqual(options.fold(pattern).utf8)
        default: return false
        }
    }

    /// LIKE: `*` matches any run of characters, `?` one character, `\` escapes the next.
    static func like(_ text: [Unicode.Scalar], _ pattern: [Unicode.Scalar]) -> Bool {
        // Iterative matching with one backtrack point for the last `*` (linear in practice).
        var t = 0
        var p = 0
        var starPattern = -1
        var starText = 0
        while t < text.count {
            if p < pattern.count {
                switch pattern[p] {
                case "*":
                    starPattern = p
                    starText = t
                    p += 1
                    continue
                case "?":
                    t += 1
                    p += 1
                    continue
                case "\\" where p + 1 < pattern.count:
                    if pattern[p + 1] == text[t] {
                        t += 1
                        p += 2
                        continue
                    }
                default:
                    if pattern[p] == text[t] {
                        t += 1
                        p += 1
                        continue
                    }
                }
            }
            guard starPattern >= 0 else { return false }
            p = starPattern + 1
            starText += 1
            t = starText
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }

    /// MATCHES: the whole string matches the ICU regular expression.
    static func matches(_ text: String, _ pattern: String, options: StringOptions) throws -> Bool {
        let regex = try RegexCache.shared.regex(pattern, caseInsensitive: options.contains(.caseInsensitive))
        let subject = options.contains(.diacriticInsensitive) ? StringOptions.diacriticInsensitive.fold(text) : text
        return try PatternBudget.matchesWhole(regex, subject, pattern: pattern)
    }
}

/// Compiled regular expressions by pattern, so a filter's pattern is compiled once.
final class RegexCache: @unchecked Sendable {
    static let shared = RegexCache()
    private let lock = NSLock()
    private var cache: [String: NSRegularExpression] = [:]

    func regex(_ pattern: String, caseInsensitive: Bool) throws -> NSRegularExpression {
        let key = (caseInsensitive ? "i:" : "s:") + pattern
        lock.lock()
        defer { lock.unlock() }
        if let cached = cache[key] { return cached }
        do {
            let regex = try NSRegularExpression(pattern: pattern, options: caseInsensitive ? [.caseInsensitive] : [])
            if cache.count > 256 { cache.removeAll() }
            cache[key] = regex
            return regex
        } catch {
            throw InvalidPattern(pattern: pattern)
        }
    }
}

/// A MATCHES pattern that is not a valid regular expression.
struct InvalidPattern: Error, CustomStringConvertible {
    let pattern: String
    var description: String { "\"\(pattern)\" is not a valid regular expression" }
}
