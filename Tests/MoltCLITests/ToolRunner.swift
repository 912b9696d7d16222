import Foundation
import MoltTestSupport

/// Runs the built `molt` executable and captures what it prints.
struct ToolRun {
    var status: Int32
    var stdout: String
    var stderr: String
}

enum Tool {
    /// The `molt` binary built beside the test bundle.
    static let executable: URL = {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "molt")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        return Fixtures.packageRoot.appendingPathComponent(".build/debug/molt")
    }()

    static var available: Bool { FileManager.default.isExecutableFile(atPath: executable.path) }

    static func run(_ arguments: [String], in folder: URL? = nil, environment: [String: String] = [:]) throws -> ToolRun
    {
        try start(arguments, in: folder, environment: environment).wait()
    }

    /// Starts `molt` and returns at once; ``RunningTool/wait()`` collects what it printed.
    static func start(
        _ arguments: [String], in folder: URL? = nil, environment: [String: String] = [:]
    ) throws
        -> RunningTool
    {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        if let folder { process.currentDirectoryURL = folder }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        return RunningTool(process: process, out: out, err: err)
    }
}

/// A `molt` process started by ``Tool/start(_:in:environment:)``.
final class RunningTool: @unchecked Sendable {
    let process: Process
    private var outData = Data()
    private var errData = Data()
    private let lock = NSLock()
    private let group = DispatchGroup()

    init(process: Process, out: Pipe, err: Pipe) {
        self.process = process
        // Read both pipes as the process writes, so a large output cannot block it (and what
        // it has printed so far can be looked at).
        for (pipe, isOut) in [(out, true), (err, false)] {
            group.enter()
            // A thread of its own: the read blocks for as long as the process runs.
            _ = OwnThread { [self] in
                while true {
                    let chunk = pipe.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    lock.lock()
                    if isOut { outData.append(chunk) } else { errData.append(chunk) }
                    lock.unlock()
                }
                group.leave()
            }
        }
    }

    /// Waits until the process has printed `text` on standard error (true), or `timeout`
    /// seconds have passed or it ended without (false).
    func waitForStderr(containing text: String, timeout: TimeInterval = 30) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            lock.lock()
            let printed = String(decoding: errData, as: UTF8.self)
            lock.unlock()
            if printed.contains(text) { return true }
            if !process.isRunning { return false }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    /// Waits for the process to end and returns what it printed.
    func wait() -> ToolRun {
        group.wait()
        process.waitUntilExit()
        lock.lock()
        defer { lock.unlock() }
        return ToolRun(
            status: process.terminationReason == .uncaughtSignal
                ? 128 + process.terminationStatus : process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }
}
