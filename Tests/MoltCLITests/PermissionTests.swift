import Foundation
import Molt
import MoltSQLite
import MoltTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A store this user cannot write is refused before any pass, naming the file and the fix, and
/// nothing is left beside it. Permissions bind a normal user only: as root (CI containers), the
/// tool is run as `nobody` through `setpriv`.
@Suite(
    "Stores the user cannot write are refused before any work",
    .enabled(if: Tool.available, "the molt executable was not built"),
    .enabled(if: UnprivilegedRun.possible, "neither a normal user nor setpriv: permissions cannot be tested"))
struct PermissionTests {
    let folder = TemporaryDirectory()

    /// A Notes store of 200 notes and its bundle, in a folder the unprivileged user owns.
    func setUp() throws -> (store: URL, bundle: URL) {
        let bundle = try ModelXML.writeBundle("Notes", versions: SignalTests.versions, current: "Notes 2", in: folder)
        let model = try ModelLoader().loadVersion(at: bundle.appendingPathComponent("Notes.xcdatamodel"), name: "Notes")
        let url = folder.path("Notes.sqlite")
        _ = try ObjectStore.create(at: url, model: model) { writer in
            for index in 0..<200 { try writer.insert("Note", attributes: ["text": .string("note \(index)")]) }
        }
        try UnprivilegedRun.handOver(folder.url)
        return (url, bundle)
    }

    @Test("a read-only store file: refused at once with 513 (exit 77), naming the file and its mode")
    func readOnlyStoreFile() throws {
        let (store, bundle) = try setUp()
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: store.path)
        let before = try Data(contentsOf: store)
        let files = try FailedRun.fileNames(folder)
        for command in [
            ["migrate", store.path, "--from", bundle.path, "--to", bundle.path],
            ["upgrade", store.path, "--models", bundle.path, "--mappings", folder.url.path],
        ] {
            let run = try UnprivilegedRun.tool(command)
            #expect(run.status == 77, "\(command[0]): \(run.stderr)")
            #expect(run.stderr.contains("\(store.path): the file is not writable (mode 0444)"), "\(run.stderr)")
            #expect(try Data(contentsOf: store) == before)
            #expect(try FailedRun.fileNames(folder) == files, "nothing is left beside the store")
        }
    }

    /// What SQLite leaves after a reader of a WAL store this user cannot write: an empty log
    /// and an index, both with the store's mode, 0444.
    func leaveReadersFiles(beside store: URL) throws {
        for (suffix, size) in [("-wal", 0), ("-shm", 32768)] {
            let path = store.path + suffix
            try Data(count: size).write(to: URL(fileURLWithPath: path))
            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
        }
        try UnprivilegedRun.handOver(folder.url)
    }

    @Test(
        "a reader's empty 0444 -wal and -shm beside a read-only store: recover removes them, unless the store is open")
    func readersLeftovers() throws {
        let (store, bundle) = try setUp()
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: store.path)
        try leaveReadersFiles(beside: store)

        // Another process has the store open: its log and index are its own.
        let holder = try SQLiteConnection(path: store.path, mode: .readOnly)
        _ = try holder.scalar("SELECT count(*) FROM ZNOTE")
        let held = try UnprivilegedRun.tool(["recover", store.path])
        #expect(held.status == 0, "\(held.stderr)")
        #expect(FileManager.default.fileExists(atPath: store.path + "-wal"), "a store in use keeps its log")
        holder.close()
        try leaveReadersFiles(beside: store)

        let run = try UnprivilegedRun.tool(["recover", store.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Nothing to recover"), "\(run.stdout)")
        #expect(try FailedRun.fileNames(folder).filter { $0.hasPrefix("Notes.sqlite") } == ["Notes.sqlite"])

        // Made writable again, the store migrates (a 0444 index would have failed it).
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: store.path)
        try leaveReadersFiles(beside: store)
        let migrate = try UnprivilegedRun.tool(["migrate", store.path, "--from", bundle.path, "--to", bundle.path])
        #expect(migrate.status == 0, "\(migrate.stderr)")
    }

    @Test("a -wal with transactions beside a read-only store stays, and recover names it (text and JSON)")
    func pendingLogKept() throws {
        let (store, _) = try setUp()
        let writer = try SQLiteConnection(path: store.path, mode: .readWrite)
        try writer.execute("PRAGMA wal_autocheckpoint = 0")
        try writer.execute("UPDATE ZNOTE SET ZTEXT = 'changed' WHERE Z_PK = 1")
        // Copies the files as a crash would leave them, over the closed originals.
        let copies = try [store.path, store.path + "-wal"].map { ($0, try Data(contentsOf: URL(fileURLWithPath: $0))) }
        writer.close()
        for (path, data) in copies { try data.write(to: URL(fileURLWithPath: path)) }
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: store.path)
        try UnprivilegedRun.handOver(folder.url)
        let walSize = try #require(FileManager.default.attributesOfItem(atPath: store.path + "-wal")[.size] as? Int)
        #expect(walSize > 0)

        let run = try UnprivilegedRun.tool(["recover", store.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stdout.contains("-wal holds \(walSize) bytes of transactions not yet in the store file"),
            "\(run.stdout)")
        #expect(
            FileManager.default.fileExists(atPath: store.path + "-wal"), "the only copy of those transactions stays")
        let json = try UnprivilegedRun.tool(["recover", store.path, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["pendingLogBytes"] as? Int == walSize, "\(json.stdout)")
    }

    @Test("a read-only folder: refused before any work, naming the folder")
    func readOnlyFolder() throws {
        let (store, bundle) = try setUp()
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.url.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.url.path) }
        let before = try Data(contentsOf: store)
        let run = try UnprivilegedRun.tool(["migrate", store.path, "--from", bundle.path, "--to", bundle.path])
        #expect(run.status != 0)
        #expect(run.stderr.contains(folder.url.path), "\(run.stderr)")
        #expect(run.stderr.lowercased().contains("not writable") || run.stderr.contains("ermission"), "\(run.stderr)")
        #expect(try Data(contentsOf: store) == before)
    }
}

/// Runs `molt` as a user file permissions apply to.
enum UnprivilegedRun {
    static let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].first { FileManager.default.isExecutableFile(atPath: $0) }
    /// `nobody` on Linux.
    static let user: uid_t = 65534

    static var possible: Bool { getuid() != 0 || setpriv != nil }

    /// Gives `url` (and, for a folder, what it holds) to the user the tool runs as.
    static func handOver(_ url: URL) throws {
        guard getuid() == 0 else { return }
        var paths = [url.path]
        if let inside = FileManager.default.enumerator(atPath: url.path) {
            paths += inside.compactMap { $0 as? String }.map { url.appendingPathComponent($0).path }
        }
        for path in paths where chown(path, user, gid_t(user)) != 0 {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
    }

    static func tool(_ arguments: [String]) throws -> ToolRun {
        guard getuid() == 0, let setpriv else { return try Tool.run(arguments) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: setpriv)
        process.arguments =
            ["--reuid=\(user)", "--regid=\(user)", "--clear-groups", Tool.executable.path] + arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ToolRun(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }
}
