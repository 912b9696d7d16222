import Foundation
import MoltTestSupport
import Testing

/// The folders of `Sources/MoltMapping` depend on each other one way, as "Project layout"
/// says: a file uses another folder only when that folder is in a layer below its own. The
/// graph is read from the source (comments left out): a file uses a folder when it names a type
/// declared there and in no other folder or target, or calls a function of ten or more
/// characters declared only there (extension members included, as `isXcodeMappingModel(_:)`).
///
/// Every folder of the target is in the layers, so a new folder fails until it is given its
/// place.
@Suite("Folder arrows in MoltMapping")
struct MappingFolderArrowsTests {
    /// The target's folders, top to bottom: a folder may use the folders below it, never one
    /// above it or beside it. `Formats/` tells the two formats apart and reads either
    /// (`MappingFile`), `Writing/` writes Molt's; below them the two readers, Molt's XML
    /// (`Reading/`, validated against `Schema/`) and Xcode's mapping models (`Xcode/`); then
    /// what works on a mapping read: `Checking/`, `Inference/` and `SQL/` (filters as SQL);
    /// `Resolution/` (what each property gets, and how a value is stored in an attribute);
    /// `Evaluation/` (expressions run); `Model/` (the mapping model, with the rules each kind of
    /// entity mapping keeps); `Syntax/` (expressions, with the table of built-in functions); and
    /// at the bottom `Values/`, what expressions compute: before they run (`ValueType`) and when
    /// they do (`ExpressionValue`).
    static let layers: [[String]] = [
        ["Formats", "Writing"], ["Reading", "Xcode"], ["Schema"], ["Checking", "Inference", "SQL"], ["Resolution"],
        ["Evaluation"], ["Model"], ["Syntax"], ["Values"],
    ]

    static let folders: [String] = Array(layers.joined())

    /// The folders a folder may use: those of the layers below its own.
    static func below(_ folder: String) -> Set<String> {
        guard let level = layers.firstIndex(where: { $0.contains(folder) }) else { return [] }
        return Set(layers[(level + 1)...].joined())
    }

    static let root = Fixtures.package("Sources/MoltMapping")

    /// Declarations of types, at any depth (nested types included).
    static let typeDeclaration =
        #"^\s*(?:@\w+\s+)*(?:(?:public|package|internal|private|fileprivate|final|open|indirect)\s+)*(?:class|struct|enum|protocol|typealias|actor)\s+([A-Z]\w*)"#
    /// Declarations of functions whose name is long enough to be told from common words.
    static let functionDeclaration = #"\bfunc\s+([a-z]\w{9,})\s*[(<]"#
    /// Names that are properties or enum cases with values: `name(` is not a function call.
    static let notFunction = #"\b(?:var|let)\s+([a-z]\w*)|\bcase\s+\.?([a-z]\w*)\s*\("#
    static let call = #"\b([a-z]\w{9,})\s*\("#

    /// The matches of `pattern`'s first (or second) group in `text`.
    static func names(_ pattern: String, in text: String) throws -> [String] {
        let expression = try NSRegularExpression(pattern: pattern, options: .anchorsMatchLines)
        return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            (1..<match.numberOfRanges).lazy.compactMap { Range(match.range(at: $0), in: text) }.first.map {
                String(text[$0])
            }
        }
    }

    /// A file's code without its comments.
    static func code(of url: URL) throws -> String {
        let text = try String(contentsOf: url, encoding: .utf8)
        let withoutBlocks = try NSRegularExpression(pattern: #"/\*[\s\S]*?\*/"#).stringByReplacingMatches(
            in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "")
        return withoutBlocks.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line)
        }.joined(separator: "\n")
    }

    /// The Swift files under `folder`, at any depth.
    static func swiftFiles(under folder: URL) -> [URL] {
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.compactMap {
            $0 as? URL
        }
        return (files ?? []).filter { $0.pathExtension == "swift" }.sorted { $0.path < $1.path }
    }

    /// The folders of `Sources/MoltMapping` on disk.
    static func foldersOnDisk() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: root.path).filter { name in
            var isFolder: ObjCBool = false
            let path = root.appendingPathComponent(name).path
            return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
                && !name.hasSuffix(".docc")
        }.sorted()
    }

    /// Folder → folders it uses → its uses of each ("MappingFile.swift uses MappingReader").
    static func graph() throws -> [String: [String: Set<String>]] {
        var sources: [(folder: String, file: String, code: String)] = []
        var typeHomes: [String: Set<String>] = [:]
        var functionHomes: [String: Set<String>] = [:]
        var notFunctions: Set<String> = []
        for folder in try foldersOnDisk() {
            for url in swiftFiles(under: root.appendingPathComponent(folder)) {
                let code = try code(of: url)
                sources.append((folder, url.lastPathComponent, code))
                for name in try names(typeDeclaration, in: code) { typeHomes[name, default: []].insert(folder) }
                for name in try names(functionDeclaration, in: code) {
                    functionHomes[name, default: []].insert(folder)
                }
                notFunctions.formUnion(try names(notFunction, in: code))
            }
        }
        // A type name the package's other targets declare too is not told apart by its name.
        var elsewhere: Set<String> = []
        let sourcesFolder = root.deletingLastPathComponent()
        let ownPrefix = root.standardizedFileURL.path + "/"
        for url in swiftFiles(under: sourcesFolder) where !url.standardizedFileURL.path.hasPrefix(ownPrefix) {
            elsewhere.formUnion(try names(typeDeclaration, in: try code(of: url)))
        }
        let typeHome = typeHomes.compactMapValues { $0.count == 1 ? $0.first : nil }.filter {
            !elsewhere.contains($0.key)
        }
        let functionHome = functionHomes.compactMapValues { $0.count == 1 ? $0.first : nil }.filter {
            !notFunctions.contains($0.key)
        }
        var graph: [String: [String: Set<String>]] = [:]
        for source in sources {
            let words = Set(source.code.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
            for word in words {
                guard let folder = typeHome[word], folder != source.folder else { continue }
                graph[source.folder, default: [:]][folder, default: []].insert("\(source.file) uses \(word)")
            }
            let own = Set(try names(functionDeclaration, in: source.code))
            for name in Set(try names(call, in: source.code)).subtracting(own) {
                guard let folder = functionHome[name], folder != source.folder else { continue }
                graph[source.folder, default: [:]][folder, default: []].insert("\(source.file) calls \(name)()")
            }
        }
        return graph
    }

    @Test("every folder of MoltMapping has its place in the layers, once")
    func everyFolderPlaced() throws {
        #expect(try Self.foldersOnDisk() == Self.folders.sorted(), "a folder missing from the layers, or gone")
        #expect(Set(Self.folders).count == Self.folders.count, "a folder in two layers")
    }

    @Test("no folder of MoltMapping uses one above or beside it")
    func noArrowUpward() throws {
        let graph = try Self.graph()
        for folder in Self.folders {
            let allowed = Self.below(folder)
            for (used, uses) in graph[folder, default: [:]].sorted(by: { $0.key < $1.key }) {
                let examples = uses.sorted().prefix(3).joined(separator: "; ")
                #expect(
                    allowed.contains(used), "\(folder)/ → \(used)/ (\(examples)): against the layers in Project layout")
            }
        }
    }

    @Test("the graph is read: known arrows are found, by type and by function")
    func graphIsRead() throws {
        let graph = try Self.graph()
        #expect(graph["Formats"]?["Xcode"]?.contains("MappingFile.swift calls isXcodeMappingModel()") == true)
        #expect(graph["Formats"]?["Xcode"]?.contains("MappingFile.swift uses XcodeMappingReader") == true)
        #expect(graph["Syntax"]?["Values"] != nil, "the lexer takes format arguments as values")
        #expect(graph["Reading"]?["Schema"] != nil, "the reader validates against the schema")
        #expect(graph["Checking"]?["Resolution"] != nil, "the checker resolves each mapping")
        #expect(graph["Xcode"]?["Model"] != nil, "the Xcode reader keeps the entity mapping rules")
        #expect(graph["Writing"]?["Reading"] != nil, "the stamper reads what it stamps")
        #expect(graph["Formats"]?["Xcode"] != nil, "MappingFile reads Xcode's format")
        #expect(graph["Formats"]?["Reading"] != nil, "MappingFile reads Molt's format")
    }
}
