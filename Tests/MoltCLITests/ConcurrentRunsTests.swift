import Foundation
import Molt
import MoltTestSupport
import Testing

/// What `molt` says and does when a migration of the store is already running (here, this test
/// process holds the store's migration lock, as a running `molt` would).
@Suite("molt with another migration running", .enabled(if: Tool.available, "the molt executable was not built"))
struct ConcurrentRunsTests {
    let folder = TemporaryDirectory()
    let bundle = Fixtures.package("MappingModels/Examples/Blog.xcdatamodeld").path
    let mapping = Fixtures.package("MappingModels/Blog/Blog-to-Blog2.xml").path
    let pid = ProcessInfo.processInfo.processIdentifier

    func migrate(_ store: String, _ more: [String] = []) -> [String] {
        ["migrate", store, "--from", bundle, "--to", bundle, "--mapping", mapping] + more
    }

    @Test("writing commands stop at once with exit code 75 and the process; readers read and say so")
    func busy() throws {
        let store = try folder.copy(Fixtures.package("MappingModels/Examples/Blog.sqlite")).path
        let held = try MigrationLock.acquire(store: URL(fileURLWithPath: store))
        defer { held.release() }
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let message = "molt: error: \(store): another migration of this store is running (process \(pid))\n"
        for command in [
            migrate(store), migrate(store, ["--dry-run"]), ["recover", store],
            ["upgrade", store, "--models", bundle, "--mappings", folder.url.path],
            ["migrate", store, "--from", bundle, "--to", bundle],
        ] {
            let run = try Tool.run(command)
            #expect(run.status == 75, "\(command): \(run.stderr)")
            #expect(run.stderr.hasPrefix(message), "\(command): \(run.stderr)")
            #expect(!run.stderr.contains("malformed"))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)

        let dump = try Tool.run(["dump", store, "--model", bundle, "--json"])
        #expect(dump.status == 0, "\(dump.stderr)")
        #expect(dump.stderr.contains("a migration of this store is running (process \(pid))"))
        #expect(
            dump.stdout
                == (try String(contentsOf: Fixtures.package("MappingModels/Examples/Blog.json"), encoding: .utf8)))
        let inspect = try Tool.run(["inspect", store, "--model", bundle])
        #expect(inspect.stdout.contains("Matching:     Blog "), "\(inspect.stdout)")
        #expect(inspect.stderr.contains("a migration of this store is running"))
        let mappings = Fixtures.package("MappingModels/Blog").path
        let plan = try Tool.run(["upgrade", store, "--models", bundle, "--mappings", mappings, "--plan"])
        #expect(plan.stdout.hasPrefix("Note: a migration of this store is running (process \(pid))"), "\(plan.stdout)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == [
                "Blog.sqlite", "Blog.sqlite.molt-lock",
            ])
    }

    @Test("with --wait a run waits, says so, and migrates once the other run is done")
    func waits() throws {
        let store = try folder.copy(Fixtures.package("MappingModels/Examples/Blog.sqlite")).path
        let held = try MigrationLock.acquire(store: URL(fileURLWithPath: store))
        let running = try Tool.start(migrate(store, ["--wait", "30"]))
        Thread.sleep(forTimeInterval: 1)
        #expect(running.process.isRunning, "it waits")
        held.release()
        let run = running.wait()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stderr.contains(
                "molt: another migration of this store is running (process \(pid)); waiting up to 30 s for it to finish"
            ))
        #expect(run.stdout.hasPrefix("Migrated \(store) from Blog to Blog 2"))
    }

    @Test("a run that waited for a migration that did its work has nothing to do (exit code 0)")
    func alreadyMigrated() throws {
        let store = try folder.copy(Fixtures.package("MappingModels/Examples/Blog.sqlite"))
        let held = try MigrationLock.acquire(store: store)
        let second = try Tool.start(migrate(store.path, ["--wait", "30"]))
        // The other run must be waiting before this one migrates (on a busy machine it may
        // start late, find the store migrated and rightly not say it waited).
        #expect(second.waitForStderr(containing: "waiting up to 30 s"), "the second run waits for the lock")
        let context = RunContext()
        context.use(held)
        try HeavyweightMigration(
            store: store, source: try Examples.model("Blog"), destination: try Examples.model("Blog 2"),
            mapping: try MappingFile.read(contentsOf: URL(fileURLWithPath: mapping)), context: context
        ).run()
        held.release()
        let run = second.wait()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stdout
                == "\(store.path) is already at Blog 2: nothing to migrate (another migration finished it while this one waited).\n"
        )
        let upgrade = try Tool.run(["upgrade", store.path, "--models", bundle, "--mappings", folder.url.path])
        #expect(upgrade.stdout == "\(store.path) is already at Blog 2: nothing to migrate.\n")
    }

    @Test("a store behind a symbolic link: migrated where it lives, the link left as it was; hard links refused")
    func links() throws {
        try FileManager.default.createDirectory(at: folder.path("real"), withIntermediateDirectories: true)
        let real = try folder.copy(Fixtures.package("MappingModels/Examples/Blog.sqlite"), as: "real/s.sqlite")
        let link = folder.path("link.sqlite").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "real/s.sqlite")
        let run = try Tool.run(migrate(link))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stderr.contains(
                "molt: \(link) is a symbolic link: migrating \(real.resolvingSymlinksInPath().path), the file it leads to"
            ))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "real/s.sqlite")
        let inspect = try Tool.run(["inspect", real.path, "--model", bundle])
        #expect(inspect.stdout.contains("Matching:     Blog 2"))

        let hard = try folder.copy(Fixtures.package("MappingModels/Examples/Blog.sqlite"), as: "hard.sqlite")
        try FileManager.default.linkItem(atPath: hard.path, toPath: folder.path("hard-too.sqlite").path)
        let refused = try Tool.run(migrate(hard.path))
        #expect(refused.status == 74)
        #expect(refused.stderr.contains("the store file has 2 names (hard links)"))
    }
}
