import Foundation

/// Runs a job in a new process (this executable, `job NAME …`) and reads its result line.
enum ChildJob {
    static func run(_ job: String, store: URL, models: URL, sqlLog: URL) throws -> JobResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
        process.arguments = ["job", job, "--store", store.path, "--models", models.path, "--sql", sqlLog.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let line = String(decoding: data, as: UTF8.self).split(separator: "\n").last
        else { throw RawDatabase.Failure(description: "\(job) failed (exit \(process.terminationStatus))") }
        return try JSONDecoder().decode(JobResult.self, from: Data(line.utf8))
    }
}
