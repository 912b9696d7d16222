import Foundation
import Molt
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
