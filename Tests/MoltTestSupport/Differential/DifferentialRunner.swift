public import Foundation
public import Molt
@_spi(RouteSwitches) import MoltMigration

/// Runs a ``DifferentialCase`` by every route on its own copy of one seeded store and compares
/// each with the reference route (object by object): the same `molt dump` of the result, or
/// both failing with the same ``MoltError`` code and the failed copy unchanged; the same
/// report counts (``ReportCounts``); the same files left beside the store.
public struct DifferentialRunner: Sendable {
    /// The ways the engine can migrate.
    public enum Route: String, CaseIterable, Sendable, Hashable {
        /// Object by object: no SQL on a copy, no relationships in SQL, none in batches; the
        /// reference every other route is compared with.
        case objectByObject = "object by object"
        /// Relationships written a batch of objects at a time.
        case inBatches = "+relate in batches"
        /// Relationships set in SQL, and in batches where not.
        case inSQL = "+relate in SQL"
        /// Relationships in batches, on three threads (``/MoltMigration/MigrationOptions/jobs``):
        /// the copy pass's workers, and the relate pass computing a batch ahead of its writes;
        /// every other route runs on one thread.
        case threads = "+on threads"
        /// Every switch on: the engine's own choice, the whole step as SQL on a copy when it can.
        case sqlOnCopy = "+SQL on a copy"
        /// ``LightweightMigration`` in place, for an inferred step.
        case inPlace = "in place"

        /// The route's name in file names (`relate-in-SQL`).
        public var slug: String {
            rawValue.replacingOccurrences(of: "+", with: "").replacingOccurrences(of: " ", with: "-")
        }

        /// The options of the route, with `batchSize`.
        public func options(batchSize: Int) -> MigrationOptions {
            var options = MigrationOptions()
            options.batchSize = batchSize
            options.allowsSQLOnCopy = [.sqlOnCopy, .inPlace].contains(self)
            options.allowsRelateInSQL = [.inSQL, .sqlOnCopy, .inPlace].contains(self)
            options.jobs = self == .threads ? 3 : 1
            options.allowsRelateInBatches = self != .objectByObject
            // The reference evaluates every value: the other routes' shortcuts are compared
            // with evaluation, not with themselves.
            options.evaluatesEveryValue = self == .objectByObject
            return options
        }
    }

    /// What one route did.
    public struct Outcome: Sendable {
        public var route: Route
        /// The report, when the run succeeded.
        public var report: MigrationReport?
        /// The error, when it failed.
        public var error: String?
        /// The error's code (its type's name for an error that is not a ``MoltError``).
        public var errorCode: String?
        /// The dump of the result (destination model), or of the failed copy (source model).
        public var dump: String
        /// Files beside the store after the run (SQLite's own companions left out).
        public var leftovers: [String]
        /// The persistent history after a successful run: each change and the object it names
        /// (``HistoryFixture/identities(in:layout:)``).
        public var history: [String] = []
        /// The migrated store's file, after a successful run.
        public var bytes: Data?

        /// Whether the run succeeded.
        public var succeeded: Bool { report != nil }
    }

    /// One route compared with the reference.
    public struct RouteResult: Sendable {
        public var outcome: Outcome
        /// The first difference from the reference, in words; nil when there is none.
        public var difference: String?
        /// What kind of difference (`dump`, `report`, `failure`, `only`, `files`, `bytes`, `crash`), for
        /// the shrinker.
        public var kind: String?
    }

    /// Every route's result for a case.
    public struct CaseResult: Sendable {
        public var differentialCase: DifferentialCase
        public var routes: [RouteResult]

        /// The routes that differ from the reference.
        public var diverging: [RouteResult] { routes.filter { $0.difference != nil } }
        /// Whether some route differs.
        public var failed: Bool { !diverging.isEmpty }
        /// The reference's outcome.
        public var reference: Outcome? { routes.first { $0.outcome.route == .objectByObject }?.outcome }
    }

    /// A case that cannot be run, and why.
    public struct InvalidCase: Error, CustomStringConvertible {
        public var description: String
    }

    /// A runner; registers the test policies (``DifferentialPolicies``).
    public init() {
        DifferentialPolicies.register()
    }

    /// The routes a case runs.
    public func routes(for differentialCase: DifferentialCase) -> [Route] {
        Route.allCases.filter { $0 != .inPlace || differentialCase.isInferred }
    }

    /// Creates the case's store at `url`; throws ``InvalidCase`` when the case cannot be run.
    public func createStore(_ differentialCase: DifferentialCase, at url: URL) throws {
        if let problem = differentialCase.problems() { throw InvalidCase(description: problem) }
        do {
            let model = try differentialCase.source.model()
            _ = try ObjectStore.create(at: url, model: model) { try differentialCase.seeder.fill($0) }
        } catch {
            throw InvalidCase(description: "the store cannot be made: \(error)")
        }
    }

    /// Runs `differentialCase` by every route in `folder` (which it fills); throws
    /// ``InvalidCase`` when the case cannot be run.
    public func run(_ differentialCase: DifferentialCase, in folder: URL) throws -> CaseResult {
        let original = folder.appendingPathComponent("original/Store.sqlite")
        try FileManager.default.createDirectory(
            at: original.deletingLastPathComponent(), withIntermediateDirectories: true)
        try createStore(differentialCase, at: original)
        let (source, destination) = try differentialCase.models()
        try Self.addHistory(to: original, source: source)
        let mappings = try differentialCase.mappingModels(source: source, destination: destination)
        let before = try EquivalentRuns.dump(original, source)
        var outcomes: [Outcome] = []
        for route in routes(for: differentialCase) {
            let routeFolder = folder.appendingPathComponent(route.slug)
            try FileManager.default.createDirectory(at: routeFolder, withIntermediateDirectories: true)
            let store = routeFolder.appendingPathComponent("Store.sqlite")
            try FileManager.default.copyItem(at: original, to: store)
            outcomes.append(
                run(
                    route, store: store, source: source, destination: destination, mappings: mappings,
                    batchSize: differentialCase.batchSize))
        }
        let reference = outcomes[0]
        let oneThread = outcomes.first { $0.route == .inBatches }
        let results = outcomes.map { outcome in
            var (difference, kind) =
                outcome.route == .objectByObject
                ? Self.problemsOfReference(outcome, before: before)
                : Self.compare(outcome, with: reference, before: before)
            if difference == nil, outcome.route == .threads, let oneThread {
                (difference, kind) = Self.compareBytes(outcome, with: oneThread)
            }
            var kept = outcome
            kept.bytes = nil  // compared; a session keeps its results
            return RouteResult(outcome: kept, difference: difference, kind: kind)
        }
        return CaseResult(differentialCase: differentialCase, routes: results)
    }

    /// Migrates `store` by `route` and reads what it left.
    func run(
        _ route: Route, store: URL, source: ObjectModel, destination: ObjectModel, mappings: [MappingModel],
        batchSize: Int
    ) -> Outcome {
        let options = route.options(batchSize: batchSize)
        let result = Result {
            if route == .inPlace {
                return try LightweightMigration(
                    store: store, source: source, destination: destination, mapping: mappings[0], options: options
                ).run()
            }
            return try HeavyweightMigration(
                store: store, source: source, destination: destination, mappings: mappings, options: options
            ).run()
        }
        var outcome = Outcome(route: route, dump: "", leftovers: Self.leftovers(beside: store))
        switch result {
        case .success(let report):
            outcome.report = report
            outcome.dump = (try? EquivalentRuns.dump(store, destination)) ?? "(the migrated store cannot be read)"
            outcome.history =
                (try? HistoryFixture.identities(in: store, layout: StoreLayout(model: destination)))
                ?? ["(the history cannot be read)"]
            if [.inBatches, .threads].contains(route) { outcome.bytes = try? Data(contentsOf: store) }
        case .failure(let error):
            outcome.error = "\(error)"
            outcome.errorCode = (error as? MoltError).map { "\($0.code)" } ?? "\(type(of: error))"
            outcome.dump = (try? EquivalentRuns.dump(store, source)) ?? "(the failed store cannot be read)"
        }
        return outcome
    }

    /// Persistent history as today's Core Data keeps it, on every concrete entity: a change for
    /// each object (and an update for every second one), and an insert and a delete of one
    /// object no longer in the store per entity, so that every route must carry it alike.
    static func addHistory(to store: URL, source: ObjectModel) throws {
        let layout = try StoreLayout(model: source)
        let concrete = layout.entities.filter { !$0.isAbstract }
        try HistoryFixture.add(
            to: store, layout: layout, entities: concrete.map(\.name),
            deleted: concrete.enumerated().map { ($0.element.name, Int64(900_000 + $0.offset)) })
    }

    /// The files in `store`'s folder other than the store and SQLite's companions.
    static func leftovers(beside store: URL) -> [String] {
        let name = store.lastPathComponent
        let companions: Set<String> = [name, name + "-wal", name + "-shm", name + "-journal"]
        let files = (try? FileManager.default.contentsOfDirectory(atPath: store.deletingLastPathComponent().path)) ?? []
        return files.filter { !companions.contains($0) }.sorted()
    }

    /// What is wrong with the reference run by itself: a failed run must leave its copy as it was.
    static func problemsOfReference(_ outcome: Outcome, before: String) -> (String?, String?) {
        if !outcome.succeeded, outcome.dump != before {
            return ("the failed reference run changed the store: " + firstDifference(before, outcome.dump), "changed")
        }
        return (nil, nil)
    }

    /// The first difference of `outcome` from the reference's, and its kind.
    static func compare(_ outcome: Outcome, with reference: Outcome, before: String) -> (String?, String?) {
        switch (reference.report, outcome.report) {
        case (let wanted?, let got?):
            if outcome.dump != reference.dump {
                return ("dump differs: " + firstDifference(reference.dump, outcome.dump), "dump")
            }
            if let difference = ReportCounts(got).difference(from: ReportCounts(wanted)) {
                return (difference, "report")
            }
            if outcome.history != reference.history {
                return (
                    "history differs: "
                        + firstDifference(
                            reference.history.joined(separator: "\n"), outcome.history.joined(separator: "\n")),
                    "history"
                )
            }
            if got.contents.discarded != wanted.contents.discarded {
                return (
                    "discarded \(got.contents.discarded) of the store's contents, the reference \(wanted.contents.discarded)",
                    "report"
                )
            }
        case (nil, nil):
            if outcome.errorCode != reference.errorCode {
                return (
                    "failed with \(outcome.errorCode ?? "?") (\(outcome.error ?? "")), the reference with "
                        + "\(reference.errorCode ?? "?") (\(reference.error ?? ""))", "failure"
                )
            }
            if outcome.dump != before {
                return ("the failed run changed the store: " + firstDifference(before, outcome.dump), "changed")
            }
        case (nil, _?):
            return ("succeeded, the reference failed: \(reference.error ?? "")", "only")
        case (_?, nil):
            return ("failed, the reference succeeded: \(outcome.error ?? "")", "only")
        }
        if outcome.leftovers != reference.leftovers {
            return ("left \(outcome.leftovers) beside the store, the reference \(reference.leftovers)", "files")
        }
        return (nil, nil)
    }

    /// The threads route against the same options on one thread (``Route/inBatches``): the
    /// workers' objects are written in the source's order, so the store must be the same file,
    /// byte for byte, not only the same objects.
    static func compareBytes(_ outcome: Outcome, with oneThread: Outcome) -> (String?, String?) {
        guard let bytes = outcome.bytes, let wanted = oneThread.bytes else {
            return oneThread.succeeded == outcome.succeeded
                ? (nil, nil) : ("succeeded or failed unlike the same run on one thread", "only")
        }
        guard bytes != wanted else { return (nil, nil) }
        let first =
            zip(bytes, wanted).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(bytes.count, wanted.count)
        return (
            "the store differs in its bytes from the same run on one thread (\(Route.inBatches.rawValue)): "
                + "\(bytes.count) bytes, that run \(wanted.count); first difference at byte \(first) (page \(first / 4096 + 1))",
            "bytes"
        )
    }

    /// The first differing lines of two dumps, with a little context.
    static func firstDifference(_ expected: String, _ actual: String) -> String {
        EquivalentRuns.firstDifference(expected, actual, names: ("reference", "this route"))
    }
}
