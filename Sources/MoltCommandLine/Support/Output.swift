import Foundation
import Molt

/// Writing to standard output and standard error.
enum Output {
    /// A line on standard output.
    static func line(_ text: String = "") {
        print(text)
    }

    /// `molt: error: …` on standard error.
    static func error(_ text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var message = ""
        for (offset, line) in lines.enumerated() {
            message += (offset == 0 ? "molt: error: " : "") + line + "\n"
        }
        FileHandle.standardError.write(Data(message.utf8))
    }

    /// A note on standard error (not part of a command's output).
    static func note(_ text: String) {
        FileHandle.standardError.write(Data("molt: \(text)\n".utf8))
    }

    /// Prints diagnostics (without warnings and notes when `quiet`), each hint on a line of
    /// its own below, and a summary line "Checked WHAT: N errors, M warnings"; returns whether
    /// there were errors.
    static func diagnostics(_ diagnostics: [Diagnostic], quiet: Bool, checked what: String) -> Bool {
        for diagnostic in diagnostics where !quiet || diagnostic.severity == .error {
            line(diagnostic.description)
            if let hint = diagnostic.hint { line("    hint: \(hint)") }
        }
        let errors = diagnostics.errors.count
        let warnings = diagnostics.warnings.count
        line(
            "Checked \(what): \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")")
        return errors > 0
    }

    /// Text as a left-aligned table with two spaces between columns.
    static func table(_ rows: [[String]], indent: String = "  ") -> [String] {
        TextTable.lines(rows, indent: indent)
    }

    /// What a migration did not carry into the new version, one line each: what is certainly
    /// lost, then what only a policy may have carried; or that nothing was left behind.
    static func discards(
        _ discarded: [DiscardedData], contents: CarriedContents = CarriedContents(), into version: String?,
        dryRun: Bool, indent: String = ""
    ) {
        DiscardSummary.lines(discarded, contents: contents, into: version, dryRun: dryRun, indent: indent)
            .forEach(line)
    }

    /// Encodes `value` as pretty, key-sorted JSON on standard output.
    static func json<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        FileHandle.standardOutput.write(data)
        FileHandle.standardOutput.write(Data("\n".utf8))
    }
}
