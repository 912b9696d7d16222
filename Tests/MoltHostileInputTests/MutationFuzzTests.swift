import Foundation
import MoltFuzzTargets
import Testing

/// The short fuzzing run of the normal suite: the repository's example files, mutated by
/// ``Mutator``, through every fuzz target (the same targets `Scripts/fuzz.sh` runs under
/// libFuzzer). Each target runs `MOLT_HOSTILE_ITERATIONS` mutated inputs (default: a number
/// sized to keep the whole run within a few seconds in a debug build); a failure prints the
/// input in base64 and the seed to replay it.
@Suite("Fuzzing the readers (short run)")
struct MutationFuzzTests {
    static let iterations = ProcessInfo.processInfo.environment["MOLT_HOSTILE_ITERATIONS"].flatMap(Int.init)

    /// Default iterations per target: the slow targets (schema validation, a store) run fewer.
    static func defaultIterations(_ target: FuzzTarget) -> Int {
        switch target {
        case .mapping, .predicate, .seed: 800
        case .model: 1500
        case .modelarchive: 1500
        default: 4000
        }
    }

    static func tokens(_ target: FuzzTarget) -> [String] {
        switch target {
        case .xml, .plist, .model, .mapping: Mutator.xmlTokens
        case .expression, .predicate: Mutator.expressionTokens
        case .seed: Mutator.jsonTokens
        case .bplist: ["bplist00", "\u{FF}", "\u{0}", "\u{D0}", "\u{AF}", "\u{5F}", "\u{6F}", "\u{13}"]
        case .inflate: ["\u{0}", "\u{1}", "\u{3}", "\u{5}", "\u{FF}", "\u{FF}\u{FF}", "\u{7F}"]
        case .modelarchive:
            ["bplist00", "\u{80}", "\u{1}", "\u{0}", "_P", "NSAttributeType", "NSMaxCount", "NSSuperentity", "$class"]
        case .transformable:
            ["bplist00", "\u{80}", "\u{1}", "\u{0}", "$class", "NS.objects", "NS.keys", "NS.base", "NSMutableArray"]
        }
    }

    @Test("mutated example inputs never break a reader's promises", arguments: FuzzTarget.allCases)
    func mutatedInputs(_ target: FuzzTarget) throws {
        let examples = target.exampleInputs()
        try #require(!examples.isEmpty, "the target has example inputs")
        for example in examples {
            #expect(target.run(example) == nil, "an example input itself")
        }
        let seed = UInt64(target.rawValue.utf8.reduce(5381) { $0 &* 33 &+ UInt64($1) })
        var mutator = Mutator(tokens: Self.tokens(target), pool: examples, seed: seed)
        let count = Self.iterations ?? Self.defaultIterations(target)
        var failures = 0
        for iteration in 0..<count {
            let input = mutator.mutate(examples[iteration % examples.count])
            if let problem = target.run(input) {
                failures += 1
                Issue.record(
                    "\(target.rawValue), seed \(seed), iteration \(iteration): \(problem)\ninput (base64): \(input.base64EncodedString())"
                )
                if failures >= 3 { return }
            }
        }
    }
}
