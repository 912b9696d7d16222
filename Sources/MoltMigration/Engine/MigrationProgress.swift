import MoltCore

/// How far a migration has come: the pass, the entity mapping being run, the objects done and
/// to do in this step, and the fraction of the whole migration.
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

        /// The fault point (a testing aid, see ``FaultPoint``) reached each time this pass
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

    public var description: String {
        let of = mappingPasses > 1 && pass != .validate ? " (pass \(mappingPass) of \(mappingPasses))" : ""
        return
            "\(Int((fraction * 100).rounded()))% \(pass.rawValue)\(of)\(step.map { " \($0)" } ?? "") \(completed)/\(total)"
    }
}

/// What a migration did.
public struct MigrationReport: Sendable {
    /// One entity mapping's work: source objects read (after the filter) and destination
    /// objects made.
    public struct MappingCount: Sendable, Hashable {
        public var mapping: String
        public var sourceObjects: Int
        public var destinationObjects: Int
        /// The pass that ran the mapping (from 1; see ``HeavyweightMigration/mappings``).
        public var pass = 1
    }

    public var mappings: [MappingCount] = []
    /// Objects per entity in the source and in the destination store.
    public var sourceCounts: [String: Int] = [:]
    public var destinationCounts: [String: Int] = [:]
    /// Where the old store was kept, when asked for.
    public var backup: String?
    /// Whether the store was left as it was (a dry run).
    public var dryRun = false
    /// Whether the store was already at the destination version, so nothing was done (another
    /// run migrated it, perhaps while this one waited for the lock).
    public var alreadyMigrated = false
    /// Whether the store was migrated in place with SQL (a lightweight migration) rather than
    /// copied object by object into a new file.
    public var inPlace = false
    /// Whether a heavyweight migration ran its mapping as SQL over a copy of the store, no
    /// object loaded (see ``MigrationOptions/allowsSQLCopy``).
    public var setBased = false
    /// The entity mappings whose relationships the relate pass set in SQL rather than object by
    /// object (Core Data's default relationship values; see ``MigrationOptions/allowsSQLCopy``).
    public var relatedInSQL: [String] = []
    /// The entity mappings whose relationships the relate pass wrote a batch of objects at a
    /// time (see ``MigrationOptions/allowsBatchedRelationships``).
    public var relatedInBatches: [String] = []
    /// Files in the new store's `_EXTERNAL_DATA` (values of attributes with external storage),
    /// when the migration built a support folder for it.
    public var externalFiles: Int?
    /// Why a lightweight migration could not run in place, when it could not.
    public var inPlaceObstacle: String?
    /// What the mapping did not carry into the new version, counted in the old store (only
    /// what there was: see ``DiscardSurvey``).
    public var discarded: [DiscardedData] = []
    /// How many mapping models ran, one after the other into the same new store.
    public var passes = 1
    /// Destination objects policies deleted (cascades included).
    public var deletedObjects = 0
    /// Seconds the migration took.
    public var duration: Double = 0
}
