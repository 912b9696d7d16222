import Foundation
import MoltTestSupport
import Testing

/// `check-model` and `verify` with CloudKit: the rules of a model marked "Used with CloudKit",
/// and `--production-version`, which lets later versions only add to the schema in
/// Production. A bundle whose additive version passes and whose breaking version fails, with
/// every problem named, in text, JSON and JUnit.
@Suite(
    "CloudKit's rules and production schema, from the command line",
    .enabled(if: Tool.available, "the molt executable was not built"))
struct CloudKitCommandTests {
    let folder = TemporaryDirectory()

    /// The version in Production.
    static let production = """
        <entity name="Post">
            <attribute name="title" optional="YES" attributeType="String"/>
            <attribute name="rating" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/>
            <attribute name="summary" optional="YES" attributeType="String"/>
            <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="posts" inverseEntity="Author"/>
        </entity>
        <entity name="Author">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="posts" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Post" inverseName="author" inverseEntity="Post"/>
        </entity>
        """

    /// Adds an optional attribute and an entity: passes.
    static let additive =
        production.replacingOccurrences(
            of: #"<attribute name="summary""#,
            with: #"<attribute name="subtitle" optional="YES" attributeType="String"/><attribute name="summary""#)
        + #"<entity name="Draft"><attribute name="text" optional="YES" attributeType="String"/></entity>"#

    /// The issue's version: removes `summary`, makes `rating` a Double, and adds a uniqueness
    /// constraint, a Deny rule, a required relationship and a relationship without inverse.
    static let breaking = """
        <entity name="Post">
            <attribute name="title" optional="YES" attributeType="String"/>
            <attribute name="rating" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
            <relationship name="author" optional="YES" maxCount="1" deletionRule="Deny" destinationEntity="Author" inverseName="posts" inverseEntity="Author"/>
            <relationship name="editor" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="edited" inverseEntity="Author"/>
            <relationship name="reviewer" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author"/>
            <uniquenessConstraints><uniquenessConstraint><constraint value="title"/></uniquenessConstraint></uniquenessConstraints>
        </entity>
        <entity name="Author">
            <attribute name="name" optional="YES" attributeType="String"/>
            <relationship name="posts" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Post" inverseName="author" inverseEntity="Post"/>
            <relationship name="edited" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Post" inverseName="editor" inverseEntity="Post"/>
        </entity>
        """

    /// Every problem the breaking version has: its rule, entity.property and line.
    static let expected: [(rule: String, subject: String, line: Int)] = [
        ("cloudkit.uniqueness-constraint", "Post", 3),
        ("cloudkit.deny-delete-rule", "Post.author", 6),
        ("cloudkit.required-relationship", "Post.editor", 7),
        ("cloudkit.relationship-without-inverse", "Post.reviewer", 8),
        ("production.attribute-type-changed", "Post.rating", 5),
        ("production.attribute-removed", "Post.summary", 3),
    ]

    func bundle(_ versions: [(String, String)], marked: Bool = true, name: String = "Blog") throws -> URL {
        try ModelXML.writeBundle(
            name, versions: versions, current: versions.last?.0, in: folder, usedWithCloudKit: marked)
    }

    func json(_ arguments: [String], status: Int32) throws -> [String: Any] {
        let run = try Tool.run(arguments + ["--json"])
        #expect(run.status == status, "\(arguments): \(run.stderr)")
        return try #require(
            try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)")
    }

    @Test("a marked model breaking CloudKit's rules fails with each rule named, where one warning was before")
    func rulesOfAMarkedModel() throws {
        let url = try bundle([("Blog", Self.production), ("Blog 3", Self.breaking)])
        let run = try Tool.run(["check-model", url.path])
        #expect(run.status == 1, "\(run.stderr)")
        let file = url.appendingPathComponent("Blog 3.xcdatamodel/contents").path
        for (rule, subject, line) in Self.expected where rule.hasPrefix("cloudkit.") {
            #expect(run.stdout.contains("\(file):\(line): <"), "\(rule)")
            #expect(run.stdout.contains(": error: \(subject): "), "\(rule): \(run.stdout)")
        }
        #expect(!run.stdout.contains(": warning: "), "the missing inverse is an error, not a warning: \(run.stdout)")
        #expect(run.stdout.contains("\n    hint: Use Nullify (or Cascade)"))
        #expect(
            run.stdout.contains("Checked 2 model versions (CloudKit's rules in Blog, Blog 3): 4 errors, 0 warnings"))

        let unmarked = try bundle([("Blog", Self.production), ("Blog 3", Self.breaking)], marked: false, name: "Plain")
        let plain = try Tool.run(["check-model", unmarked.path])
        #expect(plain.status == 0, "Core Data accepts it: \(plain.stdout)")
        #expect(plain.stdout.contains("Checked 2 model versions: 0 errors, 1 warning"))
        let asked = try Tool.run(["check-model", unmarked.path, "--cloudkit"])
        #expect(asked.status == 1 && asked.stdout.contains(": 4 errors, 0 warnings"), "\(asked.stdout)")
    }

    @Test("--production-version: an additive version passes, a breaking one fails with every change named")
    func productionVersionText() throws {
        let passing = try bundle([("Blog", Self.production), ("Blog 2", Self.additive)])
        let pass = try Tool.run(["check-model", passing.path, "--production-version", "Blog"])
        #expect(pass.status == 0, "\(pass.stdout)")
        #expect(
            pass.stdout
                == "Checked 2 model versions (CloudKit's rules in Blog, Blog 2; Blog 2 against the production schema Blog): 0 errors, 0 warnings\n"
        )

        let url = try bundle(
            [("Blog", Self.production), ("Blog 2", Self.additive), ("Blog 3", Self.breaking)], name: "Broken")
        let run = try Tool.run(["check-model", url.path, "--production-version", "Blog"])
        #expect(run.status == 1)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.contains(": error: ") }.count == Self.expected.count, "\(run.stdout)")
        #expect(
            lines.contains {
                $0.hasSuffix(
                    "Blog 3.xcdatamodel/contents:5: <attribute>: error: Post.rating: the type is Integer 16 in the production schema (Blog) and Double in Blog 3: CloudKit keeps the field CD_rating as deployed for Integer 16 values, so Double values may not fit it, and older app versions expect Integer 16 values"
                )
            }, "\(run.stdout)")
        #expect(
            lines.contains {
                $0.hasSuffix(
                    "Blog 3.xcdatamodel/contents:3: <entity>: error: Post.summary: the attribute is in the production schema (Blog) but not in Blog 3: older app versions keep reading and writing the field CD_summary, and find it empty on every record Blog 3 makes"
                )
            }, "\(run.stdout)")
        #expect(
            lines.contains {
                $0.hasPrefix("    hint: Keep Post.summary in Blog 3, stored")
                    && $0.contains("version the entity") && $0.contains("new CloudKit container")
            })
        #expect(
            lines.last
                == "Checked 3 model versions (CloudKit's rules in Blog, Blog 2, Blog 3; Blog 2, Blog 3 against the production schema Blog): 6 errors, 0 warnings"
        )
        // From Blog 2 on, Blog 2's subtitle and Draft are in Production too: Blog 3 drops them.
        let later = try Tool.run(["check-model", url.path, "--production-version", "Blog 2"])
        #expect(later.stdout.contains("error: Post.subtitle: the attribute is in the production schema (Blog 2)"))
        #expect(
            later.stdout.contains("error: Draft: the entity is in the production schema (Blog 2) but not in Blog 3"))
    }

    @Test("--production-version in JSON: each problem with its rule, file, line, entity, property and hint")
    func productionVersionJSON() throws {
        let url = try bundle([("Blog", Self.production), ("Blog 2", Self.additive), ("Blog 3", Self.breaking)])
        let report = try json(["check-model", url.path, "--production-version", "Blog"], status: 1)
        #expect(report["passed"] as? Bool == false && report["errors"] as? Int == Self.expected.count)
        let cloudKit = try #require(report["cloudKit"] as? [String: Any])
        #expect(cloudKit["productionVersion"] as? String == "Blog")
        #expect(cloudKit["checkedAgainstProduction"] as? [String] == ["Blog 2", "Blog 3"])
        #expect(cloudKit["rulesChecked"] as? [String] == ["Blog", "Blog 2", "Blog 3"])
        let diagnostics = try #require(report["diagnostics"] as? [[String: Any]])
        for (rule, subject, line) in Self.expected {
            let found = diagnostics.filter { $0["rule"] as? String == rule }
            #expect(found.count == 1, "\(rule)")
            guard let item = found.first else { continue }
            let parts = subject.split(separator: ".").map(String.init)
            #expect(item["entity"] as? String == parts[0] && item["property"] as? String == parts.dropFirst().first)
            #expect(item["line"] as? Int == line && item["severity"] as? String == "error")
            #expect((item["file"] as? String)?.hasSuffix("Blog 3.xcdatamodel/contents") == true)
            #expect(((item["hint"] as? String)?.count ?? 0) > 40)
        }
        let passing = try bundle([("Blog", Self.production), ("Blog 2", Self.additive)], name: "Good")
        let pass = try json(["check-model", passing.path, "--production-version", "Blog"], status: 0)
        #expect(pass["passed"] as? Bool == true && (pass["diagnostics"] as? [Any])?.isEmpty == true)
        let plain = try json(
            ["check-model", Fixtures.package("MappingModels/Examples/Blog.xcdatamodeld").path], status: 0)
        #expect(plain["cloudKit"] == nil, "no cloudKit key when nothing was checked for CloudKit")
    }

    @Test("a production version that is not in the bundle, or a single model, is refused naming the versions")
    func unknownProductionVersion() throws {
        let url = try bundle([("Blog", Self.production), ("Blog 2", Self.additive)])
        let run = try Tool.run(["check-model", url.path, "--production-version", "Blog 7"])
        #expect(run.status == 66)
        #expect(run.stderr.contains("there is no model version \"Blog 7\" to take as the production schema"))
        #expect(
            run.stderr.contains(
                "what to do: Name the version whose schema is deployed to CloudKit's Production environment: \"Blog\", \"Blog 2\"."
            ))
        let error = try #require(
            try json(["check-model", url.path, "--production-version", "Blog 7"], status: 66)["error"] as? [String: Any]
        )
        #expect(error["codeName"] as? String == "NSFileReadNoSuchFileError")
        let single = try Tool.run([
            "check-model", url.appendingPathComponent("Blog 2.xcdatamodel").path, "--production-version", "Blog",
        ])
        #expect(
            single.status == 66 && single.stderr.contains("names a version of a bundle, but this is a single model"))
    }

    @Test("verify --production-version: a passing JUnit case for additive versions, a failing one per problem")
    func verify() throws {
        let mappings = folder.path("mappings")
        try FileManager.default.createDirectory(at: mappings, withIntermediateDirectories: true)
        // Blog 3 breaks CloudKit but infers (no required relationship): only the check fails.
        let inferable = Self.breaking
            .replacingOccurrences(
                of: #"<relationship name="editor" maxCount="1""#,
                with: #"<relationship name="editor" optional="YES" maxCount="1""#)
        let url = try bundle([("Blog", Self.production), ("Blog 2", Self.additive), ("Blog 3", inferable)])
        let store = folder.path("fixtures/first.sqlite")
        try FileManager.default.createDirectory(
            at: store.deletingLastPathComponent(), withIntermediateDirectories: true)
        let created = try Tool.run(["create", store.path, "--model", url.path, "--model-version", "Blog"])
        #expect(created.status == 0, "\(created.stderr)")
        let arguments = [
            "verify", store.deletingLastPathComponent().path, "--models", url.path, "--mappings", mappings.path,
            "--production-version", "Blog",
        ]

        let junit = folder.path("pass.xml")
        let pass = try Tool.run(arguments + ["--to", "Blog 2", "--junit", junit.path])
        #expect(pass.status == 0, "\(pass.stdout)\(pass.stderr)")
        #expect(
            pass.stdout.contains(
                "CloudKit: Blog 2 against the production schema Blog: only additions, and CloudKit's rules kept."))
        let passXML = try String(contentsOf: junit, encoding: .utf8)
        #expect(passXML.contains(#"<testsuites name="molt verify" tests="2" failures="0""#))
        #expect(
            passXML.contains(
                #"<testcase classname="molt.verify.cloudkit" name="Blog 2 against the production schema Blog" time="0"/>"#
            ))

        let failJUnit = folder.path("fail.xml")
        let fail = try Tool.run(arguments + ["--junit", failJUnit.path])
        #expect(fail.status == 1)
        #expect(fail.stdout.contains("first.sqlite  Blog  Blog 3"), "the store itself passes: \(fail.stdout)")
        #expect(fail.stdout.contains("CloudKit: Blog 2, Blog 3 against the production schema Blog: 5 errors"))
        #expect(
            fail.stdout.contains("The store upgrades to Blog 3 and passes")
                && fail.stdout.contains("The CloudKit schema check failed: 5 errors."))
        let failXML = try String(contentsOf: failJUnit, encoding: .utf8)
        #expect(failXML.contains(#"<testsuites name="molt verify" tests="6" failures="5""#), "\(failXML)")
        for (rule, subject, _) in Self.expected where rule != "cloudkit.required-relationship" {
            #expect(
                failXML.contains(
                    #"<testcase classname="molt.verify.cloudkit" name="Blog 3: \#(subject): \#(rule)" time="0">"#),
                "\(rule)")
            #expect(failXML.contains(#"type="\#(rule)">"#))
        }

        let report = try json(arguments, status: 1)
        #expect(report["passed"] as? Bool == false && report["failed"] as? Int == 0)
        let cloudKit = try #require(report["cloudKit"] as? [String: Any])
        #expect(cloudKit["errors"] as? Int == 5 && cloudKit["passed"] as? Bool == false)
        #expect(cloudKit["checkedVersions"] as? [String] == ["Blog 2", "Blog 3"])
        let versions = try #require(cloudKit["versions"] as? [[String: Any]])
        #expect(versions.map { ($0["diagnostics"] as? [Any])?.count } == [0, 5])

        let unknown = try Tool.run(Array(arguments.dropLast()) + ["Blog 9"])
        #expect(
            unknown.status == 66 && unknown.stderr.contains("\"Blog\", \"Blog 2\", \"Blog 3\""), "\(unknown.stderr)")
    }
}
