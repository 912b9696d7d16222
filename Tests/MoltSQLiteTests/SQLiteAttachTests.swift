import Foundation
import MoltSQLite
import MoltTestSupport
import Testing

@Suite("Attaching a database read-only")
struct SQLiteAttachTests {
    @Test("an attached file is readable in joins and refuses writes, whatever its name holds")
    func attachReadOnly() throws {
        let folder = TemporaryDirectory()
        // Characters with a meaning in URIs must reach the file system unchanged.
        let other = folder.url.appendingPathComponent("so?urce #1 %20.sqlite").path
        do {
            let writer = try SQLiteConnection(path: other, mode: .create)
            try writer.execute("CREATE TABLE t (k INTEGER, v TEXT); INSERT INTO t VALUES (1, 'one'), (2, 'two')")
        }
        let main = try SQLiteConnection(path: folder.url.appendingPathComponent("main.sqlite").path, mode: .create)
        try main.execute("CREATE TABLE u (k INTEGER); INSERT INTO u VALUES (2)")
        try main.attachReadOnly(other, as: "src db")
        #expect(try main.scalar("SELECT s.v FROM u JOIN \"src db\".t s ON s.k = u.k") == .text("two"))
        let error = #expect(throws: SQLiteError.self) {
            try main.execute("INSERT INTO \"src db\".t VALUES (3, 'three')")
        }
        #expect(error?.code.primary == .readOnly)
        try main.detach("src db")
        #expect(throws: SQLiteError.self) { try main.scalar("SELECT count(*) FROM \"src db\".t") }
        #expect(try SQLiteConnection(path: other, mode: .readOnly).scalar("SELECT count(*) FROM t") == .integer(2))
    }
}
