import Foundation
import MoltFuzzTargets
import Testing

/// Inputs the fuzzers found that once broke a promise, kept so the fixes stay fixed.
@Suite("Inputs found by fuzzing")
struct FoundByFuzzingTests {
    struct Found: Sendable, CustomTestStringConvertible {
        let target: FuzzTarget
        let input: Data
        let what: String
        var testDescription: String { "\(target.rawValue): \(what)" }
    }

    static let inputs: [Found] = [
        Found(
            target: .xml,
            input: Data(
                "<?xml version=\"1.0\" encoding=\"UTF-7\"?>\n<model>\n<entity name=\"A\u{11A}\"/>\n</model>\n".utf8),
            what: "a failed encoding conversion gave an error without a line"),
        Found(
            target: .expression,
            input: Data(base64Encoded: "Ir0AAAAAXwAAAAAAAADNnU4MDg4AAAAA/v9MDkUAAAADJQwODsTExA4ODg4OAAAAAFxcXFz/fiI=")!,
            what: "a combining mark after a \\u escape joined its last digit, so the printed string did not read back"),
        Found(
            target: .expression,
            input: Data(base64Encoded: "dGV4dCAhPSAiRlX//////9jYKB/Y2NjQ2NjYgADYBqN1/////////zE2NzYi")!,
            what: "a prepended character (U+0600) joined the closing quote or a backslash into one Character"),
        Found(
            target: .expression, input: Data([0x0D, 0x2D, 0x0A, 0xD9, 0x90]),
            what: "a name starting with a lone combining mark (U+0650) joined the minus printed before it"),
        Found(
            target: .expression, input: Data((String(repeating: "-", count: 150) + "0").utf8),
            what: "150 negations printed as -(-(…)), twice as deep as the parser accepts"),
    ]

    @Test("each input found by fuzzing now keeps the reader's promises", arguments: inputs)
    func found(_ found: Found) {
        #expect(found.target.run(found.input) == nil)
    }
}
