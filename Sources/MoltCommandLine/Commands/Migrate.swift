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
        let mappingModel = try Self.firstOfPasses(passes, files: mappings)
        let destination = try ModelPairOptions.model(
            models.to, version: models.toVersion ?? mappingModel?.destinationModelName, side: "destination",
            useCurrent: true)
        let display = ProgressDisplay(lines: runOptions.progress)
        var progress: (@Sendable (MigrationProgress) -> Void)?
        if display.isActive { progress = { display.show($0) } }
        // The lock first: the store is read (recovered, its version found) only once no other
        // migration of it runs, so a run that waited plans from what the other left.
        try runOptions.run(store, logger: logger, progress: progress) { context, held in
            defer { display.finish() }
            try migrate(
                held: held, context: context, passes: passes, mapping: mappingModel, destination: destination)
        }
    }

    /// Migrates the store whose lock `held` is, in `context`.
    private func migrate(
        held: MigrationLock, context: RunContext, passes: [MappingModel], mapping: MappingModel?,
        destination: ObjectModel
    ) throws {
        let url = held.store
        try StoreRecovery.recover(locked: held, logger: context.logger)
        if try SQLiteStore(at: url, logger: context.logger).metadata.entityVersionHashes
            == destination.entityVersionHashes()
        {
            if runOptions.json {
                var report = MigrationReport()
                report.alreadyMigrated = true
                try Output.json(MigrationJSON(report, from: destination.name, to: destination.name))
                return
            }
            Output.line(
                "\(store) is already at \(destination.name ?? "the destination version"): nothing to migrate\(held.waited ? " (another migration finished it while this one waited)" : "")."
            )
            return
        }
        let source = try sourceModel(for: url, mapping: mapping, waited: held.waited)
        let migration: any Migration<MigrationReport> =
            passes.isEmpty
            ? try LightweightMigration(
                store: url, source: source, destination: destination, options: runOptions.migrationOptions,
                context: context)
            : HeavyweightMigration(
                store: url, source: source, destination: destination, mappings: passes,
                options: runOptions.migrationOptions, context: context)
        if planOnly {
            let plan =
                passes.isEmpty
                ? try (migration as? LightweightMigration)?.plan()
                : try (migration as? HeavyweightMigration)?.plan()
            try printPlan(plan, source: source, destination: destination)
            return
        }
        let report = try migration.run()
        if runOptions.json {
            try Output.json(MigrationJSON(report, from: source.name, to: destination.name))
        } else {
            print(report: report, source: source, destination: destination)
        }
    }

    /// How a mapping's relationships were set: as planned, or as the relate pass fell back.
    static func related(_ count: MigrationReport.MappingCount, report: MigrationReport) -> String {
        guard count.pass - 1 < report.plan?.passes.count ?? 0,
            let planned = report.plan?.passes[count.pass - 1].relate.first(where: { $0.mapping == count.mapping })
        else { return "-" }
        if report.relatedInSQL.contains(count.mapping) { return RelatePlan.Strategy.setBased.rawValue }
        if report.relatedInBatches.contains(count.mapping) { return RelatePlan.Strategy.batched.rawValue }
        return planned.strategy == .nothing ? "-" : RelatePlan.Strategy.objectByObject.rawValue
    }

    /// `--plan`: the plan, as text or JSON.
    func printPlan(_ plan: MigrationPlan?, source: ObjectModel, destination: ObjectModel) throws {
        if runOptions.json {
            try Output.json(
                PlanOnlyJSON(
                    from: source.name, to: destination.name, alreadyMigrated: plan == nil,
                    plan: plan.map(RouteJSON.init)))
            return
        }
        guard let plan else {
            Output.line("\(store) is already at \(destination.name ?? "the destination version"): nothing to migrate.")
            return
        }
        Output.line(
            "Plan for \(store) from \(source.name ?? "source") to \(destination.name ?? "destination") (nothing was changed):"
        )
        for line in plan.description.split(separator: "\n") { Output.line("  " + line) }
    }

    /// The first pass's mapping (nil without any), once every pass is checked to go between
    /// the same two versions where the files name them.
    static func firstOfPasses(_ passes: [MappingModel], files: [String]) throws -> MappingModel? {
        guard var first = passes.first else { return nil }
        for side in [\MappingModel.sourceModelName, \MappingModel.destinationModelName] {
            let named = zip(files, passes).compactMap { file, pass in pass[keyPath: side].map { (file, $0) } }
            if let (file, name) = named.first, let other = named.first(where: { $0.1 != name }) {
                throw MoltError(
                    .missingMappingModel,
                    "the passes of one step must go between the same two versions: \(file) names \"\(name)\", \(other.0) names \"\(other.1)\"",
                    location: SourceLocation(file: other.0))
            }
            if first[keyPath: side] == nil, let name = named.first?.1 {
                if side == \MappingModel.sourceModelName {
                    first.sourceModelName = name
                } else {
                    first.destinationModelName = name
                }
            }
        }
        return first
    }

    /// The source model: the version given, or the bundle version whose hashes match the store.
    func sourceModel(for url: URL, mapping: MappingModel?, waited: Bool = false) throws -> ObjectModel {
        if let version = models.fromVersion {
            return try ModelPairOptions.model(models.from, version: version, side: "source", useCurrent: false)
        }
        let source = try ModelArguments.source(models.from)
        let store = try SQLiteStore(at: url)
        let choice = try store.sourceModel(from: source, allowsEmbeddedSourceModel: sourceModelFromStore)
        let model = choice.model
        if choice.isEmbedded {
            Output.note("using the store's embedded model: its hashes match the store")
            return model
        }
        if let expected = mapping?.sourceModelName, let actual = model.name, expected != actual {
            throw MoltError(
                .missingMappingModel,
                "the store is at version \"\(actual)\", but the mapping file goes from \"\(expected)\"\(waited ? " (another migration changed the store while this one waited)" : "")",
                location: SourceLocation(file: store.url.path),
                recovery: "Use the mapping file that starts at \"\(actual)\" (or --from-version to insist).")
        }
        return model
    }

    func print(report: MigrationReport, source: ObjectModel, destination: ObjectModel) {
        guard !report.alreadyMigrated else {
            Output.line("\(store) is already at \(destination.name ?? "the destination version"): nothing to migrate.")
            return
        }
        let headline =
            report.dryRun
            ? "Dry run of \(store) from \(source.name ?? "source") to \(destination.name ?? "destination"): the store was not changed."
            : "Migrated \(store) from \(source.name ?? "source") to \(destination.name ?? "destination") in \(String(format: "%.2f", report.duration)) s."
        Output.line(headline)
        if let plan = report.plan { Output.line("Route: \(plan.route.rawValue) (\(plan.reason)).") }
        if !mappings.isEmpty, report.setBased {
            Output.line("The mapping needed no object loaded: it was run as SQL over a copy of the store.")
        }
        if report.passes > 1 {
            Output.line("The step ran in \(report.passes) passes, one per mapping file, into one new store.")
        }
        if mappings.isEmpty {
            Output.line(
                report.inPlace
                    ? "The inferred mapping was applied in place."
                    : "The inferred mapping could not be applied in place (\(report.inPlaceObstacle ?? "")); the store was copied."
            )
        }
        Output.line("Entity mappings:")
        let related = report.plan?.route == .objects
        let head = (report.passes > 1 ? ["PASS"] : []) + ["MAPPING", "READ", "MADE"] + (related ? ["RELATED"] : [])
        Output.table(
            [head]
                + report.mappings.map { count in
                    (report.passes > 1 ? [String(count.pass)] : [])
                        + [count.mapping, String(count.sourceObjects), String(count.destinationObjects)]
                        + (related ? [Self.related(count, report: report)] : [])
                }
        ).forEach { Output.line($0) }
        if report.deletedObjects > 0 {
            Output.line(
                "Policies deleted \(report.deletedObjects) destination object\(report.deletedObjects == 1 ? "" : "s") (delete rules applied)."
            )
        }
        Output.line("Objects in the \(report.dryRun ? "migrated copy" : "new store"):")
        Output.table(
            [["ENTITY", "OBJECTS"]]
                + report.destinationCounts.keys.sorted(by: NameOrder.precedes).map {
                    [$0, String(report.destinationCounts[$0]!)]
                }
        ).forEach { Output.line($0) }
        Output.discards(report.discarded, into: destination.name, dryRun: report.dryRun)
        if let files = report.externalFiles {
            Output.line(
                "External data: the \(report.dryRun ? "migrated copy" : "new store") refers to \(files) file\(files == 1 ? "" : "s") in _EXTERNAL_DATA."
            )
        }
        if let backup = report.backup { Output.line("The old store is kept as \(backup)") }
    }
}
