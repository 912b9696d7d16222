import Foundation
import MoltTestSupport
import Testing

/// Getting Started shows what `molt migrate` prints for the bundled example: that block must
/// stay what the command prints. A line of the block is the command's line, with the store's
/// path, the seconds and the backup's time as placeholders; `…` stands for lines left out.
@Suite("Getting Started's sample output", .enabled(if: Tool.available, "the molt executable was not built"))
struct GettingStartedOutputTests {
    /// The sample block: the fenced lines after the one that starts with "Migrated /tmp/Blog.sqlite".
    static func sample() throws -> [String] {
        let text = try String(
            contentsOf: Fixtures.package("Sources/Molt/Molt.docc/GettingStarted.md"), encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex { $0.hasPrefix("Migrated /tmp/Blog.sqlite from Blog to Blog 2") })
        let end = try #require(lines[start...].firstIndex { $0.hasPrefix("```") })
        return Array(lines[start..<end])
    }

    /// `line` with what changes from run to run replaced.
    static func normalized(_ line: String, store: String) -> String {
        var line = line.replacingOccurrences(of: store, with: "/tmp/Blog.sqlite")
        line = line.replacingOccurrences(
            of: #"in [0-9]+\.[0-9]+ s\."#, with: "in <seconds> s.", options: .regularExpression)
        line = line.replacingOccurrences(
            of: #"/tmp/Blog\.molt-backup-[0-9T]+\.sqlite"#, with: "/tmp/Blog.molt-backup-<time>.sqlite",
            options: .regularExpression)
        return line
    }

    @Test("every line of the sample is printed, in order; … stands for the lines left out")
    func matches() throws {
        let folder = TemporaryDirectory("molt-getting-started")
        let store = try folder.copy(Fixtures.package("MappingModels/Examples/Blog.sqlite")).path
        let bundle = Fixtures.package("MappingModels/Examples/Blog.xcdatamodeld").path
        let run = try Tool.run([
            "migrate", store, "--from", bundle, "--to", bundle, "--mapping",
            Fixtures.package("MappingModels/Blog/Blog-to-Blog2.xml").path, "--backup",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let printed = run.stdout.components(separatedBy: "\n").map {
            Self.normalized($0.replacingOccurrences(of: folder.url.path + "/", with: "/tmp/"), store: store)
        }
        var next = 0
        var skipping = false
        for expected in try Self.sample().map({ Self.normalized($0, store: "/tmp/Blog.sqlite") }) {
            if expected.trimmingCharacters(in: .whitespaces) == "…" {
                skipping = true
                continue
            }
            guard let found = printed[next...].firstIndex(of: expected), skipping || found == next else {
                Issue.record("Getting Started shows \"\(expected)\"; molt printed:\n\(printed.joined(separator: "\n"))")
                return
            }
            next = found + 1
            skipping = false
        }
    }
}
