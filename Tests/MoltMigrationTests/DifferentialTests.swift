import Foundation
import MoltTestSupport
import Testing

/// Seeded differential test: every route the engine can take (relationships in batches, in
/// SQL, the whole step as SQL over a copy, a lightweight migration in place) gives the store,
/// the failure and the report counts of the object-by-object route, on generated model pairs,
/// mapping files and stores (see `Tests/MoltTestSupport/Differential`); the route on worker
/// threads also the very file, byte for byte, of the same run on one thread.
///
/// `MOLT_DIFFERENTIAL_CASES` (default 300) cases from `MOLT_DIFFERENTIAL_SEED` (default 1);
/// diverging cases are shrunk and written to `.build/differential-failures/seed-<S>/` (or
/// `$MOLT_DIFFERENTIAL_OUT`); `MOLT_DIFFERENTIAL_WORKERS` threads run them (default: one per
/// core); `MOLT_DIFFERENTIAL_EXCLUDE` leaves out generator features (see `DifferentialExclusion`).
/// The last line printed is `N passed, M failed` (`, K skipped` when attempts were invalid).
@Suite("Differential: every route gives the object-by-object route's result")
struct DifferentialTests {
    /// The seeds to run, from the environment.
    static var seeds: Range<UInt64> {
        let environment = ProcessInfo.processInfo.environment
        let count = environment["MOLT_DIFFERENTIAL_CASES"].flatMap { UInt64($0) } ?? 300
        let first = environment["MOLT_DIFFERENTIAL_SEED"].flatMap { UInt64($0) } ?? 1
        return first..<(first + count)
    }

    /// Runs the cases on one thread per core, records an issue per diverging case, and prints
    /// the summary.
    @Test("seeded cases: every route agrees with the reference")
    func everyRouteAgrees() {
        let environment = ProcessInfo.processInfo.environment
        let workers =
            environment["MOLT_DIFFERENTIAL_WORKERS"].flatMap { Int($0) } ?? ProcessInfo.processInfo.activeProcessorCount
        let session = DifferentialSession(seeds: Self.seeds, workers: workers)
        let summary = session.run()
        for failure in summary.failures {
            Issue.record(
                Comment(
                    rawValue: "seed \(failure.seed): \(failure.routes.joined(separator: ", ")) differ; "
                        + "\(failure.firstDifference)\nwritten to \(failure.folder?.path ?? "(not written)")"))
        }
        let reasons = summary.skipReasons.sorted { $0.value > $1.value }.prefix(5).map { "\($0.value)× \($0.key)" }
        let seconds = String(format: "%.1f", summary.seconds)
        print("differential: \(Self.seeds.count) seeds in \(seconds) s; \(summary.coverageLine)")
        let excluded = DifferentialExclusion.inForce.map(\.name).sorted()
        if !excluded.isEmpty { print("differential: excluded: \(excluded.joined(separator: ", "))") }
        if !reasons.isEmpty { print("differential: skipped attempts: \(reasons.joined(separator: " | "))") }
        print(summary.line)
    }
}
