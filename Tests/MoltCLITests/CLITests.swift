import Foundation
import MoltTestSupport
import Testing

@Suite("The molt command", .enabled(if: Tool.available, "the molt executable was not built"))
struct CLITests {
    let folder = TemporaryDirectory()
    let bundle = Fixtures.package("MappingModels/Examples/Blog.xcdatamodeld").path
    let seed = Fixtures.package("MappingModels/Examples/Blog.json").path

    @Test("create then dump --json round-trips the example seed byte for byte")
    func createDumpRoundTrip() throws {
        let store = folder.path("blog.sqlite").path
        let created = try Tool.run(["create", store, "--model", bundle, "--model-version", "Blog", "--seed", seed])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout.contains("13 objects (Article 2, Author 3, Comment 4, Tag 3, Video 1)"))
        let dumped = try Tool.run(["dump", store, "--model", bundle, "--json"])
        #expect(dumped.status == 0, "\(dumped.stderr)")
        #expect(dumped.stdout == (try String(contentsOfFile: seed, encoding: .utf8)))
        let toFile = try Tool.run(["dump", store, "--model", bundle, "--json", "-o", folder.path("out.json").path])
        #expect(toFile.status == 0 && toFile.stdout.isEmpty)
        #expect(try String(contentsOf: folder.path("out.json"), encoding: .utf8) == dumped.stdout)
        let text = try Tool.run(["dump", store, "--model", bundle])
        #expect(text.stdout.contains("Tag/1  name=\"swift\"  posts=[Video/3, Article/1]"))
    }

    @Test("a verbose migrate opens the store once to decide and once to read it, and says so once each")
    func opensLoggedOnce() throws {
        let store = try folder.copy(Fixtures.package("MappingModels/Examples/Blog.sqlite"))
        let run = try Tool.run([
            "migrate", store.path, "--from", bundle, "--to", bundle, "--mapping",
            Fixtures.package("MappingModels/Blog/Blog-to-Blog2.xml").path, "-v",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let opened = run.stderr.split(separator: "\n").filter { $0.hasSuffix("opened store") }
        let ofStore = opened.filter { $0.contains("molt.store=\(store.path) ") }
        #expect(ofStore.count == 2, "\(opened)")
        #expect(opened.count == 3, "and the new store once: \(opened)")
    }

    @Test("inspect reports metadata, counts and companions, and leaves the store as it was")
    func inspect() throws {
        let store = try folder.copy(Fixtures.package("MappingModels/Examples/Blog.sqlite"))
        let before = try Data(contentsOf: store)
        let run = try Tool.run(["inspect", store.path, "--model", bundle])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Journal:      wal"))
        #expect(run.stdout.contains("Identifiers:  \"Blog 1\""))
        #expect(run.stdout.contains("Matching:     Blog (current version: Blog 2)"))
        #expect(run.stdout.range(of: #"3\s+Post\s+-\s+0\s+"#, options: .regularExpression) != nil)
        #expect(run.stdout.range(of: #"4\s+Article\s+Post\s+2\s+"#, options: .regularExpression) != nil)
        #expect(try Data(contentsOf: store) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["Blog.sqlite"])

        let json = try Tool.run(["inspect", store.path, "--json"])
        let report = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(report?["journalMode"] as? String == "wal")
        #expect((report?["entities"] as? [[String: Any]])?.count == 6)
    }

    @Test(
        "inspect names the bundle version a real Core Data store was made with",
        .enabled(if: Fixtures.available, Comment(rawValue: Fixtures.absentMessage)))
    func inspectRealStore() throws {
        let store = try folder.copy(Fixtures.real("coredatastack/TestModel.sqlite"))
        let run = try Tool.run([
            "inspect", store.path, "--model", Fixtures.real("coredatastack/Sample.xcdatamodeld").path,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Matching:     TestModel (current version: TestModel 2)"))
        #expect(run.stdout.contains("Framework:    637"))
        #expect(run.stdout.contains("cbc1f5c274ebf414474c4e350f73b14b1dd356c22782ae7488810d597188c46d"))
        #expect(run.stdout.contains("Model cache:  present"))
    }

    @Test("a store that no version matches exits with 3 and says what differs")
    func incompatible() throws {
        let other = try folder.write(
            ModelXML.document("<entity name=\"Tag\"><attribute name=\"label\" attributeType=\"String\"/></entity>"),
            to: "Other.xcdatamodel/contents")
        let store = try folder.copy(Fixtures.package("MappingModels/Examples/Blog.sqlite"))
        let inspect = try Tool.run(["inspect", store.path, "--model", other.deletingLastPathComponent().path])
        #expect(inspect.status == 3)
        #expect(inspect.stdout.contains("Matching:     none"))
        let dump = try Tool.run(["dump", store.path, "--model", other.path])
        #expect(dump.status == 3)
        #expect(dump.stderr.hasPrefix("molt: error: "))
        #expect(dump.stderr.contains("entity Tag differs; Article, Author, Comment, Post, Video only in the store"))
    }

    @Test(
        "hash prints the hashes Core Data stored",
        .enabled(if: Fixtures.available, Comment(rawValue: Fixtures.absentMessage)))
    func hash() throws {
        let run = try Tool.run([
            "hash", Fixtures.real("coredatastack/Sample.xcdatamodeld").path, "--model-version", "TestModel",
        ])
        #expect(run.status == 0)
        #expect(
            run.stdout
                == "Author  cbc1f5c274ebf414474c4e350f73b14b1dd356c22782ae7488810d597188c46d\nBook    292c923e48c2cbeea5a113bb7685fbc63ab800c0bbc242ad17a0f2e2a1e08f5c\n"
        )
        let all = try Tool.run([
            "hash", Fixtures.real("coredatastack/Sample.xcdatamodeld").path, "--all-versions", "--json",
        ])
        let object = try JSONSerialization.jsonObject(with: Data(all.stdout.utf8)) as? [String: Any]
        let versions = object?["versions"] as? [[String: Any]]
        #expect(versions?.map { $0["version"] as? String } == ["TestModel", "TestModel 2"])
        #expect(object?["model"] as? String == Fixtures.real("coredatastack/Sample.xcdatamodeld").path)
    }

    @Test("check-model lists every problem with file and line and exits with 1")
    func checkModel() throws {
        let broken = try folder.write(
            ModelXML.document(
                """
                <entity name="A"><relationship name="b" optional="YES" maxCount="1" destinationEntity="B" inverseName="nope" inverseEntity="B"/></entity>
                <entity name="B"><relationship name="x" optional="YES" maxCount="1" destinationEntity="Ghost"/></entity>
                """), to: "Broken.xcdatamodel/contents")
        let run = try Tool.run(["check-model", broken.path])
        #expect(run.status == 1)
        #expect(
            run.stdout.contains(
                "\(broken.path):3: <relationship>: error: A.b: the inverse relationship \"nope\" does not exist on B"))
        #expect(run.stdout.contains(":4: <relationship>: error: B.x: the destination entity \"Ghost\" does not exist"))
        #expect(run.stdout.contains("Checked 1 model: 2 errors, 0 warnings"))
        let clean = try Tool.run(["check-model", bundle])
        #expect(clean.status == 0)
    }

    @Test(
        "failures exit with the documented codes and one line on standard error",
        arguments: [
            (["inspect", "/nonexistent/store.sqlite"], 66, "no such file"),
            (["inspect", "NOT_A_STORE"], 65, "not an SQLite database"),
            (["create", "EXISTS", "--model", "BUNDLE"], 73, "already exists"),
            (["create", "new.sqlite", "--model", "BUNDLE", "--seed", "BAD_SEED"], 65, "BAD_SEED:1"),
            (
                ["create", "new.sqlite", "--model", "BUNDLE", "--model-version", "Blog", "--seed", "TWINS_SEED"], 65,
                "TWINS_SEED:3: Author.identifier: object \"b\" has the same value of the uniqueness constraint (identifier) as object \"a\" (line 2)"
            ),
            (["hash", "BAD_MODEL"], 65, "unknown attribute type \"Colour\""),
            (
                ["create", "new.sqlite", "--model", "BROKEN_MODEL"], 65,
                "the inverse relationship \"nope\" does not exist on B"
            ),
            (
                ["migrate", "EXISTS", "--from", "BUNDLE", "--to", "BUNDLE", "--mapping", "CONTACTS_MAPPING"], 3,
                "the mapping CONTACTS_MAPPING is for other versions: it maps \"Contacts\" to \"Contacts 2\", and the bundle has no version \"Contacts 2\" (its versions: Blog, Blog 2)\n  what to do: Give the mapping file made for this bundle's versions."
            ),
            (["frobnicate"], 64, "Unexpected argument"),
            (["dump", "x.sqlite"], 64, "--model"),
        ] as [([String], Int32, String)])
    func exitCodes(arguments: [String], status: Int32, message: String) throws {
        let notAStore = try folder.write("hello", to: "not-a-store.sqlite")
        let exists = try folder.write("keep me", to: "exists.sqlite")
        let badSeed = try folder.write("{\"entities\": {\"Nope\": []}}", to: "bad.json")
        let twinsSeed = try folder.write(
            """
            {"entities": {"Author": [
              {"@id": "a", "name": "A", "identifier": "00000000-0000-0000-0000-000000000001"},
              {"@id": "b", "name": "B", "identifier": "00000000-0000-0000-0000-000000000001"}]}}
            """, to: "twins.json")
        let badModel = try folder.write(
            ModelXML.document("<entity name=\"E\"><attribute name=\"c\" attributeType=\"Colour\"/></entity>"),
            to: "Bad.xcdatamodel/contents")
        let brokenModel = try folder.write(
            ModelXML.document(
                """
                <entity name="A"><relationship name="b" optional="YES" maxCount="1" destinationEntity="B" inverseName="nope" inverseEntity="B"/></entity>
                <entity name="B"/>
                """), to: "Broken.xcdatamodel/contents")
        let substitutions = [
            "BROKEN_MODEL": brokenModel.path,
            "NOT_A_STORE": notAStore.path, "EXISTS": exists.path, "BUNDLE": bundle, "BAD_SEED": badSeed.path,
            "TWINS_SEED": twinsSeed.path,
            "CONTACTS_MAPPING": Fixtures.package("MappingModels/Contacts/Contacts-to-Contacts2.xml").path,
            "BAD_MODEL": badModel.path,
        ]
        let run = try Tool.run(arguments.map { substitutions[$0] ?? $0 }, in: folder.url)
        #expect(run.status == status, "\(run.stderr)")
        let expected = substitutions.reduce(message) { $0.replacingOccurrences(of: $1.key, with: $1.value) }
        #expect(run.stderr.contains(expected), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(try String(contentsOf: exists, encoding: .utf8) == "keep me")
        #expect(!FileManager.default.fileExists(atPath: folder.path("new.sqlite").path))
    }

    @Test("check-mapping passes the example and lists every problem of a broken mapping with line and column")
    func checkMapping() throws {
        let example = Fixtures.package("MappingModels/Blog/Blog-to-Blog2.xml").path
        let clean = try Tool.run(["check-mapping", example, "--from", bundle, "--to", bundle])
        #expect(clean.status == 0, "\(clean.stdout)\(clean.stderr)")
        #expect(clean.stdout.contains("0 errors, 0 warnings"))
        let broken = try folder.write(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <mapping-model format="1" source-model="Blog" destination-model="Blog 2">
                <entity-mapping name="AuthorToAuthor" type="transform" source="Author" destination="Author">
                    <attribute name="handle" value="lowercase($source.nmae)"/>
                </entity-mapping>
                <entity-mapping name="Ghost" type="transform" source="Psot" destination="Article"/>
            </mapping-model>
            """, to: "broken.xml")
        let run = try Tool.run(["check-mapping", broken.path, "--from", bundle, "--to", bundle])
        #expect(run.status == 1)
        #expect(
            run.stdout.contains(
                "\(broken.path):4:51: <attribute>: error: AuthorToAuthor.handle: Author has no attribute or relationship \"nmae\"; did you mean \"name\"?"
            ))
        #expect(
            run.stdout.contains(
                "\(broken.path):6: <entity-mapping>: error: Ghost: the source model has no entity \"Psot\""))
        let quiet = try Tool.run(["check-mapping", broken.path, "--from", bundle, "--to", bundle, "--quiet"])
        #expect(!quiet.stdout.contains("warning:"))
        let unnamed = try Tool.run([
            "check-mapping", broken.path, "--from", bundle, "--to", bundle, "--from-version", "Blog 9",
        ])
        #expect(unnamed.status == 66)
        #expect(unnamed.stderr.contains("no version \"Blog 9\""))
    }

    @Test("stamp-mapping writes the hashes in place and the stamped file still checks")
    func stampMapping() throws {
        let file = try folder.copy(Fixtures.package("MappingModels/Blog/Blog-to-Blog2.xml"))
        let run = try Tool.run(["stamp-mapping", file.path, "--from", bundle, "--to", bundle])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try String(contentsOf: file, encoding: .utf8).contains("source-hash=\"45ee1004"))
        let check = try Tool.run(["check-mapping", file.path, "--from", bundle, "--to", bundle])
        #expect(check.status == 0)
    }

    @Test("migrate turns the example store into Blog 2, with a backup, progress lines and a report")
    func migrate() throws {
        let store = try folder.copy(Fixtures.package("MappingModels/Examples/Blog.sqlite"))
        let mapping = Fixtures.package("MappingModels/Blog/Blog-to-Blog2.xml").path
        let dry = try Tool.run([
            "migrate", store.path, "--from", bundle, "--to", bundle, "--mapping", mapping, "--dry-run",
        ])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("the store was not changed"))
        let run = try Tool.run([
            "migrate", store.path, "--from", bundle, "--to", bundle, "--mapping", mapping, "--backup", "--progress",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Migrated \(store.path) from Blog to Blog 2"))
        #expect(run.stdout.range(of: #"CommentToComment\s+4\s+4"#, options: .regularExpression) != nil)
        #expect(run.stdout.contains("The old store is kept as"))
        #expect(run.stderr.contains("molt: 100% overall · validate"), "progress lines when asked for, even when piped")
        let dump = try Tool.run(["dump", store.path, "--model", bundle, "--json"])
        #expect(
            dump.stdout
                == (try String(contentsOf: Fixtures.package("MappingModels/Examples/Blog2.json"), encoding: .utf8)))
        // Run again: the store is already at the destination, which is nothing to do (as Core
        // Data does not migrate a store its model opens).
        let before = try Data(contentsOf: store)
        let again = try Tool.run(["migrate", store.path, "--from", bundle, "--to", bundle, "--mapping", mapping])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout == "\(store.path) is already at Blog 2: nothing to migrate.\n")
        #expect(try Data(contentsOf: store) == before)
        let quiet = try Tool.run(["recover", store.path])
        #expect(quiet.stdout.contains("Nothing to recover"))
    }

    @Test("an error says what went wrong and what to do, and nothing else; --verbose adds the code")
    func errorLines() throws {
        let plain = try Tool.run(["inspect", "/nonexistent/store.sqlite"])
        #expect(
            plain.stderr
                == "molt: error: /nonexistent/store.sqlite: no such file or folder\n  what to do: Check the path.\n",
            "\(plain.stderr)")
        #expect(!plain.stderr.contains("--verbose"))
        let run = try Tool.run(["inspect", "/nonexistent/store.sqlite", "--verbose"])
        #expect(run.stderr.contains("code: 260 (NSFileReadNoSuchFileError)"))
        #expect(run.stderr.contains("what to do: Check the path."))
    }

    @Test("a store given where a model belongs is named as a store (65), not read as broken XML")
    func storeAsModel() throws {
        let store = Fixtures.package("MappingModels/Examples/Blog.sqlite").path
        let run = try Tool.run(["hash", store])
        #expect(run.status == 65)
        #expect(run.stderr.contains("\(store): this is an SQLite store, not a Core Data model"), "\(run.stderr)")
        #expect(run.stderr.contains("what to do: Give the model"), "\(run.stderr)")
    }

    @Test("a folder given as the store is 65 in inspect as in migrate")
    func folderAsStore() throws {
        let inspect = try Tool.run(["inspect", folder.url.path])
        #expect(inspect.status == 65, "\(inspect.stderr)")
        #expect(inspect.stderr.contains("the store's path is not a file"), "\(inspect.stderr)")
        let bundle = Fixtures.package("MappingModels/Examples/Blog.xcdatamodeld").path
        let migrate = try Tool.run(["migrate", folder.url.path, "--from", bundle, "--to", bundle])
        #expect(migrate.status == 65, "\(migrate.stderr)")
    }

    @Test("molt alone prints the help on standard error and exits 64")
    func noSubcommand() throws {
        let run = try Tool.run([])
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("SUBCOMMANDS:"), "\(run.stderr)")
    }

    @Test("--help lists the subcommands and the exit codes")
    func help() throws {
        let run = try Tool.run(["--help"])
        #expect(run.status == 0)
        for word in [
            "migrate", "recover", "inspect", "create", "dump", "hash", "check-model", "check-mapping", "Exit codes",
            "134100",
        ] {
            #expect(run.stdout.contains(word), "\(word)")
        }
    }
}
