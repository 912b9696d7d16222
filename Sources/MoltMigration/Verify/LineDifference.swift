/// A readable difference between two texts: each run of lines that differ, as `-` (expected)
/// and `+` (actual) lines with two lines of context around it, at most a few runs.
struct LineDifference {
    let text: String

    /// Runs shown before "… and N more differing lines".
    static let runLimit = 5

    init(expected: String, actual: String) {
        let old = expected.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let new = actual.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let script = Self.script(old, new)
        var lines: [String] = []
        var runs = 0
        var index = 0
        var remaining = 0
        while index < script.count {
            guard case .same = script[index] else {
                var end = index
                while end < script.count, script[end].isChange { end += 1 }
                if runs < Self.runLimit {
                    let first = script[..<index].suffix(2)
                    lines += first.map(\.line)
                    lines += script[index..<end].map(\.line)
                    lines += script[end...].prefix(2).map(\.line)
                    lines.append("…")
                } else {
                    remaining += end - index
                }
                runs += 1
                index = end
                continue
            }
            index += 1
        }
        if remaining > 0 { lines.append("… and \(remaining) more differing lines") }
        text = lines.joined(separator: "\n")
    }

    enum Edit {
        case same(String), removed(String), added(String)

        var isChange: Bool {
            if case .same = self { return false }
            return true
        }

        var line: String {
            switch self {
            case .same(let text): "  " + text
            case .removed(let text): "- " + text
            case .added(let text): "+ " + text
            }
        }
    }

    /// The edit script of a longest common subsequence, computed on the lines between the
    /// common prefix and suffix (dumps of one store differ in few places). Past a bound, the
    /// middle is given as removed then added.
    static func script(_ old: [String], _ new: [String]) -> [Edit] {
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix,
            old[old.count - 1 - suffix] == new[new.count - 1 - suffix]
        {
            suffix += 1
        }
        let a = Array(old[prefix..<(old.count - suffix)])
        let b = Array(new[prefix..<(new.count - suffix)])
        var middle: [Edit] = []
        if a.count * b.count > 4_000_000 {
            middle = a.map { .removed($0) } + b.map { .added($0) }
        } else {
            // lengths[i][j]: the longest common subsequence of a[i...] and b[j...].
            var lengths = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
            for i in stride(from: a.count - 1, through: 0, by: -1) {
                for j in stride(from: b.count - 1, through: 0, by: -1) {
                    lengths[i][j] = a[i] == b[j] ? lengths[i + 1][j + 1] + 1 : max(lengths[i + 1][j], lengths[i][j + 1])
                }
            }
            var (i, j) = (0, 0)
            while i < a.count || j < b.count {
                if i < a.count, j < b.count, a[i] == b[j] {
                    middle.append(.same(a[i]))
                    i += 1
                    j += 1
                } else if i < a.count, j == b.count || lengths[i + 1][j] >= lengths[i][j + 1] {
                    middle.append(.removed(a[i]))
                    i += 1
                } else {
                    middle.append(.added(b[j]))
                    j += 1
                }
            }
        }
        return old[..<prefix].map { .same($0) } + middle + old[(old.count - suffix)...].map { .same($0) }
    }
}
