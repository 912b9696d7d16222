/// "Did you mean …?" for misspelled names: of properties, entities and functions in mapping
/// files, and of policies (``/MoltMigration/PolicyRegistry`` uses it too, hence `package`).
package enum Suggestions {
    /// "; did you mean "X"?" for the candidate nearest `name`, or "" when none is near.
    package static func didYouMean(_ name: String, in candidates: [String]) -> String {
        let scored = candidates.map { ($0, distance(name.lowercased(), $0.lowercased())) }.filter {
            $0.1 <= max(2, name.count / 3)
        }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return "" }
        return "; did you mean \"\(best.0)\"?"
    }

    /// Levenshtein distance.
    package static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a)
        let y = Array(b)
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var previous = Array(0...y.count)
        for i in 1...x.count {
            var current = [i] + Array(repeating: 0, count: y.count)
            for j in 1...y.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[y.count]
    }
}
