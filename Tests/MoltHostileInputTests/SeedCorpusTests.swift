import Foundation
import MoltCore
import MoltModel
import MoltStore
import MoltTestSupport
import Testing

/// Hostile JSON seeds: each case of `Corpus/seeds` is given to `ObjectStore.create` for the
/// example model `Blog` with the seed importer, as `molt create --seed` does. The expected
/// error names the seed file (with its line and column where the JSON itself is bad), and no
/// store is left behind.
@Suite("Hostile JSON seeds")
struct SeedCorpusTests {
    static let cases = Corpus.cases("seeds")

    @Test("each hostile seed gives its exact error and leaves no store", arguments: cases)
    func hostileSeed(_ corpusCase: CorpusCase) throws {
        let folder = TemporaryDirectory("molt-hostile-seed")
        let store = folder.path("Blog.sqlite")
        let model = try Examples.model("Blog")
        let data = try corpusCase.data()
        var error: (any Error)?
        do {
            _ = try ObjectStore.create(at: store, model: model) { writer in
                try ObjectsJSONImporter().importObjects(from: data, file: corpusCase.url.path, into: writer)
            }
        } catch let thrown {
            error = thrown
        }
        Corpus.check(error, against: corpusCase.expectation, caseFile: corpusCase.name)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty, "no store is left")
    }

    @Test("every seed case has an expectation and every expectation a case")
    func complete() {
        let names = Set(Self.cases.map(\.name))
        #expect(names.count >= 20)
        #expect(Set(Corpus.expectations("seeds").keys) == names)
    }
}
