import Foundation
import MoltCore
import MoltModel
import Testing

/// Hostile Xcode models: every case in `Corpus/models` is read as `molt` reads a model (any of
/// a `contents` file, a version folder or a bundle), then checked; the first error is the
/// case's exact expected error.
@Suite("Hostile models")
struct ModelCorpusTests {
    static let cases = Corpus.cases("models")

    /// Loads and validates, as every command that takes `--model` does.
    static func firstError(_ url: URL) -> (any Error)? {
        do {
            let source = try ModelLoader().source(at: url)
            for model in try source.candidateModels() {
                try ModelChecker().validate(model)
            }
            return nil
        } catch {
            return error
        }
    }

    @Test("each hostile model gives its exact error", arguments: cases)
    func hostileModel(_ corpusCase: CorpusCase) throws {
        let before = try Snapshot(corpusCase.url)
        let error = Self.firstError(corpusCase.url)
        Corpus.check(error, against: corpusCase.expectation, caseFile: corpusCase.name)
        #expect(try Snapshot(corpusCase.url) == before, "reading must not change the input")
    }

    @Test("every model case has an expectation and every expectation a case")
    func complete() {
        let names = Set(Self.cases.map(\.name))
        #expect(names.count >= 25)
        #expect(Set(Corpus.expectations("models").keys) == names)
    }
}
