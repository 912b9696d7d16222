/// What a run found and did, before anything else, about an interrupted migration of its store
/// (``UpgradeReport/recovery``).
public enum RecoveryOutcome: Sendable, Equatable {
    /// Nothing was left over.
    case nothingToDo
    /// An interrupted swap was finished: the store is the migrated one.
    case finishedSwap
    /// An unfinished migration's files were removed: the store is the old one.
    case removedUnfinishedMigration
}
