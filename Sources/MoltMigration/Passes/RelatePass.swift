import MoltCore
import MoltMapping
import MoltStore

/// Pass 2: for each entity mapping, each destination object it made goes to the policy's
/// `createRelationships`.
///
/// How each mapping is related is the run's plan's choice (``RelateRoute``), made before the
/// run from the hooks each policy type overrides (``PolicyRegistry/hooks(of:)``), never by
/// calling a policy. When the policy keeps the default `createRelationships` and the mapping's
/// relationship values are Core Data's own form, the whole mapping is related in SQL instead
/// (``SetBasedRelate``): the same store, without a call per object; when the associations the
/// copy pass made need the objects after all, it is related as below.
///
/// A mapping left to the objects whose policy keeps the default and whose values have Core
/// Data's default form is related a batch of destination objects at a time
/// (``PassState/relateBatchByDefault(_:mapping:plan:skipping:each:)``): the same store, each
/// relationship written once per batch, and only the source relationships its values read
/// are read ahead. A to-many relationship whose inverse another mapping already wrote with
/// these very links is not written again (``InverseLinks``); a mapping with nothing else to
/// write is not visited. Every other mapping goes object by object (``ObjectByObjectRelate``).
/// The three strategies are side by side in `Relate/`.
struct RelatePass {
    let state: PassState
    /// The policies' view of the state, handed to each hook.
    let manager: MigrationManager
    /// The pass's policy of each entity mapping, by mapping name.
    let policies: [String: EntityMigrationPolicy]
    let transaction: BatchTransaction
    let progress: ProgressReporter
    let batchSize: Int
    /// How each of the pass's mappings is related, as the run's plan chose
    /// (``MigrationPlanner``); a mapping not listed goes object by object.
    let routes: [String: RelateRoute]

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
            // Facts about the associations hold for one mapping: a policy's own
            // createRelationships may associate more.
            state.sqlState.associationFacts = [:]
            state.logger.debug("relate: begin", metadata: ["molt.mapping": "\(mapping.name)"])
            // To-ones the copy pass wrote with each new row, as this pass would write them.
            let atInsert = try state.settleLinksAtInsert(mapping)
            try relate(
                mapping, policy: policy, atInsert: atInsert, count: totals[mapping.name] ?? 0, tally: tally,
                report: &report)
            try endRelationshipCreation(mapping, policy)
        }
        progress.report(.relate, nil, tally.total, tally.total, force: true)
    }

    /// Relates one mapping's `count` destination objects by the route the plan chose for it,
    /// or by the route the plan named to fall back on, and records which (``RelateOutcome``).
    private func relate(
        _ mapping: EntityMapping, policy: EntityMigrationPolicy, atInsert: Set<String>, count: Int,
        tally: RelateTally, report: inout MigrationReport
    ) throws {
        let route = routes[mapping.name] ?? .objectByObject
        var outcome = RelateOutcome(
            pass: state.passNumber, mapping: mapping.name, planned: route.strategy, actual: route.strategy,
            keysAtInsert: atInsert.sorted())
        defer { report.related.append(outcome) }
        var batched: BatchedRelatePlan?
        switch route {
        case .nothing:
            tally.advance(by: count, in: mapping)
            return
        case .setBased(let plan, let fallback):
            let refusal = try relateInSQL(plan, atInsert: atInsert)
            guard let refusal else {
                try transaction.step()
                tally.advance(by: count, in: mapping)
                state.logger.debug("relate: done in SQL", metadata: ["molt.mapping": "\(mapping.name)"])
                return
            }
            state.logger.debug(
                "relate: not in SQL", metadata: ["molt.mapping": "\(mapping.name)", "molt.reason": "\(refusal)"])
            batched = fallback
            outcome.actual = fallback == nil ? .objectByObject : .batched
            outcome.fallbackReason = refusal
        case .batched(let plan):
            batched = plan
        case .objectByObject:
            break
        }
        try relateObjects(mapping, policy: policy, batched: batched, atInsert: atInsert, count: count, tally: tally)
    }

    /// Runs `plan`'s statements; when the run must relate the objects after all, nothing is
    /// written and the reason is returned: SQL reads the source store's links as stored, not
    /// once a policy deleted source objects from the run's context, and the plan itself gives
    /// up when the associations need the objects.
    private func relateInSQL(_ plan: SetBasedRelate, atInsert: Set<String>) throws -> String? {
        guard state.isSourceAttached else { return "the source store is not attached to the new store's connection" }
        guard !state.hasDeletedSources else {
            return "a policy deleted source objects from the run's context, and SQL reads the links as stored"
        }
        let done = try state.runInterruptibly({ try plan.run(state: state, skipping: atInsert) })
        return done
            ? nil
            : "the associations the copy pass made are not one to one, or a to-one would get several objects from the links"
    }

    /// Relates the mapping's destination objects a batch at a time: by the default values
    /// written for the whole batch (`batched`), or through the policy for each object.
    private func relateObjects(
        _ mapping: EntityMapping, policy: EntityMigrationPolicy, batched: BatchedRelatePlan?, atInsert: Set<String>,
        count: Int, tally: RelateTally
    ) throws {
        // Relationships whose inverse another mapping already wrote with these very links.
        let alreadyWritten = try batched?.alreadyWritten(state) ?? []
        let skipped = batched == nil ? alreadyWritten : alreadyWritten.union(atInsert)
        let compiled = state.compiledMapping(mapping)
        if !skipped.isEmpty {
            state.logger.debug(
                "relate: already written",
                metadata: [
                    "molt.mapping": "\(mapping.name)", "molt.inverses": "\(alreadyWritten.sorted())",
                    "molt.atInsert": "\(atInsert.sorted())",
                ])
            if compiled.relationships.allSatisfy({ skipped.contains($0.relationship.name) }) {
                if let batched { try batched.recordWritten(batched.batched.subtracting(alreadyWritten), state) }
                tally.advance(by: count, in: mapping)
                return
            }
        }
        let number = try state.number(of: mapping.name)
        let reads = batched?.sourceRelationships(skipping: skipped, of: compiled)
        let objectByObject = ObjectByObjectRelate(policy: policy, manager: manager)
        let each: () throws -> Void = {
            try transaction.step()
            tally.advance(by: 1, in: mapping)
        }
        // Join tables the batches fill from empty are filled without their index on the
        // other side's key, made again after the last batch.
        let filled = batched?.joinTablesFilled(skipping: skipped, layout: state.destination.layout) ?? []
        var after: (root: Int, primaryKey: Int64) = (0, 0)
        try IndexesSetAside.whileFilling(filled, layout: state.destination.layout, state.destination.store.connection) {
            while true {
                let batch = try state.associations.destinations(of: number, after: after, limit: batchSize)
                guard let last = batch.last else { break }
                after = (last.root, last.primaryKey)
                try state.beginRelateBatch(
                    batch, mapping: number, relationshipsOnly: batched != nil, relationships: reads)
                defer { state.endRelateBatch() }
                let objects = try batch.map { DestinationObject(id: try state.objectID($0, in: state.destination)) }
                if let batched {
                    try state.relateBatchByDefault(
                        objects, mapping: mapping, plan: batched, skipping: skipped, each: each)
                } else {
                    try objectByObject.relate(objects, mapping: mapping, state: state, each: each)
                }
            }
        }
        if let batched { try batched.recordWritten(batched.batched.subtracting(alreadyWritten), state) }
    }

    private func endRelationshipCreation(_ mapping: EntityMapping, _ policy: EntityMigrationPolicy) throws {
        try PolicyCall.run(mapping, "endRelationshipCreation", state: state) {
            try policy.endRelationshipCreation(forMapping: mapping, manager: manager)
        }
    }
}

/// How far the relate pass is: objects related so far of the pass's total, reported as it goes.
private final class RelateTally {
    let total: Int
    private(set) var done = 0
    private let progress: ProgressReporter

    init(total: Int, progress: ProgressReporter) {
        self.total = total
        self.progress = progress
    }

    /// `count` more objects of `mapping` related.
    func advance(by count: Int, in mapping: EntityMapping) {
        done += count
        progress.report(.relate, mapping.name, done, total)
    }
}
