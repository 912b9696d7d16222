import Foundation
import MoltTestSupport
import Testing

/// `molt migrate` and `molt upgrade` on a terminal: the progress bar is drawn on one line and
/// erased before the summary, so the summary's first line starts a line of its own. The
/// terminal is `script`'s (util-linux), which runs the command on a pseudo-terminal and
/// records what it wrote.
@Suite(
    "Progress on a terminal", .enabled(if: Tool.available, "the molt executable was not built"),
    .enabled(if: TerminalTranscript.available, "util-linux's script is not installed"))
struct TerminalProgressTests {
    let folder = TemporaryDirectory()
    let bundle = Fixtures.package("MappingModels/Examples/Blog.xcdatamodeld").path
    let mappings = Fixtures.package("MappingModels/Blog").path

    @Test("migrate erases its bar before the summary")
    func migrateSummaryStartsItsLine() throws {
        let store = try folder.copy(Fixtures.package("MappingModels/Examples/Blog.sqlite"))
        let screen = try TerminalTranscript.run([
            Tool.executable.path, "migrate", store.path, "--from", bundle, "--to", bundle, "--mapping",
            mappings + "/Blog-to-Blog2.xml",
        ])
        #expect(screen.raw.contains("validate"), "a bar was drawn: \(screen.raw.debugDescription)")
        #expect(screen.lines.contains { $0.hasPrefix("Migrated \(store.path) from Blog to Blog 2") }, "\(screen.lines)")
        #expect(!screen.lines.contains { $0.contains("[#") }, "no bar is left on the screen: \(screen.lines)")
    }

    @Test("upgrade erases its bar before each step's lines and the summary")
    func upgradeSummaryStartsItsLine() throws {
        let store = try folder.copy(Fixtures.package("MappingModels/Examples/Blog.sqlite"))
        let screen = try TerminalTranscript.run([
            Tool.executable.path, "upgrade", store.path, "--models", bundle, "--mappings", mappings,
        ])
        #expect(screen.lines.contains { $0.hasPrefix("  done in ") }, "\(screen.lines)")
        #expect(screen.lines.contains { $0.hasPrefix("Upgraded \(store.path)") }, "\(screen.lines)")
        #expect(!screen.lines.contains { $0.contains("[#") }, "no bar is left on the screen: \(screen.lines)")
    }

    @Test("create draws the same bar over a seed's import and erases it before its summary")
    func createSummaryStartsItsLine() throws {
        let model = try folder.write(
            ModelXML.document(
                #"<entity name="Note" representedClassName="Note"><attribute name="text" attributeType="String"/></entity>"#
            ), to: "Notes.xcdatamodel/contents")
        let notes = (0..<3000).map { #"{"text":"note \#($0)"}"# }.joined(separator: ",")
        let seed = try folder.write(
            #"{"format":"molt-objects","version":1,"entities":{"Note":[\#(notes)]}}"#, to: "seed.json")
        let store = folder.path("Notes.sqlite").path
        let screen = try TerminalTranscript.run([
            Tool.executable.path, "create", store, "--model", model.deletingLastPathComponent().path, "--seed",
            seed.path,
        ])
        #expect(screen.raw.contains("% overall · insert"), "a bar was drawn: \(screen.raw.debugDescription)")
        #expect(screen.lines.contains { $0.hasPrefix("Created \(store) for model") }, "\(screen.lines)")
        #expect(!screen.lines.contains { $0.contains("[#") }, "no bar is left on the screen: \(screen.lines)")
    }
}

/// What a command left on a terminal: `script` runs it on a pseudo-terminal; each line of the
/// record is then rendered as a terminal shows it (text after a carriage return overwrites the
/// line from its start, ESC [ K erases to its end).
struct TerminalTranscript {
    let raw: String
    let lines: [String]

    static var available: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/script") }

    static func run(_ command: [String]) throws -> TerminalTranscript {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        let quoted = command.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        process.arguments = ["--quiet", "--return", "--command", quoted, "/dev/null"]
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let raw = String(decoding: data, as: UTF8.self)
        return TerminalTranscript(raw: raw, lines: raw.components(separatedBy: "\r\n").map(render))
    }

    /// One line as a terminal shows it.
    static func render(_ line: String) -> String {
        var screen: [Character] = []
        var column = 0
        var rest = Substring(line)
        while let character = rest.first {
            rest = rest.dropFirst()
            switch character {
            case "\r":
                column = 0
            case "\u{1B}":
                // CSI: ESC [ parameters final-byte. Only K (erase to the end of the line) matters.
                guard rest.first == "[" else { continue }
                rest = rest.dropFirst()
                while let next = rest.first, !next.isLetter { rest = rest.dropFirst() }
                if rest.first == "K" { screen.removeSubrange(min(column, screen.count)...) }
                rest = rest.dropFirst()
            default:
                if column < screen.count { screen[column] = character } else { screen.append(character) }
                column += 1
            }
        }
        return String(screen)
    }
}
