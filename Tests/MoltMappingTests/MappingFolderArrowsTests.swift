import MoltTestSupport
import Testing

/// The folders of `Sources/MoltMapping` depend on each other one way, as "Project layout"
/// says: a file uses another folder only when that folder is in a layer below its own. The
/// graph is read from the source (`FolderGraph`, comments and string literals left out): a
/// file uses a folder when it names a type declared there and nowhere else in the package, or
/// calls a function of ten or more characters declared only there (extension members included,
/// as `isXcodeMappingModel(_:)`).
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

    @Test("every folder of MoltMapping has its place in the layers, once")
    func everyFolderPlaced() throws {
        let problems = try FolderGraph(target: "MoltMapping").placementProblems(Self.layers)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test("no folder of MoltMapping uses one above or beside it")
    func noArrowUpward() throws {
        let arrows = try FolderGraph(target: "MoltMapping").arrowsAgainst(Self.layers)
        #expect(arrows.isEmpty, "against the layers in Project layout:\n\(arrows.joined(separator: "\n"))")
    }

    @Test("the graph is read: known arrows are found, by type and by function")
    func graphIsRead() throws {
        let graph = try FolderGraph(target: "MoltMapping").uses
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
