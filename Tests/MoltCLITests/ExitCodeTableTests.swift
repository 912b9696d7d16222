import Foundation
import Molt
import MoltTestSupport
import Testing

@testable import MoltCommandLine

/// The exit-code table (`ExitCodes.kinds`) is the one truth: "The molt command" shows it, `molt
/// --help` prints it within 80 columns, `ExitCodes.code(for:)` reads it, and every command,
/// failing in each way it can, exits with the table's code and prints, under `--json`, an
/// error whose `code` and `codeName` the table lists for that exit code.
@Suite("The exit-code table", .enabled(if: Tool.available, "the molt executable was not built"))
struct ExitCodeTableTests {
    let folder = TemporaryDirectory()

    /// The rows of the article's table: exit code → the error codes its third column names,
    /// each with the `codeName` given beside it (a range stands for the table's codes in it).
    static func articleRows() throws -> [Int32: [Int: String?]] {
        let article = try String(
            contentsOf: Fixtures.package("Sources/Molt/Molt.docc/TheMoltCommand.md"), encoding: .utf8)
        let section = try #require(article.components(separatedBy: "### Exit codes").dropFirst().first)
        var rows: [Int32: [Int: String?]] = [:]
        for line in section.split(separator: "\n") where line.hasPrefix("| ") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 4, let exit = Int32(cells[1]) else { continue }
            var codes: [Int: String?] = [:]
            let pattern = try NSRegularExpression(pattern: #"(\d+)(?:–(\d+))?(?: \(`([A-Za-z_]+)`)?"#)
            let text = cells[3]
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                func group(_ index: Int) -> String? {
                    Range(match.range(at: index), in: text).map { String(text[$0]) }
                }
                let low = Int(group(1)!)!
                if let high = group(2).flatMap(Int.init) {
                    for code in MoltError.Code.allNamed where (low...high).contains(code.rawValue) {
                        codes[code.rawValue] = .some(nil)
                    }
                } else {
                    codes[low] = group(3)
                }
            }
            rows[exit] = codes
        }
        return rows
    }

    @Test("the article's table lists each kind's exit code and error codes, with Core Data's names")
    func articleMatchesTable() throws {
        let rows = try Self.articleRows()
        #expect(Set(rows.keys) == Set(ExitCodes.kinds.map(\.exit)))
        for kind in ExitCodes.kinds {
            let listed = Set((rows[kind.exit] ?? [:]).keys)
            let expected = Set(kind.errors.map(\.rawValue) + (kind.exit == ExitCodes.usage ? [64] : []))
            #expect(listed == expected, "exit \(kind.exit): the article lists \(listed.sorted())")
            for (code, name) in rows[kind.exit] ?? [:] {
                guard let name, code != 64 else { continue }
                #expect(
                    MoltError.Code(rawValue: code).name == name, "\(code) is \(MoltError.Code(rawValue: code).name)")
            }
        }
    }

    @Test("every code Molt names ends a command with exactly one exit code, the table's")
    func everyCodeHasOneKind() {
        for code in MoltError.Code.allNamed {
            let kinds = ExitCodes.kinds.filter { $0.errors.contains(code) }
            #expect(kinds.count == 1, "\(code.rawValue) \(code.name) is in \(kinds.count) kinds")
            if let kind = kinds.first {
                #expect(ExitCodes.code(for: MoltError(code, "x")) == kind.exit)
            }
        }
    }

    @Test("molt --help prints the table within 80 columns")
    func helpFitsEightyColumns() throws {
        let run = try Tool.run(["--help"], environment: ["COLUMNS": "80"])
        #expect(run.status == 0)
        let long = run.stdout.split(separator: "\n").filter { $0.count > 80 }
        #expect(long.isEmpty, "\(long)")
        for kind in ExitCodes.kinds {
            #expect(
                run.stdout.split(separator: "\n").contains {
                    $0.hasPrefix("  \(kind.exit) ") && $0.contains(kind.meaning.split(separator: " ").first!)
                }, "exit \(kind.exit) is listed")
        }
    }

    /// One way a command fails: its arguments (placeholders in capitals) and the exit code the
    /// table gives that failure.
    struct Failure: CustomTestStringConvertible, Sendable {
        let arguments: [String]
        let exit: Int32
        var testDescription: String { "molt \(arguments.joined(separator: " ")) → \(exit)" }
    }

    static let failures: [Failure] = {
        var all: [Failure] = []
        func add(_ exit: Int32, _ arguments: String) {
            all.append(Failure(arguments: arguments.split(separator: " ").map(String.init), exit: exit))
        }
        let commands = [
            "migrate", "upgrade", "verify", "recover", "infer", "inspect", "create", "dump", "hash", "check-model",
            "check-mapping", "stamp-mapping", "convert-mapping", "extract-model",
        ]
        for command in commands { add(64, "\(command) --no-such-option") }
        add(66, "migrate MISSING_STORE --from BUNDLE --to BUNDLE --mapping MAPPING")
        add(65, "migrate NOT_A_STORE --from BUNDLE --to BUNDLE --mapping MAPPING")
        add(65, "migrate STORE --from BUNDLE --to BUNDLE --mapping BAD_XML")
        add(3, "migrate STORE --from CONTACTS --to CONTACTS")
        add(66, "upgrade MISSING_STORE --models BUNDLE --mappings MAPPINGS")
        add(65, "upgrade NOT_A_STORE --models BUNDLE --mappings MAPPINGS")
        add(3, "upgrade STORE --models CONTACTS --mappings CONTACTS_MAPPINGS")
        add(66, "verify MISSING_STORE --models BUNDLE --mappings MAPPINGS")
        add(66, "verify STORE --models BUNDLE --mappings MAPPINGS --to Nope")
        add(66, "verify STORE --models BUNDLE --mappings MAPPINGS --production-version Nope")
        add(65, "verify STORE --models BAD_MODEL --mappings MAPPINGS")
        add(66, "recover MISSING_STORE")
        add(65, "recover NOT_A_STORE")
        add(66, "infer --from MISSING_MODEL --to BUNDLE")
        add(65, "infer --from BAD_MODEL --to BUNDLE")
        add(66, "infer --from BUNDLE --from-version Nope --to BUNDLE")
        add(73, "infer --from BUNDLE --from-version Blog --to BUNDLE -o EXISTS")
        add(66, "inspect MISSING_STORE")
        add(65, "inspect NOT_A_STORE")
        add(66, "create NEW_STORE --model MISSING_MODEL")
        add(65, "create NEW_STORE --model BAD_MODEL")
        add(66, "create NEW_STORE --model BUNDLE --model-version Nope")
        add(73, "create EXISTS --model BUNDLE")
        add(65, "create NEW_STORE --model BUNDLE --model-version Blog --seed BAD_SEED")
        add(66, "create NEW_STORE --model BUNDLE --model-version Blog --seed MISSING_SEED")
        add(66, "dump MISSING_STORE --model BUNDLE")
        add(65, "dump NOT_A_STORE --model BUNDLE")
        add(3, "dump STORE --model CONTACTS")
        add(66, "hash MISSING_MODEL")
        add(65, "hash BAD_MODEL")
        add(66, "hash BUNDLE --model-version Nope")
        add(66, "check-model MISSING_MODEL")
        add(65, "check-model NOT_A_STORE")
        add(66, "check-model BUNDLE --production-version Nope")
        add(66, "check-mapping MISSING_MAPPING --from BUNDLE --to BUNDLE")
        add(66, "check-mapping MAPPING --from MISSING_MODEL --to BUNDLE")
        add(66, "stamp-mapping MISSING_MAPPING --from BUNDLE --to BUNDLE")
        add(65, "stamp-mapping BAD_XML --from BUNDLE --to BUNDLE")
        add(66, "convert-mapping MISSING_MAPPING")
        add(65, "convert-mapping BAD_XCMAPPING")
        add(66, "extract-model MISSING_STORE -o NEW_MODEL")
        add(65, "extract-model NOT_A_STORE -o NEW_MODEL")
        add(66, "extract-model STORE -o NEW_MODEL")
        add(64, "extract-model STORE -o not-a-version")
        return all
    }()

    @Test("each command, failing each way, exits with the table's code and prints its JSON error", arguments: failures)
    func commandFails(_ failure: Failure) throws {
        let blog = Fixtures.package("MappingModels/Examples/Blog.xcdatamodeld").path
        let places = [
            "BUNDLE": blog,
            "CONTACTS": Fixtures.package("MappingModels/Examples/Contacts.xcdatamodeld").path,
            "MAPPING": Fixtures.package("MappingModels/Blog/Blog-to-Blog2.xml").path,
            "MAPPINGS": Fixtures.package("MappingModels/Blog").path,
            "CONTACTS_MAPPINGS": Fixtures.package("MappingModels/Contacts").path,
            "STORE": try folder.copy(Fixtures.package("MappingModels/Examples/Blog.sqlite")).path,
            "NOT_A_STORE": try folder.write("hello, not a store", to: "not-a-store.sqlite").path,
            "BAD_XML": try folder.write("<mapping", to: "bad.xml").path,
            "BAD_XCMAPPING": try folder.write("<model", to: "Bad.xcmappingmodel/xcmapping.xml").path,
            "BAD_MODEL": try folder.write(
                ModelXML.document("<entity name=\"E\"><attribute name=\"c\" attributeType=\"Colour\"/></entity>"),
                to: "Bad.xcdatamodel/contents"
            ).path,
            "BAD_SEED": try folder.write("{\"entities\": {\"Nope\": []}}", to: "bad.json").path,
            "EXISTS": try folder.write("keep me", to: "exists.sqlite").path,
            "NEW_STORE": folder.path("new.sqlite").path,
            "NEW_MODEL": folder.path("New.xcdatamodel").path,
            "MISSING_STORE": folder.path("missing.sqlite").path,
            "MISSING_MODEL": folder.path("Missing.xcdatamodeld").path,
            "MISSING_MAPPING": folder.path("missing.xml").path,
            "MISSING_SEED": folder.path("missing.json").path,
        ]
        let arguments = failure.arguments.map { places[$0] ?? $0 } + ["--json"]
        let run = try Tool.run(arguments, in: folder.url)
        #expect(run.status == failure.exit, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("molt: error: ") || run.stderr.contains("Error: "), "\(run.stderr)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "stdout: \(run.stdout)")
        let error = try #require(json["error"] as? [String: Any], "\(json)")
        let code = try #require(error["code"] as? Int)
        #expect(error["exitCode"] as? Int == Int(run.status))
        let kind = try #require(ExitCodes.kinds.first { $0.exit == run.status })
        if run.status == ExitCodes.usage {
            #expect(code == 64 && error["codeName"] as? String == "EX_USAGE")
        } else {
            #expect(kind.errors.map(\.rawValue).contains(code), "code \(code) is not listed for exit \(run.status)")
            #expect(error["codeName"] as? String == MoltError.Code(rawValue: code).name)
        }
        #expect(try String(contentsOf: URL(fileURLWithPath: places["EXISTS"]!), encoding: .utf8) == "keep me")
    }
}
