/// How one run migrates a store, decided once, before any work, by the run's planner: the
/// route of the step, and for each pass how each entity mapping's relationships are set, each
/// choice with its reason. The drivers carry it out; nothing else chooses a route.
///
/// Every route gives the store the object-by-object route gives (the differential test runs
/// generated models, stores and mappings through each route, forced one at a time, and
/// compares them); a faster route is taken only where that is known to hold.
public struct MigrationPlan: Sendable, Equatable {
    /// How the step's store is made.
    public enum Route: String, Sendable, Equatable, CaseIterable {
        /// The store itself is changed with SQL in one transaction (an inferred mapping).
        case inPlace = "in place"
        /// A copy of the store is changed with SQL, then validated and swapped in (a mapping
        /// file that needs no object loaded).
        case sqlOnCopy = "SQL on a copy"
        /// Core Data's two-stack copy: every object read, made and related by the passes.
        case objects = "object by object"
    }

    public var route: Route
    /// Why this route, in a sentence.
    public var reason: String
    /// The passes of the step, in order (one for most steps). For the in-place and SQL routes,
    /// the one pass's mappings are all run by SQL and list no relate strategy.
    public var passes: [PassPlan]
    /// What the run will do with the store's contents besides its objects, as forecast from
    /// the store: what it keeps and what it discards. The history changes it renumbers or
    /// deletes (of objects the step does not carry) only the run counts, in its report. Empty
    /// for a step whose store does not exist yet (a later step of an upgrade).
    public var contents = CarriedContents()

    public init(route: Route, reason: String, passes: [PassPlan]) {
        self.route = route
        self.reason = reason
        self.passes = passes
    }
}

/// One pass of a step: one mapping model run into the new store.
public struct PassPlan: Sendable, Equatable {
    /// From 1.
    public var number: Int
    /// The mapping model's file, when it was read from one.
    public var mappingFile: String?
    /// How each entity mapping that reads source objects has its relationships set, in the
    /// mapping model's order (object-by-object route only).
    public var relate: [RelatePlan]
    /// How the copy pass makes each entity mapping's objects that reads source objects, in the
    /// mapping model's order (object-by-object route only).
    public var copy: [CopyPlan] = []

    public init(number: Int, mappingFile: String?, relate: [RelatePlan], copy: [CopyPlan] = []) {
        self.number = number
        self.mappingFile = mappingFile
        self.relate = relate
        self.copy = copy
    }
}

/// How the copy pass makes one entity mapping's objects: on worker threads beside the one
/// that writes (``MigrationOptions/jobs``), or in order on one thread, and why.
public struct CopyPlan: Sendable, Equatable {
    public var mapping: String
    /// Worker threads that run the mapping's hooks; 1 when it runs in order.
    public var threads: Int
    /// Why the mapping runs in order, when it does.
    public var inOrder: String?

    public init(mapping: String, threads: Int, inOrder: String?) {
        self.mapping = mapping
        self.threads = threads
        self.inOrder = inOrder
    }
}

/// How the relate pass sets one entity mapping's relationships: the strategy the plan chose,
/// why, and what it may fall back on at run time.
public struct RelatePlan: Sendable, Equatable {
    /// A way of setting a mapping's relationships. The case names are the keys `--json`
    /// prints; the raw values are the words the plan and the report print.
    public enum Strategy: String, Sendable, Equatable, CaseIterable {
        /// No relationship value to set.
        case nothing = "nothing to relate"
        /// A few SQL statements for the whole mapping (Core Data's default values, the
        /// policy's own `createRelationships` not overridden). When the associations the copy
        /// pass made need it (a source object made into several destinations of a to-one…), the
        /// mapping falls back to the strategies the plan names (``RelatePlan/fallbacks``),
        /// which the report says.
        case inSQL = "in SQL"
        /// The default values computed per object, written a batch of objects at a time.
        case inBatches = "in batches"
        /// The policy's `createRelationships` called for each destination object.
        case objectByObject = "object by object"

        @available(*, deprecated, renamed: "inSQL")
        public static var setBased: Strategy { .inSQL }
        @available(*, deprecated, renamed: "inBatches")
        public static var batched: Strategy { .inBatches }
    }

    public var mapping: String
    public var strategy: Strategy
    public var reason: String
    /// What the relate pass runs, in order, when ``strategy`` declines at run time, having
    /// written nothing (only ``Strategy/inSQL`` may; ``fallsBackWhen`` says when). Empty when
    /// the strategy never declines.
    public var fallbacks: [Strategy] = []
    /// When ``strategy`` declines at run time, in words; nil when it never does.
    public var fallsBackWhen: String?
    /// To-one relationships (of a mapping related in batches or in SQL) whose foreign keys the
    /// copy pass writes with each new row, as the relate pass would set them: the row is
    /// written once. The relate pass checks every key against what the target mapping made
    /// and writes the relationship itself when one does not hold; the report names those whose
    /// keys held (``RelateOutcome/keysAtInsert``, ``MigrationReport/keysWrittenAtInsert``).
    public var keysAtInsert: [String] = []

    @available(*, deprecated, renamed: "keysAtInsert")
    public var foreignKeysAtInsert: [String] {
        get { keysAtInsert }
        set { keysAtInsert = newValue }
    }

    public init(mapping: String, strategy: Strategy, reason: String) {
        self.mapping = mapping
        self.strategy = strategy
        self.reason = reason
    }
}

extension MigrationPlan: CustomStringConvertible {
    /// The plan as lines: the route and its reason, then each pass and its mappings.
    public var description: String {
        var lines = ["Route: \(route.rawValue) (\(reason))"]
        for pass in passes {
            if passes.count > 1 || !pass.relate.isEmpty {
                let file = pass.mappingFile.map { " (\($0))" } ?? ""
                lines.append("Pass \(pass.number) of \(passes.count)\(file):")
            }
            for relate in pass.relate {
                let atInsert =
                    relate.keysAtInsert.isEmpty
                    ? "" : "; \(relate.keysAtInsert.joined(separator: ", ")) written with each new row"
                let fallback =
                    relate.fallbacks.isEmpty
                    ? ""
                    : "; \(relate.fallbacks.map(\.rawValue).joined(separator: ", then ")) when \(relate.fallsBackWhen ?? "it declines")"
                let how =
                    relate.strategy == .nothing ? "nothing to relate" : "relationships \(relate.strategy.rawValue)"
                lines.append("  \(relate.mapping): \(how) (\(relate.reason))\(atInsert)\(fallback)")
            }
            // Said only when some mapping runs on workers (one thread is the rule elsewhere).
            let onWorkers = pass.copy.filter { $0.inOrder == nil }
            if !onWorkers.isEmpty {
                // One line per number of workers, in the order the mappings come (every
                // mapping on workers has `jobs - 1` today; a plan built otherwise says each).
                var counts: [Int] = []
                for plan in onWorkers where !counts.contains(plan.threads) { counts.append(plan.threads) }
                for threads in counts {
                    let names = onWorkers.filter { $0.threads == threads }.map(\.mapping)
                    lines.append(
                        "  copy on \(threads) worker thread\(threads == 1 ? "" : "s"): \(names.joined(separator: ", "))"
                    )
                }
                for plan in pass.copy where plan.inOrder != nil {
                    lines.append("  copy in order: \(plan.mapping) (\(plan.inOrder ?? ""))")
                }
            }
        }
        if !contents.isEmpty {
            lines.append("Store contents besides the objects:")
            lines += contents.lines.map { "  \($0)" }
        }
        return lines.joined(separator: "\n")
    }
}
