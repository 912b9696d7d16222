internal import MoltCore

/// How far an upgrade got: the version the store is at and how many steps it migrated. Each
/// step is complete or not done, so an upgrade stopped in step 3 (cancelled, or failed) leaves
/// the store at the version step 2 reached, not the one it started from; the error that stops
/// it carries that version (``MoltError/storeVersion``) so that the user is told where the
/// store is, and that running again continues from there.
struct UpgradeReached {
    private(set) var version: String
    private(set) var steps: Int
    let count: Int

    init(version: String, steps: Int, of count: Int) {
        self.version = version
        self.steps = steps
        self.count = count
    }

    /// Notes that `step`'s migration finished: the store is at its destination version, even
    /// if the stage's didMigrate that follows fails.
    mutating func migrated(_ step: UpgradeStep) {
        version = step.destinationModel.name ?? step.to.name
        steps += 1
    }

    /// `error`, saying the version the store is at and how many steps finished.
    func stamp(_ error: MoltError) -> MoltError {
        var stamped = error
        stamped.storeVersion = version
        stamped.details.append(
            steps == 0
                ? "no step of the upgrade finished: the store is at \(version), as it was"
                : "\(steps) of \(count) step\(count == 1 ? "" : "s") finished and stay done: the store is at \(version)"
        )
        return stamped
    }
}
