package import Foundation
internal import MoltCore

/// Mapping files of a folder that an upgrade never uses, named in its `versions.txt`: the way to
/// overrule the path the planner chooses (from each version, the file that reaches furthest).
/// An app that moved to a direct `v17 → v19` step but wants stores at v17 to go through v18
/// skips the direct file:
///
/// ```text
/// # versions.txt
/// skip: v17-to-v19.xml
/// ```
///
/// A skipped file is listed as not used, with that reason; a name that is not a file of the
/// folder is an error.
package enum SkippedFiles {
    /// The prefix of a `versions.txt` line that skips files.
    package static let prefix = "skip:"

    /// The names on the `skip:` lines of a `versions.txt`.
    package static func read(contentsOf url: URL) throws -> [(name: String, line: Int)] {
        var names: [(name: String, line: Int)] = []
        for (number, content) in try VersionsFile.lines(of: url) where content.lowercased().hasPrefix(prefix) {
            let listed = content.dropFirst(prefix.count).split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard !listed.isEmpty, !listed.contains(where: \.isEmpty) else {
                throw MoltError(
                    .fileReadCorruptFile, "a skip line names one or more mapping files, separated by commas",
                    location: SourceLocation(file: url.path, line: number))
            }
            names += listed.map { ($0, number) }
        }
        return names
    }

    /// `files` without the skipped ones, and the skipped ones.
    package static func apply(
        _ names: [(name: String, line: Int)], to files: [UpgradeMappingFile]
    ) throws -> (kept: [UpgradeMappingFile], skipped: [UpgradeMappingFile]) {
        guard !names.isEmpty else { return (files, []) }
        for (name, _) in names where !files.contains(where: { $0.name == name }) {
            throw MoltError(
                .fileReadNoSuchFile, "versions.txt skips \"\(name)\", but there is no mapping file of that name",
                recovery: "Mapping files: \(files.map(\.name).joined(separator: ", ")).")
        }
        let skipped = Set(names.map(\.name))
        return (files.filter { !skipped.contains($0.name) }, files.filter { skipped.contains($0.name) })
    }
}
