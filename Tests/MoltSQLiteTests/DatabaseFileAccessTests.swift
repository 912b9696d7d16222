import Foundation
import MoltSQLite
import MoltTestSupport
import Testing

/// POSIX advisory locks belong to the process: closing any descriptor of a database file drops
/// every lock the process holds on it. Another process (Python's sqlite3 here) shows whether
/// this process's shared lock is still there.
@Suite(
    "Reading a database file without dropping SQLite's locks",
    .enabled(if: OtherProcess.python != nil, "python3 is not installed: no other process to check with"))
struct DatabaseFileAccessTests {
    let folder = TemporaryDirectory()

    /// Whether another process can take the exclusive lock at once (it cannot while this
    /// process holds a shared one).
    func otherProcessCanWrite(_ path: String) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: OtherProcess.python!)
        process.arguments = [
            "-c",
            """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1], timeout=0, isolation_level=None)
            try:
                c.execute("BEGIN EXCLUSIVE"); c.execute("ROLLBACK"); print("yes")
            except sqlite3.OperationalError:
                print("no")
            """,
            path,
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return output.trimmingCharacters(in: .whitespacesAndNewlines) == "yes"
    }

    @Test("a reader's shared lock survives reading the header and copying the file through DatabaseFileAccess")
    func locksSurvive() throws {
        let path = folder.path("db.sqlite").path
        let setUp = try SQLiteConnection(path: path, mode: .create)
        try setUp.execute("PRAGMA journal_mode = DELETE; CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        setUp.close()

        let reader = try SQLiteConnection(path: path, mode: .readOnly)
        try reader.execute("BEGIN")
        _ = try reader.scalar("SELECT count(*) FROM t")
        #expect(try !otherProcessCanWrite(path), "the reader's shared lock keeps writers out")
        #expect(try DatabaseFileAccess.read(path, count: 16) == Array("SQLite format 3\0".utf8))
        try DatabaseFileAccess.copy(path, to: folder.path("copy.sqlite").path)
        #expect(try !otherProcessCanWrite(path), "still held after reading and copying the file")

        // What closing any other descriptor of the file does: the lock is gone.
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        try handle.close()
        #expect(try otherProcessCanWrite(path), "POSIX dropped the process's locks")
        try reader.execute("COMMIT")
        reader.close()
        #expect(try Data(contentsOf: folder.path("copy.sqlite")) == Data(contentsOf: URL(fileURLWithPath: path)))
    }
}

/// The other process the lock tests ask.
enum OtherProcess {
    static let python: String? = ["/usr/bin/python3", "/usr/local/bin/python3"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
}
