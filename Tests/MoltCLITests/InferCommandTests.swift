import Foundation
import Molt
import MoltTestSupport
import Testing

@Suite("molt infer", .enabled(if: Tool.available, "the molt executable was not built"))
struct InferCommandTests {
    let folder = TemporaryDirectory()
    let bundle: URL

    /// Notes → Notes 2 renames `title` to `heading` and adds `pinned` (inferable); Notes 2 →
    /// Notes 3 adds `folder`, non-optional with no default (not inferable).
    init() throws {
        let note = "<entity name=\"Note\" representedClassName=\"Note\" syncable=\"YES\">"
        let body = "<attribute name=\"body\" optional=\"YES\" attributeType=\"String\"/>"
        let heading =
            "<attribute name=\"heading\" attributeType=\"String\" defaultValueString=\"Untitled\" elementID=\"title\"/>"
        let pinned =
            "<attribute name=\"pinned\" attributeType=\"Boolean\" defaultValueString=\"NO\" usesScalarValueType=\"YES\"/>"
        bundle = try ModelXML.writeBundle(
            "Notes",
            versions: [
                (
                    "Notes",
                    "\(note)<attribute name=\"title\" attributeType=\"String\" defaultValueString=\"Untitled\"/>\(body)</entity>"
                ),
                ("Notes 2", "\(note)\(heading)\(body)\(pinned)</entity>"),
                (
                    "Notes 3",
                    "\(note)\(heading)\(body)\(pinned)<attribute name=\"folder\" attributeType=\"String\"/></entity>"
                ),
            ], current: "Notes 3", in: folder)
    }

    func version(_ name: String) -> String {
        bundle.appendingPathComponent("\(name).xcdatamodel").path
    }

    @Test("prints the inferred mapping as a mapping file that reads back")
    func printsMapping() throws {
        let run = try Tool.run(["infer", "--from", version("Notes"), "--to", version("Notes 2")])
        #expect(run.status == 0, "\(run.stderr)")
        let (mapping, problems) = MappingReader().read(Data(run.stdout.utf8), file: "stdout")
        #expect(problems.isEmpty, "\(problems.map(\.description))")
        let note = try #require(mapping?.entityMapping(named: "Note"))
        #expect(note.kind == .transform)
        #expect(
            note.attributeMapping(named: "heading")?.value == .expression(try ExpressionParser().parse("$source.title"))
        )
        #expect(mapping?.sourceModelName == "Notes" && mapping?.destinationModelName == "Notes 2")
    }

    @Test("-o writes the mapping file instead, and says where")
    func writesFile() throws {
        let out = folder.path("inferred.xml")
        let run = try Tool.run([
            "infer", "--from", bundle.path, "--from-version", "Notes", "--to", bundle.path, "--to-version", "Notes 2",
            "-o", out.path,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "Wrote the inferred mapping to \(out.path)\n")
        let printed = try Tool.run(["infer", "--from", version("Notes"), "--to", version("Notes 2")])
        #expect(try String(contentsOf: out, encoding: .utf8) == printed.stdout)
        #expect(try MappingReader().read(contentsOf: out).entityMapping(named: "Note") != nil)
    }

    @Test("an impossible pair exits with 4 and prints each reason with entity and property")
    func impossible() throws {
        // The destination is the bundle's current version, Notes 3.
        let run = try Tool.run(["infer", "--from", bundle.path, "--from-version", "Notes 2", "--to", bundle.path])
        #expect(run.status == 4)
        #expect(run.stdout.hasPrefix("A mapping from Notes 2 to Notes 3 cannot be inferred:\n"))
        #expect(
            run.stdout.contains(
                "  Note.folder: the new attribute is not optional and has no default value — give it a default value"))
        #expect(!run.stdout.contains("<mapping-model"))
    }

    @Test("--each-version prints one line per consecutive pair and a summary")
    func eachVersion() throws {
        let run = try Tool.run(["infer", "--from", bundle.path, "--to", bundle.path, "--each-version"])
        #expect(run.status == 4, "a pair cannot be inferred")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines.first == "Notes → Notes 2: inferred")
        #expect(lines.dropFirst().first?.hasPrefix("Notes 2 → Notes 3: not inferred: Note.folder: ") == true)
        #expect(lines.last == "1 of 2 consecutive pairs infer")
    }

    @Test("--each-version exits with 0 when every pair infers")
    func eachVersionAllInferred() throws {
        let other = TemporaryDirectory()
        let note = "<entity name=\"Note\" representedClassName=\"Note\" syncable=\"YES\">"
        let two = try ModelXML.writeBundle(
            "Two",
            versions: [
                ("Two", "\(note)<attribute name=\"title\" optional=\"YES\" attributeType=\"String\"/></entity>"),
                (
                    "Two 2",
                    "\(note)<attribute name=\"title\" optional=\"YES\" attributeType=\"String\"/><attribute name=\"n\" optional=\"YES\" attributeType=\"Integer 32\"/></entity>"
                ),
            ], current: "Two 2", in: other)
        let run = try Tool.run(["infer", "--from", two.path, "--to", two.path, "--each-version"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "Two → Two 2: inferred\n1 of 1 consecutive pairs infer\n")
    }

    @Test("a bundle source needs --from-version, and -o does not go with --each-version")
    func usage() throws {
        let noVersion = try Tool.run(["infer", "--from", bundle.path, "--to", bundle.path])
        #expect(noVersion.status == 64, "a usage mistake: \(noVersion.stderr)")
        #expect(noVersion.stderr.contains("name the version to infer from with --from-version"))
        #expect(noVersion.stderr.contains("versions: Notes, Notes 2"), "\(noVersion.stderr)")
        let both = try Tool.run(
            ["infer", "--from", bundle.path, "--to", bundle.path, "--each-version", "-o", "x.xml"], in: folder.url)
        #expect(both.status == 64)
        #expect(both.stderr.contains("--each-version"))
        #expect(!FileManager.default.fileExists(atPath: folder.path("x.xml").path))
    }

    @Test("-o does not replace an existing file (73) unless --force")
    func outputIsNotReplaced() throws {
        let target = folder.path("edited.xml")
        try "<!-- edited by hand -->".write(to: target, atomically: true, encoding: .utf8)
        let arguments = [
            "infer", "--from", bundle.path, "--from-version", "Notes", "--to", bundle.path, "--to-version", "Notes 2",
            "-o", target.path,
        ]
        let refused = try Tool.run(arguments)
        #expect(refused.status == 73, "\(refused.stderr)")
        #expect(refused.stderr.contains("\(target.path): the file exists"), "\(refused.stderr)")
        #expect(try String(contentsOf: target, encoding: .utf8) == "<!-- edited by hand -->")
        let forced = try Tool.run(arguments + ["--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try String(contentsOf: target, encoding: .utf8).contains("<mapping-model"))
    }
}
