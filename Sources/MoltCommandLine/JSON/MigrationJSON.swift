import Molt

/// A migration's report as `migrate --json` prints it (and each step of `upgrade --json`).
struct MigrationJSON: Encodable {
    struct Mapping: Encodable {
        let mapping: String
        let pass: Int
        let read: Int
        let made: Int
    }

    let from: String?
    let to: String?
    let dryRun: Bool
    let alreadyMigrated: Bool
    /// In place (a lightweight migration changed the store's tables).
    let inPlace: Bool
    /// Why a lightweight migration was copied instead of changed in place.
    let inPlaceObstacle: String?
    /// The route taken: `inPlace`, `sqlOnCopy` or `objects` (null when nothing was migrated).
    let route: String?
    let passes: Int
    let seconds: Double
    let mappings: [Mapping]
    let deletedObjects: Int
    let deletedSourceObjects: Int
    let sourceCounts: [String: Int]
    let destinationCounts: [String: Int]
    let discarded: [DiscardJSON]
    /// What became of the store's contents besides its objects.
    let contents: ContentsJSON
    let externalFiles: Int?
    /// The old store's name, when it was kept.
    let backup: String?
    /// How the run was carried out and why (null for a store already migrated).
    let plan: RouteJSON?
    /// How each mapping's relationships were set: planned and actual, and why they differ.
    let related: [RelatedJSON]

    init(_ report: MigrationReport, from: String?, to: String?) {
        self.from = from
        self.to = to
        dryRun = report.dryRun
        alreadyMigrated = report.alreadyMigrated
        inPlace = report.inPlace
        inPlaceObstacle = report.inPlaceObstacle
        route = report.route.map(RouteJSON.key)
        passes = report.passes
        seconds = (report.duration * 1000).rounded() / 1000
        mappings = report.mappings.map {
            Mapping(mapping: $0.mapping, pass: $0.pass, read: $0.sourceObjects, made: $0.destinationObjects)
        }
        deletedObjects = report.deletedObjects
        deletedSourceObjects = report.deletedSourceObjects
        sourceCounts = report.sourceCounts
        destinationCounts = report.destinationCounts
        discarded = report.discarded.map(DiscardJSON.init)
        contents = ContentsJSON(report.contents)
        externalFiles = report.externalFiles
        backup = report.backup
        plan = report.plan.map(RouteJSON.init)
        related = report.related.map(RelatedJSON.init)
    }
}

/// One mapping's relate outcome (``RelateOutcome``), its strategies keyed as the plan's are.
struct RelatedJSON: Encodable {
    let pass: Int
    let mapping: String
    let planned: String
    let actual: String
    let fallbackReason: String?
    let keysAtInsert: [String]

    init(_ outcome: RelateOutcome) {
        pass = outcome.pass
        mapping = outcome.mapping
        planned = RouteJSON.key(outcome.planned)
        actual = RouteJSON.key(outcome.actual)
        fallbackReason = outcome.fallbackReason
        keysAtInsert = outcome.keysAtInsert
    }
}

/// What a migration does not carry into the new version.
struct DiscardJSON: Encodable {
    /// `objects`, `attributeValues`, `links` or `filteredObjects`.
    let kind: String
    let entity: String
    /// The attribute or relationship, for values and links.
    let property: String?
    /// How many, when counted in a store.
    let count: Int?
    let reason: String
    /// The policy that may carry them.
    let policy: String?
    let description: String

    init(_ item: DiscardedData) {
        switch item.kind {
        case .objects(let name): (kind, entity, property) = ("objects", name, nil)
        case .attributeValues(let name, let attribute): (kind, entity, property) = ("attributeValues", name, attribute)
        case .links(let name, let relationship): (kind, entity, property) = ("links", name, relationship)
        case .filteredObjects(let name): (kind, entity, property) = ("filteredObjects", name, nil)
        }
        count = item.count
        reason = item.reason
        policy = item.policy
        description = item.description
    }
}
