import Foundation
import Molt
import MoltSQLite
import MoltTestSupport
import Testing

@testable import MoltCommandLine

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A policy that refuses the second Author: a store whose upgrade a policy stops.
final class VerifyRefusingPolicy: RefusingPolicy {
    override class var refusal: String { "this policy refuses the second author" }
}

/// `molt verify` over a folder of stores and seeds of several versions: each upgraded on a
/// private copy, validated and compared with its expected dump; failures reported as such in
/// text, JSON and JUnit, the other stores still checked, the originals untouched.
@Suite("molt verify", .enabled(if: Tool.available, "the molt executable was not built"))
struct VerifyCommandTests {
    let folder = TemporaryDirectory()
    let bundle = Fixtures.package("MappingModels/Examples/Blog.xcdatamodeld").path
    let mappings = Fixtures.package("MappingModels/Blog").path

    /// `molt dump --json` of the example store migrated to Blog 2.
    func migratedDump() throws -> String {
        let store = try folder.copy(Fixtures.package("MappingModels/Examples/Blog.sqlite"), as: "migrated.sqlite")
        let migrate = try Tool.run([
            "migrate", store.path, "--from", bundle, "--to", bundle, "--mapping", mappings + "/Blog-to-Blog2.xml",
        ])
        #expect(migrate.status == 0, "\(migrate.stderr)")
        let dump = try Tool.run(["dump", store.path, "--model", bundle, "--json"])
        try FileManager.default.removeItem(at: store)
        return dump.stdout
    }

    /// Fixtures: a store at Blog with its expected dump, a seed at Blog 2, a seed at Blog
    /// whose expected dump is wrong, and a store of another model.
    func fixtures() throws -> (URL, [String: Data]) {
        let root = folder.path("fixtures")
        let fileManager = FileManager.default
        for sub in ["Blog", "Blog 2"] {
            try fileManager.createDirectory(at: root.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        let dump = try migratedDump()
        try fileManager.copyItem(
            at: Fixtures.package("MappingModels/Examples/Blog.sqlite"), to: root.appendingPathComponent("old.sqlite"))
        try dump.write(to: root.appendingPathComponent("old.expected.json"), atomically: true, encoding: .utf8)
        try fileManager.copyItem(
            at: Fixtures.package("MappingModels/Examples/Blog2.json"),
            to: root.appendingPathComponent("Blog 2/new.json"))
        try fileManager.copyItem(
            at: Fixtures.package("MappingModels/Examples/Blog.json"), to: root.appendingPathComponent("Blog/seed.json"))
        try dump.replacingOccurrences(of: "\"body\": \"Body\"", with: "\"body\": \"Another body\"").write(
            to: root.appendingPathComponent("Blog/seed.expected.json"), atomically: true, encoding: .utf8)
        let other = try Tool.run([
            "create", root.appendingPathComponent("other.sqlite").path, "--model",
            Fixtures.package("MappingModels/Examples/Contacts.xcdatamodeld").path,
        ])
        #expect(other.status == 0, "\(other.stderr)")
        var originals: [String: Data] = [:]
        for name in ["old.sqlite", "Blog 2/new.json", "Blog/seed.json", "other.sqlite"] {
            originals[name] = try Data(contentsOf: root.appendingPathComponent(name))
        }
        return (root, originals)
    }

    @Test("every store is checked; a wrong expected dump and an unknown version fail, in text, JSON and JUnit")
    func failuresReported() throws {
        let (root, originals) = try fixtures()
        let junit = folder.path("report.xml")
        let text = try Tool.run([
            "verify", root.path, "--models", bundle, "--mappings", mappings, "--jobs", "2", "--junit", junit.path,
        ])
        #expect(text.status == 1, "\(text.stderr)")
        let rows = text.stdout.split(separator: "\n").map(String.init)
        func row(_ name: String) -> String? { rows.first { $0.hasPrefix(root.path + "/" + name + " ") } }
        #expect(row("old.sqlite")?.hasSuffix(" ok") == true, "\(text.stdout)")
        #expect(row("Blog 2/new.json")?.hasSuffix(" ok") == true, "\(text.stdout)")
        #expect(row("Blog/seed.json")?.hasSuffix("FAILED (expected)") == true, "\(text.stdout)")
        #expect(row("other.sqlite")?.hasSuffix("FAILED (unknownVersion)") == true, "\(text.stdout)")
        #expect(
            text.stdout.contains("-         \"body\": \"Another body\","), "the difference is shown: \(text.stdout)")
        #expect(text.stdout.contains("+         \"body\": \"Body\","), "\(text.stdout)")
        #expect(text.stdout.contains("2 of 4 stores failed"), "\(text.stdout)")
        let after = try FileManager.default.subpathsOfDirectory(atPath: root.path).sorted()
        #expect(
            after == [
                "Blog", "Blog 2", "Blog 2/new.json", "Blog/seed.expected.json", "Blog/seed.json",
                "old.expected.json", "old.sqlite", "other.sqlite",
            ],
            "verify leaves the fixtures' folder as it found it (no -wal or -shm): \(after)")

        let json = try Tool.run(["verify", root.path, "--models", bundle, "--mappings", mappings, "--json"])
        #expect(json.status == 1)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(report["passed"] as? Bool == false)
        #expect(
            report["stores"] as? Int == 4 && report["failed"] as? Int == 2
                && report["destination"] as? String == "Blog 2")
        let results = try #require(report["results"] as? [[String: Any]])
        let byName = Dictionary(uniqueKeysWithValues: results.map { (($0["name"] as? String) ?? "", $0) })
        let old = try #require(byName[root.path + "/old.sqlite"])
        #expect(
            old["passed"] as? Bool == true && old["comparedDump"] as? Bool == true && old["from"] as? String == "Blog")
        #expect(old["steps"] as? Int == 1 && old["to"] as? String == "Blog 2")
        let fresh = try #require(byName[root.path + "/Blog 2/new.json"])
        #expect(fresh["passed"] as? Bool == true && fresh["steps"] as? Int == 0, "already at Blog 2: validated only")
        let wrong = try #require(byName[root.path + "/Blog/seed.json"]?["failure"] as? [String: Any])
        #expect(wrong["kind"] as? String == "expected")
        #expect((wrong["difference"] as? String)?.contains("Another body") == true)
        let unknown = try #require(byName[root.path + "/other.sqlite"]?["failure"] as? [String: Any])
        #expect(unknown["kind"] as? String == "unknownVersion" && unknown["code"] as? Int == 134130)
        #expect((unknown["message"] as? String)?.hasPrefix(root.path + "/other.sqlite") == true, "\(unknown)")

        let xml = try String(contentsOf: junit, encoding: .utf8)
        #expect(xml.contains(#"<testsuites name="molt verify" tests="4" failures="2""#), "\(xml)")
        #expect(xml.components(separatedBy: "<testcase ").count - 1 == 4)
        #expect(xml.contains(#"type="unknownVersion 134130""#))
        #expect(xml.contains(#"type="expected""#))
        #expect(xml.contains(#"-         "body": "Another body","#), "the difference is in the failure")
        #expect(try XMLDocumentCheck.isWellFormed(xml))

        for (name, bytes) in originals {
            #expect(try Data(contentsOf: root.appendingPathComponent(name)) == bytes, "\(name) was changed")
        }
    }

    @Test("every store passing exits 0; a seed outside a version's folder is an error naming it")
    func passesAndBadSeed() throws {
        let (root, _) = try fixtures()
        for name in ["Blog/seed.expected.json", "other.sqlite"] {
            try FileManager.default.removeItem(at: root.appendingPathComponent(name))
        }
        let run = try Tool.run(["verify", root.path, "--models", bundle, "--mappings", mappings, "--jobs", "1"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("All 3 stores upgrade to Blog 2 and pass"), "\(run.stdout)")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("Blog 9"), withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: root.appendingPathComponent("Blog 9/stray.json"))
        let bad = try Tool.run(["verify", root.path, "--models", bundle, "--mappings", mappings])
        #expect(bad.status == 3, "\(bad.stderr)")
        #expect(bad.stderr.contains("Blog 9/stray.json") && bad.stderr.contains("\"Blog 9\""), "\(bad.stderr)")
    }

    @Test("a store whose upgrade a policy stops fails as a migration, with the policy's code, in every report")
    func policyThrows() throws {
        PolicyRegistry.register([VerifyRefusingPolicy.self])
        let mappingFolder = folder.path("mappings")
        try FileManager.default.createDirectory(at: mappingFolder, withIntermediateDirectories: true)
        let text = try String(contentsOfFile: mappings + "/Blog-to-Blog2.xml", encoding: .utf8)
            .replacingOccurrences(
                of: #"<entity-mapping name="AuthorToAuthor" type="transform""#,
                with: #"<entity-mapping name="AuthorToAuthor" type="custom" policy="VerifyRefusingPolicy""#)
        try text.write(to: mappingFolder.appendingPathComponent("Blog-to-Blog2.xml"), atomically: true, encoding: .utf8)
        let inputs = try UpgradeInputs(
            models: URL(fileURLWithPath: bundle), mappings: mappingFolder, orderByName: false,
            logger: Logger(label: "test"))
        let work = folder.path("work")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let verification = UpgradeVerification(
            inputs: inputs, destination: nil, workFolder: work, logger: Logger(label: "test"))
        let store = Fixtures.package("MappingModels/Examples/Blog.sqlite")
        let fixture = VerificationFixture(source: .store(store), name: "Blog.sqlite", expected: nil)
        let results = verification.check([fixture, fixture], jobs: 2)
        #expect(results.count == 2)
        for result in results {
            let failure = try #require(result.failure)
            #expect(failure.kind == .migration && failure.code == 134170, "\(failure)")
            #expect(failure.message.contains("this policy refuses the second author"), "\(failure.message)")
            #expect(failure.message.contains(store.path) || !failure.message.contains(work.path), "\(failure.message)")
        }
        let report = VerifyReport(destination: "Blog 2", results: results, seconds: 0.1, jobs: 2)
        #expect(report.lines.contains { $0.hasPrefix("Blog.sqlite") && $0.hasSuffix("FAILED (migration)") })
        #expect(report.junit.contains(#"type="migration 134170""#))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(report), as: UTF8.self)
        #expect(json.contains(#""code":134170,"kind":"migration""#), "\(json)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.path).isEmpty, "each check removes its copy")
    }

    @Test("a seed or a store breaking its own version's rules fails as the fixture's fault, naming the object")
    func fixtureBreaksItsOwnRules() throws {
        let root = folder.path("fixtures")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("Blog"), withIntermediateDirectories: true)
        try Data(
            """
            {"entities": {"Author": [
              {"@id": "ann", "name": "Ann", "identifier": "00000000-0000-0000-0000-000000000001"},
              {"@id": "bob", "name": "Bob", "identifier": "00000000-0000-0000-0000-000000000001"}
            ]}}
            """.utf8
        ).write(to: root.appendingPathComponent("Blog/twins.json"))
        let store = root.appendingPathComponent("broken.sqlite")
        try FileManager.default.copyItem(at: Fixtures.package("MappingModels/Examples/Blog.sqlite"), to: store)
        let connection = try SQLiteConnection(path: store.path, mode: .readWrite)
        try connection.run(#"UPDATE "ZAUTHOR" SET "ZNAME" = NULL WHERE "Z_PK" = 2"#)
        connection.close()

        let run = try Tool.run(["verify", root.path, "--models", bundle, "--mappings", mappings, "--json"])
        #expect(run.status == 1, "\(run.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let results = try #require(report["results"] as? [[String: Any]])
        let byName = Dictionary(uniqueKeysWithValues: results.map { (($0["name"] as? String) ?? "", $0) })
        let twins = try #require(byName[root.path + "/Blog/twins.json"]?["failure"] as? [String: Any])
        #expect(twins["kind"] as? String == "fixture" && twins["code"] as? Int == 133021, "\(twins)")
        #expect(
            (twins["message"] as? String)?.contains(
                "Blog/twins.json:3: Author.identifier: object \"bob\" has the same value of the uniqueness constraint (identifier) as object \"ann\" (line 2)"
            ) == true, "\(twins)")
        let broken = try #require(byName[root.path + "/broken.sqlite"]?["failure"] as? [String: Any])
        #expect(broken["kind"] as? String == "fixture" && broken["code"] as? Int == 1570, "\(broken)")
        #expect(
            (broken["message"] as? String)?.contains(
                "the fixture's objects (at Blog, before any upgrade) do not pass validation: Author/2.name") == true,
            "\(broken)")
    }

    @Test("--to naming no version is 66, as in every other command, listing the versions")
    func unknownDestination() throws {
        let store = try folder.copy(Fixtures.package("MappingModels/Examples/Blog.sqlite"))
        let run = try Tool.run([
            "verify", store.deletingLastPathComponent().path, "--models",
            Fixtures.package("MappingModels/Examples/Blog.xcdatamodeld").path, "--mappings",
            Fixtures.package("MappingModels/Blog").path, "--to", "Nope",
        ])
        #expect(run.status == 66, "\(run.stderr)")
        #expect(run.stderr.contains("there is no model version \"Nope\""), "\(run.stderr)")
        #expect(run.stderr.contains("Versions: Blog, Blog 2."), "\(run.stderr)")
    }
}

/// Whether a text is well-formed XML, read with Foundation's parser.
enum XMLDocumentCheck {
    static func isWellFormed(_ text: String) throws -> Bool {
        let parser = XMLParser(data: Data(text.utf8))
        return parser.parse()
    }
}
