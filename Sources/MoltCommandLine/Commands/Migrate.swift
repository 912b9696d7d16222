import ArgumentParser
import Foundation
import Logging
import Molt

struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Migrate a store to a new model version: with a mapping file, or inferred and in place.",
        discussion: """
            The store is opened read-only with the source model (from a bundle: the version whose \
            hashes match the store), copied object by object into a new file beside it with the \
            destination model, related, validated, and then swapped in so that the path always \
            holds either the complete old store or the complete new one. On any failure, or \
            Ctrl-C, the store is left exactly as it was. A mapping that needs no object loaded \
            (no policy, no filter, values computed from each object's own row) is run as SQL \
            over a copy of the store instead, with the same result, swap and safety.

            One migration of a store runs at a time: a second run stops at once with exit code \
            75 (another migration of this store is running), or with --wait waits for it and \
            then starts from the store as that run left it (a store already at the destination \
            is nothing to do, exit code 0). A store reached through a symbolic link is migrated \
            where it lives (the link is left as it is); a file with several names (hard links) \
            is refused. The report lists what the migration did not carry into the new version.

            The mapping is checked first (as check-mapping does); its policies must be compiled \
            in (see Policies/). A step split into several mapping files (Core Data's multiple \
            passes) gives --mapping once per file, in order: each pass runs into the same new \
            store and sees what earlier passes made; the new store is validated and swapped in \
            once, after the last pass, and a failure in any pass leaves the store as it was. With --dry-run the new store is built in a temporary file, \
            validated, counted and deleted. A migration interrupted by a crash is finished (or \
            undone) the next time molt migrates the store, or with `molt recover`.

            Without --mapping, the mapping is inferred as Core Data's lightweight migration \
            would infer it (exit code 4 with every reason when it cannot be; `molt infer` prints \
            them too), and the store is changed in place with SQL in one transaction: tables \
            gain columns or are rebuilt, and a crash at any instant leaves the old store. The \
            result is what the copy would give. When the change cannot be made in place (two \
            tables becoming one, for instance) the store is copied instead, and the report says \
            why. With --dry-run the changes are made, validated, counted and rolled back.
            """)

    @Argument(help: "The store to migrate.")
    var store: String

    @OptionGroup var models: ModelPairOptions

    @Option(
        name: .customLong("mapping"),
        help: ArgumentHelp(
            "The mapping file (.xml or an Xcode .xcmappingmodel); repeat it to run several passes in order. Without one, the mapping is inferred and the store changed in place.",
            valueName: "mapping"))
    var mappings: [String] = []

    @Flag(
        name: .customLong("source-model-from-store"),
        help:
            "When no version of --from matches the store, use the store's own embedded model (Z_MODELCACHE) if its hashes match the store."
    )
    var sourceModelFromStore = false

    @Flag(
        name: .customLong("plan"),
        help:
            "Print how the migration would run (in place, SQL on a copy or object by object; for each pass, how each mapping's relationships are set), with the reason for each choice, and stop: nothing is migrated."
    )
    var planOnly = false

    @OptionGroup var runOptions: RunOptions

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let logger = global.bootstrap()
        try global.run(json: runOptions.json) { try migrate(logger: logger) }
    }

    private func migrate(logger: Logger) throws {
        let passes = try mappings.map { try MappingFile.read(contentsOf: URL(fileURLWithPath: $0)) }
        let mappingModel = try Self.firstOfPasses(passes)
        let destination = try ModelPairOptions.model(
            models.to, version: models.toVersion ?? mappingModel?.destinationModelName, side: "destination",
            useCurrent: true, namedBy: models.toVersion == nil ? mappingModel.map { (mappings[0], $0) } : nil)
        let display = ProgressDisplay(lines: runOptions.progress)
        var progress: (@Sendable (MigrationProgress) -> Void)?
        if display.isActive { progress = { display.show($0) } }
        // The lock first: the store is read (recovered, its version found) only once no other
        // migration of it runs, so a run that waited plans from what the other left.
        try runOptions.run(store, logger: logger, progress: progress) { context in
            defer { display.finish() }
            try migrate(
                context: context, passes: passes, mapping: mappingModel, destination: destination, display: display)
        }
    }

    /// Migrates the store in `context` with the library's entry point for one step
    /// (``StoreMigration``: the lock, recovery, "already migrated", the source model, the plan
    /// and the run, in one place).
    private func migrate(
        context: RunContext, passes: [MappingModel], mapping: MappingModel?, destination: ObjectModel,
        display: ProgressDisplay
    ) throws {
        let migration = StoreMigration(
            store: URL(fileURLWithPath: store), from: try ModelArguments.source(models.from),
            version: models.fromVersion,
            to: destination, mappings: passes, options: runOptions.migrationOptions, context: context)
        migration.allowsEmbeddedSourceModel = sourceModelFromStore
        if planOnly {
            let plan = try migration.plan()
            let source = plan == nil ? destination.name : try migration.chosenSourceModel().model.name
            try printPlan(plan, source: source, destination: destination.name)
            return
        }
        let report = try migration.run()
        // The bar goes before the summary, or the summary's first line would follow it.
        display.finish()
        if report.usedEmbeddedSourceModel {
            Output.note("using the store's embedded model: its hashes match the store")
        }
        if runOptions.json {
            try Output.json(MigrationJSON(report, from: report.sourceModelName, to: destination.name))
        } else if report.alreadyMigrated {
            Output.line(
                "\(store) is already at \(destination.name ?? "the destination version"): nothing to migrate\(context.waitedForLock ? " (another migration finished it while this one waited)" : "")."
            )
        } else {
            print(report: report, source: report.sourceModelName, destination: destination.name)
        }
    }

    /// `--plan`: the plan, as text or JSON.
    func printPlan(_ plan: MigrationPlan?, source: String?, destination: String?) throws {
        if runOptions.json {
            try Output.json(
                PlanOnlyJSON(
                    from: source, to: destination, alreadyMigrated: plan == nil, plan: plan.map(RouteJSON.init)))
            return
        }
        guard let plan else {
            Output.line("\(store) is already at \(destination ?? "the destination version"): nothing to migrate.")
            return
        }
        Output.line(
            "Plan for \(store) from \(source ?? "source") to \(destination ?? "destination") (nothing was changed):"
        )
        for line in plan.description.split(separator: "\n") { Output.line("  " + line) }
    }

    /// The first pass's mapping (nil without any), naming the two versions the passes go
    /// between (``PassVersions``: they must agree) where its own file names none.
    static func firstOfPasses(_ passes: [MappingModel]) throws -> MappingModel? {
        guard var first = passes.first else { return nil }
        let versions = try PassVersions(passes)
        first.sourceModelName = versions.source
        first.destinationModelName = versions.destination
        return first
    }

    func print(report: MigrationReport, source: String?, destination: String?) {
        let headline =
            report.dryRun
            ? "Dry run of \(store) from \(source ?? "source") to \(destination ?? "destination"): the store was not changed."
            : "Migrated \(store) from \(source ?? "source") to \(destination ?? "destination") in \(String(format: "%.2f", report.duration)) s."
        Output.line(headline)
        // The rest is the report's own summary (``MigrationReport/summaryLines``) after its
        // headline, which names no store: what `print(report)` gives a program.
        report.summaryLines.dropFirst().forEach { Output.line($0) }
    }
}
