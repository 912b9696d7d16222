public import Foundation

/// What the user asks of a migration: these settings are made once, before the run, and read,
/// never changed, by everything the run does. How the run reports and is stopped (its logger,
/// progress and cancellation) is the ``RunContext``'s.
public struct MigrationOptions: Sendable {
    /// Keep the old store (with its support folder) as `Name.molt-backup-<time>.ext`.
    public var backup = false
    /// Migrate into a temporary file, validate, count, and leave the store as it was.
    public var dryRun = false
    /// Objects read per query.
    public var batchSize = 500
    /// Objects written per transaction of the new store.
    public var transactionSize = 5000
    /// Threads the copy pass reads source objects and runs `createDestinationInstances` on:
    /// the one thread that writes the new store, which runs objects too while the next batch
    /// is not ready, and `jobs - 1` workers beside it (by default one thread per core, at most
    /// eight: the one writer is the bound, and each worker holds a few batches). The store is
    /// the same whatever the number: each object's writes are done in the source order. A
    /// mapping runs on workers when its objects are made by default from their own values, or
    /// its policy says ``EntityMigrationPolicy/createsInstancesConcurrently``; the others, and
    /// every mapping with 1, run in order on one thread.
    public var jobs = MigrationOptions.defaultJobs

    /// One worker per core the process may use, at most eight.
    public static var defaultJobs: Int { min(8, max(1, ProcessInfo.processInfo.activeProcessorCount)) }
    // The three route switches below exist for tests and benchmarks, which compare every route
    // with the object-by-object one: `@_spi(RouteSwitches) import MoltMigration` reaches them.
    // An app never needs them: each route gives the same store.

    /// Let a single-pass step whose mapping needs no per-object work (no policy, no filter,
    /// values SQL can compute) run as SQL over a copy of the store instead of object by object.
    /// The result is the same store; off, every object goes through the passes.
    @_spi(RouteSwitches) public var allowsSQLOnCopy = true
    /// Let the relate pass set a mapping's relationships in SQL when its policy keeps Core
    /// Data's default `createRelationships` and the values are Core Data's default form (see
    /// `RelateInSQL`). The result is the same store; off, relationships are written through
    /// the objects.
    @_spi(RouteSwitches) public var allowsRelateInSQL = true
    /// Let the relate pass write a relationship for a batch of objects at once when their
    /// policy keeps the default `createRelationships` and the values are Core Data's default
    /// form (see `RelateInBatches`). The result is the same store; off,
    /// each object's relationships are written by their own calls.
    @_spi(RouteSwitches) public var allowsRelateInBatches = true
    /// Evaluate every relationship value expression, even in Core Data's default form, whose
    /// objects are otherwise found without evaluating (the source relationship's objects mapped
    /// through the associations). The result is the same store; the differential test's
    /// reference route runs this way, so every shortcut is compared with evaluation.
    package var evaluatesEveryValue = false
    /// Called with the text of each SQL statement run on the store being migrated in place, or
    /// by a heavyweight migration's passes on the source store and the new store (values
    /// bound), in order: an audit of what the migration did and read.
    public var sqlTrace: (@Sendable (String) -> Void)?
    /// How long to wait, in seconds, when another migration of the store is running
    /// (`MigrationLock`); 0 fails at once with Core Data's 134090.
    public var lockWait: TimeInterval = 0
    /// How long to wait, in seconds, for other processes to close a store in WAL mode before a
    /// migration into a new file takes it out of WAL mode (`SourceLock`): apps and readers that
    /// come and go are waited for; one that keeps the store open makes the run stop with
    /// "in use" (exit code 74), naming the process where the system says.
    public var inUseWait: TimeInterval = 10
    /// What a migration into a new store does with tables, triggers and views that neither
    /// the model nor Core Data explains (an app's own table, a tool's). In place and SQL on a
    /// copy always keep them as they are; a new store made object by object refuses to start
    /// unless told to copy them as they are or to drop them. The report names them either way.
    public var unknownContents = UnknownContents.refuse

    public init() {}
}

/// What a migration into a new store does with what neither the model nor Core Data explains
/// (``MigrationOptions/unknownContents``).
public enum UnknownContents: String, Sendable, CaseIterable {
    /// Stop before any work, naming each table, trigger and view.
    case refuse
    /// Copy them into the new store as they are (their rows may name objects by keys the
    /// migration changed: the report says so).
    case keep
    /// Leave them behind, each named in the report as discarded.
    case drop
}
