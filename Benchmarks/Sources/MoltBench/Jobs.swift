import Foundation
import Molt
@_spi(RouteSwitches) import MoltMigration

/// One measured run, done in a child process of its own so its peak memory is its own.
struct JobResult: Codable {
    var seconds: Double
    /// Peak resident memory of the process (VmHWM), in MiB.
    var peakMB: Double
    /// Seconds of the relationship pass and links it made, for the engine's runs.
    var relateSeconds: Double?
    var links: Int?
    /// Whether Molt ran the mapping as SQL (no per-object work).
    var sqlOnCopy: Bool?
    /// Destination objects policies deleted, and source Records read.
    var deleted: Int?
    var records: Int?
    /// Seconds of each stage of the engine's runs: before the copy pass (opening, planning),
    /// copy, relate, and validate with what follows it (the swap).
    var stages: [String: Double]?
    /// CPU seconds of the process, every thread's (user and system): with the wall time, how
    /// many cores the job kept busy.
    var cpuSeconds: Double?
    /// CPU seconds of the thread that ran the job (the engine's writing thread): the part no
    /// other thread can take, and less moved by a busy machine than the wall time.
    var writerCPUSeconds: Double?
}

/// The jobs, by name. Each takes a prepared store (a copy of the generated one) and the model.
enum Jobs {
    static let names = [
        "molt-copy", "molt-copy-objects", "molt-copy-objects-one-thread", "molt-ordered", "raw-copy", "loop-relate",
        "sql-relate", "molt-transform", "molt-transform-one-thread", "loop-transform",
        "molt-fetch", "molt-delete", "molt-walk", "molt-add", "raw-add", "molt-rename", "raw-rename", "molt-rebuild",
        "raw-rebuild",
    ]

    static func run(_ name: String, store: URL, models: URL, sqlLog: URL) throws -> JobResult {
        let v1 = try BenchModels.load("V1", from: models)
        switch name {
        case "molt-copy", "molt-copy-objects", "molt-copy-objects-one-thread":
            let destination = try BenchModels.load("Copy", from: models)
            var options = MigrationOptions()
            options.allowsSQLOnCopy = name == "molt-copy"
            options.allowsRelateInSQL = name == "molt-copy"
            if name.hasSuffix("one-thread") { options.jobs = 1 }
            return try heavyweight(store: store, source: v1, destination: destination, policy: nil, options: options)
        case "molt-ordered":
            let destination = try BenchModels.load("Ordered", from: models)
            var options = MigrationOptions()
            options.allowsSQLOnCopy = false
            options.allowsRelateInSQL = false
            return try heavyweight(store: store, source: v1, destination: destination, policy: nil, options: options)
        case "raw-copy":
            let destination = try BenchModels.load("Copy", from: models)
            return try timed { try RawBaselines.copy(store: store, destination: destination) }
        case "loop-relate":
            return try RelateBaselines.rowByRow(store: store, destination: try BenchModels.load("Copy", from: models))
        case "sql-relate":
            return try RelateBaselines.inSQL(store: store, destination: try BenchModels.load("Copy", from: models))
        case "molt-transform", "molt-transform-one-thread":
            let destination = try BenchModels.load("Transform", from: models)
            CompiledPolicies.register([BenchTransformPolicy.self])
            var options = MigrationOptions()
            if name.hasSuffix("one-thread") { options.jobs = 1 }
            return try heavyweight(
                store: store, source: v1, destination: destination, policy: "BenchTransformPolicy",
                options: options)
        case "molt-fetch", "molt-delete":
            let fetching = name == "molt-fetch"
            let destination = try BenchModels.load(fetching ? "Lookup" : "Transform", from: models)
            CompiledPolicies.register([BenchLookupPolicy.self, BenchDeletePolicy.self])
            return try heavyweight(
                store: store, source: v1, destination: destination,
                policy: fetching ? "BenchLookupPolicy" : "BenchDeletePolicy", options: MigrationOptions(),
                tagsFirst: true)
        case "molt-walk":
            let destination = try BenchModels.load("Keywords", from: models)
            return try heavyweight(
                store: store, source: v1, destination: destination, policy: nil, options: MigrationOptions(),
                values: ["keywords": "join($source.tags.label, ', ')"])
        case "loop-transform":
            let destination = try BenchModels.load("Transform", from: models)
            return try timed { try RawBaselines.transformLoop(store: store, source: v1, destination: destination) }
        case "molt-add", "molt-rename", "molt-rebuild":
            let destination = try BenchModels.load(version(of: name), from: models)
            return try inPlace(store: store, source: v1, destination: destination, log: sqlLog)
        case "raw-add", "raw-rename", "raw-rebuild":
            let statements = try String(contentsOf: sqlLog, encoding: .utf8)
            return try timed { try RawBaselines.replay(statements, on: store) }
        default:
            throw RawDatabase.Failure(description: "unknown job \(name)")
        }
    }

    private static func version(of job: String) -> String {
        switch job.split(separator: "-").last {
        case "add": "AddColumn"
        case "rename": "Rename"
        default: "Rebuild"
        }
    }

    private static func timed(_ body: () throws -> Void) throws -> JobResult {
        let start = DispatchTime.now()
        try body()
        return JobResult(seconds: seconds(since: start), peakMB: peakMemoryMB())
    }

    private static func heavyweight(
        store: URL, source: ObjectModel, destination: ObjectModel, policy: String?, options: MigrationOptions,
        tagsFirst: Bool = false, values: [String: String] = [:]
    ) throws -> JobResult {
        guard var mapping = MappingInference.infer(from: source, to: destination).mapping else {
            throw RawDatabase.Failure(description: "the benchmark's mapping cannot be inferred")
        }
        if tagsFirst {
            // Tags are made first, so a Record's policy can fetch them.
            mapping.entityMappings.sort {
                ($0.sourceEntityName == "Tag" ? 0 : 1) < ($1.sourceEntityName == "Tag" ? 0 : 1)
            }
        }
        if !values.isEmpty, let index = mapping.entityMappings.firstIndex(where: { $0.sourceEntityName == "Record" }) {
            // Record's values given as mapping expressions (the copy then runs object by object).
            for (name, text) in values.sorted(by: { $0.key < $1.key }) {
                mapping.entityMappings[index].attributeMappings.removeAll { $0.name == name }
                mapping.entityMappings[index].attributeMappings.append(
                    PropertyMapping(name: name, value: .expression(try ExpressionParser().parse(text))))
            }
        }
        if let policy, let index = mapping.entityMappings.firstIndex(where: { $0.sourceEntityName == "Record" }) {
            mapping.entityMappings[index].policyName = policy
            mapping.entityMappings[index].kind = .custom
        }
        let passes = PassClock()
        var logger = Logger(label: "molt-bench")
        logger.logLevel = .warning
        let context = RunContext(logger: logger, progress: { passes.note($0.pass) })
        let start = DispatchTime.now()
        let report = try HeavyweightMigration(
            store: store, source: source, destination: destination, mapping: mapping, options: options,
            context: context
        ).run()
        let total = seconds(since: start)
        var stages = passes.stages(from: start, to: DispatchTime.now())
        if report.route == .sqlOnCopy { stages = [:] }
        return JobResult(
            seconds: total, peakMB: peakMemoryMB(), relateSeconds: passes.seconds(of: .relate),
            links: try linkCount(store: store, model: destination), sqlOnCopy: report.route == .sqlOnCopy,
            deleted: report.deletedObjects,
            records: report.mappings.first { $0.mapping.hasPrefix("Record") }?.sourceObjects,
            stages: stages.isEmpty ? nil : stages)
    }

    private static func inPlace(
        store: URL, source: ObjectModel, destination: ObjectModel, log: URL
    ) throws
        -> JobResult
    {
        let recorded = StatementLog()
        var options = MigrationOptions()
        options.sqlTrace = { recorded.append($0) }
        var logger = Logger(label: "molt-bench")
        logger.logLevel = .warning
        let start = DispatchTime.now()
        let report = try LightweightMigration(
            store: store, source: source, destination: destination, options: options,
            context: RunContext(logger: logger)
        ).run()
        let total = seconds(since: start)
        guard report.inPlace else {
            throw RawDatabase.Failure(description: "not run in place: \(report.inPlaceObstacle ?? "?")")
        }
        try recorded.text.write(to: log, atomically: true, encoding: .utf8)
        return JobResult(seconds: total, peakMB: peakMemoryMB())
    }

    /// Links in the migrated store: owners set plus tag pairs.
    private static func linkCount(store: URL, model: ObjectModel) throws -> Int {
        let layout = try StoreLayout(model: model)
        let record = try layout.requireEntity("Record")
        guard case .foreignKey(let owner, _, _)? = record.relationship(named: "owner")?.storage,
            case .joinTable(let table, _, _, _, _, _)? = record.relationship(named: "tags")?.storage
        else { return 0 }
        let db = try RawDatabase(path: store.path)
        return Int(
            try db.scalar(
                "SELECT (SELECT COUNT(\(quoted(owner))) FROM \(quoted(record.table))) + (SELECT COUNT(*) FROM \(quoted(table)))"
            ))
    }
}

/// When each pass of a migration was first reported.
final class PassClock: @unchecked Sendable {
    private let lock = NSLock()
    private var firstSeen: [MigrationProgress.Pass: DispatchTime] = [:]

    func note(_ pass: MigrationProgress.Pass) {
        lock.lock()
        defer { lock.unlock() }
        if firstSeen[pass] == nil { firstSeen[pass] = .now() }
    }

    /// From the pass's first report to the next pass's.
    func seconds(of pass: MigrationProgress.Pass) -> Double? {
        lock.lock()
        defer { lock.unlock() }
        let order = MigrationProgress.heavyweightPasses
        guard let start = firstSeen[pass], let index = order.firstIndex(of: pass), index + 1 < order.count,
            let end = firstSeen[order[index + 1]]
        else { return nil }
        return Double(end.uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }

    /// Seconds of each stage between `start` and `end`: `open` until the copy pass's first
    /// report, each pass until the next one's, and the last until `end`.
    func stages(from start: DispatchTime, to end: DispatchTime) -> [String: Double] {
        lock.lock()
        defer { lock.unlock() }
        let seen = MigrationProgress.heavyweightPasses.compactMap { pass in firstSeen[pass].map { (pass, $0) } }
        guard let first = seen.first else { return [:] }
        func between(_ a: DispatchTime, _ b: DispatchTime) -> Double {
            Double(b.uptimeNanoseconds - a.uptimeNanoseconds) / 1e9
        }
        var stages = ["open": between(start, first.1)]
        for (index, (pass, time)) in seen.enumerated() {
            stages[pass.rawValue] = between(time, index + 1 < seen.count ? seen[index + 1].1 : end)
        }
        return stages
    }
}

/// The statements an in-place migration ran, in order.
final class StatementLog: @unchecked Sendable {
    private let lock = NSLock()
    private var statements: [String] = []

    func append(_ sql: String) {
        lock.lock()
        statements.append(sql)
        lock.unlock()
    }

    /// One statement per record, records separated by a line holding only U+001E.
    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return statements.joined(separator: "\n\u{1E}\n")
    }
}

func seconds(since start: DispatchTime) -> Double {
    Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
}

/// The process's peak resident memory (VmHWM) in MiB.
/// CPU seconds this process has used so far, every thread's (user and system).
func cpuSeconds(thisThreadOnly: Bool = false) -> Double {
    var usage = rusage()
    getrusage(thisThreadOnly ? 1 /* RUSAGE_THREAD (Linux) */ : Int32(RUSAGE_SELF.rawValue), &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

func peakMemoryMB() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return 0 }
    let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    return kilobytes / 1024
}
