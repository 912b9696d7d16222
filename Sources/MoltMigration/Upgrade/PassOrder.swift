package import Foundation
internal import MoltCore

/// The order of the passes of a step split into several mapping files (Core Data's "multiple
/// passes": files between the same two versions, run one after the other into one new store).
///
/// By default passes run in the order of their file names, numbers read as numbers
/// (`V3-to-V4.2.xml` before `V3-to-V4.10.xml`), which is how
/// ``UpgradeMappingFile/readFolder(_:logger:)`` lists a folder. A `versions.txt` may say it
/// instead, one line per step, the files named in the order they run:
///
/// ```text
/// # versions.txt
/// Forum
/// Forum 2
/// passes: users-and-topics.xml, authors.xml
/// ```
///
/// ```swift
/// let lists = try PassOrder.read(contentsOf: folder.appendingPathComponent("versions.txt"))
/// let files = try PassOrder.apply(lists, to: try UpgradeMappingFile.readFolder(folder))
/// ```
package enum PassOrder {
    /// The prefix of a `versions.txt` line that orders passes.
    package static let prefix = "passes:"

    /// The `passes:` lines of a `versions.txt`, each a list of file names in order.
    package static func read(contentsOf url: URL) throws -> [[String]] {
        var lists: [[String]] = []
        var listed: Set<String> = []
        for (number, content) in try VersionsFile.lines(of: url) {
            guard content.lowercased().hasPrefix(prefix) else { continue }
            let names = content.dropFirst(prefix.count).split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            let location = SourceLocation(file: url.path, line: number)
            guard names.count >= 2, !names.contains(where: \.isEmpty) else {
                throw MoltError(
                    .fileReadCorruptFile, "a passes line names two or more mapping files, separated by commas",
                    location: location)
            }
            for name in names where !listed.insert(name).inserted {
                throw MoltError(
                    .fileReadCorruptFile, "the file \"\(name)\" is listed in passes twice", location: location)
            }
            lists.append(names)
        }
        return lists
    }

    /// `files` with each list's files in the list's order (after the files no list names);
    /// a name that is not one of `files` is an error.
    package static func apply(_ lists: [[String]], to files: [UpgradeMappingFile]) throws -> [UpgradeMappingFile] {
        guard !lists.isEmpty else { return files }
        let listed = Set(lists.joined())
        var ordered = files.filter { !listed.contains($0.name) }
        for list in lists {
            for name in list {
                guard let file = files.first(where: { $0.name == name }) else {
                    throw MoltError(
                        .fileReadNoSuchFile,
                        "versions.txt orders the passes \(list.joined(separator: ", ")), but there is no mapping file \"\(name)\"",
                        recovery: "Mapping files: \(files.map(\.name).joined(separator: ", ")).")
                }
                ordered.append(file)
            }
        }
        return ordered
    }
}
