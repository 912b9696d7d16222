import Foundation
import MoltMigration
import MoltSQLite
import MoltTestSupport
import Testing

/// New columns for many tables in one schema change give the schema, rows and behaviour that
/// one `ALTER TABLE … ADD COLUMN` per column gives.
@Suite("Columns added to many tables at once")
struct ColumnAdditionsTests {
    let folder = TemporaryDirectory()

    /// A database of entity-like tables, a join table with a table constraint, and awkward
    /// names, with rows in each.
    func database(_ name: String) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: folder.path(name).path, mode: .create)
        for index in 0..<40 {
            try connection.execute(
                """
                CREATE TABLE "ZT\(index)" ( "Z_PK" INTEGER PRIMARY KEY, "Z_ENT" INTEGER, "ZNAME" VARCHAR );
                CREATE INDEX "ZT\(index)_ZNAME_INDEX" ON "ZT\(index)" ("ZNAME");
                INSERT INTO "ZT\(index)" VALUES (1, \(index), 'one'), (2, \(index), 'two');
                """)
        }
        try connection.execute(
            """
            CREATE TABLE "Z_1TAGS" ( "Z_1POSTS" INTEGER, "Z_3TAGS" INTEGER, PRIMARY KEY ("Z_1POSTS", "Z_3TAGS") );
            INSERT INTO "Z_1TAGS" VALUES (1, 2), (2, 3);
            CREATE TABLE "a ""quoted"" table" ( "Z_PK" INTEGER PRIMARY KEY, "x]y" VARCHAR );
            INSERT INTO "a ""quoted"" table" VALUES (1, 'v');
            """)
        return connection
    }

    static let additions: [(table: String, columns: [ColumnAdditions.Column])] =
        (0..<40).map { ("ZT\($0)", [.init(name: "ZNOTE", type: "VARCHAR"), .init(name: "ZCOUNT", type: "INTEGER")]) }
        + [
            ("Z_1TAGS", [.init(name: "Z_FOK_TAGS", type: "INTEGER")]),
            ("a \"quoted\" table", [.init(name: "n\"ew", type: "FLOAT")]),
        ]

    @Test("the schema text, the rows and new writes are those of one ALTER TABLE per column")
    func sameAsOneByOne() throws {
        let batched = try database("batched.sqlite")
        let single = try database("single.sqlite")
        try batched.transaction { try ColumnAdditions.apply(Self.additions, on: batched) }
        try single.transaction {
            for (table, columns) in Self.additions {
                for column in columns { try single.execute(ColumnAdditions.statement(table, column)) }
            }
        }
        let schema = "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"
        #expect(try batched.rows(schema) == single.rows(schema))
        // The connection that made the change sees the new columns, and so does a new one.
        try batched.execute("UPDATE \"ZT7\" SET \"ZNOTE\" = 'note', \"ZCOUNT\" = 3 WHERE \"Z_PK\" = 2")
        #expect(
            try batched.scalar("SELECT \"ZNOTE\" || \"ZCOUNT\" FROM \"ZT7\" WHERE \"Z_PK\" = 2")?.textValue == "note3")
        batched.close()
        single.close()
        let reopened = try SQLiteConnection(path: folder.path("batched.sqlite").path, mode: .readOnly)
        defer { reopened.close() }
        #expect(try reopened.scalar("PRAGMA integrity_check")?.textValue == "ok")
        #expect(try reopened.scalar("SELECT count(*) FROM \"ZT39\" WHERE \"ZNOTE\" IS NULL")?.integerValue == 2)
        #expect(try reopened.scalar("SELECT \"Z_FOK_TAGS\" FROM \"Z_1TAGS\" LIMIT 1")?.isNull == true)
    }

    @Test("a table that does not exist fails the change before it writes anything; the connection stays usable")
    func rollsBack() throws {
        let connection = try database("failing.sqlite")
        defer { connection.close() }
        let before = try connection.rows("SELECT sql FROM sqlite_master ORDER BY name")
        #expect(throws: SQLiteError.self) {
            try connection.transaction {
                try ColumnAdditions.apply(
                    Self.additions + [("no such table", [.init(name: "x", type: "INTEGER")])], on: connection)
            }
        }
        #expect(try connection.rows("SELECT sql FROM sqlite_master ORDER BY name") == before)
        try connection.execute("INSERT INTO \"ZT1\" VALUES (3, 1, 'three')")
    }
}
