import ArgumentParser
import Foundation
import Molt

struct Create: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create a new, empty or seeded store for a model.",
        discussion: """
            The store is written in Core Data's SQLite layout, with the model's version hashes \
            in its metadata. A seed file (Molt's JSON object format, the same that `molt dump \
            --json` writes) fills it with objects, checked against the model's rules as a \
            migration's validation checks them (required values, counts, ranges, patterns, \
            uniqueness constraints): a seed that breaks one is refused (exit 65), naming its \
            line and the object's @id. The store is built in a temporary file and appears at \
            STORE only when complete; an existing STORE is never overwritten. Ctrl-C (or \
            SIGTERM, SIGHUP) stops it and removes the temporary file; what a process killed \
            outright left, `molt recover STORE` removes. On a terminal, a seed's import shows \
            a progress bar.
            """)

    @Argument(help: "The store file to create.")
    var store: String

    @Option(help: "The model: .xcdatamodeld bundle (its current version), .xcdatamodel version or contents file.")
    var model: String

    @Option(name: .customLong("model-version"), help: "The version of a bundle to use instead of its current one.")
    var modelVersion: String?

    @Option(help: "A JSON file of objects to insert.")
    var seed: String?

    @Flag(help: "Print progress lines on standard error even when it is not a terminal (a bar is drawn on a terminal).")
    var progress = false

    @Flag(
        help:
            "Print the result as JSON on standard output (errors too, with their code); progress stays on standard error."
    )
    var json = false

    @OptionGroup var global: GlobalOptions

    /// Core Data's 134120, as a cancelled migration gives (the exit code is the signal's).
    static let cancelledError = MoltError(
        .migrationCancelled, "the creation was cancelled; the store was not made and nothing was left beside it",
        recovery: "Run it again when ready.")

    func run() throws {
        let logger = global.bootstrap()
        try global.run(json: json) {
            let objectModel = try ModelArguments.model(model, version: modelVersion)
            let seedData: Data?
            if let seed {
                do {
                    seedData = try Data(contentsOf: URL(fileURLWithPath: seed))
                } catch {
                    throw FileErrors.readFailed(seed, underlying: error)
                }
            } else {
                seedData = nil
            }
            // The signals that stop a migration stop a creation the same way (a RunContext that
            // Interrupts cancels): the import stops at its next few hundred objects, the
            // temporary file goes, and the exit code is the signal's.
            let context = RunContext(logger: logger)
            let interrupt = Interrupts.cancelling(context)
            defer { interrupt.cancel() }
            let stop: @Sendable () throws -> Void = {
                if context.isCancelled { throw Self.cancelledError }
            }
            var options = StoreCreationOptions()
            options.logger = logger
            options.checkCancelled = stop
            let display = ProgressDisplay(lines: progress)
            defer { display.finish() }
            var counts: [String: Int] = [:]
            let created = try ObjectStore.create(at: URL(fileURLWithPath: store), model: objectModel, options: options)
            {
                writer in
                if let seedData, let seed {
                    var importer = ObjectsJSONImporter()
                    importer.checkCancelled = stop
                    if display.isActive { importer.progress = { display.show($0) } }
                    counts = try importer.importObjects(from: seedData, file: seed, into: writer)
                }
            }
            display.finish()
            let total = counts.values.reduce(0, +)
            if json {
                try Output.json(
                    CreateJSON(store: created.store.url.path, model: objectModel.name, objects: total, counts: counts))
                return
            }
            let detail = counts.keys.sorted(by: NameOrder.precedes).map { "\($0) \(counts[$0]!)" }.joined(
                separator: ", ")
            Output.line(
                "Created \(created.store.url.path) for model \(objectModel.name ?? model): \(total) objects\(detail.isEmpty ? "" : " (\(detail))")"
            )
        }
    }
}
