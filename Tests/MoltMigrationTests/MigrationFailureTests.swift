import Foundation
import MoltCore
import MoltMapping
import MoltMigration
import MoltModel
import MoltSQLite
import MoltStore
import MoltTestSupport
import Testing

/// A policy that fails on the second object it sees.
final class ThrowingPolicy: RefusingPolicy {
    override class var refusal: String { "this policy refuses the second object" }
}

/// Holds a migration so its own progress callback can cancel it.
final class MigrationBox: @unchecked Sendable {
    var migration: HeavyweightMigration?
}

@Suite("Migrations that fail leave the store as it was")
struct MigrationFailureTests {
    let folder = TemporaryDirectory()

    init() {
        MigrationFixtures.registerPolicies()
        CompiledPolicies.register([ThrowingPolicy.self])
    }

    /// Runs `migration`, expects it to fail, and checks the store's bytes and the folder are
    /// as they were.
    func expectUntouched(_ url: URL, _ body: () throws -> Void) throws -> MoltError? {
        try FailedRun.expectUntouched(url, folder: folder, body)
    }

    func blog(
        _ url: URL, _ mappingText: String? = nil, options: MigrationOptions = MigrationOptions(),
        context: RunContext = RunContext()
    ) throws -> HeavyweightMigration {
        var mapping = try MigrationFixtures.mapping("Blog/Blog-to-Blog2.xml")
        if let mappingText {
            let extra = try MigrationFixtures.mapping(text: mappingText)
            for replacement in extra.entityMappings {
                if let index = mapping.entityMappings.firstIndex(where: { $0.name == replacement.name }) {
                    mapping.entityMappings[index] = replacement
                }
            }
        }
        return HeavyweightMigration(
            store: url, source: try Examples.model("Blog"), destination: try Examples.model("Blog 2"), mapping: mapping,
            options: options, context: context)
    }

    static func blogMapping(_ body: String) -> String {
        MappingText.contacts(body, from: "Blog", to: "Blog 2")
    }

    @Test("one object failing validation gives its own code (1570) and names it")
    func oneValidationFailure() throws {
        let url = try MigrationFixtures.blogStore(in: folder)
        let error = try expectUntouched(url) {
            try blog(
                url,
                Self.blogMapping(
                    """
                    <entity-mapping name="AuthorToAuthor" type="transform" source="Author" destination="Author">
                        <attribute name="handle" value="TERNARY($source.name == 'Cy', nil, 'x')"/>
                    </entity-mapping>
                    """)
            ).run()
        }
        #expect(error?.code == .validationMissingMandatoryProperty)
        #expect(
            error?.message.contains("Author/3.handle: is not optional but has no value (1570)") == true,
            "\(String(describing: error))")
    }

    @Test("several failures give 1560 and list each with entity, object and property")
    func severalValidationFailures() throws {
        let url = try MigrationFixtures.blogStore(in: folder)
        let error = try expectUntouched(url) {
            try blog(
                url,
                Self.blogMapping(
                    """
                    <entity-mapping name="AuthorToAuthor" type="transform" source="Author" destination="Author">
                        <attribute name="handle" value="nil"/>
                        <attribute name="name" value="concat($source.name, '-----------------------------------------------------------------------------------')"/>
                    </entity-mapping>
                    """)
            ).run()
        }
        #expect(error?.code == .validationMultiple)
        #expect(error?.details.count == 6)
        #expect(
            error?.details.contains("Author/2.name: is 105 characters, more than 80 (1660)") == true,
            "\(String(describing: error?.details))")
    }

    @Test("objects breaking a uniqueness constraint fail with 133021")
    func uniqueness() throws {
        let v2 = try MigrationFixtures.contacts("Contacts 2")
        let url = try MigrationFixtures.store(
            "c.sqlite", in: folder, model: v2,
            seed: Data(
                #"{"entities": {"Person": [{"name": "A", "email": "a@x", "createdAt": 0}, {"name": "B", "email": " A@X", "createdAt": 0}]}}"#
                    .utf8))
        let mapping = try MigrationFixtures.mapping(
            text: MappingText.contacts(
                """
                <entity-mapping name="PersonToPerson" type="transform" source="Person" destination="Person">
                    <attribute name="email" value="lowercase(trim($source.email))"/>
                </entity-mapping>
                <entity-mapping name="Phones" type="remove" source="Phone"/>
                <entity-mapping name="Addresses" type="remove" source="Address"/>
                <entity-mapping name="Groups" type="remove" source="Group"/>
                """))
        let error = try expectUntouched(url) {
            try HeavyweightMigration(
                store: url, source: v2, destination: try MigrationFixtures.contacts("Contacts 3"), mapping: mapping
            ).run()
        }
        #expect(error?.code == .constraintConflict)
        #expect(error?.message.contains("2 objects share these values") == true)
    }

    @Test("a policy that throws fails with 134170, naming the mapping, the hook and the object")
    func throwingPolicy() throws {
        let url = try MigrationFixtures.blogStore(in: folder)
        let error = try expectUntouched(url) {
            try blog(
                url,
                Self.blogMapping(
                    """
                    <entity-mapping name="AuthorToAuthor" type="custom" source="Author" destination="Author" policy="ThrowingPolicy">
                        <attribute name="handle" value="'h'"/>
                    </entity-mapping>
                    """)
            ).run()
        }
        #expect(error?.code == .entityMigrationPolicy)
        #expect(
            error?.message
                == "the policy of AuthorToAuthor failed in createDestinationInstances on Author/2: this policy refuses the second object"
        )
    }

    @Test("an unknown policy stops the migration before anything runs")
    func unknownPolicy() throws {
        let url = try MigrationFixtures.blogStore(in: folder)
        let error = try expectUntouched(url) {
            try blog(
                url,
                Self.blogMapping(
                    """
                    <entity-mapping name="AuthorToAuthor" type="custom" source="Author" destination="Author" policy="App.NoSuchPolicy">
                        <attribute name="handle" value="'h'"/>
                    </entity-mapping>
                    """)
            ).run()
        }
        #expect(
            error?.message.contains("no compiled-in policy is called \"App.NoSuchPolicy\"") == true,
            "\(String(describing: error))")
    }

    @Test("a mapping with errors stops the migration before anything runs")
    func badMapping() throws {
        let url = try MigrationFixtures.blogStore(in: folder)
        let error = try expectUntouched(url) {
            try blog(
                url,
                Self.blogMapping(
                    """
                    <entity-mapping name="AuthorToAuthor" type="transform" source="Author" destination="Author">
                        <attribute name="handle" value="$source.nickname"/>
                    </entity-mapping>
                    """)
            ).run()
        }
        #expect(error?.code == .migration)
        #expect(error?.message.contains("Author has no attribute or relationship \"nickname\"") == true)
    }

    @Test("a value that cannot be stored fails with 134110, naming the mapping, object and property")
    func unconvertibleValue() throws {
        let url = try MigrationFixtures.blogStore(in: folder)
        let error = try expectUntouched(url) {
            try blog(
                url,
                Self.blogMapping(
                    """
                    <entity-mapping name="ArticleToArticle" type="transform" source="Article" destination="Article">
                        <attribute name="headline" value="$source.title"/>
                        <attribute name="slug" value="$source.title"/>
                        <attribute name="views" value="concat('n', $source.views)"/>
                    </entity-mapping>
                    """)
            ).run()
        }
        #expect(error?.code == .migration)
        #expect(error?.message.contains("ArticleToArticle: Article/1") == true, "\(String(describing: error))")
        #expect(error?.property == "views")
    }

    /// A headline whose value runs a MATCHES that backtracks on a run of `count` "a" (with the
    /// Article's views after it) for every Article: exponential up to ICU's own limit near 24.
    static func backtrackingHeadline(_ count: Int) -> String {
        blogMapping(
            """
            <entity-mapping name="ArticleToArticle" type="transform" source="Article" destination="Article">
                <attribute name="headline" value="TERNARY(concat('\(String(repeating: "a", count: count))', $source.views) MATCHES '(a+)+b', 'never', $source.title)"/>
                <attribute name="slug" value="$source.title"/>
            </entity-mapping>
            """)
    }

    @Test("a MATCHES that backtracks without bound stops the run, naming the mapping, object and property")
    func runawayPattern() throws {
        let url = try MigrationFixtures.blogStore(in: folder)
        let error = try expectUntouched(url) { try blog(url, Self.backtrackingHeadline(40)).run() }
        #expect(error?.message.contains("ArticleToArticle: Article/1") == true, "\(String(describing: error))")
        #expect(error?.message.contains("MATCHES \"(a+)+b\" gave up after 20,000,000 steps") == true)
        #expect(error?.property == "headline")
    }

    @Test("cancelling stops with 134120 and changes nothing")
    func cancel() throws {
        let url = try MigrationFixtures.blogStore(in: folder)
        let box = MigrationBox()
        let context = RunContext(progress: { progress in
            if progress.pass == .relate { box.migration?.cancel() }
        })
        box.migration = try blog(url, context: context)
        let error = try expectUntouched(url) { try box.migration!.run() }
        #expect(error?.code == .migrationCancelled)
    }

    @Test("a store another connection is writing to is refused")
    func inUse() throws {
        let url = try MigrationFixtures.blogStore(in: folder)
        let writer = try SQLiteConnection(path: url.path, mode: .readWrite)
        try writer.execute("BEGIN IMMEDIATE")
        var options = MigrationOptions()
        options.inUseWait = 0.2
        let error = #expect(throws: MoltError.self) { try blog(url, options: options).run() }
        #expect(error?.message.contains("another process has the store open") == true, "\(String(describing: error))")
        try writer.execute("ROLLBACK")
    }
}
