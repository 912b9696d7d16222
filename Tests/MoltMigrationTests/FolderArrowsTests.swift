import Foundation
import MoltTestSupport
import Testing

/// The folders of `Sources/MoltMigration` depend on each other one way, as "Project layout"
/// says: a file refers to a type declared in another folder only along an allowed arrow. The
/// graph is read from the source: each folder's declared type names, then every other folder's
/// references to them (comments left out).
///
/// The object path's folders are checked here, in layers; the engine's own folders (`Run`,
/// `Plan`, `Engine`, `Upgrade`, `Files`, `Carry`) still have arrows both ways (issue 28).
@Suite("Folder arrows in MoltMigration")
struct FolderArrowsTests {
    /// Folder → folders whose types it refers to, with one example reference each.
    static func graph() throws -> [String: [String: String]] {
        let root = Fixtures.package("Sources/MoltMigration")
        let fileManager = FileManager.default
        let declaration = try NSRegularExpression(
            pattern:
                #"^\s*(?:@\w+\s+)*(?:(?:public|package|internal|private|fileprivate|final|open|indirect)\s+)*(?:class|struct|enum|protocol|typealias|actor)\s+([A-Z]\w*)"#,
            options: .anchorsMatchLines)
        var sources: [(folder: String, file: String, text: String)] = []
        var home: [String: String] = [:]
        for folder in try fileManager.contentsOfDirectory(atPath: root.path).sorted() {
            let path = root.appendingPathComponent(folder)
            var isFolder: ObjCBool = false
            guard fileManager.fileExists(atPath: path.path, isDirectory: &isFolder), isFolder.boolValue else {
                continue
            }
            for file in try fileManager.contentsOfDirectory(atPath: path.path).sorted() where file.hasSuffix(".swift") {
                let text = try String(contentsOf: path.appendingPathComponent(file), encoding: .utf8)
                sources.append((folder, file, text))
                for match in declaration.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    let name = String(text[Range(match.range(at: 1), in: text)!])
                    if home[name] == nil { home[name] = folder }
                }
            }
        }
        var graph: [String: [String: String]] = [:]
        for source in sources {
            let code = source.text.split(separator: "\n").map { line in
                line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line)
            }.joined(separator: "\n")
            let words = Set(code.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
            for word in words {
                guard let folder = home[word], folder != source.folder else { continue }
                graph[source.folder, default: [:]][folder] = "\(source.file) uses \(word)"
            }
        }
        return graph
    }

    /// The object path's folders, top to bottom: a folder may refer to types of the folders
    /// below it, never above it or beside it. The passes drive everything; the relate pass
    /// runs each mapping by one of three strategies side by side (`Relate/`); policies see the
    /// manager (`Policies/`), which hands work to the queries and transformable APIs and to the
    /// run's state (`Manager/`), which uses the association table and the source and
    /// destination objects.
    static let layers: [[String]] = [
        ["Passes"], ["Relate"], ["Policies"], ["Queries", "Transformers"], ["Manager"], ["Associations", "Objects"],
    ]

    /// Every arrow the layers forbid: upward or sideways.
    static let forbidden: [(from: String, to: String)] = layers.indices.flatMap { level in
        layers[level].flatMap { from in
            layers[...level].joined().filter { $0 != from }.map { (from: from, to: $0) }
        }
    }

    @Test("no folder of the object path refers to one above or beside it", arguments: forbidden.indices)
    func noForbiddenArrow(_ index: Int) throws {
        let rule = Self.forbidden[index]
        let uses = try Self.graph()[rule.from]?[rule.to]
        #expect(uses == nil, "\(rule.from)/ → \(rule.to)/ (\(uses ?? "")): against the layers in Project layout")
    }

    @Test("the graph is read: the engine's known arrows are found")
    func graphIsRead() throws {
        let graph = try Self.graph()
        #expect(graph["Passes"]?["Manager"] != nil, "Passes/ uses the manager")
        #expect(graph["Passes"]?["Relate"] != nil, "the relate pass runs the strategies")
        #expect(graph["Relate"]?["Policies"] != nil, "object by object calls the policy")
        #expect(graph["Manager"]?["Objects"] != nil, "Manager/ makes source objects")
        #expect(graph["Policies"]?["Manager"] != nil, "the manager hands its work to the run's state")
        #expect(graph["Policies"]?["Manager"] != nil, "a policy's hooks take the manager")
    }
}
