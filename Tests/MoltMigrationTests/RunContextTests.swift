import Foundation
import Logging
import MoltCore
import MoltMapping
import MoltMigration
import MoltModel
import MoltStore
import MoltTestSupport
import Testing

/// One run context for the whole of a run: stopping it stops whichever part is running
/// (including a part a driver started on its own), recovery runs once per lock, and the
/// user's options reach every part unchanged.
@Suite("A run's context")
struct RunContextTests {
    let folder = TemporaryDirectory("molt-run")

    static func dump(_ url: URL, _ model: ObjectModel) throws -> String {
        try ObjectsJSONExporter().exportString(ObjectStore(store: SQLiteStore(at: url), model: model))
    }

    @Test("a context made without a logger logs notices and above only; one given keeps its level")
    func quietByDefault() throws {
        #expect(RunContext().logger.logLevel == .notice)
        #expect(LibraryLogger.make("molt.anything").logLevel == .notice)
        var chatty = Logger(label: "test")
        chatty.logLevel = .info
        #expect(RunContext(logger: chatty).logger.logLevel == .info)
    }

    @Test("a context stopped before the run starts stops it at once; the store is untouched")
    func stoppedBeforehand() throws {
        let url = try MigrationFixtures.blogStore(in: folder)
        let context = RunContext()
        context.cancel()
        #expect(context.isCancelled)
        let migration = HeavyweightMigration(
            store: url, source: try Examples.model("Blog"), destination: try Examples.model("Blog 2"),
            mapping: try MigrationFixtures.mapping("Blog/Blog-to-Blog2.xml"), context: context)
        let error = try FailedRun.expectUntouched(url, folder: folder) { try migration.run() }
        #expect(error?.code == .migrationCancelled)
    }

    @Test("the heavyweight engine a lightweight migration falls back to is stopped by the same context")
    func fallbackStopped() throws {
        let (source, destination) = try InferenceCases.named("entity moved into a hierarchy").models()
        let url = folder.path("Store.sqlite")
        _ = try ObjectStore.create(at: url, model: source) { try StoreSeeder().fill($0) }
        let before = try Self.dump(url, source)
        final class Seen: @unchecked Sendable {
            var passes: [MigrationProgress.Pass] = []
        }
        let seen = Seen()
        let holder = ContextHolder()
        let context = RunContext(progress: { progress in
            seen.passes.append(progress.pass)
            // Only the heavyweight engine has a relate pass: stop the run there.
            if progress.pass == .relate { holder.context?.cancel() }
        })
        holder.context = context
        let migration = try LightweightMigration(
            store: url, source: source, destination: destination, context: context)
        #expect {
            try migration.run()
        } throws: { error in
            (error as? MoltError)?.code == .migrationCancelled
        }
        #expect(seen.passes.contains(.relate), "the fallback reported through the run's context")
        #expect(try Self.dump(url, source) == before)
        #expect(try SQLiteStore(at: url).compatibility(with: source).isCompatible)
    }

    @Test("recovery runs once per lock held: asked again under it, it answers what it found first")
    func recoveryOncePerLock() throws {
        let url = try MigrationFixtures.blogStore(in: folder)
        let leftover = URL(fileURLWithPath: url.path + ".molt-new")
        try Data("half-written".utf8).write(to: leftover)
        let lock = try MigrationLock.acquire(store: url)
        #expect(try StoreRecovery.recover(locked: lock) == .removedUnfinishedMigration)
        #expect(!FileManager.default.fileExists(atPath: leftover.path))
        // Nothing a run does under the lock leaves such a file; one written by hand now is
        // not looked for again under the same lock.
        try Data("half-written".utf8).write(to: leftover)
        #expect(try StoreRecovery.recover(locked: lock) == .removedUnfinishedMigration)
        #expect(FileManager.default.fileExists(atPath: leftover.path))
        lock.release()
        #expect(try StoreRecovery.recover(at: url) == .removedUnfinishedMigration)
        #expect(!FileManager.default.fileExists(atPath: leftover.path))
    }

    @Test("a migration run in a context holding the store's lock uses it instead of waiting")
    func heldLockUsed() throws {
        let url = try MigrationFixtures.blogStore(in: folder)
        let held = try MigrationLock.acquire(store: url)
        defer { held.release() }
        // Without the held lock the run would fail at once with 134090.
        #expect {
            try HeavyweightMigration(
                store: url, source: try Examples.model("Blog"), destination: try Examples.model("Blog 2"),
                mapping: try MigrationFixtures.mapping("Blog/Blog-to-Blog2.xml")
            ).run()
        } throws: { error in
            (error as? MoltError)?.code == .persistentStoreTimeout
        }
        let context = RunContext()
        context.use(held)
        let report = try HeavyweightMigration(
            store: url, source: try Examples.model("Blog"), destination: try Examples.model("Blog 2"),
            mapping: try MigrationFixtures.mapping("Blog/Blog-to-Blog2.xml"), context: context
        ).run()
        #expect(report.destinationCounts["Author"] == 3)
    }
}

/// Lets a progress callback reach the context it was made for.
private final class ContextHolder: @unchecked Sendable {
    var context: RunContext?
}
