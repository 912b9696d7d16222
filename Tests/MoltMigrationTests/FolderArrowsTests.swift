import MoltTestSupport
import Testing

/// The folders of `Sources/MoltMigration` depend on each other one way, as "Project layout"
/// says: a file uses another folder only when that folder is in a layer below its own. The
/// graph is read from the source (`FolderGraph`, comments and string literals left out): a
/// file uses a folder when it names a type declared there and nowhere else in the package, or
/// calls a function of ten or more characters declared only there (extension members included,
/// as `PassState`'s `createDefaultRelationships(for:)`).
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
    /// pass's strategies (`Relate/`) beside the copy pass's worker threads (`Concurrent/`),
    /// both of which call the policies; the policy API (`Policies/`),
    /// with the fetch and transformable APIs below it (`Queries/`, `Transformers/`), which hand
    /// their work to the passes' shared state (`State/`); that runs under the run's context
    /// (`Run/`), beside what a run gives back (`Report/`: the report and the plan it carried
    /// out); below them what a store holds besides its objects (`Carry/`), what a mapping
    /// leaves behind (`Discards/`) and the store's files and locks (`Files/`); then the
    /// association table and the objects (`Associations/`, `Objects/`); at the bottom what
    /// every part uses (`Basics/`: errors, options, cancellation, the logger, progress).
    static let layers: [[String]] = [
        ["Verify"], ["Engine"], ["Plan", "Upgrade"], ["InPlace"], ["Passes"], ["Relate", "Concurrent"], ["Policies"],
        ["Queries", "Transformers"], ["State"], ["Report", "Run"], ["Carry", "Discards", "Files"],
        ["Associations", "Objects"], ["Basics"],
    ]

    @Test("every folder of MoltMigration has its place in the layers, once")
    func everyFolderPlaced() throws {
        let problems = try FolderGraph(target: "MoltMigration").placementProblems(Self.layers)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test("no folder of MoltMigration uses one above or beside it")
    func noArrowUpward() throws {
        let arrows = try FolderGraph(target: "MoltMigration").arrowsAgainst(Self.layers)
        #expect(arrows.isEmpty, "against the layers in Project layout:\n\(arrows.joined(separator: "\n"))")
    }

    @Test("the graph is read: known arrows are found, by type and by function")
    func graphIsRead() throws {
        let graph = try FolderGraph(target: "MoltMigration").uses
        #expect(
            graph["Queries"]?["State"]?.contains("DestinationContext.swift uses DestinationCheckpoint") == true)
        #expect(graph["Passes"]?["State"]?.contains("CopyPass.swift uses PassState") == true)
        #expect(graph["Engine"]?["Upgrade"] != nil, "the upgrade's driver plans with the upgrade's planner")
        #expect(graph["Plan"]?["InPlace"] != nil, "the planner asks whether a step can run in place")
        #expect(graph["Relate"]?["Policies"] != nil, "object by object calls the policy")
        #expect(graph["Policies"]?["State"] != nil, "the manager hands its work to the passes' state")
        #expect(graph["State"]?["Run"] != nil, "the passes' state runs under the run's context")
        #expect(graph["Report"]?["Carry"] != nil, "the report accounts for a store's other contents")
        #expect(graph["Run"]?["Files"] != nil, "the run's context holds the migration lock")
        #expect(graph["Files"]?["Basics"] != nil, "the lock logs with the library's logger")
    }
}
