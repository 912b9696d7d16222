/// One way the relate pass may set an entity mapping's relationships: planned from facts known
/// before any object is read (``RelateFacts``), then run for the mapping's destination objects
/// (``RelateJob``).
///
/// The strategies are tried in one order (``RelateStrategies/ordered``); the plan for a
/// mapping is the first that takes it, followed, when that one may decline at run time, by the
/// next that takes it, and so on (``RelateChain``). Every strategy leaves the store the
/// object-by-object one (the policy's `createRelationships` for each object, as Core Data
/// calls it) leaves; the differential test holds each one to that.
///
/// A new strategy is one file that conforms, and one entry in ``RelateStrategies/ordered``.
protocol RelateStrategy {
    /// The strategy's name in the plan, the report, the JSON and the command line.
    static var kind: RelatePlan.Strategy { get }

    /// When the strategy may leave a mapping it was planned for to the next strategy of the
    /// chain, having written nothing, in words (shown with the plan); nil when it never does.
    static var declinesWhen: String? { get }

    /// Takes `facts.mapping` with the reason, or declines it with the reason; `declined` are
    /// the reasons of the strategies before it that declined, in order (a strategy may say
    /// why it is chosen in terms of why those were not).
    static func plan(_ facts: RelateFacts, after declined: [String]) throws -> RelateChoice

    /// The relationships the strategy writes as a set rather than object by object: the
    /// to-ones among them may have their keys written with each new row by the copy pass
    /// (``KeyAtInsert``), which the strategy then checks and does not write again.
    var relationshipsWrittenAsASet: Set<String> { get }

    /// Relates the job's mapping: every destination object counted on the job's tally, or
    /// nothing written and ``RelateResult/declined(_:)`` with the reason.
    func relate(_ job: RelateJob) throws -> RelateResult
}

extension RelateStrategy {
    var relationshipsWrittenAsASet: Set<String> { [] }
    var kind: RelatePlan.Strategy { Self.kind }
    var declinesWhen: String? { Self.declinesWhen }
}

/// A strategy's answer when planned for a mapping.
enum RelateChoice {
    /// The strategy relates the mapping, as planned here.
    case take(any RelateStrategy, reason: String)
    /// It does not, and why.
    case decline(String)
}

/// How running a strategy for a mapping ended.
enum RelateResult {
    /// Every relationship of the mapping's destination objects is set.
    case done
    /// Nothing was written; the next strategy of the chain relates the mapping.
    case declined(String)
}

/// The relate strategies, in the order they are tried.
enum RelateStrategies {
    /// Nothing to relate; in SQL; in batches; object by object (which always takes a mapping
    /// and never declines, so every chain ends).
    nonisolated(unsafe) static let ordered: [any RelateStrategy.Type] = [
        NothingToRelate.self, RelateInSQL.self, RelateInBatches.self, RelateObjectByObject.self,
    ]

    /// The chain for the mapping of `facts`: the first strategy that takes it, then, while the
    /// last one taken may decline at run time, the next that takes it.
    static func chain(_ facts: RelateFacts) throws -> RelateChain {
        var strategies: [any RelateStrategy] = []
        var reason = ""
        var declined: [String] = []
        for type in ordered {
            switch try type.plan(facts, after: declined) {
            case .take(let strategy, let why):
                if strategies.isEmpty { reason = why }
                strategies.append(strategy)
                if type.declinesWhen == nil { return RelateChain(strategies: strategies, reason: reason) }
            case .decline(let why):
                declined.append(why)
            }
        }
        // The last strategy always takes a mapping; a list without it is a programming error.
        preconditionFailure("the last relate strategy declined \(facts.mapping.name)")
    }
}

/// The strategies planned for one mapping, in the order the relate pass tries them: the first
/// is the plan's choice, each next one the fallback of the one before, which may decline at
/// run time (``RelateStrategy/declinesWhen``). The last never declines.
struct RelateChain {
    let strategies: [any RelateStrategy]
    /// Why the first strategy.
    let reason: String

    /// What the relate pass does for a mapping with no plan (the policy, for each object).
    static var objectByObject: RelateChain {
        RelateChain(strategies: [RelateObjectByObject()], reason: "the plan names no strategy for it")
    }

    var planned: any RelateStrategy { strategies[0] }

    /// The strategy of the chain of type `type`, if any.
    func first<Strategy: RelateStrategy>(_ type: Strategy.Type) -> Strategy? {
        strategies.lazy.compactMap { $0 as? Strategy }.first
    }

    /// The plan's public account of the chain, for `mapping`.
    func publicPlan(mapping: String, keysAtInsert: [String]) -> RelatePlan {
        var plan = RelatePlan(mapping: mapping, strategy: planned.kind, reason: reason)
        plan.fallbacks = strategies.dropFirst().map(\.kind)
        plan.fallsBackWhen = strategies.dropLast().compactMap(\.declinesWhen).first
        plan.keysAtInsert = keysAtInsert
        return plan
    }
}
