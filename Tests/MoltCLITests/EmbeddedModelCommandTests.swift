import Foundation
import Molt
import MoltTestSupport
import Testing

@Suite("Embedded models on the command line", .enabled(if: Tool.available, "the molt executable was not built"))
struct EmbeddedModelCommandTests {
    let folder = TemporaryDirectory()
    let blog = Fixtures.package("MappingModels/Examples/Blog.xcdatamodeld").path
    let contacts = Fixtures.package("MappingModels/Examples/Contacts.xcdatamodeld").path

    /// A new store at `version` of `bundle` whose Z_MODELCACHE holds that version.
    func store(_ bundle: String, _ version: String, cache: Bool = true) throws -> String {
        let path = folder.path("\(version).sqlite").path
        let created = try Tool.run(["create", path, "--model", bundle, "--model-version", version])
        try #require(created.status == 0, "\(created.stderr)")
        if cache {
            let model = try ModelLoader().load(
                at: URL(fileURLWithPath: bundle).appendingPathComponent("\(version).xcdatamodel"))
            try ModelCacheSupport.setModelCache([ModelCacheSupport.blob(for: model)], in: URL(fileURLWithPath: path))
        }
        return path
    }

    @Test("inspect lists the embedded model and says its hashes match the store")
    func inspect() throws {
        let path = try store(blog, "Blog")
        let run = try Tool.run(["inspect", path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Model cache:  present (Z_MODELCACHE)"))
        #expect(
            run.stdout.range(
                of: #"Embedded:     6 entities \(\d+ bytes, \d+ inflated\); its hashes match the store"#,
                options: .regularExpression) != nil)
        #expect(run.stdout.range(of: #"Article\s+Post\s+2\s+0"#, options: .regularExpression) != nil)
        let json = try Tool.run(["inspect", path, "--json"])
        let report = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let embedded = report?["embeddedModel"] as? [String: Any]
        #expect(embedded?["matchesStore"] as? Bool == true)
        #expect((embedded?["entities"] as? [[String: Any]])?.count == 6)

        let plain = try store(blog, "Blog 2", cache: false)
        let none = try Tool.run(["inspect", plain])
        #expect(none.stdout.contains("Model cache:  none"))
        #expect(!none.stdout.contains("Embedded:"))
    }

    @Test("extract-model writes a version folder that reads back with the store's hashes")
    func extract() throws {
        let path = try store(blog, "Blog")
        let output = folder.path("Extracted.xcdatamodel").path
        let run = try Tool.run(["extract-model", path, "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Wrote \(output) with 6 entities from the model embedded in \(path)."))
        #expect(run.stdout.contains("Its version hashes match the store's"))
        let extracted = try Tool.run(["hash", output])
        let original = try Tool.run(["hash", blog, "--model-version", "Blog"])
        #expect(extracted.status == 0 && !extracted.stdout.isEmpty)
        #expect(extracted.stdout == original.stdout)

        let again = try Tool.run(["extract-model", path, "-o", output])
        #expect(again.status == 73)
        #expect(again.stderr.contains("\(output): the output already exists"))
        let plain = try store(blog, "Blog 2", cache: false)
        let none = try Tool.run(["extract-model", plain, "-o", folder.path("None.xcdatamodel").path])
        #expect(none.status == 66)
        #expect(none.stderr.contains("the store has no embedded model (its Z_MODELCACHE is absent or empty)"))
        let second = folder.path("Second.xcdatamodel").path
        let json = try Tool.run(["extract-model", path, "-o", second, "--json"])
        let result = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(result?["folder"] as? String == second && result?["entities"] as? Int == 6, "\(json.stdout)")
        #expect(result?["matchesStore"] as? Bool == true && result?["notes"] is [Any])
        let badName = try Tool.run(["extract-model", path, "-o", folder.path("Model.txt").path])
        #expect(badName.status == 64)
    }

    @Test("migrate and upgrade use the embedded model only with --source-model-from-store, and say so")
    func sourceModelFromStore() throws {
        let path = try store(contacts, "Contacts 3")
        let target = "\(contacts)/Contacts 4.xcdatamodel"
        let refused = try Tool.run(["migrate", path, "--from", target, "--to", target])
        #expect(refused.status == 3)
        let plan = try Tool.run([
            "upgrade", path, "--models", target, "--mappings", folder.url.path, "--plan", "--source-model-from-store",
        ])
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("using the store's embedded model, whose hashes match the store"))
        #expect(plan.stdout.contains("1. embedded model → Contacts 4: lightweight"))
        let run = try Tool.run(["migrate", path, "--from", target, "--to", target, "--source-model-from-store"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("molt: using the store's embedded model: its hashes match the store"))
        #expect(run.stdout.contains("Migrated \(path) from embedded model to Contacts 4"))
        let check = try Tool.run(["inspect", path, "--model", target])
        #expect(check.stdout.contains("Matching:     Contacts 4"))
    }

    @Test(
        "the real store: inspect shows its embedded model, extract-model writes it with Core Data's hashes",
        .enabled(if: Fixtures.available, Comment(rawValue: Fixtures.absentMessage)))
    func realStore() throws {
        let store = try RealModelCache.copyStore(into: folder)
        let before = try Data(contentsOf: store)
        let inspect = try Tool.run(["inspect", store.path])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        #expect(
            inspect.stdout.contains("Embedded:     2 entities (1701 bytes, 2598 inflated); its hashes match the store"))
        #expect(inspect.stdout.range(of: #"Author\s+-\s+2\s+1"#, options: .regularExpression) != nil)
        let output = folder.path("TestModel.xcdatamodel").path
        let extract = try Tool.run(["extract-model", store.path, "-o", output])
        #expect(extract.status == 0, "\(extract.stderr)")
        let hashes = try Tool.run(["hash", output])
        #expect(hashes.stdout.contains("Author  cbc1f5c274ebf414474c4e350f73b14b1dd356c22782ae7488810d597188c46d"))
        #expect(hashes.stdout.contains("Book    292c923e48c2cbeea5a113bb7685fbc63ab800c0bbc242ad17a0f2e2a1e08f5c"))
        #expect(try Data(contentsOf: store) == before)
    }
}
