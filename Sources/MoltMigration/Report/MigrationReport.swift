internal import Foundation
internal import MoltCore

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
    /// The route the run took (the plan's, ``plan``): in place, SQL on a copy, or object by
    /// object; nil when nothing was migrated.
    public var route: MigrationPlan.Route?
    /// Whether a heavyweight migration ran its mapping as SQL over a copy of the store, no
    /// object loaded.
    @available(*, deprecated, message: "read route == .sqlOnCopy")
    public var setBased: Bool { route == .sqlOnCopy }
    /// How each entity mapping's relationships were set, pass by pass: planned and actual,
    /// and why they differ where they do. The three lists below are read from it.
    public var related: [RelateOutcome] = []
    /// The entity mappings whose relationships the relate pass set in SQL rather than object by
    /// object (Core Data's default relationship values).
    public var relatedInSQL: [String] { related.filter { $0.actual == .inSQL }.map(\.mapping) }
    /// The entity mappings whose relationships the relate pass wrote a batch of objects at a
    /// time.
    public var relatedInBatches: [String] { related.filter { $0.actual == .inBatches }.map(\.mapping) }
    /// The to-one relationships (as `mapping.relationship`) whose foreign keys the copy pass
    /// wrote with each new row and the relate pass found as it would have set them (see
    /// ``RelatePlan/keysAtInsert``).
    public var keysWrittenAtInsert: [String] {
        related.flatMap { outcome in outcome.keysAtInsert.map { "\(outcome.mapping).\($0)" } }
    }
    @available(*, deprecated, renamed: "keysWrittenAtInsert")
    public var linksWrittenAtInsert: [String] { keysWrittenAtInsert }
    /// Files in the new store's `_EXTERNAL_DATA` (values of attributes with external storage),
    /// when the migration built a support folder for it.
    public var externalFiles: Int?
    /// Why a lightweight migration could not run in place, when it could not.
    public var inPlaceObstacle: String?
    /// What the mapping did not carry into the new version, counted in the old store (only
    /// what there was: see ``DiscardSurvey``).
    public var discarded: [DiscardedData] = []
    /// What became of everything in the store besides its objects: bookkeeping, persistent
    /// history, CloudKit mirroring, metadata keys, tables no model explains.
    public var contents = CarriedContents()
    /// How many mapping models ran, one after the other into the same new store.
    public var passes = 1
    /// Destination objects policies deleted (cascades included).
    public var deletedObjects = 0
    /// Source objects policies deleted from the source context (Core Data's
    /// `sourceContext.delete`), with those their Cascade rules took: never migrated. The
    /// source store itself is not changed.
    public var deletedSourceObjects = 0
    /// The source model's version name, when a ``StoreMigration`` chose it (the destination's
    /// for a store already migrated).
    public var sourceModelName: String?
    /// The name of the version the store was migrated to, when the run knew it by name
    /// (``StoreMigration`` sets it).
    public var destinationModelName: String?
    /// Whether the source model was the store's own embedded model (`Z_MODELCACHE`), no version
    /// given matching the store.
    public var usedEmbeddedSourceModel = false
    /// How the run was carried out, chosen before any work, with the reason for each choice
    /// (nil for a store that was already migrated).
    public var plan: MigrationPlan?
    /// Seconds the migration took.
    public var duration: Double = 0

    public init() {}
}
