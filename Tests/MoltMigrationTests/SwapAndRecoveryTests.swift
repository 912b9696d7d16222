import Foundation
import MoltCore
import MoltMapping
import MoltMigration
import MoltModel
import MoltSQLite
import MoltStore
import MoltTestSupport
import Testing

@Suite("Swapping stores and recovering from interruptions")
struct SwapAndRecoveryTests {
    let folder = TemporaryDirectory()

    init() {
        MigrationFixtures.registerPolicies()
    }

    func migrate(_ url: URL) throws -> MigrationReport {
        try HeavyweightMigration(
            store: url, source: try Examples.model("Blog"), destination: try Examples.model("Blog 2"),
            mapping: try MigrationFixtures.mapping("Blog/Blog-to-Blog2.xml")
        ).run()
    }

    /// Copies the store and its companions as they are while `writer` still has them open, as
    /// a crash would leave them.
    func snapshot(_ url: URL, into target: TemporaryDirectory) throws -> URL {
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: url.path + suffix) {
            try FileManager.default.copyItem(
                atPath: url.path + suffix, toPath: target.path(url.lastPathComponent).path + suffix)
        }
        return target.path(url.lastPathComponent)
    }

    @Test("objects that live only in the source's -wal are migrated, and no old -wal or -shm is left")
    func walOnlyRows() throws {
        let original = TemporaryDirectory()
        let url = try MigrationFixtures.blogStore(in: original)
        let store = try ObjectStore.open(at: url, models: .model(try Examples.model("Blog")), readOnly: false)
        try store.store.connection.execute("PRAGMA wal_autocheckpoint = 0")
        try store.write { writer in
            try writer.insert("Author", attributes: ["name": .string("Walter White"), "identifier": .uuid(UUID())])
        }
        let copy = try snapshot(url, into: folder)
        #expect((try FileManager.default.attributesOfItem(atPath: copy.path + "-wal")[.size] as? Int ?? 0) > 0)
        let mainOnly = try SQLiteConnection(path: copy.path, mode: .immutable)
        #expect(
            try mainOnly.scalar("SELECT count(*) FROM ZAUTHOR") == .integer(3), "the new author is only in the -wal")
        let report = try migrate(copy)
        #expect(report.destinationCounts["Author"] == 4)
        let migrated = try ObjectStore.open(at: copy, models: .model(try Examples.model("Blog 2")))
        #expect(try migrated.objects(of: "Author").all().last?.attributes["handle"] == .string("walterwhite"))
        migrated.store.connection.close()
        #expect(try MigrationFixtures.files(folder) == ["Blog.sqlite"])
    }

    /// Sets the scene of a swap interrupted just before the rename: the old store, the complete
    /// new one beside it, and the swap record.
    func interruptedSwap() throws -> (store: URL, new: URL, newDump: String) {
        let url = try MigrationFixtures.blogStore(in: folder)
        let other = TemporaryDirectory()
        let migrated = try MigrationFixtures.blogStore(in: other)
        _ = try migrate(migrated)
        let new = URL(fileURLWithPath: url.path + ".molt-new")
        try FileManager.default.copyItem(at: migrated, to: new)
        try Data(#"{"format": 1, "newStore": "\#(new.path)"}"#.utf8).write(
            to: URL(fileURLWithPath: url.path + ".molt-swap"))
        return (url, new, try MigrationFixtures.dump(migrated, bundle: Examples.bundle))
    }

    @Test("a swap interrupted after its record was written is finished by the next run")
    func rollForward() throws {
        let (url, _, newDump) = try interruptedSwap()
        #expect(try StoreRecovery.recover(at: url) == .finishedSwap)
        #expect(try MigrationFixtures.dump(url, bundle: Examples.bundle) == newDump)
        #expect(try MigrationFixtures.files(folder) == ["Blog.sqlite"])
    }

    @Test(
        "a damaged new store (truncated, random bytes, other hashes) is set aside and the old store kept",
        arguments: ["truncated", "random", "hashes"])
    func damagedNewStore(damage: String) throws {
        let (url, new, _) = try interruptedSwap()
        let oldDump = try MigrationFixtures.dump(url, bundle: Examples.bundle)
        switch damage {
        case "truncated":
            let handle = try FileHandle(forWritingTo: new)
            try handle.truncate(atOffset: 4096)
            try handle.close()
        case "random":
            var state: UInt64 = 7
            let size = try Data(contentsOf: new).count
            let bytes = (0..<size).map { _ -> UInt8 in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: state >> 33)
            }
            try Data(bytes).write(to: new)
        default:
            try Data(#"{"format": 1, "newStore": "\#(new.path)", "newStoreHashes": "not these"}"#.utf8).write(
                to: URL(fileURLWithPath: url.path + ".molt-swap"))
        }
        let error = try #require(throws: MoltError.self) { try StoreRecovery.recover(at: url) }
        #expect(error.message.contains("the migrated store waiting to replace this one is damaged"), "\(error)")
        #expect(error.message.contains(".molt-damaged-"), "\(error)")
        #expect(try MigrationFixtures.dump(url, bundle: Examples.bundle) == oldDump, "the old store is kept")
        let files = try MigrationFixtures.files(folder)
        #expect(files.contains("Blog.sqlite"))
        #expect(files.contains { $0.hasPrefix("Blog.molt-damaged-") }, "\(files)")
        #expect(!files.contains { $0.hasSuffix(".molt-swap") || $0.hasSuffix(".molt-new") }, "\(files)")
        #expect(try StoreRecovery.recover(at: url) == .nothingToDo)
    }

    @Test("a swap record whose rename already happened is just removed")
    func recordOnly() throws {
        let url = try MigrationFixtures.blogStore(in: folder)
        let before = try Data(contentsOf: url)
        try Data(#"{"format": 1, "newStore": "x"}"#.utf8).write(to: URL(fileURLWithPath: url.path + ".molt-swap"))
        #expect(try StoreRecovery.recover(at: url) == .finishedSwap)
        #expect(try Data(contentsOf: url) == before)
        #expect(try MigrationFixtures.files(folder) == ["Blog.sqlite"])
    }

    @Test("a new store without a swap record was unfinished and is removed; the old store stays")
    func rollBack() throws {
        let url = try MigrationFixtures.blogStore(in: folder)
        let before = try Data(contentsOf: url)
        for name in [".molt-new", ".molt-new-wal", ".molt-new-journal"] {
            try Data("half-written".utf8).write(to: URL(fileURLWithPath: url.path + name))
        }
        try Data().write(to: folder.path(".Blog.sqlite.molt-dryrun-1234"))
        try Data().write(to: folder.path(".Blog.sqlite.molt-new.molt-5678.creating-journal"))
        #expect(try StoreRecovery.recover(at: url) == .removedUnfinishedMigration)
        #expect(try Data(contentsOf: url) == before)
        #expect(try MigrationFixtures.files(folder) == ["Blog.sqlite"])
        #expect(try StoreRecovery.recover(at: url) == .nothingToDo)
    }

    @Test("a backup name an unfinished migration gave the old store goes with it; an older backup stays")
    func unfinishedBackupLink() throws {
        let url = try MigrationFixtures.blogStore(in: folder)
        try Data("half-written".utf8).write(to: URL(fileURLWithPath: url.path + ".molt-new"))
        // Killed right after --backup linked the old store, before the swap record.
        try FileManager.default.linkItem(at: url, to: folder.path("Blog.molt-backup-20261124T101010.sqlite"))
        try folder.copy(url, as: "Blog.molt-backup-20250101T000000.sqlite")
        #expect(try StoreRecovery.recover(at: url) == .removedUnfinishedMigration)
        #expect(try MigrationFixtures.files(folder) == ["Blog.molt-backup-20250101T000000.sqlite", "Blog.sqlite"])
        // The store has one name again: a migration that replaces it may run.
        #expect(try migrate(url).destinationCounts["Author"] == 3)
    }

    @Test("if the old store's log holds data at recovery, the new store is dropped rather than the data")
    func keepsUnsavedData() throws {
        let (url, _, _) = try interruptedSwap()
        try Data(repeating: 7, count: 4096).write(to: URL(fileURLWithPath: url.path + "-wal"))
        #expect(try StoreRecovery.recover(at: url) == .removedUnfinishedMigration)
        #expect(!FileManager.default.fileExists(atPath: url.path + ".molt-new"))
        #expect(!FileManager.default.fileExists(atPath: url.path + ".molt-swap"))
    }

    @Test("a migration first finishes what an interrupted one left")
    func migrateRecoversFirst() throws {
        let (url, _, newDump) = try interruptedSwap()
        // The store is now at Blog 2, so migrating it again from Blog has nothing to do, which
        // it finds only after the interrupted swap was finished.
        #expect(try migrate(url).alreadyMigrated)
        #expect(try MigrationFixtures.dump(url, bundle: Examples.bundle) == newDump)
    }
}
