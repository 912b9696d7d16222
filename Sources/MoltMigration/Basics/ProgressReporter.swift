/// Hands progress to the caller's callback, at most once per ~0.5% of a pass (and always at
/// the end of one), so reporting costs nothing per object.
final class ProgressReporter {
    private let callback: ((MigrationProgress) -> Void)?
    private var lastFraction = -1.0
    /// The mapping model running, of how many (a step split into passes).
    var mappingPass = (number: 1, count: 1)

    init(_ callback: ((MigrationProgress) -> Void)?) {
        self.callback = callback
    }

    func report(
        _ pass: MigrationProgress.Pass, _ step: String?, _ completed: Int, _ total: Int, force: Bool = false,
        passes: [MigrationProgress.Pass] = MigrationProgress.heavyweightPasses
    ) {
        pass.reachFaultPoint()
        guard let callback else { return }
        let progress = MigrationProgress(
            pass: pass, step: step, completed: completed, total: total, passes: passes,
            mappingPass: mappingPass.number, mappingPasses: mappingPass.count)
        guard force || progress.fraction - lastFraction >= 0.005 else { return }
        lastFraction = progress.fraction
        callback(progress)
    }
}
