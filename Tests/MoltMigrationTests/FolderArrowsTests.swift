import Foundation
import MoltTestSupport
import Testing

/// The folders of `Sources/MoltMigration` depend on each other one way, as "Project layout"
/// says: a file refers to a type declared in another folder only along an allowed arrow. The
/// graph is read from the source: each folder's declared type names, then every other folder's
/// references to them (comments left out).
///
/// The arrows the manager's split has made one-way so far are checked here; issue 28's split
/// of the manager adds the rest.
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

    /// Arrows that must not exist: a folder on the left refers to no type of the one on the right.
    static let forbidden: [(from: String, to: String, why: String)] = [
        ("Objects", "Manager", "source and destination objects read through SourceReading, not the manager"),
        ("Objects", "Passes", "objects are what policies see; the passes use them"),
        ("Objects", "Queries", "queries hand out objects, not the other way"),
        ("Manager", "Passes", "the passes drive the manager; the manager knows no pass"),
        ("Manager", "Queries", "the queries are an API over the manager's state (QueryState lives in Manager/)"),
        ("Manager", "Transformers", "the transformable API extends the manager from Transformers/"),
        ("Associations", "Manager", "the association table is below the manager"),
    ]

    @Test("no forbidden arrow between folders", arguments: forbidden.indices)
    func noForbiddenArrow(_ index: Int) throws {
        let rule = Self.forbidden[index]
        let uses = try Self.graph()[rule.from]?[rule.to]
        #expect(uses == nil, "\(rule.from)/ → \(rule.to)/ (\(uses ?? "")): \(rule.why)")
    }

    @Test("the graph is read: the engine's known arrows are found")
    func graphIsRead() throws {
        let graph = try Self.graph()
        #expect(graph["Passes"]?["Manager"] != nil, "Passes/ uses the manager")
        #expect(graph["Manager"]?["Objects"] != nil, "Manager/ makes source objects")
        #expect(graph["Policies"]?["Manager"] != nil, "a policy's hooks take the manager")
    }
}
