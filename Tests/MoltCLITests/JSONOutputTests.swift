import Foundation
import Molt
import MoltTestSupport
import Testing

/// `--json` on every command (migrate and upgrade with --plan and --dry-run too): the facts
/// the text gives, under stable keys, and errors with their code.
@Suite("--json output", .enabled(if: Tool.available, "the molt executable was not built"))
struct JSONOutputTests {
    let folder = TemporaryDirectory()
    let bundle = Fixtures.package("MappingModels/Examples/Blog.xcdatamodeld").path
    let mappings = Fixtures.package("MappingModels/Blog").path

    /// Runs molt and reads standard output as a JSON object.
    func json(_ arguments: [String], status: Int32 = 0) throws -> [String: Any] {
        let run = try Tool.run(arguments + ["--json"])
        #expect(run.status == status, "\(arguments): \(run.stderr)")
        return try #require(
            try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)")
    }

    func blogStore() throws -> URL {
        try folder.copy(Fixtures.package("MappingModels/Examples/Blog.sqlite"), as: "Blog-\(UUID().uuidString).sqlite")
    }

    @Test("migrate and its dry run: mappings, counts, discards; an already migrated store says so")
    func migrate() throws {
        let store = try blogStore()
        let arguments = [
            "migrate", store.path, "--from", bundle, "--to", bundle, "--mapping", mappings + "/Blog-to-Blog2.xml",
        ]
        let dry = try json(arguments + ["--dry-run"])
        #expect(dry["dryRun"] as? Bool == true && dry["from"] as? String == "Blog" && dry["to"] as? String == "Blog 2")
        let report = try json(arguments)
        #expect(report["dryRun"] as? Bool == false && report["alreadyMigrated"] as? Bool == false)
        let counts = try #require(report["destinationCounts"] as? [String: Int])
        #expect(counts == dry["destinationCounts"] as? [String: Int])
        #expect(counts["Author"] == 3)
        let rows = try #require(report["mappings"] as? [[String: Any]])
        #expect(
            rows.contains {
                $0["mapping"] as? String == "AuthorToAuthor" && $0["read"] as? Int == 3 && $0["made"] as? Int == 3
            })
        let discarded = try #require(report["discarded"] as? [[String: Any]])
        #expect(
            discarded.contains {
                $0["kind"] as? String == "objects" && $0["entity"] as? String == "Tag" && $0["count"] as? Int == 3
            })
        let again = try json(arguments)
        #expect(again["alreadyMigrated"] as? Bool == true)
    }

    @Test("upgrade: the plan, a dry run and the run give the same steps")
    func upgrade() throws {
        let store = try blogStore()
        let arguments = ["upgrade", store.path, "--models", bundle, "--mappings", mappings]
        let plan = try json(arguments + ["--plan"])
        #expect(plan["storeVersion"] as? String == "Blog" && plan["destination"] as? String == "Blog 2")
        let planned = try #require(plan["steps"] as? [[String: Any]])
        #expect(planned.count == 1 && planned[0]["kind"] as? String == "heavyweight")
        #expect(planned[0]["mappingFiles"] as? [String] == ["Blog-to-Blog2.xml"])
        let dry = try json(arguments + ["--dry-run"])
        #expect(dry["dryRun"] as? Bool == true && (dry["steps"] as? [Any])?.count == 1)
        let run = try json(arguments)
        let steps = try #require(run["steps"] as? [[String: Any]])
        #expect(run["upToDate"] as? Bool == false && steps.count == 1)
        let migration = try #require(steps[0]["migration"] as? [String: Any])
        #expect((migration["destinationCounts"] as? [String: Int])?["Author"] == 3)
        #expect(try json(arguments)["upToDate"] as? Bool == true)
    }

    @Test("infer: the mapping file's text, or every reason; --each-version a pair each")
    func infer() throws {
        let contacts = Fixtures.package("MappingModels/Examples/Contacts.xcdatamodeld").path
        let pairs = try json(["infer", "--each-version", "--from", contacts, "--to", contacts])
        #expect((pairs["pairs"] as? [[String: Any]])?.count == 3 && pairs["inferred"] as? Bool == true)
        let one = try json(["infer", "--from", contacts, "--from-version", "Contacts", "--to", contacts])
        let pair = try #require((one["pairs"] as? [[String: Any]])?.first)
        #expect((pair["mapping"] as? String)?.hasPrefix("<?xml") == true)
        let impossible = try json(["infer", "--from", bundle, "--from-version", "Blog", "--to", bundle], status: 4)
        let reasons = try #require((impossible["pairs"] as? [[String: Any]])?.first?["reasons"] as? [String])
        #expect(impossible["inferred"] as? Bool == false && !reasons.isEmpty)
    }

    @Test("check-model and check-mapping: diagnostics with file, line and severity, and the counts")
    func checks() throws {
        let broken = try folder.write(
            ModelXML.document(
                """
                <entity name="A"><relationship name="b" optional="YES" maxCount="1" destinationEntity="B" inverseName="nope" inverseEntity="B"/></entity>
                <entity name="B"/>
                """), to: "Broken.xcdatamodel/contents")
        let model = try json(["check-model", broken.path], status: 1)
        #expect(model["errors"] as? Int == 1 && model["passed"] as? Bool == false)
        let diagnostic = try #require((model["diagnostics"] as? [[String: Any]])?.first)
        #expect(diagnostic["severity"] as? String == "error" && diagnostic["line"] as? Int == 3)
        #expect(diagnostic["entity"] as? String == "A" && diagnostic["property"] as? String == "b")
        #expect(try json(["check-model", bundle])["passed"] as? Bool == true)
        let mapping = try json([
            "check-mapping", mappings + "/Blog-to-Blog2.xml", "--from", bundle, "--to", bundle,
        ])
        #expect(mapping["errors"] as? Int == 0 && mapping["checked"] as? [String] == [mappings + "/Blog-to-Blog2.xml"])
    }

    @Test("create, recover and stamp-mapping: what was written, under stable keys")
    func fileCommands() throws {
        let store = folder.path("created.sqlite").path
        let created = try json([
            "create", store, "--model", bundle, "--model-version", "Blog", "--seed",
            Fixtures.package("MappingModels/Examples/Blog.json").path,
        ])
        #expect(created["store"] as? String == store && created["model"] as? String == "Blog")
        #expect(created["objects"] as? Int == 13)
        #expect(
            (created["counts"] as? [String: Int]) == ["Article": 2, "Author": 3, "Comment": 4, "Tag": 3, "Video": 1])
        let recovered = try json(["recover", store])
        #expect(recovered["store"] as? String == store && recovered["outcome"] as? String == "nothingToDo")
        let mapping = try folder.copy(Fixtures.package("MappingModels/Blog/Blog-to-Blog2.xml"))
        let stamped = try json(["stamp-mapping", mapping.path, "--from", bundle, "--to", bundle])
        #expect(stamped["file"] as? String == mapping.path && (stamped["entityMappings"] as? Int ?? 0) > 0)
    }

    @Test("hash: one object, the model and each version's hashes and digest (not a bare array)")
    func hash() throws {
        let one = try json(["hash", bundle])
        #expect(one["model"] as? String == bundle)
        let versions = try #require(one["versions"] as? [[String: Any]])
        #expect(versions.map { $0["version"] as? String } == ["Blog 2"], "the current version")
        #expect((versions.first?["entities"] as? [String: String])?["Author"]?.count == 64)
        #expect((versions.first?["digest"] as? String)?.isEmpty == false)
        let all = try json(["hash", bundle, "--all-versions"])
        #expect((all["versions"] as? [[String: Any]])?.map { $0["version"] as? String } == ["Blog", "Blog 2"])
    }

    @Test("an error is a JSON object with Core Data's code, its name and the exit code")
    func error() throws {
        let contacts = Fixtures.package("MappingModels/Examples/Contacts.xcdatamodeld").path
        let report = try json(["migrate", try blogStore().path, "--from", contacts, "--to", bundle], status: 3)
        let error = try #require(report["error"] as? [String: Any])
        #expect(error["code"] as? Int == 134130 && error["codeName"] as? String == "NSMigrationMissingSourceModelError")
        #expect(error["exitCode"] as? Int == 3 && (error["message"] as? String)?.isEmpty == false)
    }

    @Test(
        "with --json, every command's error is a JSON object on standard output, usage errors too",
        arguments: [
            (["inspect", "/nonexistent/Store.sqlite"], 66, "NSFileReadNoSuchFileError"),
            (
                ["dump", "/nonexistent/Store.sqlite", "--model", "/nonexistent/Model.xcdatamodeld"], 66,
                "NSFileReadNoSuchFileError"
            ),
            (["hash", "/nonexistent/Model.xcdatamodeld"], 66, "NSFileReadNoSuchFileError"),
            (
                [
                    "verify", "/nonexistent/fixtures", "--models", "/nonexistent/Model.xcdatamodeld", "--mappings",
                    "/nonexistent",
                ], 66, "NSFileReadNoSuchFileError"
            ),
            (["migrate", "Store.sqlite", "--no-such-option"], 64, "EX_USAGE"),
            (["inspect"], 64, "EX_USAGE"),
        ] as [([String], Int, String)])
    func errorsOfEveryCommand(arguments: [String], exitCode: Int, codeName: String) throws {
        let report = try json(arguments, status: Int32(exitCode))
        let error = try #require(report["error"] as? [String: Any], "\(report)")
        #expect(error["codeName"] as? String == codeName, "\(error)")
        #expect(error["exitCode"] as? Int == exitCode)
        #expect((error["message"] as? String)?.isEmpty == false)
    }
}
