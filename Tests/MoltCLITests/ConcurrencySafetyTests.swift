import Foundation
import MoltTestSupport
import Testing

/// The concurrency test's short mode: `Scripts/concurrency-test.sh` races 2 to 8 `molt` processes
/// on one store (migrations with and without --wait, dry runs, recovery; in place, copied, with a
/// policy, upgrades; WAL and rollback-journal stores) while `inspect`, `dump` and a plain SQLite
/// reader read it in a loop, and checks after each round that exactly one process migrated, the
/// others had nothing to do or were told another migration runs, every read saw one complete
/// version, and the store is whole and at the new version. Seeded: the same rounds every run.
@Suite(
    "Concurrent runs (Scripts/concurrency-test.sh, short mode)",
    .enabled(if: Tool.available, "the molt executable was not built"),
    .enabled(if: CrashTest.bash != nil, "bash is not installed: the concurrency test cannot run"),
    .enabled(if: ConcurrencyTest.python != nil, "python3 is not installed: the concurrency test cannot run"))
struct ConcurrencySafetyTests {
    @Test("16 rounds of racing writers and readers: one winner each, clear losers, whole stores, complete reads")
    func rounds() throws {
        let run = try ConcurrencyTest.run(["--rounds", "16", "--seed", "20261124", "--objects", "150", "--jobs", "2"])
        #expect(run.status == 0, "concurrency test failed:\n\(run.output)")
        let summary = try #require(
            run.output.split(separator: "\n").last { $0.hasPrefix("concurrency-test: 16 rounds, ") }, "\(run.output)")
        let reads = summary.firstMatch(of: /16 rounds, 0 failed, (\d+) reads/)
        #expect(Int(reads?.1 ?? "") ?? 0 >= 50, "too few reads to say anything: \(summary)")
    }
}

/// The concurrency test's app-writer mode: heavyweight `migrate` (with and without a policy)
/// and `upgrade` beside an app that opens the store, writes and closes every 5 ms without
/// knowing Molt's lock. Every commit the app was told succeeded must be in the store at the
/// path when Molt ends, and the store whole: the new version after exit 0, the old one after
/// "in use". Seeded.
@Suite(
    "Migrations beside an app writing to the store (Scripts/concurrency-test.sh --app-writer, short mode)",
    .enabled(if: Tool.available, "the molt executable was not built"),
    .enabled(if: CrashTest.bash != nil, "bash is not installed: the concurrency test cannot run"),
    .enabled(if: ConcurrencyTest.python != nil, "python3 is not installed: the app writer cannot run"))
struct AppWriterSafetyTests {
    @Test("4 rounds of an app writing beside heavyweight migrate and upgrade: no commit lost, whole stores")
    func rounds() throws {
        let run = try ConcurrencyTest.run([
            "--app-writer", "--rounds", "4", "--seed", "20261128", "--objects", "3000", "--jobs", "1",
        ])
        #expect(run.status == 0, "concurrency test failed:\n\(run.output)")
        let summary = try #require(
            run.output.split(separator: "\n").last { $0.hasPrefix("concurrency-test: 4 rounds beside an app, ") },
            "\(run.output)")
        let commits = summary.firstMatch(of: /4 rounds beside an app, 0 failed, (\d+) commits kept/)
        #expect(Int(commits?.1 ?? "") ?? 0 >= 20, "too few commits to say anything: \(summary)")
    }
}

enum ConcurrencyTest {
    static let python: String? =
        ["/usr/bin/python3", "/usr/local/bin/python3"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        ?? (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map {
            "\($0)/python3"
        }.first { FileManager.default.isExecutableFile(atPath: $0) }

    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CrashTest.bash!)
        process.arguments =
            [
                Fixtures.packageRoot.appendingPathComponent("Scripts/concurrency-test.sh").path, "--molt",
                Tool.executable.path,
            ]
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
