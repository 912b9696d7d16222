import ArgumentParser
import Dispatch
import Foundation
import Logging
import Molt

#if canImport(Glibc)
    import Glibc
#endif

struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check that stores of every shipped version upgrade to the current one and hold what they should.",
        discussion: """
            Each store found under the paths given (files ending in .sqlite or .store, in any \
            folder, at any version: the version is found by the store's hashes) and each JSON \
            seed (Molt's object format, as `molt dump --json` writes it) in a folder named after \
            the model version it belongs to is checked: a private copy (or a store made from the \
            seed) is upgraded as `molt upgrade` would, to the models' current version or --to, \
            with the mapping files and versions.txt of --mappings and the policies compiled into \
            this molt; the result is validated against the destination model; and when \
            NAME.expected.json sits beside the store or seed, `molt dump --json` of the result \
            must be the same (a readable difference is printed when it is not). The stores and \
            seeds given are only read.

            Stores are checked in parallel (--jobs, default: the machine's cores); each check \
            streams its store, so memory grows with the jobs, not with the stores. The report is \
            a table (with a progress bar on a terminal), or JSON with --json; --junit FILE also \
            writes JUnit XML, one test case per store, as CI systems read it.

            With --production-version V (the version whose schema is deployed to CloudKit's \
            Production environment), every version after V up to the destination is also \
            checked as `molt check-model --production-version V` checks it: CloudKit's rules, \
            and only additions to V's schema. Each problem is a failing JUnit test case \
            (classname molt.verify.cloudkit).

            Exit codes: 0 every store passed; 1 a store failed (the others are still checked) or \
            a version breaks CloudKit's rules or changes the production schema; 3 a seed in a \
            folder named after no version; 64 bad usage; 65 models or mapping files that cannot \
            be read; 66 a path given does not exist, holds no store or seed, or --to or \
            --production-version names no version.
            """)

    @Argument(help: "Folders (searched recursively) or files of stores and seeds.")
    var paths: [String]

    @OptionGroup var source: UpgradeSourceOptions

    @Option(help: "Stores checked at once (default: the machine's cores).")
    var jobs: Int?

    @Flag(help: "Print the report as JSON on standard output.")
    var json = false

    @Option(help: ArgumentHelp("Also write the report as JUnit XML to FILE.", valueName: "file"))
    var junit: String?

    @Option(
        name: .customLong("production-version"),
        help: ArgumentHelp(
            "The version whose schema is in CloudKit's Production environment: check that later versions only add to it.",
            valueName: "version"))
    var productionVersion: String?

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs takes a number of stores, 1 or more") }
        try source.requireEveryVersion()
    }

    func run() throws {
        let logger = global.bootstrap()
        try global.run(json: json) {
            let inputs = try source.read(logger: logger)
            let to = source.to
            let destination = to ?? inputs.versions.currentVersionName ?? inputs.versions.schemas.last?.name ?? "?"
            if let to, inputs.versions.schema(named: to) == nil {
                // An unknown version is a missing input, as in every other command (66).
                throw MoltError(
                    .fileReadNoSuchFile, "there is no model version \"\(to)\"",
                    location: SourceLocation(file: source.models),
                    recovery: "Versions: \(inputs.versions.allNames.joined(separator: ", ")).")
            }
            let cloudKit = try productionVersion.map {
                try VerifyCloudKit(
                    inputs.versions, productionVersion: $0, destination: destination, models: source.models)
            }
            let fixtures = try VerificationFixture.find(in: paths, versions: inputs.versions)
            guard !fixtures.isEmpty else {
                throw MoltError(
                    .fileReadNoSuchFile,
                    "no store (.sqlite, .store) or seed (VERSION/NAME.json) under \(paths.joined(separator: ", "))")
            }
            let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
                "molt-verify-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: work) }
            let verification = UpgradeVerification(
                inputs: inputs, destination: to, workFolder: work, logger: logger)
            let jobs = min(self.jobs ?? ProcessInfo.processInfo.activeProcessorCount, fixtures.count)
            let started = Date()
            let bar = VerifyProgress(total: fixtures.count)
            let results = verification.check(fixtures, jobs: jobs) { bar.done() }
            bar.finish()
            let report = VerifyReport(
                destination: destination, results: results, seconds: Date().timeIntervalSince(started), jobs: jobs,
                cloudKit: cloudKit)
            if let junit {
                do {
                    try report.junit.write(toFile: junit, atomically: true, encoding: .utf8)
                } catch {
                    throw MoltError(
                        .fileWriteUnknown, "the JUnit report cannot be written: \(error)",
                        location: SourceLocation(file: junit))
                }
            }
            if json {
                try Output.json(report)
            } else {
                report.lines.forEach { Output.line($0) }
            }
            if !report.passed { throw ExitCode(ExitCodes.checkFailed) }
        }
    }
}

/// A bar on standard error, when it is a terminal: stores checked of all.
final class VerifyProgress: @unchecked Sendable {
    private let total: Int
    private var completed = 0
    private let lock = NSLock()
    private let terminal = TerminalLine()

    init(total: Int) {
        self.total = total
    }

    func done() {
        lock.lock()
        defer { lock.unlock() }
        completed += 1
        terminal.draw(
            "\(TerminalLine.bar(Double(completed) / Double(max(1, total)))) \(completed)/\(total) stores checked")
    }

    func finish() {
        terminal.clear()
    }
}
