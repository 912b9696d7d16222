import Foundation
import MoltCore
import MoltMigration
import MoltModel
import MoltSQLite
import MoltStore
import MoltTestSupport
import Testing

/// What a crash leaves beside a store other than Molt's own files, as the crash test
/// (`Scripts/crash-test.sh`) found it: SQLite's log or journal, which recovery tidies so that
/// the store is one file again.
@Suite("Recovery tidies SQLite's files left by a crash")
struct CrashLeftoverTests {
    let folder = TemporaryDirectory()

    /// Copies the store's files as they are at this instant, as a `kill -9` would leave them.
    func snapshot(_ url: URL, suffixes: [String]) throws -> URL {
        let copy = folder.path(url.lastPathComponent)
        for suffix in suffixes where FileManager.default.fileExists(atPath: url.path + suffix) {
            try FileManager.default.copyItem(atPath: url.path + suffix, toPath: copy.path + suffix)
        }
        return copy
    }

    @Test("a write-ahead log with committed rows (an in-place migration killed after its commit) is checkpointed")
    func leftoverLog() throws {
        let original = TemporaryDirectory()
        let url = try MigrationFixtures.blogStore(in: original)
        let store = try ObjectStore.open(at: url, models: .model(try Examples.model("Blog")), readOnly: false)
        try store.store.connection.execute("PRAGMA wal_autocheckpoint = 0")
        try store.write { writer in
            try writer.insert("Author", attributes: ["name": .string("Walter White"), "identifier": .uuid(UUID())])
        }
        let copy = try snapshot(url, suffixes: ["", "-wal", "-shm"])
        #expect(try MigrationFixtures.files(folder) == ["Blog.sqlite", "Blog.sqlite-shm", "Blog.sqlite-wal"])
        #expect(try StoreRecovery.recover(at: copy) == .nothingToDo)
        #expect(try MigrationFixtures.files(folder) == ["Blog.sqlite"])
        let main = try SQLiteConnection(path: copy.path, mode: .immutable)
        defer { main.close() }
        #expect(try main.scalar("SELECT count(*) FROM ZAUTHOR") == .integer(4), "the new author is in the main file")
    }

    @Test("a hot rollback journal (a store in DELETE mode killed mid-transaction) is rolled back")
    func leftoverJournal() throws {
        let original = TemporaryDirectory()
        let url = try MigrationFixtures.blogStore(in: original)
        let before = try MigrationFixtures.dump(url, bundle: Examples.bundle)
        let writer = try SQLiteConnection(path: url.path, mode: .readWrite)
        try writer.execute("PRAGMA journal_mode = DELETE")
        let beforeBytes = try Data(contentsOf: url)
        try writer.execute("PRAGMA cache_size = 1")
        try writer.execute("BEGIN")
        try writer.execute("CREATE TABLE filler(x)")
        try writer.execute(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400) INSERT INTO filler SELECT randomblob(500) FROM n"
        )
        try writer.execute("UPDATE ZAUTHOR SET ZNAME = 'changed'")
        let copy = try snapshot(url, suffixes: ["", "-journal"])
        try writer.execute("ROLLBACK")
        writer.close()
        #expect(try MigrationFixtures.files(folder) == ["Blog.sqlite", "Blog.sqlite-journal"])
        #expect(try Data(contentsOf: copy) != beforeBytes, "the transaction had reached the main file")
        #expect(try StoreRecovery.recover(at: copy) == .nothingToDo)
        #expect(try MigrationFixtures.files(folder) == ["Blog.sqlite"])
        #expect(try MigrationFixtures.dump(copy, bundle: Examples.bundle) == before)
    }

    @Test("a journal whose header a cut-short commit had cleared (not hot, so SQLite keeps it) is removed")
    func coldJournal() throws {
        let url = try MigrationFixtures.blogStore(in: folder)
        let writer = try SQLiteConnection(path: url.path, mode: .readWrite)
        try writer.execute("PRAGMA journal_mode = DELETE")
        writer.close()
        let before = try MigrationFixtures.dump(url, bundle: Examples.bundle)
        try Data(repeating: 0, count: 4096).write(to: URL(fileURLWithPath: url.path + "-journal"))
        SQLiteStore.rollBackInterruptedWrite(at: url)
        #expect(FileManager.default.fileExists(atPath: url.path + "-journal"), "SQLite leaves a cold journal")
        #expect(try StoreRecovery.recover(at: url) == .nothingToDo)
        #expect(try MigrationFixtures.files(folder) == ["Blog.sqlite"])
        #expect(try MigrationFixtures.dump(url, bundle: Examples.bundle) == before)
    }

    @Test("companions of a new store whose main file recovery had already removed, or its partial copy, are removed")
    func orphanCompanions() throws {
        let url = try MigrationFixtures.blogStore(in: folder)
        let before = try Data(contentsOf: url)
        for suffix in [".molt-new-wal", ".molt-new-shm", ".molt-new-journal", ".molt-new.partial"] {
            try Data("left by a crash".utf8).write(to: URL(fileURLWithPath: url.path + suffix))
        }
        #expect(try StoreRecovery.recover(at: url) == .nothingToDo)
        #expect(try MigrationFixtures.files(folder) == ["Blog.sqlite"])
        #expect(try Data(contentsOf: url) == before)
    }
}
