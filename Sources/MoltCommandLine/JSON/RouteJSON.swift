import Molt

/// A run's plan as `--json` prints it (`migrate --plan`, and `"plan"` in a migration's result).
struct RouteJSON: Encodable {
    struct Relate: Encodable {
        let mapping: String
        /// `nothing`, `sql`, `batches` or `objects`.
        let strategy: String
        let reason: String
        /// To-ones whose foreign keys the copy pass writes with each new row.
        let foreignKeysAtInsert: [String]
    }

    struct Pass: Encodable {
        let pass: Int
        let mappingFile: String?
        let relate: [Relate]
    }

    /// `inPlace`, `sqlOnCopy` or `objects`.
    let route: String
    let reason: String
    let passes: [Pass]
    /// What the run will keep and discard of the store's contents besides its objects.
    let contents: ContentsJSON

    init(_ plan: MigrationPlan) {
        route =
            switch plan.route {
            case .inPlace: "inPlace"
            case .sqlOnCopy: "sqlOnCopy"
            case .objects: "objects"
            }
        reason = plan.reason
        contents = ContentsJSON(plan.contents)
        passes = plan.passes.map { pass in
            Pass(
                pass: pass.number, mappingFile: pass.mappingFile,
                relate: pass.relate.map {
                    Relate(
                        mapping: $0.mapping, strategy: Self.key($0.strategy), reason: $0.reason,
                        foreignKeysAtInsert: $0.foreignKeysAtInsert)
                })
        }
    }

    static func key(_ strategy: RelatePlan.Strategy) -> String {
        switch strategy {
        case .nothing: "nothing"
        case .setBased: "sql"
        case .batched: "batches"
        case .objectByObject: "objects"
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
