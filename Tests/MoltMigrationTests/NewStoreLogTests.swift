import Foundation
import MoltCore
import MoltMigration
import MoltSQLite
import MoltStore
import MoltTestSupport
import Testing

/// A migrated store's own log holding pages its main file lacks: what a Molt that swapped
/// before the log was in the file left (the main file renamed over the store, its pages still
/// in `Store.sqlite.molt-new-wal`). Recovery uses it or keeps it; it never deletes it.
@Suite("Recovery and a migrated store's own log")
struct NewStoreLogTests {
    let folder = TemporaryDirectory("molt-new-store-log")

    /// The example store at `path`, with `rows` more comments whose pages are only in its log.
    func storeWithPagesInLog(at path: String, rows: Int = 400) throws {
        try FileManager.default.copyItem(
            atPath: Fixtures.package("MappingModels/Examples/Blog.sqlite").path, toPath: path)
        let connection = try SQLiteConnection(path: path, mode: .readWrite)
        try connection.execute("PRAGMA wal_autocheckpoint = 0")
        try connection.transaction {
            for index in 0..<rows {
                try connection.run(
                    "INSERT INTO ZCOMMENT (Z_PK, Z_ENT, Z_OPT, ZTEXT, ZCREATEDAT) VALUES (?, 2, 1, ?, 0)",
                    [
                        .integer(Int64(1000 + index)),
                        .text("only in the log \(index) " + String(repeating: "x", count: 200)),
                    ])
            }
        }
        try connection.keepLogOnClose()
        connection.close()
        try? FileManager.default.removeItem(atPath: path + "-shm")
    }

    /// Copies into the main file the log's last copy of every page the file already has, and
    /// none beyond: a checkpoint cut short where the file had to grow (a full disk). The file
    /// alone is then damaged; with its log it is whole.
    func cutCheckpointShort(_ path: String, log: String) throws {
        let parsed = try #require(try WriteAheadLog.read(log))
        let logData = try Data(contentsOf: URL(fileURLWithPath: log))
        var file = try Data(contentsOf: URL(fileURLWithPath: path))
        let pages = file.count / parsed.pageSize
        for (page, offset) in parsed.pageOffsets where Int(page) <= pages {
            let start = (Int(page) - 1) * parsed.pageSize
            file.replaceSubrange(
                start..<start + parsed.pageSize, with: logData[Int(offset)..<Int(offset) + parsed.pageSize])
        }
        try file.write(to: URL(fileURLWithPath: path))
    }

    func count(_ path: String) throws -> Int64 {
        let connection = try SQLiteConnection(path: path, mode: .readOnly)
        defer { connection.close() }
        return try connection.scalar("SELECT count(*) FROM ZCOMMENT WHERE ZTEXT LIKE 'only in the log%'")?.integerValue
            ?? -1
    }

    @Test("a new store's log whose main file was renamed over the store becomes the store's and is moved into it")
    func adoptsOrphanLog() throws {
        let store = folder.path("Blog.sqlite").path
        try storeWithPagesInLog(at: store + ".molt-new")
        try cutCheckpointShort(store + ".molt-new", log: store + ".molt-new-wal")
        try FileManager.default.moveItem(atPath: store + ".molt-new", toPath: store)
        let quickCheck = Result {
            let alone = try SQLiteConnection(path: store, mode: .immutable)
            defer { alone.close() }
            return try alone.scalar("PRAGMA quick_check")?.textValue
        }
        #expect((try? quickCheck.get()) != "ok", "the store is damaged without its log")
        try StoreRecovery.recover(at: URL(fileURLWithPath: store))
        #expect(!FileManager.default.fileExists(atPath: store + ".molt-new-wal"))
        #expect(!FileManager.default.fileExists(atPath: store + "-wal"))
        #expect(try count(store) == 400, "the rows that lived only in the log are in the store")
    }

    @Test("an orphan log that does not fit the store at the path is kept under a name of its own")
    func keepsForeignOrphan() throws {
        let store = folder.path("Blog.sqlite").path
        try storeWithPagesInLog(at: folder.path("elsewhere.sqlite").path)
        try FileManager.default.moveItem(
            atPath: folder.path("elsewhere.sqlite").path + "-wal", toPath: store + ".molt-new-wal")
        try FileManager.default.removeItem(atPath: folder.path("elsewhere.sqlite").path)
        // The store at the path went on without it: another store's file.
        try FileManager.default.copyItem(
            atPath: Fixtures.package("MappingModels/Examples/Blog.sqlite").path, toPath: store)
        let connection = try SQLiteConnection(path: store, mode: .readWrite)
        try connection.execute("UPDATE Z_METADATA SET Z_UUID = 'SOMETHING-ELSE'; DELETE FROM ZCOMMENT")
        connection.close()
        let log = try Data(contentsOf: URL(fileURLWithPath: store + ".molt-new-wal"))
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        try StoreRecovery.recover(at: URL(fileURLWithPath: store))
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before, "the store is left alone")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        let kept = files.filter { $0.hasPrefix("Blog.molt-log-") && $0.hasSuffix(".sqlite-wal") }
        #expect(kept.count == 1, "\(files)")
        if let name = kept.first {
            #expect(try Data(contentsOf: folder.path(name)) == log, "the log is kept whole")
        }
        #expect(!FileManager.default.fileExists(atPath: store + ".molt-new-wal"))
    }

    @Test("a swap record beside a new store whose pages are in its log: the log goes into it before the rename")
    func foldsBeforeSwap() throws {
        let store = folder.path("Blog.sqlite").path
        try FileManager.default.copyItem(
            atPath: Fixtures.package("MappingModels/Examples/Blog.sqlite").path, toPath: store)
        try storeWithPagesInLog(at: store + ".molt-new")
        try Data(#"{"format": 1, "newStore": "\#(store).molt-new"}"#.utf8).write(
            to: URL(fileURLWithPath: store + ".molt-swap"))
        #expect(try StoreRecovery.recover(at: URL(fileURLWithPath: store)) == .finishedSwap)
        #expect(try MigrationFixtures.files(folder) == ["Blog.sqlite"])
        #expect(try count(store) == 400)
    }
}
