public import Foundation

/// Which folders of a target of `Sources/` use which others, read from the source as the
/// folder arrow tests need it: a file uses a folder when it names a type declared there and
/// nowhere else in the package (a name declared twice, even nested in two types, tells no
/// folder apart), or calls a function of ten or more characters declared only there (extension
/// members included, as `isXcodeMappingModel(_:)`). Comments and the text of string literals are
/// left out first (`SwiftCode`), so a name in a doc comment or a message is not a use, while one
/// inside an interpolation (`\(…)`) is.
///
/// ```swift
/// let graph = try FolderGraph(target: "MoltMapping")
/// graph.uses["Formats"]?["Xcode"]   // ["MappingFile.swift calls isXcodeMappingModel()", …]
/// ```
public struct FolderGraph: Sendable {
    /// The target's folders on disk (a `.docc` catalogue left out), sorted.
    public let folders: [String]
    /// Folder → folders it uses → its uses of each ("MappingFile.swift uses MappingReader",
    /// "MappingFile.swift calls isXcodeMappingModel()").
    public let uses: [String: [String: Set<String>]]

    /// The graph of `Sources/<target>` of this package.
    public init(target: String) throws {
        try self.init(root: Fixtures.package("Sources/\(target)"))
    }

    /// The graph of the target whose folder is `root`; the other targets are its siblings.
    public init(root: URL) throws {
        folders = try Self.folders(in: root)
        var sources: [(folder: String, file: String, code: String)] = []
        var typeHomes: [String: Set<String>] = [:]
        var functionHomes: [String: Set<String>] = [:]
        var notFunctions: Set<String> = []
        for folder in folders {
            for url in Self.swiftFiles(under: root.appendingPathComponent(folder)) {
                let code = try Self.code(of: url)
                sources.append((folder, url.lastPathComponent, code))
                for name in Self.names(Self.typeDeclaration, in: code) { typeHomes[name, default: []].insert(folder) }
                for name in Self.names(Self.functionDeclaration, in: code) {
                    functionHomes[name, default: []].insert(folder)
                }
                notFunctions.formUnion(Self.names(Self.notFunction, in: code))
            }
        }
        // How often each type name is declared in the package's sources, this target's included.
        var declarations: [String: Int] = [:]
        for url in Self.swiftFiles(under: root.deletingLastPathComponent()) {
            for name in Self.names(Self.typeDeclaration, in: try Self.code(of: url)) {
                declarations[name, default: 0] += 1
            }
        }
        let typeHome = typeHomes.compactMapValues { $0.count == 1 ? $0.first : nil }.filter {
            declarations[$0.key] == 1 && !Self.genericNames.contains($0.key)
        }
        let functionHome = functionHomes.compactMapValues { $0.count == 1 ? $0.first : nil }.filter {
            !notFunctions.contains($0.key)
        }
        var uses: [String: [String: Set<String>]] = [:]
        for source in sources {
            for word in Set(Self.names(Self.typeName, in: source.code)) {
                guard let folder = typeHome[word], folder != source.folder else { continue }
                uses[source.folder, default: [:]][folder, default: []].insert("\(source.file) uses \(word)")
            }
            let own = Set(Self.names(Self.functionDeclaration, in: source.code))
            for name in Set(Self.names(Self.call, in: source.code)).subtracting(own) {
                guard let folder = functionHome[name], folder != source.folder else { continue }
                uses[source.folder, default: [:]][folder, default: []].insert("\(source.file) calls \(name)()")
            }
        }
        self.uses = uses
    }

    /// The folders a folder may use when the target's folders are in `layers` (top first):
    /// those of the layers below its own, never one above it or beside it.
    public static func below(_ folder: String, in layers: [[String]]) -> Set<String> {
        guard let level = layers.firstIndex(where: { $0.contains(folder) }) else { return [] }
        return Set(layers[(level + 1)...].joined())
    }

    /// What keeps `layers` (top first) from describing the target: folders on disk it does not
    /// place, folders it places twice, and folders it names that are not on disk.
    public func placementProblems(_ layers: [[String]]) -> [String] {
        let placed = Array(layers.joined())
        var problems = Set(folders).subtracting(placed).sorted().map { "\($0)/ has no place in the layers" }
        problems += Set(placed).subtracting(folders).sorted().map { "\($0)/ is in the layers but not on disk" }
        problems += Dictionary(grouping: placed, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
            .map { "\($0)/ is in two layers" }
        return problems
    }

    /// Every use of a folder above or beside the user's own in `layers` (top first), with up
    /// to three of the files and names that make it.
    public func arrowsAgainst(_ layers: [[String]]) -> [String] {
        var arrows: [String] = []
        for folder in layers.joined() {
            let allowed = Self.below(folder, in: layers)
            for (used, found) in uses[folder, default: [:]].sorted(by: { $0.key < $1.key })
            where !allowed.contains(used) {
                arrows.append("\(folder)/ → \(used)/ (\(found.sorted().prefix(3).joined(separator: "; ")))")
            }
        }
        return arrows
    }

    // MARK: Reading the source

    /// Declarations of types, at any depth (nested types included).
    static let typeDeclaration = #"\b(?:class|struct|enum|protocol|actor|typealias)\s+([A-Z][A-Za-z0-9_]*)"#
    /// Declarations of functions whose name is long enough to be told from common words.
    static let functionDeclaration = #"\bfunc\s+([a-z][A-Za-z0-9_]{9,})\s*[(<]"#
    /// Names that are properties or enum cases with values: `name(` is not a function call.
    static let notFunction = #"\b(?:var|let)\s+([a-z][A-Za-z0-9_]*)|\bcase\s+\.?([a-z][A-Za-z0-9_]*)\s*\("#
    static let call = #"\b([a-z][A-Za-z0-9_]{9,})\s*\("#
    static let typeName = #"\b([A-Z][A-Za-z0-9_]*)\b"#
    /// Names a type declares for its protocols' sake, used everywhere in their own sense.
    static let genericNames: Set<String> = ["Index", "Element", "Key", "Value", "Iterator", "SubSequence", "Indices"]

    /// The matches of `pattern`'s first (or second) group in `text`.
    static func names(_ pattern: String, in text: String) -> [String] {
        let expression = try! NSRegularExpression(pattern: pattern)
        return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            (1..<match.numberOfRanges).lazy.compactMap { Range(match.range(at: $0), in: text) }.first.map {
                String(text[$0])
            }
        }
    }

    /// A file's code without its comments and the text of its string literals.
    static func code(of url: URL) throws -> String {
        SwiftCode.of(try String(contentsOf: url, encoding: .utf8))
    }

    /// The Swift files under `folder`, at any depth.
    static func swiftFiles(under folder: URL) -> [URL] {
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.compactMap {
            $0 as? URL
        }
        return (files ?? []).filter { $0.pathExtension == "swift" }.sorted { $0.path < $1.path }
    }

    /// The folders of the target at `root`, a `.docc` catalogue left out.
    static func folders(in root: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: root.path).filter { name in
            var isFolder: ObjCBool = false
            let path = root.appendingPathComponent(name).path
            return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
                && !name.hasSuffix(".docc")
        }.sorted()
    }
}
