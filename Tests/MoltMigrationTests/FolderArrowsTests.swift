import MoltTestSupport
import Testing

/// The folders of `Sources/MoltMigration` depend on each other one way, as "Project layout"
/// says: a file uses another folder only when that folder is in a layer below its own. The
/// graph is read from the source (`FolderGraph`, comments and string literals left out): a
/// file uses a folder when it names a type declared there and nowhere else in the package, or
/// calls a function of ten or more characters declared only there (extension members included,
/// as `PassState`'s `withdrawLinksAtInsert()`).
///
/// Every folder of the target is in the layers, so a new folder fails until it is given its
/// place.
@Suite("Folder arrows in MoltMigration")
struct FolderArrowsTests {
    /// The target's folders, top to bottom: a folder may use the folders below it, never one
    /// above it or beside it. `Verify/` upgrades stores of earlier versions; `Engine/` holds
    /// the drivers, where a run starts (an upgrade's among them); below it the upgrade's plan
    /// (`Upgrade/`) beside the planner of one run (`Plan/`), which asks the in-place engine
    /// (`InPlace/`) whether a step can run in place; then the passes (`Passes/`); the relate
    /// pass's strategies (`Relate/`), which call the policies; the policy API (`Policies/`),
    /// with the fetch and transformable APIs below it (`Queries/`, `Transformers/`), which hand
    /// their work to the passes' shared state (`Manager/`); that runs under the run's context
    /// (`Run/`), beside what a run gives back (`Report/`: the report and the plan it carried
    /// out); below them what a store holds besides its objects (`Carry/`), what a mapping
    /// leaves behind (`Discards/`) and the store's files and locks (`Files/`); then the
    /// association table and the objects (`Associations/`, `Objects/`); at the bottom what
    /// every part uses (`Basics/`: errors, options, cancellation, the logger, progress).
    static let layers: [[String]] = [
        ["Verify"], ["Engine"], ["Plan", "Upgrade"], ["InPlace"], ["Passes"], ["Relate"], ["Policies"],
        ["Queries", "Transformers"], ["Manager"], ["Report", "Run"], ["Carry", "Discards", "Files"],
        ["Associations", "Objects"], ["Basics"],
    ]

    static let folders: [String] = Array(layers.joined())

    @Test("every folder of MoltMigration has its place in the layers, once")
    func everyFolderPlaced() throws {
        #expect(
            try FolderGraph(target: "MoltMigration").folders == Self.folders.sorted(),
            "a folder missing from the layers, or gone")
        #expect(Set(Self.folders).count == Self.folders.count, "a folder in two layers")
    }

    @Test("no folder of MoltMigration uses one above or beside it")
    func noArrowUpward() throws {
        let graph = try FolderGraph(target: "MoltMigration")
        for folder in Self.folders {
            let allowed = FolderGraph.below(folder, in: Self.layers)
            for (used, uses) in graph.uses[folder, default: [:]].sorted(by: { $0.key < $1.key }) {
                let examples = uses.sorted().prefix(3).joined(separator: "; ")
                #expect(
                    allowed.contains(used), "\(folder)/ → \(used)/ (\(examples)): against the layers in Project layout")
            }
        }
    }

    @Test("the graph is read: known arrows are found, by type and by function")
    func graphIsRead() throws {
        let graph = try FolderGraph(target: "MoltMigration").uses
        #expect(
            graph["Queries"]?["Manager"]?.contains("DestinationContext.swift calls withdrawLinksAtInsert()") == true)
        #expect(graph["Passes"]?["Manager"]?.contains("CopyPass.swift uses PassState") == true)
        #expect(graph["Engine"]?["Upgrade"] != nil, "the upgrade's driver plans with the upgrade's planner")
        #expect(graph["Plan"]?["InPlace"] != nil, "the planner asks whether a step can run in place")
        #expect(graph["Relate"]?["Policies"] != nil, "object by object calls the policy")
        #expect(graph["Policies"]?["Manager"] != nil, "the manager hands its work to the passes' state")
        #expect(graph["Manager"]?["Run"] != nil, "the passes' state runs under the run's context")
        #expect(graph["Report"]?["Carry"] != nil, "the report accounts for a store's other contents")
        #expect(graph["Run"]?["Files"] != nil, "the run's context holds the migration lock")
        #expect(graph["Files"]?["Basics"] != nil, "the lock logs with the library's logger")
    }
}
