/// How far a seed's import has come (``ObjectsJSONImporter/progress``): the pass, the objects
/// done and to do in it, and the fraction of the whole import.
///
/// An import has five passes, which weigh the same (as a migration's do): reading the file,
/// inserting the objects, setting their relationships (to-ones, then to-manys: each object
/// twice), reading the relationships back to compare, and checking the model's rules (entity by
/// entity, counting its objects). The count is the pass's own, so it starts again at each pass; the fraction is the
/// whole import's, which is what a percentage shows.
public struct SeedProgress: Sendable, Hashable, CustomStringConvertible {
    public enum Pass: String, Sendable, Hashable, CaseIterable {
        case read, insert, relate, verify, check
    }

    public var pass: Pass
    /// Objects done and to do in this pass.
    public var completed: Int
    public var total: Int

    public init(pass: Pass, completed: Int, total: Int) {
        self.pass = pass
        self.completed = completed
        self.total = total
    }

    /// The whole import, from 0 to 1.
    public var fraction: Double {
        let within = total > 0 ? min(1, Double(completed) / Double(total)) : 1
        let index = Double(Pass.allCases.firstIndex(of: pass) ?? 0)
        return (index + within) / Double(Pass.allCases.count)
    }

    /// What is being done, without the percentage: `insert 1200/3000`.
    public var activity: String {
        "\(pass.rawValue) \(completed)/\(total)"
    }

    /// `25% overall · insert 1200/3000`: the percentage is the whole import's, the count the pass's.
    public var description: String {
        "\(Int((fraction * 100).rounded()))% overall · \(activity)"
    }
}

/// Hands an import's progress to its callback at most once per ~0.5% of the import (and at
/// each pass's start and end), and checks for cancellation every few hundred objects, so
/// neither costs anything per object.
struct SeedTicker {
    let progress: ((SeedProgress) -> Void)?
    let checkCancelled: (() throws -> Void)?
    private var lastFraction = -1.0

    init(progress: ((SeedProgress) -> Void)?, checkCancelled: (() throws -> Void)?) {
        self.progress = progress
        self.checkCancelled = checkCancelled
    }

    /// Notes that `completed` of `total` are done in `pass`.
    mutating func tick(_ pass: SeedProgress.Pass, _ completed: Int, _ total: Int) throws {
        let edge = completed == 0 || completed == total
        guard edge || completed % 256 == 0 else { return }
        try checkCancelled?()
        report(pass, completed, total)
    }

    /// Hands `completed` of `total` in `pass` to the callback when due (without checking for
    /// cancellation: for a caller that checks its own way).
    mutating func report(_ pass: SeedProgress.Pass, _ completed: Int, _ total: Int) {
        guard let progress else { return }
        let edge = completed == 0 || completed == total
        let report = SeedProgress(pass: pass, completed: completed, total: total)
        guard edge || report.fraction - lastFraction >= 0.005 else { return }
        lastFraction = report.fraction
        progress(report)
    }
}
