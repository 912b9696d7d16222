import Foundation
import MoltCore
import MoltMapping
import MoltMigration
import MoltModel
import MoltStore
import MoltTestSupport
import Testing

@Suite("One migration of a store at a time")
struct MigrationLockTests {
    let folder = TemporaryDirectory()

    func blogMigration(
        _ url: URL, options: MigrationOptions = MigrationOptions(), context: RunContext = RunContext()
    ) throws -> HeavyweightMigration {
        HeavyweightMigration(
            store: url, source: try Examples.model("Blog"), destination: try Examples.model("Blog 2"),
            mapping: try MigrationFixtures.mapping("Blog/Blog-to-Blog2.xml"), options: options, context: context)
    }

    @Test("a second run is told another migration is running, with the process; the lock file goes with the lock")
    func busy() throws {
        let url = try MigrationFixtures.blogStore(in: folder)
        let held = try MigrationLock.acquire(store: url)
        #expect(FileManager.default.fileExists(atPath: url.path + ".molt-lock"))
        #expect(MigrationLock.running(of: url)?.processID == ProcessInfo.processInfo.processIdentifier)
        let error = try #require(throws: MoltError.self) { try MigrationLock.acquire(store: url) }
        #expect(error.code == .persistentStoreTimeout && error.code.isTransient)
        #expect(
            error.message
                == "another migration of this store is running (process \(ProcessInfo.processInfo.processIdentifier))")
        let before = try Data(contentsOf: url)
        let refused = try #require(throws: MoltError.self) { try blogMigration(url).run() }
        #expect(refused.code == .persistentStoreTimeout)
        #expect(try Data(contentsOf: url) == before)
        held.release()
        #expect(MigrationLock.running(of: url) == nil)
        #expect(try MigrationFixtures.files(folder) == ["Blog.sqlite"], "no lock file is left")
        #expect(try blogMigration(url).run().destinationCounts["Author"] == 3)
        #expect(try MigrationFixtures.files(folder) == ["Blog.sqlite"])
    }

    @Test("a run that waits starts once the other ends, and finds the store already migrated")
    func waits() throws {
        let url = try MigrationFixtures.blogStore(in: folder)
        let held = try MigrationLock.acquire(store: url)
        // The other run migrates while this one waits.
        let holding = RunContext()
        holding.use(held)
        _ = try blogMigration(url, context: holding).run()
        let release = OwnThread(after: 0.4) { held.release() }
        defer { release.wait() }
        var options = MigrationOptions()
        options.lockWait = 20
        let started = Date()
        let notes = Collected()
        let waiting = RunContext(lockWaiting: { holder in notes.append("waiting for \(holder.map(String.init) ?? "?")")
        })
        #expect(!waiting.waitedForLock)
        let report = try blogMigration(url, options: options, context: waiting).run()
        #expect(Date().timeIntervalSince(started) >= 0.3)
        #expect(waiting.waitedForLock, "the run says it waited")
        #expect(notes.items == ["waiting for \(getpid())"], "told once, with the holder's process")
        #expect(report.alreadyMigrated)
        #expect(report.mappings.isEmpty)
        let waited = try MigrationLock.acquire(store: url, wait: 1)
        #expect(!waited.waited)
        waited.release()
    }

    @Test("a wait that runs out is 134090, saying how long it waited")
    func waitRunsOut() throws {
        let url = try MigrationFixtures.blogStore(in: folder)
        let held = try MigrationLock.acquire(store: url)
        defer { held.release() }
        let error = try #require(throws: MoltError.self) { try MigrationLock.acquire(store: url, wait: 0.3) }
        #expect(error.message.hasSuffix("is running (process \(getpid())) and did not finish within 0.3 s"))
        #expect(error.recovery?.contains("--wait") == true)
    }

    @Test("two paths to one store through a symbolic link share one lock")
    func linksShareTheLock() throws {
        let url = try MigrationFixtures.blogStore(in: folder)
        let link = folder.path("link.sqlite")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: url)
        let held = try MigrationLock.acquire(store: link)
        #expect(held.store.path == url.resolvingSymlinksInPath().path)
        #expect(throws: MoltError.self) { try MigrationLock.acquire(store: url) }
        held.release()
    }

    @Test("recovery leaves a running migration's files alone")
    func recoveryWaitsForTheLock() throws {
        let url = try MigrationFixtures.blogStore(in: folder)
        let held = try MigrationLock.acquire(store: url)
        defer { held.release() }
        try Data("being built".utf8).write(to: URL(fileURLWithPath: url.path + ".molt-new"))
        let error = try #require(throws: MoltError.self) { try StoreRecovery.recover(at: url) }
        #expect(error.code == .persistentStoreTimeout)
        #expect(FileManager.default.fileExists(atPath: url.path + ".molt-new"))
        #expect(try StoreRecovery.recover(locked: held) == .removedUnfinishedMigration)
    }
}
