import Foundation
import MoltCore
import MoltTestSupport
import Testing

@testable import MoltStore

@Suite("JSON parsing")
struct JSONParserTests {
    func parse(_ text: String) throws -> JSONNode {
        try JSONParser().parse(Data(text.utf8), file: "seed.json")
    }

    @Test("values, escapes, surrogate pairs and exact number text")
    func values() throws {
        let node = try parse(
            #"{"a": [true, false, null, -0.5e+3, 12345678901234567890], "s": "q\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"}"#)
        guard case .object(let members) = node.kind else {
            Issue.record("expected an object")
            return
        }
        #expect(members.map(\.key) == ["a", "s"], "keys keep file order")
        #expect(
            members[0].value.kind
                == .array([
                    JSONNode(.bool(true), line: 1), JSONNode(.bool(false), line: 1), JSONNode(.null, line: 1),
                    JSONNode(.number("-0.5e+3"), line: 1), JSONNode(.number("12345678901234567890"), line: 1),
                ]))
        #expect(members[1].value.stringValue == "q\"\\/\u{08}\u{0C}\n\r\té😀")
    }

    @Test("lines are tracked for values")
    func lines() throws {
        let node = try parse("{\n  \"a\": 1,\n\n  \"b\": [\n    2\n  ]\n}")
        guard case .object(let members) = node.kind, case .array(let items) = members[1].value.kind else {
            Issue.record("unexpected shape")
            return
        }
        #expect(members[0].value.line == 2)
        #expect(members[1].value.line == 4)
        #expect(items[0].line == 5)
    }

    @Test(
        "syntax errors give line and column",
        arguments: [
            ("{\n  \"a\": 1,,\n}", 2, "expected a key"),
            ("[1, 2", 1, "unexpected end"),
            ("{\"a\": 01}", 1, "leading zeros"),
            ("{\"a\": \"x\ny\"}", 1, "control character"),
            ("{\"a\": 1, \"a\": 2}", 1, "appears twice"),
            ("\"\\ud800\"", 1, "surrogate"),
            ("[1] 2", 1, "after the JSON value"),
            ("{\"a\": tru}", 1, "expected true"),
            ("\"\\q\"", 1, "invalid escape"),
        ] as [(String, Int, String)])
    func syntaxErrors(text: String, line: Int, message: String) {
        let error = #expect(throws: MoltError.self) { try parse(text) }
        #expect(error?.location?.line == line)
        #expect(error?.location?.column != nil)
        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
    }

    @Test("deep nesting is refused, not a stack overflow")
    func deepNesting() {
        let text = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let error = #expect(throws: MoltError.self) { try parse(text) }
        #expect(error?.message.contains("nesting") == true)
    }

    @Test("random text is parsed as Foundation parses it, or refused with an error naming its line")
    func randomText() throws {
        var generator = SplitMix(seed: 20_261_128)
        let alphabet = Array("{}[]:,\"\\0123456789.-+eEtrufalsn \n\tuD8".utf8)
        var accepted = 0
        for _ in 0..<3000 {
            let length = Int.random(in: 0..<40, using: &generator)
            let bytes = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
            let lines = bytes.filter { $0 == UInt8(ascii: "\n") }.count + 1
            do {
                _ = try JSONParser().parse(Data(bytes), file: "fuzz.json")
                accepted += 1
                // What Molt accepts is JSON: Foundation's parser accepts it too.
                #expect(
                    (try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)) != nil,
                    "\(String(decoding: bytes, as: UTF8.self))")
            } catch let error as MoltError {
                let line = try #require(error.location?.line, "\(error)")
                #expect((1...lines).contains(line), "\(error) in \(lines) lines")
            }
        }
        #expect(accepted > 20, "the alphabet should make some valid documents")
    }
}

@Suite("Dates in JSON")
struct ISODateTests {
    @Test("whole seconds and milliseconds round-trip exactly")
    func roundTrip() throws {
        for seconds in [0.0, -1.5, 86_400.25, 738_000_000.125, -978_307_200, 252_460_800.999] {
            let text = try #require(ISODate.format(secondsSinceReference: seconds))
            #expect(ISODate.parse(text) == seconds, "\(text)")
        }
        #expect(ISODate.format(secondsSinceReference: 0) == "2001-01-01T00:00:00Z")
        #expect(ISODate.format(secondsSinceReference: -978_307_200) == "1970-01-01T00:00:00Z")
        #expect(ISODate.format(secondsSinceReference: 5_097_600.5) == "2001-03-01T00:00:00.500Z")
    }

    @Test("values that text would not keep exactly have no text form")
    func inexact() {
        #expect(ISODate.format(secondsSinceReference: 0.0001) == nil)
        #expect(ISODate.format(secondsSinceReference: .nan) == nil)
        #expect(ISODate.format(secondsSinceReference: 1e18) == nil)
    }

    @Test("leap days are dates; impossible dates are not")
    func calendar() {
        #expect(ISODate.parse("2024-02-29T00:00:00Z") != nil)
        #expect(ISODate.parse("2023-02-29T00:00:00Z") == nil)
        #expect(ISODate.parse("2000-02-29T12:00:00+00:00") != nil)
        #expect(ISODate.parse("1900-02-29T00:00:00Z") == nil)
        #expect(ISODate.parse("2024-13-01T00:00:00Z") == nil)
        #expect(ISODate.parse("2024-01-01 00:00:00Z") == nil)
        #expect(ISODate.parse("2024-01-01T00:00:00") == nil, "a time zone is required")
        #expect(ISODate.parse("2024-01-01T00:00:00.1234Z") == nil)
    }
}
