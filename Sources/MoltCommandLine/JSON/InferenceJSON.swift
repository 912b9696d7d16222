import Molt

/// `infer --json`: one pair of versions, or with `--each-version` every consecutive pair.
struct InferenceJSON: Encodable {
    struct Pair: Encodable {
        let from: String?
        let to: String?
        let inferred: Bool
        /// Why the mapping cannot be inferred.
        let reasons: [String]
        /// The inferred mapping file's text (one pair only).
        let mapping: String?
        /// Where it was written, with `-o`.
        let file: String?
    }

    let pairs: [Pair]
    /// Whether every pair infers (the exit code is then 0, else 4).
    let inferred: Bool

    init(pairs: [Pair]) {
        self.pairs = pairs
        inferred = pairs.allSatisfy(\.inferred)
    }
}
