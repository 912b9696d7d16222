import Foundation
import MoltSQLite
import MoltTestSupport
import Testing

/// A `-wal` from another database beside a store, through every command that opens a store:
/// exit 65 with the log named, and the store, the log and the folder byte for byte as they
/// were. (Before, `migrate --dry-run`, `--plan`, `migrate` and `recover` each copied the log
/// into the store and deleted it.)
@Suite(
    "Every command beside a log from another store", .enabled(if: Tool.available, "the molt executable was not built"))
struct ForeignLogCommandTests {
    let folder = TemporaryDirectory()
    let bundle = Fixtures.package("MappingModels/Examples/Blog.xcdatamodeld").path
    let mappings = Fixtures.package("MappingModels/Blog").path

    /// The example store in `name/` with a log made by another database (its own schema).
    func store(in name: String) throws -> URL {
        try FileManager.default.createDirectory(at: folder.path(name), withIntermediateDirectories: true)
        let store = try folder.copy(Fixtures.package("MappingModels/Examples/Blog.sqlite"), as: "\(name)/Blog.sqlite")
        let other = folder.path("\(name)-other.sqlite").path
        let connection = try SQLiteConnection(path: other, mode: .create)
        try connection.execute("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE notes (text)")
        for index in 0..<40 { try connection.run("INSERT INTO notes VALUES (?)", [.text("note \(index)")]) }
        try connection.keepLogOnClose()
        connection.close()
        try FileManager.default.moveItem(atPath: other + "-wal", toPath: store.path + "-wal")
        for suffix in ["", "-shm"] { try? FileManager.default.removeItem(atPath: other + suffix) }
        return store
    }

    func snapshot(_ folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            files[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return files
    }

    @Test(
        "each command refuses with 65, naming the log, and leaves every file as it was",
        arguments: [
            "inspect", "dump", "migrate --dry-run", "migrate --plan", "migrate", "upgrade --plan", "upgrade --dry-run",
            "upgrade", "recover", "verify",
        ])
    func command(_ command: String) throws {
        let name = command.replacingOccurrences(of: " ", with: "").replacingOccurrences(of: "-", with: "")
        let store = try store(in: name)
        let storeFolder = store.deletingLastPathComponent()
        let path = store.path
        let words = command.split(separator: " ").map(String.init)
        var arguments: [String]
        switch words[0] {
        case "inspect", "dump": arguments = [words[0], path, "--model", bundle]
        case "migrate":
            arguments = [
                "migrate", path, "--from", bundle, "--to", bundle, "--mapping", mappings + "/Blog-to-Blog2.xml",
            ]
        case "upgrade": arguments = ["upgrade", path, "--models", bundle, "--mappings", mappings]
        case "verify": arguments = ["verify", storeFolder.path, "--models", bundle, "--mappings", mappings]
        default: arguments = [words[0], path]
        }
        arguments += words.dropFirst()
        let before = try snapshot(storeFolder)
        let run = try Tool.run(arguments)
        let expected: Int32 = command == "verify" ? 1 : 65
        #expect(run.status == expected, "\(command): \(run.stderr)\(run.stdout)")
        #expect((run.stderr + run.stdout).contains("Blog.sqlite-wal) is not this store's"), "\(command): \(run.stderr)")
        #expect(try snapshot(storeFolder) == before, "\(command): the files are as they were")
    }
}
