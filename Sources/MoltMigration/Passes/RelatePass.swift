import MoltCore
import MoltMapping
import MoltStore

/// Pass 2: for each entity mapping, each destination object it made goes to the policy's
/// `createRelationships`.
///
/// When the policy keeps the default `createRelationships` and the mapping's relationship
/// values are Core Data's own form, the whole mapping is related in SQL instead
/// (``SetBasedRelate``): the same store, without a call per object. Whether a policy keeps the
/// default is learnt by calling it for the mapping's first object
/// (``MigrationManager/keepsDefaultRelationships(_:object:mapping:)``); a policy with its own
/// `createRelationships` has then simply been called for that object.
struct RelatePass {
    let manager: MigrationManager
    let transaction: BatchTransaction
    let progress: ProgressReporter
    let batchSize: Int
    /// Whether mappings may be related in SQL (off: every object goes to its policy).
    let allowsSetBased: Bool

    func run(report: inout MigrationReport) throws {
        let mappings = manager.mappingModel.entityMappings.filter {
            $0.kind.readsSource && manager.policies[$0.name] != nil
        }
        var totals: [String: Int] = [:]
        for mapping in mappings {
            totals[mapping.name] = try manager.associations.destinationCount(of: try manager.number(of: mapping.name))
        }
        let total = totals.values.reduce(0, +)
        var done = 0
        // The pass starts now, even when its first mapping is related in SQL in one go.
        progress.report(.relate, mappings.first?.name, 0, total, force: true)
        for mapping in mappings {
            let policy = manager.policies[mapping.name]!
            manager.begin(mapping)
            manager.logger.debug("relate: begin", metadata: ["molt.mapping": "\(mapping.name)"])
            let number = try manager.number(of: mapping.name)
            var after: (root: Int, primaryKey: Int64) = (0, 0)
            if allowsSetBased, manager.isSourceAttached, let plan = try SetBasedRelate.plan(mapping, manager: manager),
                let first = try manager.associations.destinations(of: number, after: after, limit: 1).first
            {
                let object = DestinationObject(id: try manager.objectID(first, in: manager.destination))
                if try manager.keepsDefaultRelationships(policy, object: object, mapping: mapping) {
                    if try manager.runInterruptibly({ try plan.run(manager: manager) }) {
                        done += totals[mapping.name] ?? 0
                        report.relatedInSQL.append(mapping.name)
                        try transaction.step()
                        progress.report(.relate, mapping.name, done, total)
                        manager.logger.debug("relate: done in SQL", metadata: ["molt.mapping": "\(mapping.name)"])
                        try endRelationshipCreation(mapping, policy)
                        continue
                    }
                    manager.logger.debug(
                        "relate: object by object (the associations need it)",
                        metadata: ["molt.mapping": "\(mapping.name)"])
                } else {
                    after = (first.root, first.primaryKey)
                    done += 1
                    try transaction.step()
                }
            }
            while true {
                let batch = try manager.associations.destinations(of: number, after: after, limit: batchSize)
                guard let last = batch.last else { break }
                after = (last.root, last.primaryKey)
                try manager.beginRelateBatch(batch, mapping: number)
                defer { manager.endRelateBatch() }
                for key in batch {
                    try manager.checkCancelled()
                    let object = DestinationObject(id: try manager.objectID(key, in: manager.destination))
                    try PolicyCall.run(mapping, "createRelationships", object: object.id) {
                        try policy.createRelationships(forDestination: object, mapping: mapping, manager: manager)
                    }
                    done += 1
                    try transaction.step()
                    progress.report(.relate, mapping.name, done, total)
                }
            }
            try endRelationshipCreation(mapping, policy)
        }
        progress.report(.relate, nil, total, total, force: true)
    }

    private func endRelationshipCreation(_ mapping: EntityMapping, _ policy: any EntityMigrationPolicy) throws {
        try PolicyCall.run(mapping, "endRelationshipCreation") {
            try policy.endRelationshipCreation(mapping, manager: manager)
        }
    }
}
