import Foundation
import MoltCore
import MoltMapping
import MoltModel
import MoltTestSupport
import Testing

/// Hostile mapping files: every case in `Corpus/mappings` is read and checked against the
/// example models (`Blog` → `Blog 2`), as `molt migrate --mapping` does before it touches a
/// store. A reading error is 259 (NSFileReadCorruptFileError); a checking error is reported by
/// the migration as 134110 (NSMigrationError).
@Suite("Hostile mapping files")
struct MappingCorpusTests {
    static let cases = Corpus.cases("mappings")

    /// Reads `url` and checks it; the first problem as the migration would throw it.
    static func firstError(_ url: URL) -> (any Error)? {
        do {
            let mapping = try MappingReader().read(contentsOf: url)
            let source = try Examples.model("Blog")
            let destination = try Examples.model("Blog 2")
            let errors = MappingChecker().check(mapping, source: source, destination: destination).errors
            guard let first = errors.first else { return nil }
            return MoltError(
                .migration, first.message, location: first.location, entity: first.entity, property: first.property)
        } catch {
            return error
        }
    }

    @Test("each hostile mapping file gives its exact error", arguments: cases)
    func hostileMapping(_ corpusCase: CorpusCase) throws {
        let before = try Snapshot(corpusCase.url)
        Corpus.check(Self.firstError(corpusCase.url), against: corpusCase.expectation, caseFile: corpusCase.name)
        #expect(try Snapshot(corpusCase.url) == before)
    }

    @Test("every mapping case has an expectation and every expectation a case")
    func complete() {
        let names = Set(Self.cases.map(\.name))
        #expect(names.count >= 20)
        #expect(Set(Corpus.expectations("mappings").keys) == names)
    }
}
