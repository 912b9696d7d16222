public import Foundation
internal import MoltCore

/// How an upgrade knows which model version comes before which.
///
/// Version names follow no rule in general, so names order versions only when they make the
/// order obvious (``automatic``, the default: Xcode's own sequence `Name`, `Name 2`, … or one
/// stem with numbers, see ``VersionNameSequence``); otherwise only the mapping files do: a
/// mapping file's source comes before its destination, transitively (``fromMappingFiles``).
/// When that is not enough to plan an upgrade, the planner says so and asks for the order:
/// list it (``explicit(_:)``, or a `versions.txt` file read with ``read(contentsOf:)``), or opt
/// in to name order (``byName``).
///
/// ```swift
/// let order = VersionOrder.explicit(["Model", "Model 2", "Model 3"])
/// let fromFile = try VersionOrder.read(contentsOf: URL(fileURLWithPath: "Mappings/versions.txt"))
/// ```
public enum VersionOrder: Sendable, Hashable, CustomStringConvertible {
    /// The names' order when they make it obvious (``VersionNameSequence``), otherwise what
    /// the mapping files say.
    case automatic
    /// Only what mapping files (and upgrade stages) say: source before destination.
    case fromMappingFiles
    /// The versions oldest first. Every schema must be named (one of its names is enough);
    /// unknown names are errors.
    case explicit([String])
    /// Names compared with numbers read as numbers: "Model 2" before "Model 10".
    case byName

    /// The name of the file ``read(contentsOf:)`` reads in a mappings folder.
    public static let fileName = "versions.txt"

    /// Reads an explicit order: one version name per line, oldest first. Blank lines are
    /// skipped, and so is everything from a `#` to the end of its line (comments); spaces around
    /// a name are trimmed. Lines that order passes (`PassOrder`) or skip files (`skip:`,
    /// `SkippedFiles`) are not version names; a
    /// file that lists no version is ``automatic``.
    public static func read(contentsOf url: URL) throws -> VersionOrder {
        var names: [String] = []
        for (number, content) in try VersionsFile.lines(of: url)
        where !content.lowercased().hasPrefix(PassOrder.prefix) && !content.lowercased().hasPrefix(SkippedFiles.prefix)
        {
            if names.contains(content) {
                throw MoltError(
                    .fileReadCorruptFile, "the version \"\(content)\" is listed twice",
                    location: SourceLocation(file: url.path, line: number))
            }
            names.append(content)
        }
        return names.isEmpty ? .automatic : .explicit(names)
    }

    /// Whether the order is total (every version has a place), as opposed to what mapping
    /// files alone say.
    public var isTotal: Bool {
        switch self {
        case .automatic, .fromMappingFiles: false
        case .explicit, .byName: true
        }
    }

    public var description: String {
        switch self {
        case .automatic: "from the names when they make it obvious, otherwise from the mapping files"
        case .fromMappingFiles: "from the mapping files"
        case .explicit(let names): "as listed (\(names.joined(separator: ", ")))"
        case .byName: "by name"
        }
    }

    /// Where the order of `versions` comes from, as a plan says it: "from the names (Xcode's
    /// sequence …)", "from the mapping files", "as listed (…)", "by name".
    public func source(for versions: UpgradeVersions) -> String {
        guard case .automatic = self else { return description }
        if let sequence = VersionNameSequence(versions.schemas.flatMap(\.names)) {
            return "from the names: \(sequence)"
        }
        return VersionOrder.fromMappingFiles.description
    }

    /// The rank of each schema (index in `versions.schemas`) for a total order, nil for the
    /// mapping-file order.
    func ranks(of versions: UpgradeVersions) throws -> [Int]? {
        switch self {
        case .automatic:
            guard let sequence = VersionNameSequence(versions.schemas.flatMap(\.names)) else { return nil }
            return try VersionOrder.explicit(sequence.names).ranks(of: versions)
        case .fromMappingFiles:
            return nil
        case .byName:
            let order = versions.schemas.indices.sorted {
                versions.schemas[$0].name.compare(versions.schemas[$1].name, options: [.numeric]) == .orderedAscending
            }
            var ranks = Array(repeating: 0, count: versions.schemas.count)
            for (rank, index) in order.enumerated() { ranks[index] = rank }
            return ranks
        case .explicit(let names):
            var ranks: [Int?] = Array(repeating: nil, count: versions.schemas.count)
            var seen: Set<String> = []
            for (position, name) in names.enumerated() {
                guard seen.insert(name).inserted else {
                    throw MoltError(.migration, "the version order lists \"\(name)\" twice")
                }
                guard let index = versions.schemas.firstIndex(where: { $0.isNamed(name) }) else {
                    throw MoltError(
                        .migration, "the version order names \"\(name)\", which is not a version of the model",
                        recovery: "Versions: \(versions.allNames.joined(separator: ", ")).")
                }
                if ranks[index] == nil { ranks[index] = position }
            }
            let missing = versions.schemas.indices.filter { ranks[$0] == nil }.map { versions.schemas[$0].name }
            guard missing.isEmpty else {
                throw MoltError(
                    .migration,
                    "the version order does not list \(missing.map { "\"\($0)\"" }.joined(separator: ", "))",
                    recovery: "List every version of the model, oldest first (one name per line in versions.txt).")
            }
            return ranks.map { $0! }
        }
    }
}
