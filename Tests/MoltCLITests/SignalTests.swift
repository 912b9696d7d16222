import Foundation
import Molt
import MoltTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The signals that stop a program — Ctrl-C, `kill` and `timeout` (SIGTERM), a closed terminal
/// (SIGHUP) — stop a migration cleanly: the store as it was, nothing left beside it, a
/// message, and the shell's exit code for the signal. A file-size limit (SIGXFSZ) is met as a
/// full disk is: a clean error.
@Suite("Signals stop a run cleanly", .enabled(if: Tool.available, "the molt executable was not built"))
struct SignalTests {
    let folder = TemporaryDirectory()

    static let versions: [(String, String)] = [
        (
            "Notes",
            #"<entity name="Note" representedClassName="Note"><attribute name="text" attributeType="String"/></entity>"#
        ),
        (
            "Notes 2",
            #"<entity name="Note" representedClassName="Note"><attribute name="text" attributeType="String"/><attribute name="length" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/></entity>"#
        ),
    ]

    /// A store of 20,000 notes, the bundle of its two versions, and a mapping with a filter (so
    /// the run goes object by object and the copy pass is still running when the signal comes).
    func setUp() throws -> (store: URL, bundle: URL, mapping: URL) {
        let bundle = try ModelXML.writeBundle("Notes", versions: Self.versions, current: "Notes 2", in: folder)
        let model = try ModelLoader().loadVersion(at: bundle.appendingPathComponent("Notes.xcdatamodel"), name: "Notes")
        let url = folder.path("Notes.sqlite")
        _ = try ObjectStore.create(at: url, model: model) { writer in
            for index in 0..<20_000 { try writer.insert("Note", attributes: ["text": .string("note \(index)")]) }
        }
        let mapping = try folder.write(
            """
            <mapping-model format="1" source-model="Notes" destination-model="Notes 2">
                <entity-mapping name="NoteToNote" type="transform" source="Note" destination="Note">
                    <filter>text != ""</filter>
                    <attribute name="length" value="length($source.text)"/>
                </entity-mapping>
            </mapping-model>
            """, to: "notes.xml")
        return (url, bundle, mapping)
    }

    @Test(
        "SIGINT, SIGTERM and SIGHUP mid-copy: exit 128 + the signal, a message, the store as it was",
        arguments: [SIGINT, SIGTERM, SIGHUP])
    func stopsCleanly(signalNumber: Int32) throws {
        let (store, bundle, mapping) = try setUp()
        let before = try Data(contentsOf: store)
        let running = try Tool.start(
            ["migrate", store.path, "--from", bundle.path, "--to", bundle.path, "--mapping", mapping.path],
            environment: ["MOLT_FAULT_TRACE": "1"])
        #expect(running.waitForStderr(containing: "molt-fault-point: pass.copy"), "the copy pass started")
        kill(running.process.processIdentifier, signalNumber)
        let run = running.wait()
        #expect(run.status == 128 + signalNumber, "\(run.stderr.suffix(400))")
        #expect(run.stderr.contains("the migration was cancelled"), "\(run.stderr.suffix(400))")
        #expect(run.stderr.contains("received)"), "\(run.stderr.suffix(400))")
        #expect(StoreBytes.same(try Data(contentsOf: store), before), "the store is as it was")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
        #expect(
            left == ["Notes.sqlite", "Notes.xcdatamodeld", "notes.xml"], "nothing is left beside the store: \(left)")
    }

    @Test("a file-size limit (ulimit -f, SIGXFSZ) mid-run: a clean error (74), the store as it was, nothing left")
    func fileSizeLimit() throws {
        let (store, bundle, mapping) = try setUp()
        let before = try Data(contentsOf: store)
        // Half the store's size, in the 1,024-byte blocks of `ulimit -f`: the new store cannot fit.
        let blocks = before.count / 2048
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [
            "-c", "ulimit -f \(blocks); exec \"$0\" \"$@\"", Tool.executable.path, "migrate", store.path, "--from",
            bundle.path, "--to", bundle.path, "--mapping", mapping.path,
        ]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit, "not killed by the signal: \(stderr)")
        #expect(process.terminationStatus == 74, "\(stderr)")
        #expect(stderr.hasPrefix("molt: error: "), "\(stderr)")
        #expect(StoreBytes.same(try Data(contentsOf: store), before), "the store is as it was")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
        #expect(
            left == ["Notes.sqlite", "Notes.xcdatamodeld", "notes.xml"], "nothing is left beside the store: \(left)")
    }
}
