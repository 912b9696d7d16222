import Foundation
import MoltCore
import MoltTestSupport
import Testing

/// The committed corpus of hostile inputs: `Corpus/<kind>/<case>` files (or folders), and for
/// each kind an `expected.json` giving, per case, the exact error the case must produce.
///
/// An expectation names Core Data's error code, a substring of the message, the line and the
/// column (both `null` when the error has none), optionally the XML element and the end of
/// the file path the error names (by default the case itself). `"accepted": true` marks the
/// few cases that must be read without error (and without fetching anything).
struct Expectation: Decodable, Sendable, CustomStringConvertible {
    var code: Int?
    var message: String?
    var line: Int?
    var column: Int?
    var element: String?
    var file: String?
    var accepted: Bool?

    var description: String {
        if accepted == true { return "accepted" }
        return
            "\(code.map(String.init) ?? "?") at \(line.map(String.init) ?? "-"):\(column.map(String.init) ?? "-"): \(message ?? "")"
    }
}

/// One case of the corpus.
struct CorpusCase: Sendable, CustomTestStringConvertible {
    let kind: String
    let name: String
    let expectation: Expectation?

    var url: URL { Corpus.folder.appendingPathComponent(kind).appendingPathComponent(name) }
    var testDescription: String { "\(kind)/\(name)" }

    /// The input's bytes (for file cases).
    func data() throws -> Data { try Data(contentsOf: url) }
}

enum Corpus {
    static let folder = Fixtures.package("Tests/MoltHostileInputTests/Corpus")

    /// The cases of `kind`, in name order, each with its expectation (nil when expected.json
    /// has none: the completeness test then fails).
    static func cases(_ kind: String) -> [CorpusCase] {
        let expected = expectations(kind)
        let names =
            (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(kind).path)) ?? []
        return names.filter { $0 != "expected.json" && !$0.hasPrefix(".") }.sorted().map {
            CorpusCase(kind: kind, name: $0, expectation: expected[$0])
        }
    }

    static func expectations(_ kind: String) -> [String: Expectation] {
        let url = folder.appendingPathComponent(kind).appendingPathComponent("expected.json")
        guard let data = try? Data(contentsOf: url) else { return [:] }
        return (try? JSONDecoder().decode([String: Expectation].self, from: data)) ?? [:]
    }

    /// Checks that `error` is exactly what `expectation` says; `caseFile` is the path suffix
    /// the error must name unless the expectation gives another.
    static func check(
        _ error: (any Error)?, against expectation: Expectation?, caseFile: String,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        guard let expectation else {
            Issue.record(
                "no expectation in expected.json; the case gives: \(describe(error))", sourceLocation: sourceLocation)
            return
        }
        if expectation.accepted == true {
            #expect(
                error == nil, "expected the input to be accepted, got \(describe(error))",
                sourceLocation: sourceLocation)
            return
        }
        guard let error else {
            Issue.record("expected \(expectation), but the input was accepted", sourceLocation: sourceLocation)
            return
        }
        guard let molt = error as? MoltError else {
            Issue.record("expected a MoltError, got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
            return
        }
        let found = "found \(describe(molt))"
        #expect(molt.code.rawValue == expectation.code, "\(found)", sourceLocation: sourceLocation)
        if let message = expectation.message {
            #expect(molt.message.contains(message), "\(found)", sourceLocation: sourceLocation)
        }
        #expect(molt.location?.line == expectation.line, "\(found)", sourceLocation: sourceLocation)
        #expect(molt.location?.column == expectation.column, "\(found)", sourceLocation: sourceLocation)
        if let element = expectation.element {
            #expect(molt.location?.element == element, "\(found)", sourceLocation: sourceLocation)
        }
        let file = expectation.file ?? caseFile
        #expect(
            molt.location?.file.hasSuffix(file) == true, "the error should name …\(file); \(found)",
            sourceLocation: sourceLocation)
    }

    /// The error as the corpus records it, for messages (and for writing a new expectation).
    static func describe(_ error: (any Error)?) -> String {
        guard let error else { return "no error" }
        guard let molt = error as? MoltError else { return "\(type(of: error)): \(error)" }
        let line = molt.location?.line.map(String.init) ?? "null"
        let column = molt.location?.column.map(String.init) ?? "null"
        let element = molt.location?.element.map { ", \"element\": \"\($0)\"" } ?? ""
        let escaped = molt.message.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
            of: "\"", with: "\\\"")
        return
            "{ \"code\": \(molt.code.rawValue), \"message\": \"\(escaped)\", \"line\": \(line), \"column\": \(column)\(element) } in \(molt.location?.file ?? "no file")"
    }
}
