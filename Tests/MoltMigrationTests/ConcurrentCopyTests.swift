import Foundation
import MoltCore
import MoltMapping
import MoltModel
import MoltSQLite
import MoltStore
import MoltTestSupport
import Testing

@_spi(RouteSwitches) @testable import MoltMigration

/// Says it creates instances concurrently: each Record from its own values and its owner's
/// label (a related source object, read through the workers' shared reader), two writes and an
/// association per source; then what a subclass adds (``after(_:_:_:)``).
class ConcurrentRecordsTestPolicy: EntityMigrationPolicy {
    override class var policyName: String { "ConcurrentRecordsTestPolicy" }
    override class var createsInstancesConcurrently: Bool { true }
    required init() {}

    override func createDestinationInstances(
        forSource source: SourceObject, in mapping: EntityMapping, manager: MigrationManager
    ) throws {
        let name = try source.text("name") ?? ""
        let made = try manager.destinationContext.insertNewObject(
            forEntityName: "Record", attributes: ["name": name.uppercased()])
        let owner = try source.objects("owner").first.map { try $0.text("label") ?? "" } ?? "none"
        try manager.setAttributes(["extra": .string("owned by \(owner)")], of: made)
        try manager.associate(source: source, destination: made)
        try after(made, source, manager)
    }

    /// What a subclass does once the Record is made.
    func after(_ made: DestinationObject, _ source: SourceObject, _ manager: MigrationManager) throws {}
}

/// Every 7th Record counts the Records made so far (a fetch: only in order), and every 11th
/// tries a fetch with `try?` (a worker must not turn it into nothing): what each writes depends
/// on running at its place in the order.
final class ConcurrentLookingTestPolicy: ConcurrentRecordsTestPolicy {
    override class var policyName: String { "ConcurrentLookingTestPolicy" }

    override func after(_ made: DestinationObject, _ source: SourceObject, _ manager: MigrationManager) throws {
        let key = source.id.primaryKey
        if key % 7 == 0 {
            let count = try manager.destinationContext.count(for: FetchRequest(entityName: "Record"))
            try manager.setAttributes(["extra": .string("\(count) made before")], of: made)
        }
        if key % 11 == 0 {
            let seen = (try? manager.destinationContext.fetch(FetchRequest(entityName: "Record")))?.count ?? -1
            try manager.setAttributes(["extra": .string("\(seen) seen")], of: made)
        }
    }
}

/// Fails on the Record named "record 150".
final class ConcurrentFailingTestPolicy: ConcurrentRecordsTestPolicy {
    struct Refused: Error, CustomStringConvertible {
        var description: String { "record 150 is refused" }
    }

    override class var policyName: String { "ConcurrentFailingTestPolicy" }

    override func after(_ made: DestinationObject, _ source: SourceObject, _ manager: MigrationManager) throws {
        if try source.text("name") == "record 150" { throw Refused() }
    }
}

/// Deletes source objects (in order), though it says it runs concurrently.
final class ConcurrentSourceDeletingTestPolicy: ConcurrentRecordsTestPolicy {
    override class var policyName: String { "ConcurrentSourceDeletingTestPolicy" }

    override func after(_ made: DestinationObject, _ source: SourceObject, _ manager: MigrationManager) throws {
        guard source.id.primaryKey >= 120, let owner = try source.objects("owner").first else { return }
        try manager.sourceContext.delete(owner)
    }
}

/// The copy pass on worker threads (``MigrationOptions/jobs``) gives the store one thread
/// gives: every row of every table the same (the primary keys' table and the metadata
/// included) and the same reports; the same failure, with the store left as it
/// was, when a hook fails or the run is cancelled.
@Suite("The copy pass on worker threads")
struct ConcurrentCopyTests {
    init() {
        CompiledPolicies.register([
            ConcurrentRecordsTestPolicy.self, ConcurrentLookingTestPolicy.self, ConcurrentFailingTestPolicy.self,
            ConcurrentSourceDeletingTestPolicy.self, KeepsDefaultsTestPolicy.self,
        ])
    }

    /// Every row of every table of the store at `url`, in rowid order, as text.
    static func rows(_ url: URL) throws -> String {
        let connection = try SQLiteConnection(path: url.path, mode: .readOnly)
        defer { connection.close() }
        let tables = try connection.rows(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
        ).compactMap { $0.first?.textValue }
        var text = ""
        for table in tables {
            text += "\(table)\n"
            for row in try connection.rows("SELECT * FROM \(SQL.identifier(table)) ORDER BY rowid") {
                text += "  \(row.map { "\($0)" }.joined(separator: " | "))\n"
            }
        }
        return text
    }

    /// Migrates copies of a seeded store on one thread and on four workers, with batches of
    /// `batchSize` (so several batches are out at once), and compares them.
    @discardableResult
    static func compare(
        recordPolicy: String?, records: Int = 400, batchSize: Int = 16, cancelAfter: Int? = nil,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws -> (one: Result<MigrationReport, any Error>, many: Result<MigrationReport, any Error>) {
        let source = try InferenceCase.model(KeyAtInsertTests.model("V1"), name: "V1")
        let destination = try InferenceCase.model(KeyAtInsertTests.model("V2"), name: "V2")
        let mapping = try MigrationFixtures.mapping(text: KeyAtInsertTests.mapping(recordPolicy: recordPolicy))
        let folder = TemporaryDirectory("molt-concurrent-copy")
        let original = folder.path("Store.sqlite")
        try KeyAtInsertTests.seed(original, model: source, records: records, tags: 30)
        let before = try rows(original)
        func run(jobs: Int) throws -> (URL, Result<MigrationReport, any Error>) {
            let copy = try folder.copy(original, as: "jobs-\(jobs).sqlite")
            var options = MigrationOptions()
            options.jobs = jobs
            options.batchSize = batchSize
            options.allowsSQLOnCopy = false
            let holder = Holder()
            let context = RunContext(progress: { progress in
                if let cancelAfter, progress.pass == .copy, progress.completed >= cancelAfter {
                    holder.context?.cancel()
                }
            })
            holder.context = context
            let result = Result {
                try HeavyweightMigration(
                    store: copy, source: source, destination: destination, mapping: mapping, options: options,
                    context: context
                ).run()
            }
            return (copy, result)
        }
        let (one, oneResult) = try run(jobs: 1)
        let (many, manyResult) = try run(jobs: 4)
        switch (oneResult, manyResult) {
        case (.success(let first), .success(let second)):
            #expect(try rows(many) == rows(one), "every row as one thread writes it", sourceLocation: sourceLocation)
            #expect(
                try Data(contentsOf: many) == Data(contentsOf: one), "the same file, byte for byte",
                sourceLocation: sourceLocation)
            #expect(first.mappings == second.mappings, sourceLocation: sourceLocation)
            #expect(first.keysWrittenAtInsert == second.keysWrittenAtInsert, sourceLocation: sourceLocation)
        case (.failure(let first), .failure(let second)):
            #expect("\(first)" == "\(second)", "the same failure", sourceLocation: sourceLocation)
            #expect(try rows(one) == before, "one thread's failed run left the store", sourceLocation: sourceLocation)
            #expect(try rows(many) == before, "the workers' failed run left the store", sourceLocation: sourceLocation)
        default:
            Issue.record(
                "one run failed and the other did not: \(oneResult) / \(manyResult)", sourceLocation: sourceLocation)
        }
        return (oneResult, manyResult)
    }

    /// A run's context, for its progress callback that cancels it.
    final class Holder: @unchecked Sendable {
        var context: RunContext?
    }

    /// Every mapping on workers takes one worker fewer than `jobs` (the writing thread runs
    /// objects too); a plan with several numbers says each, one line per number.
    @Test("mappings on workers run on one worker fewer than the jobs, and the plan says each number")
    func workersPerMapping() {
        #expect(CopyConcurrency.workers(jobs: 4) == 3)
        #expect(CopyConcurrency.workers(jobs: 2) == 1)
        let plan = MigrationPlan(
            route: .objects, reason: "test",
            passes: [
                PassPlan(
                    number: 1, mappingFile: nil, relate: [],
                    copy: [
                        CopyPlan(mapping: "TagToTag", threads: 1, inOrder: nil),
                        CopyPlan(mapping: "RecordToRecord", threads: 2, inOrder: nil),
                        CopyPlan(mapping: "NoteToNote", threads: 1, inOrder: "one thread"),
                    ])
            ])
        let lines = plan.description.split(separator: "\n").map(String.init)
        #expect(lines.contains("  copy on 1 worker thread: TagToTag"))
        #expect(lines.contains("  copy on 2 worker threads: RecordToRecord"))
        #expect(lines.contains("  copy in order: NoteToNote (one thread)"))
    }

    @Test("the default copy of a mapping of the objects' own values, keys at insert included")
    func defaultCopy() throws {
        let (_, many) = try Self.compare(recordPolicy: nil)
        let report = try many.get()
        #expect(report.keysWrittenAtInsert == ["RecordToRecord.owner"])
        #expect(report.mappings.first { $0.mapping == "RecordToRecord" }?.destinationObjects == 400)
    }

    @Test("relationships in batches, computed a batch ahead on a thread of their own")
    func relateAhead() throws {
        // Authors and books: to-manys and to-ones the relate pass writes in batches.
        let setup = try RelateInBatchesTests.Setup()
        try RelateInBatchesTests.seed(setup.original, model: setup.source, authors: 60, books: 900)
        var reports: [MigrationReport] = []
        var rows: [String] = []
        var files: [Data] = []
        // Twice on one thread: the same file each run, not only each number of threads.
        for jobs in [1, 4, 1] {
            let copy = try setup.folder.copy(setup.original, as: "run-\(rows.count)-jobs-\(jobs).sqlite")
            var options = MigrationOptions()
            options.jobs = jobs
            options.batchSize = 16
            options.allowsSQLOnCopy = false
            options.allowsRelateInSQL = false
            reports.append(
                try HeavyweightMigration(
                    store: copy, source: setup.source, destination: setup.destination, mapping: setup.mapping,
                    options: options
                ).run())
            rows.append(try Self.rows(copy))
            files.append(try Data(contentsOf: copy))
        }
        #expect(rows[1] == rows[0], "every row as one thread writes it")
        #expect(files[1] == files[0], "the same file, byte for byte")
        #expect(files[2] == files[0], "the same file, byte for byte, each run")
        #expect(reports[1].relatedInBatches == ["AuthorToAuthor", "BookToBook"])
        #expect(reports[1].related == reports[0].related)
    }

    @Test("a policy that creates instances concurrently: its writes done in order")
    func concurrentPolicy() throws {
        try Self.compare(recordPolicy: ConcurrentRecordsTestPolicy.policyName)
    }

    @Test("hooks that need the new store run in order, even when the policy catches the error")
    func inOrderHooks() throws {
        let (_, many) = try Self.compare(recordPolicy: ConcurrentLookingTestPolicy.policyName)
        #expect(try many.get().mappings.first { $0.mapping == "RecordToRecord" }?.sourceObjects == 400)
    }

    @Test("a hook that throws: the same error at the same object, and the store as it was")
    func failingHook() throws {
        let (_, many) = try Self.compare(recordPolicy: ConcurrentFailingTestPolicy.policyName)
        guard case .failure(let error) = many else { return }
        #expect("\(error)".contains("record 150 is refused"), "\(error)")
        #expect((error as? MoltError)?.code == .entityMigrationPolicy)
    }

    @Test("cancelled in the middle of the copy: the same error, the store as it was")
    func cancelled() throws {
        let (one, many) = try Self.compare(recordPolicy: ConcurrentRecordsTestPolicy.policyName, cancelAfter: 100)
        guard case .failure(let error) = many, case .failure = one else {
            Issue.record("the cancelled runs succeeded")
            return
        }
        #expect((error as? MoltError)?.code == .migrationCancelled, "\(error)")
    }

    @Test("a policy that says it runs concurrently but deletes source objects is stopped with a clear error")
    func deletingSources() throws {
        let source = try InferenceCase.model(KeyAtInsertTests.model("V1"), name: "V1")
        let destination = try InferenceCase.model(KeyAtInsertTests.model("V2"), name: "V2")
        let mapping = try MigrationFixtures.mapping(
            text: KeyAtInsertTests.mapping(recordPolicy: ConcurrentSourceDeletingTestPolicy.policyName))
        let folder = TemporaryDirectory("molt-concurrent-delete")
        let store = folder.path("Store.sqlite")
        try KeyAtInsertTests.seed(store, model: source, records: 300, tags: 30)
        let before = try Self.rows(store)
        var options = MigrationOptions()
        options.jobs = 3
        options.batchSize = 16
        let error = #expect(throws: MoltError.self) {
            try HeavyweightMigration(
                store: store, source: source, destination: destination, mapping: mapping, options: options
            ).run()
        }
        #expect(error?.code == .entityMigrationPolicy)
        #expect(
            error?.message.contains("deleted source objects in createDestinationInstances") == true,
            "\(String(describing: error))")
        #expect(try Self.rows(store) == before)
        // With one job the same policy runs, as Core Data's would.
        options.jobs = 1
        _ = try HeavyweightMigration(
            store: store, source: source, destination: destination, mapping: mapping, options: options
        ).run()
    }

    @Test("which mappings run on workers, and why the others run in order")
    func decisions() throws {
        let source = try InferenceCase.model(KeyAtInsertTests.model("V1"), name: "V1")
        let destination = try InferenceCase.model(KeyAtInsertTests.model("V2"), name: "V2")
        let mapping = try MigrationFixtures.mapping(text: KeyAtInsertTests.mapping())
        let resolver = MappingResolver(source: source, destination: destination, mappingModel: mapping)
        let records = try #require(mapping.entityMappings.first { $0.name == "RecordToRecord" })
        let compiled = CompiledMapping(resolved: resolver.resolve(records), sourceModel: source)
        #expect(
            CopyConcurrency.inOrderReason(
                records, policy: DefaultEntityMigrationPolicy.self, compiled: compiled, jobs: 4) == nil)
        #expect(
            CopyConcurrency.inOrderReason(
                records, policy: DefaultEntityMigrationPolicy.self, compiled: compiled, jobs: 1)
                == "one thread (jobs 1)")
        #expect(
            CopyConcurrency.inOrderReason(records, policy: OwnRecordsTestPolicy.self, compiled: compiled, jobs: 4)?
                .contains("createsInstancesConcurrently") == true)
        #expect(
            CopyConcurrency.inOrderReason(
                records, policy: ConcurrentRecordsTestPolicy.self, compiled: compiled, jobs: 4) == nil)
    }
}
