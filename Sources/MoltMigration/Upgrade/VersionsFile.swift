internal import Foundation
internal import MoltCore

/// The lines of a mappings folder's `versions.txt` that say something: everything from a `#` to
/// the end of its line is a comment, spaces around the rest are trimmed, and empty lines are
/// skipped. ``VersionOrder`` reads version names from it, `PassOrder` its `passes:` lines.
enum VersionsFile {
    /// Each line with content and its line number (from 1).
    static func lines(of url: URL) throws -> [(number: Int, text: String)] {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            if !FileManager.default.fileExists(atPath: url.path) { throw FileErrors.missing(url.path) }
            throw FileErrors.readFailed(url.path, underlying: error)
        }
        return text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap {
            offset, line in
            let content = line.prefix { $0 != "#" }.trimmingCharacters(in: .whitespacesAndNewlines)
            return content.isEmpty ? nil : (offset + 1, content)
        }
    }
}
