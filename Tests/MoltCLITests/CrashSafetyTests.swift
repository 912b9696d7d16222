import Foundation
import MoltTestSupport
import Testing

/// The crash test's short mode: `Scripts/crash-test.sh` kills `molt` (SIGKILL) during
/// heavyweight, in-place and multi-version migrations, at fault points and at random instants,
/// and checks after every kill that the store opens as the complete old or new version, that
/// recovery and the next run finish the job and leave no temporary file, and that a full disk
/// gives a clean error with the source unchanged, or a run that completed within its limit a
/// whole store at the new version. Seeded: the instants are the same every run.
@Suite(
    "Crash safety (Scripts/crash-test.sh, short mode)",
    .enabled(if: Tool.available, "the molt executable was not built"),
    .enabled(if: CrashTest.bash != nil, "bash is not installed: the crash test cannot run"))
struct CrashSafetyTests {
    @Test("60 runs killed at fault points and random instants leave the old or the new store, never a mixture")
    func kills() throws {
        let run = try CrashTest.run([
            "--kills", "60", "--seed", "20261122", "--objects", "200", "--jobs", "2", "--disk-quick",
        ])
        #expect(run.status == 0, "crash test failed:\n\(run.output)")
        let summary = try #require(
            run.output.split(separator: "\n").last { $0.hasPrefix("crash-test: 60 runs, ") }, "\(run.output)")
        let kills = summary.firstMatch(
            of: /: (\d+) kills, 0 failed; disk cases \d+ \(\d+ completed within their limit\), 0 failed/)
        #expect(Int(kills?.1 ?? "") ?? 0 >= 50, "fewer than 50 kills: \(summary)")
    }
}

enum CrashTest {
    static let bash: String? = ["/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: bash!)
        process.arguments =
            [Fixtures.packageRoot.appendingPathComponent("Scripts/crash-test.sh").path, "--molt", Tool.executable.path]
            + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}
