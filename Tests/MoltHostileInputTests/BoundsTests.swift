import Foundation
import MoltCore
import MoltFuzzTargets
import MoltMapping
import MoltModel
import MoltStore
import MoltTestSupport
import Testing

/// Inputs made to exhaust time, stack or memory are refused quickly, with a clear error.
@Suite("Huge and deeply nested inputs")
struct BoundsTests {
    /// Runs `body` and returns the processor time it took, in seconds (not wall-clock time,
    /// which also counts whatever else a busy machine runs).
    static func timed(_ body: () throws -> Void) rethrows -> Double {
        let spent = try ThreadCPUTime.measure(body)
        return Double(spent.components.seconds) + Double(spent.components.attoseconds) * 1e-18
    }

    @Test("a model file over 64 MB is refused without being read")
    func hugeModelFile() throws {
        let folder = TemporaryDirectory("molt-hostile-bounds")
        let url = folder.path("contents")
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: 70 * 1024 * 1024)  // sparse: nothing is written
        try handle.close()
        var error: MoltError?
        let seconds = Self.timed { error = #expect(throws: MoltError.self) { try ModelLoader().load(at: url) } }
        #expect(error?.code == .fileReadCorruptFile)
        #expect(error?.message == "the file is 73400320 bytes, more than the 67108864 accepted")
        #expect(seconds < 1)
    }

    @Test("a 50 MB model whose text is one huge node is refused by the XML limits")
    func hugeTextNode() throws {
        let text = String(repeating: "a", count: 50 * 1024 * 1024)
        let document = ModelXML.document("<entity name=\"A\"><userInfo>\(text)</userInfo></entity>")
        let error = #expect(throws: MoltError.self) {
            try XcodeModelReader().read(Data(document.utf8), file: "huge/contents")
        }
        #expect(error?.code == .fileReadCorruptFile)
        // libxml2 stops at its own limit, which is the one Molt sets (10 MB), as it reads.
        #expect(error?.message == "a text or attribute value is more than the 10485760 bytes accepted")
        #expect(error?.location?.line == 3)
    }

    @Test("a million nested elements stop at libxml2's depth limit")
    func deepXML() {
        let depth = 1_000_000
        let document = ModelXML.document(
            String(repeating: "<e>", count: depth) + String(repeating: "</e>", count: depth))
        var error: MoltError?
        let seconds = Self.timed {
            error = #expect(throws: MoltError.self) { try XcodeModelReader().read(Data(document.utf8), file: "deep") }
        }
        #expect(error?.message == "malformed XML: the document exceeds the maximum depth of 256 nested elements")
        #expect(error?.location?.line == 3)
        #expect(seconds < 5)
    }

    @Test("100,000 opening parentheses are refused without overflowing the stack")
    func deepExpression() {
        let text = String(repeating: "(", count: 100_000)
        #expect(throws: SyntaxError("the expression is nested more than 200 levels deep", offset: 200)) {
            try ExpressionParser().parse(text)
        }
        #expect(throws: SyntaxError.self) {
            try ExpressionParser().parse(String(repeating: "NOT ", count: 24_999) + "x")
        }
        #expect(throws: SyntaxError.self) { try ExpressionParser().parse(String(repeating: "-", count: 99_999) + "x") }
        #expect(throws: SyntaxError.self) { try ExpressionParser().parse(String(repeating: "{", count: 100_000)) }
    }

    @Test("an expression over 100,000 characters is refused before it is read")
    func longExpression() {
        let text = "'" + String(repeating: "x", count: 100_000) + "'"
        #expect(
            throws: SyntaxError(
                "the expression is more than 100000 characters long (100002 bytes); at most 100000 are accepted",
                offset: 0)
        ) {
            try ExpressionParser().parse(text)
        }
        // The limit counts characters, not bytes: 60,000 two-byte characters are within it.
        let accented = "'" + String(repeating: "é", count: 60_000) + "'"
        #expect(accented.utf8.count > 100_000)
        #expect(throws: Never.self) { try ExpressionParser().parse(accented) }
    }

    @Test("long flat chains (a + a + …, a AND a AND …, a.k.k…) stop at 2,000 operators")
    func longChains() throws {
        for separator in [" + ", " AND ", " || ", " * ", ".k", "[0]"] {
            let operand = separator.hasPrefix(".") || separator.hasPrefix("[") ? "" : "a"
            // 2,000 operators parse, and the tree prints, compares, runs as a filter and is released safely.
            let accepted = "a" + String(repeating: separator + operand, count: 2_000)
            let expression = try ExpressionParser().parse(accepted)
            #expect(try ExpressionParser().parse(expression.description) == expression)
            #expect(FuzzTarget.predicate.run(Data(accepted.utf8)) == nil)
            // 99,000 characters of them are refused at the 2,001st operator.
            let count = 99_000 / (separator.count + operand.count)
            let refused = "a" + String(repeating: separator + operand, count: count)
            #expect(throws: SyntaxError.self) { try ExpressionParser().parse(refused) }
            do {
                _ = try ExpressionParser().parse(refused)
            } catch {
                #expect(
                    error.message
                        == "the expression chains more than 2000 operators; split it (or use IN for a list of values)")
                #expect(
                    error.offset == 1 + 2_000 * (separator.count + operand.count) + (separator.hasPrefix(" ") ? 1 : 0))
            }
        }
    }

    @Test("the deepest tree the limits allow (2,000 operators inside 190 parentheses) is safe to walk")
    func deepestTree() throws {
        let text =
            String(repeating: "(", count: 190) + "a" + String(repeating: " OR a", count: 1_999)
            + String(repeating: ")", count: 190) + " AND b"
        let expression = try ExpressionParser().parse(text)
        #expect(try ExpressionParser().parse(expression.description) == expression)
        #expect(FuzzTarget.predicate.run(Data(text.utf8)) == nil)
    }

    @Test("a seed nested a million levels deep is refused at 256 levels")
    func deepSeed() {
        let text =
            "{\"entities\": " + String(repeating: "[", count: 1_000_000) + String(repeating: "]", count: 1_000_000)
            + "}"
        do {
            _ = try JSONParser().parse(Data(text.utf8), file: "deep.json")
            Issue.record("a million levels of nesting were accepted")
        } catch let error as MoltError {
            #expect(error.message == "invalid JSON: nesting deeper than 256 levels")
            #expect(error.location == SourceLocation(file: "deep.json", line: 1, column: 270))
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test("a binary property list nested deeper than 512 levels is refused")
    func deepPropertyList() {
        var list = PropertyList.array([])
        for _ in 0..<600 { list = .array([list]) }
        let data = BinaryPropertyListWriter().write(list)
        let error = #expect(throws: MoltError.self) { try BinaryPropertyListReader().read(data, name: "deep") }
        #expect(error?.message == "deep is not a valid binary property list: it nests deeper than 512 levels")
    }
}
