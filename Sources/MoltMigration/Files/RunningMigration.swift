/// A migration of a store running now, in another process or thread, as its migration lock
/// says (``UpgradePlan/runningMigration``).
public struct RunningMigration: Sendable, Hashable, CustomStringConvertible {
    /// The process running it, when the lock file says.
    public let processID: Int32?

    package init(processID: Int32?) {
        self.processID = processID
    }

    /// "a migration of this store is running (process 1234)".
    public var description: String {
        "a migration of this store is running\(processID.map { " (process \($0))" } ?? "")"
    }
}
