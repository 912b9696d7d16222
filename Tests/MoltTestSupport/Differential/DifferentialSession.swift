public import Foundation

/// A run of many differential cases on several threads: for each seed, the first valid
/// attempt (``CaseGenerator``) is run by every route (``DifferentialRunner``); a diverging
/// case is shrunk (``CaseShrinker``) and written (``CaseWriter``).
public struct DifferentialSession: Sendable {
    /// The seeds to run.
    public var seeds: Range<UInt64>
    /// Threads running cases at once.
    public var workers: Int
    /// Where diverging cases are written.
    public var writer: CaseWriter
    /// Whether diverging cases are shrunk before they are written.
    public var shrinks = true
    /// The most cases shrunk in one session (the rest are written as generated), so that a
    /// change that makes every case diverge does not take hours.
    public var maximumShrunk = 8
    /// Attempts at a valid case per seed before the seed is given up.
    public var maximumAttempts = 10
    public var generator = CaseGenerator()

    /// A session over `seeds` on `workers` threads.
    public init(seeds: Range<UInt64>, workers: Int, writer: CaseWriter = CaseWriter()) {
        self.seeds = seeds
        self.workers = max(1, workers)
        self.writer = writer
    }

    /// A diverging case.
    public struct Failure: Sendable {
        public var seed: UInt64
        /// The diverging routes with their first difference (of the shrunk case).
        public var routes: [String]
        public var firstDifference: String
        /// Where the shrunk case was written (nil when it could not be).
        public var folder: URL?
        /// Every route's outcome (of the shrunk case).
        public var result: DifferentialRunner.CaseResult
    }

    /// What the session found.
    public struct Summary: Sendable {
        public var passed = 0
        public var failed = 0
        /// Invalid attempts (regenerated from the next sub-seed), and seeds given up.
        public var skipped = 0
        public var failures: [Failure] = []
        /// Counts of what the routes did, to show what the cases exercised.
        public var coverage: [String: Int] = [:]
        /// Why attempts were invalid, by the first words of the reason.
        public var skipReasons: [String: Int] = [:]
        public var seconds: Double = 0

        /// `N passed, M failed` (`, K skipped` when some were).
        public var line: String {
            "\(passed) passed, \(failed) failed" + (skipped > 0 ? ", \(skipped) skipped" : "")
        }

        /// The coverage counts on one line.
        public var coverageLine: String {
            coverage.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }
    }

    /// Runs every seed and gives what was found.
    public func run() -> Summary {
        let runner = DifferentialRunner()
        let started = Date()
        let state = SessionState()
        let seeds = Array(seeds)
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while let index = state.nextIndex(below: seeds.count) {
                let outcome = runSeed(seeds[index], runner: runner, state: state)
                state.record(outcome)
            }
        }
        var summary = state.summary
        summary.failures.sort { $0.seed < $1.seed }
        summary.seconds = Date().timeIntervalSince(started)
        return summary
    }

    /// What one seed gave.
    struct SeedOutcome {
        var skipped = 0
        var skipReasons: [String] = []
        var result: DifferentialRunner.CaseResult?
        var failure: Failure?
    }

    /// Runs the first valid attempt for `seed`, and shrinks and writes it when it diverges.
    func runSeed(_ seed: UInt64, runner: DifferentialRunner, state: SessionState) -> SeedOutcome {
        var outcome = SeedOutcome()
        for attempt in 0..<maximumAttempts {
            let differentialCase = generator.generate(seed: seed, attempt: attempt)
            let folder = TemporaryDirectory("molt-differential")
            let result: DifferentialRunner.CaseResult
            do {
                result = try runner.run(differentialCase, in: folder.url)
            } catch {
                outcome.skipped += 1
                outcome.skipReasons.append("\(error)")
                continue
            }
            outcome.result = result
            guard result.failed else { return outcome }
            let shrink = shrinks && state.takeShrink(below: maximumShrunk)
            let smallest = shrink ? CaseShrinker(runner: runner).shrink(result) : result
            let written = try? writer.write(smallest, runner: runner, shrunk: shrink)
            let first = smallest.diverging.first ?? result.diverging[0]
            outcome.failure = Failure(
                seed: seed, routes: smallest.diverging.map(\.outcome.route.rawValue),
                firstDifference: "\(first.outcome.route.rawValue): \(first.difference ?? "")", folder: written,
                result: smallest)
            return outcome
        }
        return outcome
    }
}

/// The session's shared state: the next seed to run, and what the seeds gave.
final class SessionState: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0
    private var shrunk = 0
    private(set) var summary = DifferentialSession.Summary()

    /// The next index to run, or nil when all are taken.
    func nextIndex(below count: Int) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard next < count else { return nil }
        next += 1
        return next - 1
    }

    /// Whether one more case may be shrunk (fewer than `limit` were).
    func takeShrink(below limit: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard shrunk < limit else { return false }
        shrunk += 1
        return true
    }

    /// Adds what a seed gave.
    func record(_ outcome: DifferentialSession.SeedOutcome) {
        lock.lock()
        defer { lock.unlock() }
        summary.skipped += outcome.skipped
        for reason in outcome.skipReasons {
            summary.skipReasons[String(reason.prefix(90)), default: 0] += 1
        }
        if let failure = outcome.failure {
            summary.failed += 1
            summary.failures.append(failure)
        } else if let result = outcome.result {
            summary.passed += 1
            count(result)
        }
    }

    /// Counts what the routes of a passing case did.
    private func count(_ result: DifferentialRunner.CaseResult) {
        /// Counts `key` when `condition` holds.
        func add(_ key: String, _ condition: Bool) {
            if condition { summary.coverage[key, default: 0] += 1 }
        }
        add("cases", true)
        add("inferred", result.differentialCase.isInferred)
        add("multi-pass", result.differentialCase.files.count > 1)
        add("composites", !result.differentialCase.source.composites.isEmpty)
        add("reference failed", result.reference?.succeeded == false)
        for route in result.routes {
            guard let report = route.outcome.report else { continue }
            add("SQL on a copy used", route.outcome.route == .sqlOnCopy && report.route == .sqlOnCopy)
            add("in place", route.outcome.route == .inPlace && report.inPlace)
            add("related in SQL", route.outcome.route == .inSQL && !report.relatedInSQL.isEmpty)
            add("related in batches", route.outcome.route == .inBatches && !report.relatedInBatches.isEmpty)
            add("source objects deleted", route.outcome.route == .inBatches && report.deletedSourceObjects > 0)
            add("keys written at insert", route.outcome.route == .inBatches && !report.keysWrittenAtInsert.isEmpty)
            add(
                "keys at insert planned, not kept",
                route.outcome.route == .inBatches && report.keysWrittenAtInsert.isEmpty
                    && report.plan?.passes.contains { $0.relate.contains { !$0.keysAtInsert.isEmpty } } == true)
        }
    }
}
