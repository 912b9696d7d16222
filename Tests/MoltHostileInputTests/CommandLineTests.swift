import Foundation
import MoltTestSupport
import Testing

/// What a user of `molt` sees for hostile input: one line on standard error naming the file
/// and line (`molt: error: FILE:LINE: …`), or diagnostics with file, line and column, and the
/// documented exit code; never a crash.
@Suite("Hostile input through the molt command", .enabled(if: Molt.available, "the molt binary is not built"))
struct CommandLineTests {
    static let blog = Fixtures.package("MappingModels/Examples/Blog.xcdatamodeld").path

    static func corpus(_ path: String) -> String { Corpus.folder.appendingPathComponent(path).path }

    @Test("check-model names the file, line and element of a bad model")
    func checkModel() throws {
        let file = Self.corpus("models/unknown-attribute-type.xml")
        let run = try Molt.run(["check-model", file])
        #expect(run.status == 65)
        #expect(
            run.firstErrorLine
                == "molt: error: \(file):5: <attribute>: Author.favourite: unknown attribute type \"Colour\"")
    }

    @Test("check-model refuses a billion-laughs model at once, naming the DOCTYPE")
    func billionLaughs() throws {
        let file = Self.corpus("models/billion-laughs.xml")
        let run = try Molt.run(["check-model", file])
        #expect(run.status == 65)
        #expect(
            run.firstErrorLine.hasPrefix("molt: error: \(file):3: <!DOCTYPE>: the document declares the entity \"lol\"")
        )
    }

    @Test("check-mapping lists a syntax error with its file, line and column")
    func checkMapping() throws {
        let file = Self.corpus("mappings/expression-syntax-column.xml")
        let run = try Molt.run(["check-mapping", file, "--from", Self.blog, "--to", Self.blog])
        #expect(run.status == 1)
        #expect(
            run.stdout.contains(
                "\(file):4:81: <attribute>: error: AuthorToAuthor.handle: syntax error: expected \")\" to close the arguments of lowercase"
            ), "\(run.stdout)")
    }

    @Test("create --seed names the seed's file, line and column, and leaves no store")
    func createWithSeed() throws {
        let folder = TemporaryDirectory("molt-hostile-cli")
        let seed = Self.corpus("seeds/duplicate-key.json")
        let store = folder.path("Blog.sqlite").path
        let run = try Molt.run(["create", store, "--model", Self.blog, "--model-version", "Blog", "--seed", seed])
        #expect(run.status == 65)
        #expect(
            run.firstErrorLine
                == "molt: error: \(seed):4:45: invalid JSON: the key \"name\" appears twice in one object")
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    @Test("inspect refuses a file that is not a store and leaves it unchanged")
    func inspectNotAStore() throws {
        let folder = TemporaryDirectory("molt-hostile-cli")
        let file = try folder.write("SQLite format 2\u{0} and then some text", to: "fake.sqlite")
        let before = try Data(contentsOf: file)
        let run = try Molt.run(["inspect", file.path])
        #expect(run.status == 65)
        #expect(
            run.firstErrorLine
                == "molt: error: \(file.path): the file is not an SQLite database (it does not start with SQLite's header)"
        )
        #expect(try Data(contentsOf: file) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["fake.sqlite"])
    }
}

/// Runs the `molt` executable built beside the test bundle.
enum Molt {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String

        /// The first line of standard error: the one-line diagnostic.
        var firstErrorLine: String { stderr.split(separator: "\n").first.map(String.init) ?? "" }
    }

    static let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("molt")

    static var available: Bool { FileManager.default.isExecutableFile(atPath: executable.path) }

    static func run(_ arguments: [String]) throws -> Run {
        let folder = TemporaryDirectory("molt-hostile-output")
        let out = folder.path("stdout")
        let err = folder.path("stderr")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, stdout: try String(contentsOf: out, encoding: .utf8),
            stderr: try String(contentsOf: err, encoding: .utf8))
    }
}
