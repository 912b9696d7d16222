import Foundation
import MoltTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// An interrupted `molt create` leaves nothing of its own: a signal stops the import and removes
/// the temporary file; what a process killed outright left, `molt recover` removes, and only
/// that (never another store's files, never a create still running); and the import shows the
/// same progress lines as a migration.
@Suite("An interrupted create leaves nothing", .enabled(if: Tool.available, "the molt executable was not built"))
struct CreateInterruptTests {
    let folder = TemporaryDirectory()

    /// A model of notes and a seed of `count` of them (generated: no fixture needed).
    func setUp(count: Int) throws -> (model: URL, seed: URL) {
        let model = try folder.write(
            ModelXML.document(
                #"<entity name="Note" representedClassName="Note"><attribute name="text" attributeType="String"/></entity>"#
            ), to: "Notes.xcdatamodel/contents")
        let notes = (0..<count).map { #"{"text":"note \#($0)"}"# }.joined(separator: ",\n")
        let seed = try folder.write(
            #"{"format":"molt-objects","version":1,"entities":{"Note":[\#(notes)]}}"#, to: "seed.json")
        return (model.deletingLastPathComponent(), seed)
    }

    func files() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
    }

    @Test(
        "SIGINT and SIGTERM mid-import: exit 128 + the signal, a message, no store and nothing beside it",
        arguments: [SIGINT, SIGTERM])
    func signalMidImport(signalNumber: Int32) throws {
        let (model, seed) = try setUp(count: 100_000)
        let store = folder.path("Notes.sqlite")
        let running = try Tool.start(["create", store.path, "--model", model.path, "--seed", seed.path, "--progress"])
        #expect(running.waitForStderr(containing: "overall · insert"), "the import started")
        kill(running.process.processIdentifier, signalNumber)
        let run = running.wait()
        #expect(running.process.terminationReason == .exit, "stopped cleanly, not killed: \(run.stderr.suffix(400))")
        #expect(run.status == 128 + signalNumber, "\(run.stderr.suffix(400))")
        #expect(run.stderr.contains("the creation was cancelled"), "\(run.stderr.suffix(400))")
        #expect(try files() == ["Notes.xcdatamodel", "seed.json"], "nothing is left beside the store")
    }

    @Test("progress lines: the overall percentage, labelled, then the pass and its own count")
    func progressLines() throws {
        let (model, seed) = try setUp(count: 300)
        let run = try Tool.run([
            "create", folder.path("Notes.sqlite").path, "--model", model.path, "--seed", seed.path, "--progress",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stderr.split(separator: "\n").map(String.init)
        let pattern = #"^molt: \d{1,3}% overall · (read|insert|relate|verify|check) \d+/\d+$"#
        #expect(
            !lines.isEmpty && lines.allSatisfy { $0.range(of: pattern, options: .regularExpression) != nil }, "\(lines)"
        )
        #expect(lines.last == "molt: 100% overall · check 300/300", "\(lines)")
    }

    @Test("recover removes a killed create's files when the store was never made, and only those")
    func recoverLeftoversWithoutStore() throws {
        let uuid = UUID().uuidString
        let own = [".Notes.sqlite.molt-\(uuid).creating", ".Notes.sqlite.molt-\(uuid).creating-journal"]
        let others = [
            ".Other.sqlite.molt-\(uuid).creating",  // another store's
            ".Notes.sqlite.bak.molt-\(uuid).creating",  // another name that starts the same
            ".Notes.sqlite.molt-not-a-uuid.creating",  // not Molt's
            "Notes.sqlite-journal",  // not a creation's
        ]
        for name in own + others { _ = try folder.write("left", to: name) }
        let store = folder.path("Notes.sqlite").path
        let run = try Tool.run(["recover", store, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        #expect(json?["outcome"] as? String == "removedCreationLeftovers", "\(run.stdout)")
        let removed = (json?["removedCreationFiles"] as? [String])?.map { URL(fileURLWithPath: $0).lastPathComponent }
        #expect(removed?.sorted() == own.sorted(), "\(run.stdout)")
        #expect(try files() == others.sorted(), "everything else is left")
        let again = try Tool.run(["recover", store])
        #expect(again.status == 66 && again.stderr.contains("no such file"), "nothing at all: the error as before")
    }

    @Test("recover beside an existing store says what it removed; a create still running (its lock held) is left alone")
    func recoverBesideStoreAndLiveCreate() throws {
        let (model, _) = try setUp(count: 1)
        let store = folder.path("Notes.sqlite").path
        #expect(try Tool.run(["create", store, "--model", model.path]).status == 0)
        let killed = try folder.write("left", to: ".Notes.sqlite.molt-\(UUID().uuidString).creating")
        let live = try folder.write("building", to: ".Notes.sqlite.molt-\(UUID().uuidString).creating")
        // What a running create holds on its file (see CreatingFile).
        let descriptor = open(live.path, O_RDONLY)
        #expect(flock(descriptor, LOCK_EX) == 0)
        defer { close(descriptor) }
        let run = try Tool.run(["recover", store])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Removed what an interrupted `molt create` of \(store) left:"), "\(run.stdout)")
        #expect(run.stdout.contains(killed.path) && run.stdout.contains("Left \(live.path)"), "\(run.stdout)")
        #expect(!FileManager.default.fileExists(atPath: killed.path))
        #expect(FileManager.default.fileExists(atPath: live.path), "a live create's file stays")
        #expect(FileManager.default.fileExists(atPath: store), "the store stays")
    }
}
