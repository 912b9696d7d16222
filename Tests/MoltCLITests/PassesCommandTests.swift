import Foundation
import Molt
import MoltTestSupport
import Testing

@Suite(
    "A step in several passes, from molt migrate and molt upgrade",
    .enabled(if: Tool.available, "the molt executable was not built"))
struct PassesCommandTests {
    let folder = TemporaryDirectory()
    static let bundle = Fixtures.package("MappingModels/Examples/Forum.xcdatamodeld").path
    static let first = Fixtures.package("MappingModels/Forum/Forum-to-Forum2.1.xml")
    static let second = Fixtures.package("MappingModels/Forum/Forum-to-Forum2.2.xml")
    static let expected = Fixtures.package("MappingModels/Examples/Forum2.json")

    func forumStore() throws -> String {
        try Self.forumStore(in: folder)
    }

    /// A Forum store at version Forum made from the example's seed, in `folder`.
    static func forumStore(in folder: TemporaryDirectory) throws -> String {
        let store = folder.path("Forum.sqlite").path
        let made = try Tool.run([
            "create", store, "--model", bundle, "--model-version", "Forum", "--seed",
            Fixtures.package("MappingModels/Examples/Forum.json").path,
        ])
        #expect(made.status == 0, "\(made.stderr)")
        return store
    }

    func dump(_ store: String) throws -> String {
        try Tool.run(["dump", store, "--model", Self.bundle, "--json"]).stdout
    }

    @Test("migrate --mapping A --mapping B runs both passes and reports them")
    func migrateInPasses() throws {
        let store = try forumStore()
        let run = try Tool.run([
            "migrate", store, "--from", Self.bundle, "--to", Self.bundle, "--mapping", Self.first.path, "--mapping",
            Self.second.path,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("The step ran in 2 passes, one per mapping file, into one new store."))
        #expect(run.stdout.contains("  2     PostAuthors    5     0"), "\(run.stdout)")
        #expect(run.stdout.contains("Policies deleted 2 destination objects (delete rules applied)."))
        #expect(try dump(store) == (try String(contentsOf: Self.expected, encoding: .utf8)))
    }

    @Test("migrate --plan shows the route and each pass's relate strategy, with reasons, and changes nothing")
    func planOfPasses() throws {
        let store = try forumStore()
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let arguments = [
            "migrate", store, "--from", Self.bundle, "--to", Self.bundle, "--mapping", Self.first.path, "--mapping",
            Self.second.path, "--plan",
        ]
        let text = try Tool.run(arguments)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("Route: object by object (the step has 2 passes"), "\(text.stdout)")
        #expect(text.stdout.contains("Pass 1 of 2 ("), "\(text.stdout)")
        #expect(text.stdout.contains("Pass 2 of 2 ("), "\(text.stdout)")
        #expect(text.stdout.contains("PostAuthors: relationships "), "\(text.stdout)")
        let json = try Tool.run(arguments + ["--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json.stdout)")
        let plan = try #require(object["plan"] as? [String: Any])
        #expect(plan["route"] as? String == "objects")
        #expect((plan["reason"] as? String)?.contains("2 passes") == true)
        let passes = try #require(plan["passes"] as? [[String: Any]])
        #expect(passes.map { $0["pass"] as? Int } == [1, 2])
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before, "--plan changed the store")
        #expect(try FailedRun.fileNames(folder) == ["Forum.sqlite"])
    }

    @Test("check-mapping checks several files as the passes of one step")
    func checkPasses() throws {
        let alone = try Tool.run(["check-mapping", Self.second.path, "--from", Self.bundle, "--to", Self.bundle])
        #expect(alone.status == 0)
        #expect(alone.stdout.contains("no entity mapping reads Account"), "\(alone.stdout)")
        let together = try Tool.run([
            "check-mapping", Self.first.path, Self.second.path, "--from", Self.bundle, "--to", Self.bundle,
        ])
        #expect(together.status == 0, "\(together.stderr)")
        #expect(!together.stdout.contains("no entity mapping reads"), "\(together.stdout)")
        #expect(together.stdout.contains("Forum-to-Forum2.2.xml: 0 errors, 0 warnings"), "\(together.stdout)")
    }

    @Test("migrate refuses passes whose files name different versions, before touching the store")
    func migrateMismatchedPasses() throws {
        let store = try forumStore()
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let other = try folder.write(
            String(contentsOf: Self.second, encoding: .utf8).replacingOccurrences(
                of: "destination-model=\"Forum 2\"", with: "destination-model=\"Forum 3\""), to: "other.xml")
        let run = try Tool.run([
            "migrate", store, "--from", Self.bundle, "--to", Self.bundle, "--mapping", Self.first.path, "--mapping",
            other.path,
        ])
        #expect(run.status != 0)
        #expect(run.stderr.contains("the passes of one step must go between the same two versions"), "\(run.stderr)")
        #expect(run.stderr.contains("that of pass 2 (\(other.path)) to \"Forum 3\""), "names the pass and its file")
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
    }

    @Test("upgrade runs files between the same two versions as passes, in file-name order; --plan lists them")
    func upgradeInPasses() throws {
        let store = try forumStore()
        let plan = try Tool.run([
            "upgrade", store, "--models", Self.bundle, "--mappings", Self.first.deletingLastPathComponent().path,
            "--plan",
        ])
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(
            plan.stdout.contains(
                "1. Forum → Forum 2: heavyweight in 2 passes: Forum-to-Forum2.1.xml, then Forum-to-Forum2.2.xml"),
            "\(plan.stdout)")
        let run = try Tool.run([
            "upgrade", store, "--models", Self.bundle, "--mappings", Self.first.deletingLastPathComponent().path,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try dump(store) == (try String(contentsOf: Self.expected, encoding: .utf8)))
    }

    @Test("versions.txt orders the passes with a passes: line; a name it lists must exist")
    func passesLine() throws {
        let store = try forumStore()
        let mappings = folder.path("mappings")
        try FileManager.default.createDirectory(at: mappings, withIntermediateDirectories: true)
        // Named so that file-name order would run them the wrong way round.
        try FileManager.default.copyItem(at: Self.first, to: mappings.appendingPathComponent("b-users.xml"))
        try FileManager.default.copyItem(at: Self.second, to: mappings.appendingPathComponent("a-authors.xml"))
        let order = mappings.appendingPathComponent("versions.txt")
        try "# passes only; the names order the versions\npasses: b-users.xml, a-authors.xml\n".write(
            to: order, atomically: true, encoding: .utf8)
        let brief = try Tool.run(["upgrade", store, "--models", Self.bundle, "--mappings", mappings.path, "--plan"])
        #expect(
            brief.stdout.contains(
                "  1. Forum → Forum 2: heavyweight in 2 passes: b-users.xml, then a-authors.xml, object by object; left to policies: 2 values of Draft.topic (TopicByNamePolicy), "
            ), "\(brief.stdout)")
        #expect(!brief.stdout.contains("Pass 1 of 2"), "the passes' detail is for --verbose: \(brief.stdout)")
        let plan = try Tool.run([
            "upgrade", store, "--models", Self.bundle, "--mappings", mappings.path, "--plan", "--verbose",
        ])
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("heavyweight in 2 passes: b-users.xml, then a-authors.xml"), "\(plan.stdout)")
        #expect(plan.stdout.contains("version order: from the names"), "\(plan.stdout)")
        #expect(plan.stdout.contains("       Route: object by object (the step has 2 passes"), "\(plan.stdout)")
        #expect(plan.stdout.contains("/b-users.xml):\n         AccountToUser: "), "\(plan.stdout)")
        #expect(plan.stdout.contains("       Pass 2 of 2 ("), "\(plan.stdout)")
        #expect(plan.stdout.contains("PostAuthors: relationships object by object"), "\(plan.stdout)")
        let run = try Tool.run(["upgrade", store, "--models", Self.bundle, "--mappings", mappings.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try dump(store) == (try String(contentsOf: Self.expected, encoding: .utf8)))

        try "passes: b-users.xml, c-missing.xml\n".write(to: order, atomically: true, encoding: .utf8)
        let missing = try Tool.run(["upgrade", store, "--models", Self.bundle, "--mappings", mappings.path, "--plan"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("there is no mapping file \"c-missing.xml\""), "\(missing.stderr)")
    }

    @Test("upgrade --plan --json gives each step's route and passes; the store is untouched")
    func planJSON() throws {
        let store = try forumStore()
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let mappings = folder.path("mappings")
        try FileManager.default.createDirectory(at: mappings, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.first, to: mappings.appendingPathComponent("1-users.xml"))
        try FileManager.default.copyItem(at: Self.second, to: mappings.appendingPathComponent("2-authors.xml"))
        let planned = try Tool.run([
            "upgrade", store, "--models", Self.bundle, "--mappings", mappings.path, "--plan", "--json",
        ])
        #expect(planned.status == 0, "\(planned.stderr)")
        let object = try #require(
            JSONSerialization.jsonObject(with: Data(planned.stdout.utf8)) as? [String: Any], "\(planned.stdout)")
        let steps = try #require(object["steps"] as? [[String: Any]])
        #expect(steps.count == 1)
        let route = try #require(steps.first?["plan"] as? [String: Any], "\(planned.stdout)")
        #expect(route["route"] as? String == "objects", "\(planned.stdout)")
        #expect((route["reason"] as? String)?.hasPrefix("the step has 2 passes") == true)
        let passes = try #require(route["passes"] as? [[String: Any]])
        #expect(
            passes.map { ($0["mappingFile"] as? String).map { URL(fileURLWithPath: $0).lastPathComponent } } == [
                "1-users.xml", "2-authors.xml",
            ])
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
    }
}
