import Foundation
import Logging
import MoltCore
import MoltMigration
import MoltTestSupport
import Testing

/// ``UpgradeVerification`` called as an app's own tests would call it: no command line.
@Suite("Verifying upgrades from the library")
struct UpgradeVerificationTests {
    @Test("a store and a seed upgrade and pass; a wrong expected dump fails with the lines that differ")
    func library() throws {
        let folder = TemporaryDirectory("molt-verification")
        let fixtures = folder.path("fixtures")
        try FileManager.default.createDirectory(
            at: fixtures.appendingPathComponent("Blog 2"), withIntermediateDirectories: true)
        _ = try folder.copy(Fixtures.package("MappingModels/Examples/Blog.sqlite"), as: "fixtures/Blog.sqlite")
        _ = try folder.write(
            #"{"entities": {"Author": [{"name": "Ada", "handle": "ada", "identifier": "6F9619FF-8B86-D011-B42D-00C04FC964FF"}]}}"#,
            to: "fixtures/Blog 2/one-author.json")
        _ = try folder.write("{}\n", to: "fixtures/Blog 2/one-author.expected.json")

        let logger = Logger(label: "test")
        let inputs = try UpgradeInputs(
            models: Fixtures.package("MappingModels/Examples/Blog.xcdatamodeld"),
            mappings: Fixtures.package("MappingModels/Blog"), orderByName: false, logger: logger)
        let found = try VerificationFixture.find(in: [fixtures.path], versions: inputs.versions)
        #expect(found.map(\.url.lastPathComponent) == ["one-author.json", "Blog.sqlite"])
        let work = folder.path("work")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let verification = UpgradeVerification(inputs: inputs, destination: nil, workFolder: work, logger: logger)
        let results = verification.check(found, jobs: 2)

        let seed = try #require(results.first)
        #expect(seed.from == "Blog 2" && seed.to == "Blog 2" && seed.comparedDump)
        #expect(seed.failure?.kind == .expected)
        #expect(seed.failure?.difference?.contains("+     \"Author\": [") == true, "\(seed.failure?.difference ?? "")")
        let store = try #require(results.last)
        #expect(store.passed, "\(store.failure?.message ?? "")")
        #expect(store.from == "Blog" && store.to == "Blog 2" && store.steps == 1)
        // Each check worked on its private copy, and removed it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.path).isEmpty)
    }
}
