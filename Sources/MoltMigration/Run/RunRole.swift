/// What a migration runs as: the whole of what the user asked for, or a part of a larger run
/// that decides what the user's backup and dry run mean for it. The user's
/// ``MigrationOptions`` are passed to every part unchanged; the role says which of them apply.
enum RunRole: Sendable, Equatable {
    /// On its own: the options' backup and dry run apply.
    case whole
    /// A step of an upgrade, on the store itself: never a dry run (an upgrade's dry run
    /// upgrades a copy), backing up the store only when the upgrade says so.
    case upgradeStep(backsUp: Bool)
    /// An upgrade of the temporary copy a dry run makes: no backup, no dry run of its own,
    /// under the copy's own lock.
    case dryRunCopy
    /// The private copy a heavyweight migration's SQL path changes in place: no backup, no
    /// dry run, no journal, no syncing (a failure deletes it), no lock of its own.
    case privateCopy

    /// Whether the store is kept as it was before the run.
    func backsUp(_ options: MigrationOptions) -> Bool {
        switch self {
        case .whole: options.backup && !options.dryRun
        case .upgradeStep(let backsUp): backsUp
        case .dryRunCopy, .privateCopy: false
        }
    }

    /// Whether the run leaves the store as it was.
    func isDryRun(_ options: MigrationOptions) -> Bool {
        self == .whole && options.dryRun
    }
}
