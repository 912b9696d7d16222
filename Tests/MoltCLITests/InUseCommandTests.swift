import Foundation
import MoltTestSupport
import Testing

/// An app that keeps its store open in WAL mode for the whole run: a migration into a new file
/// waits `--in-use-wait` seconds for it to close, then refuses with "in use" (exit 74), naming
/// the process, and leaves every row where it was.
@Suite(
    "A store another process keeps open",
    .enabled(if: Tool.available, "the molt executable was not built"),
    .enabled(if: ConcurrencyTest.python != nil, "python3 is not installed: no other process to keep the store open"))
struct InUseCommandTests {
    let folder = TemporaryDirectory()
    let bundle = Fixtures.package("MappingModels/Examples/Blog.xcdatamodeld").path
    let mapping = Fixtures.package("MappingModels/Blog/Blog-to-Blog2.xml").path

    @Test("migrate waits, then refuses with 74 naming the process; the store keeps every row")
    func namesTheProcess() throws {
        let store = try folder.copy(Fixtures.package("MappingModels/Examples/Blog.sqlite"))
        let app = Process()
        app.executableURL = URL(fileURLWithPath: ConcurrencyTest.python!)
        app.arguments = [
            "-c",
            """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1], isolation_level=None)
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("UPDATE ZCOMMENT SET ZTEXT = 'written by the app'")
            print("ready", flush=True)
            sys.stdin.read()
            db.close()
            """,
            store.path,
        ]
        let input = Pipe()
        let output = Pipe()
        app.standardInput = input
        app.standardOutput = output
        try app.run()
        defer {
            try? input.fileHandleForWriting.close()
            app.waitUntilExit()
        }
        let ready = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        #expect(ready.hasPrefix("ready"), "\(ready)")
        let started = Date()
        let run = try Tool.run([
            "migrate", store.path, "--from", bundle, "--to", bundle, "--mapping", mapping, "--in-use-wait", "1",
        ])
        #expect(run.status == 74, "\(run.stderr)")
        #expect(run.stderr.contains("another process has the store open"), "\(run.stderr)")
        #expect(run.stderr.contains("process \(app.processIdentifier)"), "\(run.stderr)")
        #expect(Date().timeIntervalSince(started) >= 1, "it waited")
        try input.fileHandleForWriting.close()
        app.waitUntilExit()
        let dump = try Tool.run(["dump", store.path, "--model", bundle, "--json"])
        #expect(dump.status == 0, "\(dump.stderr)")
        #expect(dump.stdout.contains("written by the app"), "the app's commit is in the store")
        #expect(dump.stdout.contains("\"Tag\""), "the store is still the old version")
    }
}
