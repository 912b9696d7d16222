import MoltCore

/// How far a migration has come: the pass, the entity mapping being run, the objects done and
/// to do in this pass, and the fraction of the whole migration. The two measures differ (the
/// count starts again at each pass, the fraction does not), so a line shows the fraction as
/// the overall percentage and the count after the pass it belongs to (``description``).
///
/// A heavyweight migration has three passes (copy, relate, validate); an in-place one has two
/// (alter: its tables one by one, then validate). Passes weigh the same; within a pass, each
/// entity mapping weighs its number of objects (the copy pass counts the rows its filter's SQL
/// part keeps, so a filter evaluated on objects can make it finish early), and each table one
/// step.
public struct MigrationProgress: Sendable, Hashable, CustomStringConvertible {
    public enum Pass: String, Sendable, Hashable, CaseIterable {
        case copy, relate, validate
        /// In place: reading links, then changing or rebuilding tables one by one.
        case alter

        /// The fault point (a testing aid of the molt command, `FaultPoint`) reached each time this pass
        /// reports progress: `pass.copy`, `pass.relate`, `pass.validate`, `pass.alter`.
        func reachFaultPoint() {
            switch self {
            case .copy: FaultPoint.reach("pass.copy")
            case .relate: FaultPoint.reach("pass.relate")
            case .validate: FaultPoint.reach("pass.validate")
            case .alter: FaultPoint.reach("pass.alter")
            }
        }
    }

    /// The passes of a heavyweight migration.
    public static let heavyweightPasses: [Pass] = [.copy, .relate, .validate]

    public var pass: Pass
    /// The entity mapping (copy, relate) or entity (validate) being worked on.
    public var step: String?
    /// Objects done and to do in this pass.
    public var completed: Int
    public var total: Int
    /// The whole migration, from 0 to 1.
    public var fraction: Double
    /// Which mapping model runs (from 1) and how many a step split into several has
    /// (``HeavyweightMigration/mappings``): each runs its own copy and relate, then the
    /// destination is validated once.
    public var mappingPass: Int
    public var mappingPasses: Int

    public init(
        pass: Pass, step: String?, completed: Int, total: Int, passes: [Pass] = heavyweightPasses,
        mappingPass: Int = 1, mappingPasses: Int = 1
    ) {
        self.pass = pass
        self.step = step
        self.completed = completed
        self.total = total
        self.mappingPass = mappingPass
        self.mappingPasses = mappingPasses
        let within = total > 0 ? min(1, Double(completed) / Double(total)) : 1
        if mappingPasses > 1, passes == Self.heavyweightPasses {
            // copy 1, relate 1, copy 2, relate 2, …, validate: each weighs the same.
            let slot: Int =
                switch pass {
                case .copy: (mappingPass - 1) * 2
                case .relate: (mappingPass - 1) * 2 + 1
                default: mappingPasses * 2
                }
            fraction = (Double(slot) + within) / Double(mappingPasses * 2 + 1)
        } else {
            let index = Double(passes.firstIndex(of: pass) ?? 0)
            fraction = (index + within) / Double(max(1, passes.count))
        }
    }

    /// What is being done, without the percentage: `copy AuthorToAuthor 2/10`,
    /// `relate (pass 2 of 3) NoteToNote 40/90`.
    public var activity: String {
        let of = mappingPasses > 1 && pass != .validate ? " (pass \(mappingPass) of \(mappingPasses))" : ""
        let on = step.flatMap { $0.isEmpty ? nil : " \($0)" } ?? ""
        return "\(pass.rawValue)\(of)\(on) \(completed)/\(total)"
    }

    /// `40% overall · relate NoteToNote 4/10`: the percentage is the whole migration's, the
    /// count this pass's (it starts again at each pass), so the two are labelled apart.
    public var description: String {
        "\(Int((fraction * 100).rounded()))% overall · \(activity)"
    }
}
