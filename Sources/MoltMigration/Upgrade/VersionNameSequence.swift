/// The order of model versions when their names make it obvious, and only then.
///
/// Xcode names the versions it adds `Name`, `Name 2`, `Name 3`, … (the first has no number),
/// and teams that name versions themselves mostly use one stem and a number (`v1` … `v75`,
/// `Model1` … `Model3`, `App-v1` …). No file records the order besides these names, so Molt
/// reads them, but only when there is one way to read them:
///
/// - every name is one shared stem followed by a number (its trailing digits), except at most
///   one name that is the stem alone, or the stem without a trailing separator (`App` beside
///   `App 2`), which comes first;
/// - the numbers are all different (`v1` and `v01` are the same number: not obvious).
///
/// Anything else (two stems, names without numbers, `Model 1.9` beside `Model 2.0`) is no
/// obvious order: an upgrade then asks for `versions.txt` where it needs the order.
///
/// ```swift
/// VersionNameSequence(["App 3", "App", "App 2"])?.names   // ["App", "App 2", "App 3"]
/// VersionNameSequence(["v10", "v9"])?.kind               // .numbered
/// VersionNameSequence(["Alpha", "Beta"])                  // nil
/// ```
public struct VersionNameSequence: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// Xcode's own sequence: `Name`, `Name 2`, `Name 3`, ….
        case xcode
        /// One stem with numbers: `v1`, `v2`, …, or `Model1`, `Model2`, ….
        case numbered
    }

    /// The names, oldest first.
    public let names: [String]
    public let kind: Kind

    /// The obvious order of `names`, or nil when the names do not make one obvious.
    public init?(_ names: [String]) {
        if names.count <= 1 {
            (self.names, kind) = (names, .numbered)
            return
        }
        var numbered: [(number: Int, name: String)] = []
        var stems: Set<String> = []
        var unnumbered: [String] = []
        for name in names {
            let digits = name.reversed().prefix { $0.isASCII && $0.isNumber }
            // More than 18 digits would not fit an Int: such a name is no version number.
            guard digits.count <= 18 else { return nil }
            guard !digits.isEmpty, let number = Int(String(digits.reversed())) else {
                unnumbered.append(name)
                continue
            }
            numbered.append((number, name))
            stems.insert(String(name.dropLast(digits.count)))
        }
        guard stems.count <= 1, unnumbered.count <= 1 else { return nil }
        guard Set(numbered.map(\.number)).count == numbered.count else { return nil }
        let stem = stems.first
        if let first = unnumbered.first {
            // The stem alone is the first version; any other name without a number is not
            // part of a sequence.
            guard let stem, first == stem || first == Self.trimmingSeparators(stem) else { return nil }
        }
        self.names = unnumbered + numbered.sorted { $0.number < $1.number }.map(\.name)
        let xcodeLike = stem.map { $0.hasSuffix(" ") && !$0.dropLast().isEmpty } ?? false
        kind = xcodeLike && (unnumbered.count == 1 || (numbered.map(\.number).min() ?? 0) >= 2) ? .xcode : .numbered
    }

    /// "Xcode's sequence (App, App 2, …, App 4)", "one stem with numbers (v1, v2, …, v75)".
    public var description: String {
        let shown =
            names.count <= 3
            ? names.joined(separator: ", ") : "\(names[0]), \(names[1]), …, \(names[names.count - 1])"
        switch kind {
        case .xcode: return "Xcode's sequence (\(shown))"
        case .numbered: return "one stem with numbers (\(shown))"
        }
    }

    static func trimmingSeparators(_ stem: String) -> String {
        var trimmed = Substring(stem)
        while let last = trimmed.last, [" ", "-", "_", "."].contains(last) { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }
}
