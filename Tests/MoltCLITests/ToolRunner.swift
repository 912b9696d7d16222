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
        // Read both pipes fully before waiting, so a large output cannot block the child.
        let group = DispatchGroup()
        nonisolated(unsafe) var errData = Data()
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return ToolRun(
            status: process.terminationReason == .uncaughtSignal
                ? 128 + process.terminationStatus : process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }
}
