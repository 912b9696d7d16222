import MoltCore
import MoltMapping
import MoltStore

/// Pass 2: for each entity mapping, each destination object it made goes to the policy's
/// `createRelationships`.
///
/// How each mapping is related is the run's plan's choice (``RelateChain``), made before the
/// run by the relate strategies in their order (``RelateStrategies/ordered``) from the hooks
/// each policy type overrides (``PolicyRegistry/hooks(of:)``), never by calling a policy. The
/// pass runs the chain's first strategy; only one the plan named as able to decline
/// (``RelateStrategy/declinesWhen``) may hand the mapping to the next, having written nothing,
/// and the report says so (``RelateOutcome``). The strategies are side by side in `Relate/`:
/// nothing to relate, in SQL (``RelateInSQL``), in batches (``RelateInBatches``), object by
/// object (``RelateObjectByObject``).
struct RelatePass {
    let state: PassState
    /// The policies' view of the state, handed to each hook.
    let manager: MigrationManager
    /// The pass's policy of each entity mapping, by mapping name.
    let policies: [String: EntityMigrationPolicy]
    let transaction: BatchTransaction
    let progress: ProgressReporter
    let batchSize: Int
    /// Threads the run may use (``MigrationOptions/jobs``): above 1, a strategy may compute the
    /// next batch on a thread of its own while this one writes.
    var jobs = 1
    /// How each of the pass's mappings is related, as the run's plan chose
    /// (``MigrationPlanner``); a mapping not listed goes object by object.
    let chains: [String: RelateChain]

    func run(report: inout MigrationReport) throws {
        let mappings = state.mappingModel.entityMappings.filter {
            $0.kind.readsSource && policies[$0.name] != nil
        }
        var totals: [String: Int] = [:]
        for mapping in mappings {
            totals[mapping.name] = try state.associations.destinationCount(of: try state.number(of: mapping.name))
        }
        let tally = RelateTally(total: totals.values.reduce(0, +), progress: progress)
        // The pass starts now, even when its first mapping is related in SQL in one go.
        progress.report(.relate, mappings.first?.name, 0, tally.total, force: true)
        for mapping in mappings {
            let policy = policies[mapping.name]!
            state.begin(mapping)
            state.logger.debug("relate: begin", metadata: ["molt.mapping": "\(mapping.name)"])
            // To-ones the copy pass wrote with each new row, as this pass would write them.
            let atInsert = try state.settleKeysAtInsert(mapping)
            let job = RelateJob(
                mapping: mapping, policy: policy, manager: manager, state: state, transaction: transaction,
                tally: tally, batchSize: batchSize, count: totals[mapping.name] ?? 0, keysAtInsert: atInsert,
                jobs: jobs)
            report.related.append(try relate(job, by: chains[mapping.name] ?? .objectByObject))
            try endRelationshipCreation(mapping, policy)
        }
        progress.report(.relate, nil, tally.total, tally.total, force: true)
    }

    /// Relates the job's mapping by the first strategy of `chain` that does not decline, and
    /// says which (``RelateOutcome``).
    private func relate(_ job: RelateJob, by chain: RelateChain) throws -> RelateOutcome {
        let name = job.mapping.name
        var outcome = RelateOutcome(
            pass: state.passNumber, mapping: name, planned: chain.planned.kind, actual: chain.planned.kind,
            keysAtInsert: job.keysAtInsert.sorted())
        for strategy in chain.strategies {
            // Facts about the associations hold for one strategy's run: a policy's own
            // createRelationships may associate more.
            state.relating.associationFacts = [:]
            switch try strategy.relate(job) {
            case .done:
                outcome.actual = strategy.kind
                state.logger.debug(
                    "relate: done", metadata: ["molt.mapping": "\(name)", "molt.strategy": "\(strategy.kind.rawValue)"])
                return outcome
            case .declined(let reason):
                state.logger.debug(
                    "relate: declined",
                    metadata: [
                        "molt.mapping": "\(name)", "molt.strategy": "\(strategy.kind.rawValue)",
                        "molt.reason": "\(reason)",
                    ])
                if outcome.fallbackReason == nil { outcome.fallbackReason = reason }
            }
        }
        throw MoltError(
            .migration, "no relate strategy of the plan related the mapping (\(outcome.fallbackReason ?? ""))",
            entity: name)
    }

    private func endRelationshipCreation(_ mapping: EntityMapping, _ policy: EntityMigrationPolicy) throws {
        try PolicyCall.run(mapping, "endRelationshipCreation", state: state) {
            try policy.endRelationshipCreation(forMapping: mapping, manager: manager)
        }
    }
}
