import ArgumentParser
import Logging
import Molt

/// What `migrate` and `upgrade` share: what the user asks of the run (backup, dry run), how
/// its progress is shown, and how it waits for another migration of the store; and the one
/// way both start a run: a ``RunContext`` that Ctrl-C stops and that notes a wait for another
/// migration of the store (the library takes the store's lock).
struct RunOptions: ParsableArguments {
    @Flag(help: "Keep the store as it was before the run as NAME.molt-backup-<time>.EXT beside it.")
    var backup = false

    @Flag(
        name: .customLong("dry-run"),
        help: ArgumentHelp(
            "Do the whole run on a temporary copy (or in a transaction rolled back), validate and report; change nothing."
        ))
    var dryRun = false

    @Flag(help: "Print progress lines on standard error even when it is not a terminal (a bar is drawn on a terminal).")
    var progress = false

    @Flag(
        help:
            "Print the result as JSON on standard output (errors too, with their code); progress stays on standard error."
    )
    var json = false

    @Option(
        name: .customLong("unknown-tables"),
        help: ArgumentHelp(
            "What a migration into a new store does with tables, triggers and views neither the model nor Core Data explains: refuse (stop, naming them), keep (copy them as they are) or drop (leave them, named in the report). In place they are always kept.",
            valueName: "refuse|keep|drop"))
    var unknownTables: UnknownTablesArgument = .refuse

    @Option(
        name: .customLong("in-use-wait"),
        help: ArgumentHelp(
            "Before a migration into a new file, wait up to SECONDS for other processes to close a store in WAL mode (an app, a reader); one that keeps it open stops the run with \"in use\" (exit code 74), naming it.",
            valueName: "seconds"))
    var inUseWait: Double = 10

    @Option(
        help: ArgumentHelp(
            "Threads that read source objects and run policies during the copy pass: the one that writes the new store, which also runs objects while the next batch is not ready, and n - 1 workers (default: the machine's cores, at most 8); 1 runs everything on one thread. The store is the same either way.",
            valueName: "n"))
    var jobs: Int?

    @OptionGroup var lock: LockOptions

    func validate() throws {
        if !(inUseWait >= 0 && inUseWait.isFinite) {
            throw ValidationError("--in-use-wait takes a number of seconds, 0 or more")
        }
        if let jobs, jobs < 1 { throw ValidationError("--jobs takes a number of threads, 1 or more") }
    }

    /// The settings the run is made with.
    var migrationOptions: MigrationOptions {
        var options = MigrationOptions()
        options.backup = backup
        options.dryRun = dryRun
        options.unknownContents = unknownTables.contents
        options.inUseWait = inUseWait
        options.lockWait = lock.wait ?? 0
        if let jobs { options.jobs = jobs }
        return options
    }

    /// Runs `body` with a context that Ctrl-C stops and that says on standard error when the
    /// run waits for another migration of `store`. The library takes the store's migration lock
    /// itself, once, before it reads the store (``migrationOptions`` carries `--wait`): a run
    /// that waited works from what the other left.
    func run<T>(
        _ store: String, logger: Logger, progress: (@Sendable (MigrationProgress) -> Void)? = nil,
        _ body: (RunContext) throws -> T
    ) throws -> T {
        try lock.noteLink(store)
        let seconds = lock.wait ?? 0
        let context = RunContext(logger: logger, progress: progress) { holder in
            Output.note(
                "another migration of this store is running\(holder.map { " (process \($0))" } ?? ""); waiting up to \(LockOptions.seconds(seconds)) for it to finish"
            )
        }
        let interrupt = Interrupts.cancelling(context)
        defer { interrupt.cancel() }
        return try body(context)
    }
}
