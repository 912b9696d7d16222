import Foundation
import MoltSQLite
import MoltTestSupport
import Testing

/// Logs made by SQLite itself (a connection that keeps its log when it closes, as a crash or a
/// copy taken while an app has the store open leaves it), read by `WriteAheadLog`, seen through
/// `LogView`, and judged by `LogOwnership`, which never changes a byte of either file.
@Suite("Write-ahead logs: reading, the view with a log applied, and whose log it is")
struct LogOwnershipTests {
    let folder = TemporaryDirectory()
    static let identity = LogOwnership.Identity(query: "SELECT name FROM identity", name: "name")

    /// A database in WAL mode with `rows` rows in its main file, then `changes` transactions
    /// (seeded) left in its log.
    func database(
        _ name: String, rows: Int = 400, changes: Int = 20, seed: UInt64 = 1, pageSize: Int = 4096
    )
        throws -> String
    {
        let path = folder.path(name).path
        let connection = try SQLiteConnection(path: path, mode: .create)
        try connection.execute(
            """
            PRAGMA page_size = \(pageSize); PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;
            CREATE TABLE identity (name TEXT); INSERT INTO identity VALUES ('\(name)');
            CREATE TABLE item (id INTEGER PRIMARY KEY, label TEXT, amount INTEGER);
            CREATE INDEX item_label ON item (label);
            """)
        try connection.transaction {
            for id in 1...rows {
                try connection.run(
                    "INSERT INTO item VALUES (?, ?, ?)", [.integer(Int64(id)), .text("label \(id)"), .integer(0)])
            }
        }
        try connection.checkpoint(.truncate)
        var random = SplitMix(seed: seed)
        for _ in 0..<changes {
            try connection.transaction {
                let id = Int64(random.next() % UInt64(rows * 2)) + 1
                try connection.run(
                    "INSERT OR REPLACE INTO item VALUES (?, ?, ?)",
                    [.integer(id), .text("changed \(random.next() % 1000)"), .integer(Int64(random.next() % 100))])
                try connection.run("DELETE FROM item WHERE id = ?", [.integer(Int64(random.next() % UInt64(rows)) + 1)])
            }
        }
        try connection.keepLogOnClose()
        connection.close()
        return path
    }

    func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    /// What SQLite reads from the database (its log applied as SQLite applies it).
    func content(_ connection: SQLiteConnection) throws -> [String] {
        try connection.rows("SELECT id, label, amount FROM item ORDER BY id").map { row in
            row.map { "\($0)" }.joined(separator: "|")
        }
    }

    @Test("a log SQLite left is read: its committed frames, the pages they hold, the database's size after them")
    func reads() throws {
        let path = try database("a.sqlite")
        let log = try #require(try WriteAheadLog.read(path + "-wal"))
        #expect(log.pageSize == 4096)
        #expect(log.committedFrames > 0)
        #expect(!log.pageOffsets.isEmpty)
        let copy = folder.path("copy.sqlite").path
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
        let reader = try SQLiteConnection(path: copy, mode: .readWrite)
        defer { reader.close() }
        #expect(log.databasePages == UInt32(try reader.scalar("PRAGMA page_count")?.integerValue ?? 0))
    }

    @Test("bytes after the last frame and a transaction cut short are ignored, as SQLite ignores them")
    func tail() throws {
        let path = try database("a.sqlite")
        let whole = try #require(try WriteAheadLog.read(path + "-wal"))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path + "-wal"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 5000))
        try handle.close()
        let padded = try #require(try WriteAheadLog.read(path + "-wal"))
        #expect(padded.committedFrames == whole.committedFrames)
        #expect(padded.pageOffsets == whole.pageOffsets)
        // Cut inside the last transaction's commit frame: that transaction is gone.
        let frame = UInt64(24 + whole.pageSize)
        try FileHandle(forWritingTo: URL(fileURLWithPath: path + "-wal")).truncate(
            atOffset: 32 + frame * UInt64(whole.committedFrames) - 10)
        let cut = try #require(try WriteAheadLog.read(path + "-wal"))
        #expect(cut.committedFrames < whole.committedFrames)
        #expect(cut.committedFrames > 0)
    }

    @Test("no log, an empty one, or one with a damaged header: nothing SQLite would apply")
    func noLog() throws {
        let path = try database("a.sqlite")
        let log = try #require(bytes(path + "-wal"))
        var damaged = log
        damaged[9] ^= 0xFF
        try damaged.write(to: URL(fileURLWithPath: path + "-wal"))
        #expect(try WriteAheadLog.read(path + "-wal") == nil)
        #expect(LogOwnership.verdict(database: path, identity: Self.identity) == .noLog)
        try Data().write(to: URL(fileURLWithPath: path + "-wal"))
        #expect(LogOwnership.verdict(database: path, identity: Self.identity) == .noLog)
        try FileManager.default.removeItem(atPath: path + "-wal")
        #expect(LogOwnership.verdict(database: path, identity: Self.identity) == .noLog)
    }

    @Test("the view with the log applied reads what SQLite reads through the log", arguments: [1, 2, 3, 4] as [UInt64])
    func view(seed: UInt64) throws {
        let path = try database("a.sqlite", changes: 10 + Int(seed) * 15, seed: seed)
        let log = try WriteAheadLog.read(path + "-wal")
        let view = try LogView(database: path, log: log)
        let viewed = try view.connection()
        let seen = try content(viewed)
        #expect(try viewed.scalar("PRAGMA quick_check")?.textValue == "ok")
        viewed.close()
        // SQLite itself, on a copy (it may change what it opens).
        let copy = folder.path("copy-\(seed).sqlite").path
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
        let sqlite = try SQLiteConnection(path: copy, mode: .readWrite)
        defer { sqlite.close() }
        #expect(try content(sqlite) == seen)
    }

    @Test("the database's own log belongs to it; checking it changes neither file")
    func ownLog() throws {
        let path = try database("a.sqlite")
        try FileManager.default.removeItem(atPath: path + "-shm")
        let before = (bytes(path), bytes(path + "-wal"))
        #expect(LogOwnership.verdict(database: path, identity: Self.identity) == .belongs)
        #expect(bytes(path) == before.0)
        #expect(bytes(path + "-wal") == before.1)
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"), "no index made")
    }

    /// Puts `other`'s log beside `path`, checks it is refused with `expected` in its reason, and
    /// that neither file changed.
    func expectForeign(_ path: String, logOf other: String, _ expected: String? = nil) throws {
        try FileManager.default.removeItem(atPath: path + "-wal")
        try FileManager.default.copyItem(atPath: other + "-wal", toPath: path + "-wal")
        let before = (bytes(path), bytes(path + "-wal"))
        let verdict = LogOwnership.verdict(database: path, identity: Self.identity)
        guard case .foreign(let reason) = verdict else {
            Issue.record("a foreign log was taken as \(verdict)")
            return
        }
        if let expected { #expect(reason.contains(expected), "\(reason)") }
        #expect(bytes(path) == before.0)
        #expect(bytes(path + "-wal") == before.1)
    }

    @Test("another database's log, with its own schema, is refused: the store is another one with it")
    func otherDatabase() throws {
        let path = try database("a.sqlite")
        let other = try database("b.sqlite", rows: 30, changes: 3)
        try expectForeign(path, logOf: other)
    }

    @Test("a log of another page size is refused")
    func pageSize() throws {
        let path = try database("a.sqlite")
        let other = try database("b.sqlite", pageSize: 1024)
        try expectForeign(path, logOf: other, "pages are 1024 bytes")
    }

    @Test("a log whose last commit makes the database longer than the file and the log hold is refused")
    func missingPages() throws {
        let path = try database("a.sqlite", rows: 20, changes: 2)
        let other = try database("b.sqlite", rows: 5000, changes: 2)
        try expectForeign(path, logOf: other, "is in neither the store's file")
    }

    /// A copy of the database at `path` (its log too, when it has one) called `name`, changed by
    /// `change` with its log kept: a later version of the same database.
    func continued(_ path: String, as name: String, _ change: (SQLiteConnection) throws -> Void) throws -> String {
        let copy = folder.path(name).path
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        if FileManager.default.fileExists(atPath: path + "-wal") {
            try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
        }
        let connection = try SQLiteConnection(path: copy, mode: .readWrite)
        try connection.execute("PRAGMA wal_autocheckpoint = 0")
        try change(connection)
        try connection.keepLogOnClose()
        connection.close()
        return copy
    }

    @Test("the same database's log from another time, which does not fit its file, is refused")
    func otherTime() throws {
        let path = try database("a.sqlite", changes: 5)
        // Many rows deleted and checkpointed, then more changes left in the log.
        let later = try continued(path, as: "later.sqlite") { connection in
            try connection.execute("DELETE FROM item WHERE id % 2 = 0")
            try connection.checkpoint(.truncate)
            try connection.execute(
                "UPDATE item SET label = label || ' again'; INSERT INTO item VALUES (100000, 'x', 1)")
        }
        try expectForeign(path, logOf: later, "damaged")
    }

    @Test("a log that names another database by its identity is refused")
    func otherIdentity() throws {
        let path = try database("a.sqlite", changes: 0)
        try FileManager.default.removeItem(atPath: path + "-wal")
        // The same pages, another name: the log changes only the identity row.
        let other = try continued(path, as: "other.sqlite") { connection in
            try connection.execute("UPDATE identity SET name = 'someone else'")
        }
        try Data().write(to: URL(fileURLWithPath: path + "-wal"))
        try expectForeign(path, logOf: other, "another one: its name is someone else")
    }
}
