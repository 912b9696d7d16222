import Foundation
import MoltCore
import MoltSQLite
import MoltStore
import MoltTestSupport
import Testing

/// Read-only commands (`inspect`, `dump`, plans) may run while another process writes: they read
/// through SQLite's locks, one committed version at a time, and leave no file behind.
@Suite("Reading a store while another process writes it")
struct ReadConsistencyTests {
    let folder = TemporaryDirectory()

    func blogStore(journal: String) throws -> URL {
        let url = try folder.copy(Fixtures.package("MappingModels/Examples/Blog.sqlite"))
        let connection = try SQLiteConnection(path: url.path, mode: .readWrite)
        _ = try connection.scalar("PRAGMA journal_mode = \(journal)")
        connection.close()
        return url
    }

    func authors(_ connection: SQLiteConnection) throws -> Int64? {
        try connection.scalar("SELECT count(*) FROM ZAUTHOR")?.integerValue
    }

    @Test("a WAL store without companions is read through SQLite's locks, never written, and left as it was")
    func walWithoutCompanions() throws {
        let url = try blogStore(journal: "WAL")
        #expect(try TestStores.files(in: folder) == ["Blog.sqlite"])
        let before = try Data(contentsOf: url)
        let store = try SQLiteStore(at: url)
        #expect(store.connection.mode == .readWrite, "read-write so SQLite can remove what it creates")
        #expect(throws: SQLiteError.self) { try store.connection.execute("DELETE FROM ZAUTHOR") }
        #expect(try authors(store.connection) == 3)
        store.connection.close()
        #expect(try TestStores.files(in: folder) == ["Blog.sqlite"])
        #expect(try Data(contentsOf: url) == before)
    }

    @Test("a snapshot keeps one committed version while another connection commits (WAL)")
    func snapshotInWAL() throws {
        let url = try blogStore(journal: "WAL")
        let store = try SQLiteStore(at: url, snapshot: true)
        #expect(try authors(store.connection) == 3)
        let writer = try SQLiteConnection(path: url.path, mode: .readWrite)
        try writer.execute("INSERT INTO ZAUTHOR (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (99, 1, 1, 'New')")
        #expect(try authors(store.connection) == 3, "the snapshot does not move")
        #expect(try authors(try SQLiteStore(at: url).connection) == 4, "a new reader sees the commit")
        store.connection.close()
        writer.close()
    }

    @Test("a reader waits for a writer whose uncommitted pages are in the file, and sees the store as committed")
    func uncommittedPagesInRollbackMode() throws {
        let url = try blogStore(journal: "DELETE")
        let writer = try SQLiteConnection(path: url.path, mode: .readWrite)
        let name = String(repeating: "x", count: 800)
        try writer.execute("BEGIN")
        for key in 1000..<3000 {
            try writer.execute("INSERT INTO ZAUTHOR (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (\(key), 1, 1, '\(name)')")
        }
        try writer.execute("COMMIT")
        // A tiny cache makes SQLite write changed pages into the file before the commit (the
        // originals go to the journal), as a big in-place migration does.
        try writer.execute("PRAGMA cache_size = 5")
        try writer.execute("BEGIN IMMEDIATE")
        try writer.execute("DELETE FROM ZAUTHOR WHERE Z_PK >= 1000 AND Z_PK % 2 = 0")
        #expect(FileManager.default.fileExists(atPath: url.path + "-journal"))
        // What reading without locks (immutable, as read-only commands once did) would see now:
        // pages of a transaction that is not committed, or a damaged file.
        let unlocked = try SQLiteConnection(path: url.path, mode: .immutable)
        let seen = Result { try authors(unlocked) }
        unlocked.close()
        if case .success(let count) = seen { #expect(count != 2003, "the file holds uncommitted pages") }

        let rollBack = OwnThread(after: 0.5) {
            try? writer.execute("ROLLBACK")
            writer.close()
        }
        let reader = try SQLiteStore(at: url, snapshot: true)
        #expect(try authors(reader.connection) == 2003, "the store as committed")
        reader.connection.close()
        rollBack.wait()
        #expect(try TestStores.files(in: folder) == ["Blog.sqlite"])
    }
}
