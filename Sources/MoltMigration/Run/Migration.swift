/// What every way of migrating a store has in common: it is made with what the user asked for
/// (``MigrationOptions``) and a ``RunContext``, run once, and may be stopped from any thread.
///
/// Adopted by ``HeavyweightMigration``, ``LightweightMigration`` and ``StoreUpgrade``.
public protocol Migration<Report>: AnyObject, Sendable {
    /// What a run gives back.
    associatedtype Report
    /// The run's logger, progress and cancellation.
    var context: RunContext { get }
    /// Runs the migration.
    @discardableResult
    func run() throws -> Report
    /// Stops the run; it fails with Core Data's 134120 and leaves the store as it was.
    func cancel()
}

extension Migration {
    public func cancel() {
        context.cancel()
    }
}
