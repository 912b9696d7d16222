import ArgumentParser
import Foundation
import Molt

#if canImport(Glibc)
    import Glibc
#endif

struct Upgrade: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Migrate a store across as many model versions as it takes to reach the current one (or --to).",
        discussion: """
            The store's version is the bundle version whose entity hashes equal the store's \
            (versions with identical hashes count as one). Every *.xml file in --mappings is read \
            as a mapping file (an XML file whose root is not <mapping-model> is skipped), and \
            so is every Xcode mapping model (*.xcmappingmodel); each \
            connects the two versions whose hashes it records (molt stamp-mapping writes them), \
            whatever the file is called; when it records too few, the version names the file \
            declares decide. A file with errors stops the upgrade.

            Version order: if versions.txt is in the mappings folder (one version name per \
            line, oldest first, # starts a comment), that order is used. Otherwise the names \
            give it when they make it obvious: Xcode's own sequence (Name, Name 2, Name 3, …) or \
            one stem with numbers (v1 … v75, Model1 … Model3), each number once. Otherwise \
            only the mapping files order versions (source before destination), unless \
            --order-by-name orders them by name, numbers read as numbers ("Model 2" before \
            "Model 10"). --plan says where the order came from. When the order is needed and \
            not known, molt says so.

            Plan: a mapping file from the store's version straight to the destination is one \
            heavyweight step. Otherwise, from each version: the mapping file starting there that \
            reaches furthest (heavyweight), else lightweight (inferred) steps up to the next \
            version where a mapping file starts or ends, as few as inference allows; a mapping \
            file's versions are never jumped over. With versions.txt or --order-by-name, a file \
            that goes backwards is not used. The destination before the store's version is an \
            error: stores are never migrated backwards.

            Several mapping files between the same two versions are the passes of one step \
            (Core Data's multiple passes): they run one after the other into one new store, in \
            file-name order (numbers read as numbers) unless versions.txt has a line \
            "passes: first.xml, second.xml"; the store is validated and swapped once, after the \
            last pass. --plan lists the passes.

            One migration of a store runs at a time: a second run stops at once with exit \
            code 75, or with --wait waits for the first and then plans from the store as it left \
            it (already at the destination: nothing to do). --plan takes no lock and says when \
            another migration is running.

            --plan prints the steps, one line each (versions, kind, mapping files, route, \
            stage, what the step discards), and changes nothing; with --verbose, each step's \
            route and its reason, each pass, each mapping's relate strategy and why each \
            discard. Each step is complete or not done, so \
            after a crash or Ctrl-C, running the command again continues from the version the \
            store is at.

            Exit codes: 0 done (or nothing to do); 3 no version matches the store (134130), a \
            step has no mapping file and cannot be inferred (134140), or the store is newer \
            than the destination (134530); 65 a mapping file with errors, an ambiguous or \
            unknown order, a failed migration; 66 a missing file; 74 I/O or SQLite errors; 75 \
            another migration of the store is running (134090); 130 cancelled (completed steps \
            stay done). A cancelled or failed upgrade names the version the store is at \
            ("the store is at: …"; storeVersion in --json's error).
            """)

    @Argument(help: "The store to upgrade.")
    var store: String

    @OptionGroup var source: UpgradeSourceOptions

    @Flag(
        help:
            "Print the steps the upgrade would take, a line each (each route's reason and relate strategies with --verbose), and change nothing."
    )
    var plan = false

    @Flag(
        name: .customLong("source-model-from-store"),
        help:
            "When no version matches the store, migrate from the store's own embedded model (Z_MODELCACHE), if its hashes match the store, in one inferred step."
    )
    var sourceModelFromStore = false

    @OptionGroup var runOptions: RunOptions

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        // One version is enough only to go from the store's embedded model to it.
        if !sourceModelFromStore { try source.requireEveryVersion() }
    }

    func run() throws {
        let logger = global.bootstrap()
        try global.run(json: runOptions.json) {
            let url = URL(fileURLWithPath: store)
            let inputs = try source.read(logger: logger)
            let (versions, files, order) = (inputs.versions, inputs.mappingFiles, inputs.order)
            let unreadable = inputs.unreadableMappingFiles
            if plan {
                // A plan reads the store as it is now, through SQLite's locks, and takes no lock.
                let upgrade = StoreUpgrade(
                    store: url, versions: versions, mappingFiles: files, unreadableMappingFiles: unreadable,
                    skippedMappingFiles: inputs.skippedMappingFiles, order: order, to: source.to,
                    options: runOptions.migrationOptions, context: RunContext(logger: logger))
                upgrade.allowsEmbeddedSourceModel = sourceModelFromStore
                let planned = try upgrade.plan()
                if runOptions.json {
                    try Output.json(PlanJSON(planned))
                } else {
                    printPlan(planned)
                }
                return
            }
            // The library takes the lock before it reads the store: the upgrade plans from the
            // store as it is once no other migration of it runs.
            try runOptions.run(store, logger: logger) { context in
                let upgrade = StoreUpgrade(
                    store: url, versions: versions, mappingFiles: files, unreadableMappingFiles: unreadable,
                    skippedMappingFiles: inputs.skippedMappingFiles, order: order, to: source.to,
                    options: runOptions.migrationOptions, context: context)
                upgrade.allowsEmbeddedSourceModel = sourceModelFromStore
                try perform(upgrade, context: context)
            }
        }
    }

    /// One line a step, so that the shape of a long upgrade shows at a glance; each step's
    /// route reason and every mapping's relate strategy with --verbose.
    func printPlan(_ planned: UpgradePlan) {
        guard !global.verbose else {
            planned.lines.forEach { Output.line($0) }
            return
        }
        planned.summaryLines.forEach { Output.line($0) }
        if planned.steps.contains(where: { $0.plan != nil || !$0.discards.isEmpty }) {
            Output.line("--verbose adds each route's reason, each mapping's relate strategy and why each discard.")
        }
    }

    func perform(_ upgrade: StoreUpgrade, context: RunContext) throws {
        let display = ProgressDisplay(lines: runOptions.progress)
        let printer = StepPrinter(display: display, printsSteps: !runOptions.json)
        upgrade.progress = { printer.show($0) }
        let report: UpgradeReport
        do {
            report = try upgrade.run()
            display.finish()
        } catch {
            display.finish()
            throw error
        }
        if runOptions.json {
            try Output.json(UpgradeJSON(report))
        } else {
            summarize(report, waited: context.waitedForLock)
        }
    }

    func summarize(_ report: UpgradeReport, waited: Bool) {
        if report.usedEmbeddedSourceModel {
            Output.line(
                "Used the store's embedded model as the source: no version given matches the store, and its hashes do.")
        }
        if let resumed = report.resumedStage {
            Output.line("Finished the stage \(resumed) left by an interrupted upgrade.")
        }
        guard !report.wasUpToDate else {
            Output.line(
                "\(store) is already at \(report.destination): nothing to migrate\(waited ? " (another migration finished it while this one waited)" : "")."
            )
            return
        }
        let seconds = String(format: "%.2f", report.duration)
        let count = "\(report.steps.count) step\(report.steps.count == 1 ? "" : "s")"
        Output.line(
            report.dryRun
                ? "Dry run: \(store) would go from \(report.storeVersion) to \(report.destination) in \(count) (\(seconds) s); the store was not changed."
                : "Upgraded \(store) from \(report.storeVersion) to \(report.destination) in \(count) (\(seconds) s).")
        // The rest is the report's own summary (``UpgradeReport/summaryLines``) after its headline,
        // which names no store.
        report.summaryLines.dropFirst().forEach { Output.line($0) }
    }
}

/// Prints each step as it starts and ends (standard output), and hands migration progress to
/// the progress display (standard error).
final class StepPrinter: @unchecked Sendable {
    let display: ProgressDisplay
    /// Whether steps are announced on standard output (not when it carries JSON).
    let printsSteps: Bool
    private let lock = NSLock()

    init(display: ProgressDisplay, printsSteps: Bool = true) {
        self.display = display
        self.printsSteps = printsSteps
    }

    func show(_ progress: UpgradeProgress) {
        switch progress.event {
        case .migrating(let migration):
            // The whole upgrade's fraction, as the lines give it: "molt:  40% overall · step
            // 2/3: relate NoteToNote 4/10".
            display.show(
                fraction: progress.fraction,
                activity: "step \(progress.stepNumber)/\(progress.stepCount): \(migration.activity)")
        case .stepStarted:
            line("Step \(progress.stepNumber) of \(progress.stepCount): \(progress.step.map(\.description) ?? "")")
        case .handlerFinished(let stage, let phase):
            line("  \(phase.rawValue) of stage \(stage.name) done")
        case .stepFinished(let report):
            let how = report.migration.plan?.route.rawValue ?? (report.inPlace ? "in place" : "copied")
            line("  done in \(String(format: "%.2f", report.duration)) s (\(how))")
        case .handlerStarted:
            break
        }
    }

    private func line(_ text: String) {
        guard printsSteps else { return }
        lock.lock()
        defer { lock.unlock() }
        display.finish()
        Output.line(text)
        fflush(nil)
    }
}
