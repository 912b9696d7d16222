import Foundation
import MoltSQLite
import MoltTestSupport
import Testing

@Suite("SQLite connection and statements")
struct SQLiteConnectionTests {
    @Test("a file that is not a database fails at open with SQLite's code and message")
    func notADatabase() throws {
        let folder = TemporaryDirectory()
        let file = try folder.write(String(repeating: "not a database ", count: 100), to: "x.sqlite")
        let error = #expect(throws: SQLiteError.self) { try SQLiteConnection(path: file.path, mode: .readOnly) }
        #expect(error?.code.primary == .notADatabase)
        #expect(error?.path == file.path)
    }

    @Test("a failing statement's error carries the code, message and SQL")
    func errorCarriesSQL() throws {
        let db = try SQLiteConnection(path: ":memory:", mode: .create)
        let error = #expect(throws: SQLiteError.self) { try db.execute("SELECT * FROM missing_table") }
        #expect(error?.code.primary == .error)
        #expect(error?.message.contains("missing_table") == true)
        #expect(error?.sql == "SELECT * FROM missing_table")
    }

    @Test("binding fewer values than parameters leaves the rest NULL, not the last values bound")
    func fewerValuesClearTheRest() throws {
        let db = try SQLiteConnection(path: ":memory:", mode: .create)
        let statement = try db.prepare("SELECT ?, ?, ?")
        try statement.bind([.integer(1), .text("two"), .real(3)])
        #expect(try statement.step())
        #expect(statement.value(at: 2) == .real(3))
        try statement.bind([.integer(4), .text("five"), .null])
        #expect(try statement.step())
        #expect(statement.value(at: 1) == .text("five"))
        #expect(statement.isNull(at: 2))
        try statement.bind([.integer(6)])
        #expect(try statement.step())
        #expect(statement.value(at: 0) == .integer(6))
        #expect(statement.isNull(at: 1) && statement.isNull(at: 2))
    }

    @Test("identifiers with quotes and spaces are quoted safely")
    func quoting() throws {
        let db = try SQLiteConnection(path: ":memory:", mode: .create)
        let table = "weird \"table\"; DROP TABLE x; --"
        try db.execute("CREATE TABLE \(SQL.identifier(table)) (\(SQL.identifier("a\"b")) TEXT)")
        try db.run("INSERT INTO \(SQL.identifier(table)) VALUES (?)", [.text("it's")])
        #expect(try db.scalar("SELECT \(SQL.identifier("a\"b")) FROM \(SQL.identifier(table))") == .text("it's"))
        #expect(SQL.literal("it's") == "'it''s'")
    }

    @Test("every storage class round-trips, including empty blobs and text with NUL")
    func values() throws {
        let db = try SQLiteConnection(path: ":memory:", mode: .create)
        try db.execute("CREATE TABLE t (v)")
        let values: [SQLiteValue] = [
            .null, .integer(Int64.min), .integer(Int64.max), .real(-1.25), .text(""), .text("a\u{0}b ✓"),
            .blob(Data()), .blob(Data([0, 1, 255])),
        ]
        for value in values { try db.run("INSERT INTO t VALUES (?)", [value]) }
        let read = try db.rows("SELECT v FROM t ORDER BY rowid").map { $0[0] }
        #expect(read == values)
        #expect(try db.scalar("SELECT typeof(v) FROM t WHERE rowid = 7") == .text("blob"))
    }

    @Test("a transaction rolls back when its body throws")
    func rollback() throws {
        struct Failure: Error {}
        let db = try SQLiteConnection(path: ":memory:", mode: .create)
        try db.execute("CREATE TABLE t (x)")
        #expect(throws: Failure.self) {
            try db.transaction {
                try db.run("INSERT INTO t VALUES (1)")
                throw Failure()
            }
        }
        #expect(try db.scalar("SELECT count(*) FROM t") == .integer(0))
        #expect(!db.isInTransaction)
    }

    @Test("too many bindings is an error, not a crash")
    func tooManyBindings() throws {
        let db = try SQLiteConnection(path: ":memory:", mode: .create)
        let statement = try db.prepare("SELECT ?")
        #expect(throws: SQLiteError.self) { try statement.bind([.integer(1), .integer(2)]) }
    }

    @Test("a read-only connection cannot write")
    func readOnly() throws {
        let folder = TemporaryDirectory()
        let path = folder.path("a.sqlite").path
        try SQLiteConnection(path: path, mode: .create).execute("CREATE TABLE t (x)")
        let db = try SQLiteConnection(path: path, mode: .readOnly)
        let error = #expect(throws: SQLiteError.self) { try db.execute("INSERT INTO t VALUES (1)") }
        #expect(error?.code.primary == .readOnly)
    }

    @Test("an immutable connection reads a path with URI characters and leaves no companion files")
    func immutable() throws {
        let folder = TemporaryDirectory()
        let path = folder.path("odd name?#%.sqlite").path
        do {
            let db = try SQLiteConnection(path: path, mode: .create)
            try db.execute("PRAGMA journal_mode = WAL; CREATE TABLE t (x); INSERT INTO t VALUES (42);")
        }
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        do {
            let db = try SQLiteConnection(path: path, mode: .immutable)
            #expect(try db.scalar("SELECT x FROM t") == .integer(42))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["odd name?#%.sqlite"])
    }

    @Test("a checkpoint moves the log into the main file")
    func checkpoint() throws {
        let folder = TemporaryDirectory()
        let path = folder.path("w.sqlite").path
        let db = try SQLiteConnection(path: path, mode: .create)
        try db.execute("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE t (x);")
        for value in 0..<100 { try db.run("INSERT INTO t VALUES (?)", [.integer(Int64(value))]) }
        let walSize = { (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0 }
        #expect(walSize() > 0)
        try db.checkpoint(.truncate)
        #expect(walSize() == 0)
        #expect(try db.journalMode() == "wal")
    }
}
