import Foundation
import MoltCore
import MoltMapping
import MoltTestSupport
import Testing

/// Hostile expressions and predicates: each case of `Corpus/expressions` is written as an
/// attribute's value, and each case of `Corpus/predicates` as a filter, into a mapping file
/// from `Blog` to `Blog 2` (``MappingFile``); the file is read and checked as in
/// ``MappingCorpusTests``. Lines and columns are those of the written file: an expression
/// starts on line 4, column 41; a filter on line 4, column 17. A syntax error must also be
/// the one the parser gives for the bare text, at the same place.
@Suite("Hostile expressions and predicates")
struct ExpressionCorpusTests {
    static let expressions = Corpus.cases("expressions")
    static let predicates = Corpus.cases("predicates")

    @Test("each hostile expression gives its exact error", arguments: expressions)
    func hostileExpression(_ corpusCase: CorpusCase) throws {
        try run(corpusCase, asFilter: false)
    }

    @Test("each hostile predicate gives its exact error", arguments: predicates)
    func hostilePredicate(_ corpusCase: CorpusCase) throws {
        try run(corpusCase, asFilter: true)
    }

    func run(_ corpusCase: CorpusCase, asFilter: Bool) throws {
        let text = String(decoding: try corpusCase.data(), as: UTF8.self)
        let folder = TemporaryDirectory("molt-hostile-expression")
        let name = corpusCase.name.replacingOccurrences(of: ".txt", with: ".xml")
        let url = try folder.write(MappingFile.embedding(text, asFilter: asFilter), to: name)
        let readerError = MappingCorpusTests.firstError(url)
        Corpus.check(readerError, against: corpusCase.expectation, caseFile: name)

        // The reader's syntax error is the parser's, placed in the file.
        do {
            _ = try ExpressionParser().parse(text)
        } catch {
            // Text that is not well-formed inside XML (a control character) never reaches the parser.
            guard let molt = readerError as? MoltError, molt.message.hasPrefix("syntax error") else { return }
            #expect(molt.message == "syntax error: \(error.message)")
            let (line, column) = MappingFile.position(ofOffset: error.offset, in: text, asFilter: asFilter)
            #expect(molt.location?.line == line && molt.location?.column == column, "\(molt)")
        }
    }

    @Test("every expression and predicate case has an expectation and every expectation a case")
    func complete() {
        for (kind, cases) in [("expressions", Self.expressions), ("predicates", Self.predicates)] {
            let names = Set(cases.map(\.name))
            #expect(names.count >= 14)
            #expect(Set(Corpus.expectations(kind).keys) == names, "\(kind)")
        }
    }
}

/// Writes expression text into a mapping file at a known place.
enum MappingFile {
    static let attributePrefix = "        <attribute name=\"handle\" value=\""
    static let filterPrefix = "        <filter>"

    static func embedding(_ text: String, asFilter: Bool) -> String {
        let escaped = escape(text)
        let body =
            asFilter
            ? """
                <entity-mapping name="CommentToComment" type="transform" source="Comment" destination="Comment">
            \(filterPrefix)\(escaped)</filter>
                    <user-info key="cutoff" value="2001-01-01T00:00:00Z"/>
                </entity-mapping>
            """
            : """
                <entity-mapping name="AuthorToAuthor" type="transform" source="Author" destination="Author">
            \(attributePrefix)\(escaped)"/>
                </entity-mapping>
            """
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <mapping-model format="1" source-model="Blog" destination-model="Blog 2">
            \(body)
            </mapping-model>

            """
    }

    static func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            default: result.append(character)
            }
        }
        return result
    }

    /// The file line and column of character `offset` of the embedded text (one-line texts).
    static func position(ofOffset offset: Int, in text: String, asFilter: Bool) -> (Int, Int) {
        let prefix = asFilter ? filterPrefix : attributePrefix
        let before = escape(String(text.prefix(offset)))
        return (4, prefix.count + before.count + 1)
    }
}
