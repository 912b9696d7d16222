import Molt

/// A run's plan as `--json` prints it (`migrate --plan`, and `"plan"` in a migration's result).
struct RouteJSON: Encodable {
    struct Relate: Encodable {
        let mapping: String
        /// `nothing`, `inSQL`, `inBatches` or `objectByObject`.
        let strategy: String
        let reason: String
        /// What the relate pass runs, in order, if the strategy declines at run time.
        let fallbacks: [String]
        /// When the strategy declines, in words.
        let fallsBackWhen: String?
        /// To-ones whose foreign keys the copy pass writes with each new row.
        let keysAtInsert: [String]
    }

    /// How the copy pass makes a mapping's objects (``CopyPlan``).
    struct Copy: Encodable {
        let mapping: String
        /// Worker threads; 1 when in order.
        let threads: Int
        /// Why in order, when it is.
        let inOrder: String?
    }

    struct Pass: Encodable {
        let pass: Int
        let mappingFile: String?
        let relate: [Relate]
        let copy: [Copy]
    }

    /// `inPlace`, `sqlOnCopy` or `objects`.
    let route: String
    let reason: String
    let passes: [Pass]
    /// What the run will keep and discard of the store's contents besides its objects.
    let contents: ContentsJSON

    init(_ plan: MigrationPlan) {
        route = Self.key(plan.route)
        reason = plan.reason
        contents = ContentsJSON(plan.contents)
        passes = plan.passes.map { pass in
            Pass(
                pass: pass.number, mappingFile: pass.mappingFile,
                relate: pass.relate.map {
                    Relate(
                        mapping: $0.mapping, strategy: Self.key($0.strategy), reason: $0.reason,
                        fallbacks: $0.fallbacks.map(Self.key), fallsBackWhen: $0.fallsBackWhen,
                        keysAtInsert: $0.keysAtInsert)
                },
                copy: pass.copy.map { Copy(mapping: $0.mapping, threads: $0.threads, inOrder: $0.inOrder) })
        }
    }

    /// A relate strategy's key: its name in Swift, as everywhere in the JSON.
    static func key(_ strategy: RelatePlan.Strategy) -> String {
        switch strategy {
        case .nothing: "nothing"
        case .inSQL: "inSQL"
        case .inBatches: "inBatches"
        case .objectByObject: "objectByObject"
        }
    }

    /// A route's key: its name in Swift.
    static func key(_ route: MigrationPlan.Route) -> String {
        switch route {
        case .inPlace: "inPlace"
        case .sqlOnCopy: "sqlOnCopy"
        case .objects: "objects"
        }
    }
}

/// `migrate --plan --json`: the versions and the plan (null when the store is already at the
/// destination version).
struct PlanOnlyJSON: Encodable {
    let from: String?
    let to: String?
    let alreadyMigrated: Bool
    let plan: RouteJSON?
}
