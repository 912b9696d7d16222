import MoltCore
import MoltMapping
import MoltStore

/// Pass 1: for each entity mapping, in order, each source object the mapping reads (its filter
/// applied; SQL where possible) goes to the policy's `createDestinationInstances`.
struct CopyPass {
    let state: PassState
    /// The policies' view of the state, handed to each hook.
    let manager: MigrationManager
    /// The pass's policy of each entity mapping, by mapping name.
    let policies: [String: EntityMigrationPolicy]
    let transaction: BatchTransaction
    let progress: ProgressReporter
    /// Worker threads a mapping's objects may be made on (``CopyConcurrency``); 1: in order.
    let jobs: Int

    func run(report: inout MigrationReport) throws {
        let mappings = state.mappingModel.entityMappings
        var totals: [String: Int] = [:]
        for mapping in mappings where mapping.kind.readsSource {
            // The run counted the source's objects as it began; the source is read-only and
            // locked since, so they are not counted again.
            totals[mapping.name] =
                try mapping.sourceEntityName.map {
                    try report.sourceCounts[$0] ?? state.source.count(of: $0, includingSubentities: false)
                } ?? 0
        }
        let total = totals.values.reduce(0, +)
        var done = 0
        for mapping in mappings {
            guard mapping.kind.readsSource, let policy = policies[mapping.name] else { continue }
            state.begin(mapping)
            let inOrder = CopyConcurrency.inOrderReason(
                mapping, policy: type(of: policy), compiled: state.compiledMapping(mapping), jobs: jobs)
            state.logger.debug(
                "copy: begin",
                metadata: [
                    "molt.mapping": "\(mapping.name)",
                    "molt.threads":
                        "\(inOrder ?? "\(CopyConcurrency.workers(jobs: jobs)) workers")",
                ])
            try PolicyCall.run(mapping, "begin", state: state) { try policy.begin(mapping, with: manager) }
            var read = 0
            let before = state.destinationObjectCount()
            if let entity = mapping.sourceEntityName, inOrder == nil {
                try ConcurrentCopy(
                    state: state, manager: manager, policy: policy, mapping: mapping, entity: entity,
                    filter: mapping.filter, jobs: CopyConcurrency.workers(jobs: jobs)
                ).run {
                    read += 1
                    done += 1
                    try transaction.step()
                    progress.report(.copy, mapping.name, done, total)
                }
            } else if let entity = mapping.sourceEntityName {
                try state.forEachSourceObject(of: entity, filterExpression: mapping.filter) { source in
                    try state.copying.visiting(source) {
                        try PolicyCall.run(mapping, "createDestinationInstances", object: source.id, state: state) {
                            try policy.createDestinationInstances(forSource: source, in: mapping, manager: manager)
                        }
                    }
                    read += 1
                    done += 1
                    try transaction.step()
                    progress.report(.copy, mapping.name, done, total)
                }
            }
            try PolicyCall.run(mapping, "endInstanceCreation", state: state) {
                try policy.endInstanceCreation(forMapping: mapping, manager: manager)
            }
            let made = state.destinationObjectCount() - before
            report.mappings.append(.init(mapping: mapping.name, sourceObjects: read, destinationObjects: made))
            state.logger.debug(
                "copy: end",
                metadata: ["molt.mapping": "\(mapping.name)", "molt.read": "\(read)", "molt.made": "\(made)"])
        }
        progress.report(.copy, nil, total, total, force: true)
    }
}

extension EntityMapping.Kind {
    /// Whether mappings of this kind read source objects and run a policy.
    var readsSource: Bool { self == .copy || self == .transform || self == .custom }
}
